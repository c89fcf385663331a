// Every environment variable healthd reads, read here and nowhere else, once,
// at start. A refusal is a ConfigError whose message is one line naming the
// setting and what is wrong with it. The server, `npm run import`, `npm run
// demo` and `npm run migrate` each take the group of settings they use.
import { resolve } from 'node:path';
import { isValidZone, zoneSpelling } from './core/local-days.js';
import { canonicalUuid } from './core/uuid.js';
import { TUNABLES, type Tunables } from './limits.js';

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Where the data lives: your PostgreSQL, or the embedded cluster under `dataDir`. */
export interface DatabaseSettings {
  /** DATABASE_URL; null means the embedded cluster. */
  url: string | null;
  /** HEALTHD_DATA_DIR: the embedded cluster, its secrets and generated tokens. */
  dataDir: string;
  /** EMBEDDED_PG_PORT. */
  embeddedPort: number;
}

export interface Config {
  /** null until resolved: with the embedded database an unset token is generated. */
  apiToken: string | null;
  defaultUserId: string | null;
  multiUser: boolean;
  /** SERVICE_TIME_ZONE, or UTC when unset (then the stored zone, once read: servingZone). */
  timeZone: string;
  /** Whether SERVICE_TIME_ZONE was set: unset, a command follows the zone stored in the database. */
  timeZoneSet: boolean;
  trustProxyHeaders: boolean;
  /** SERVICE_CORS_ORIGINS: browser origins (scheme://host[:port]) allowed to call the API; empty means no CORS. */
  corsOrigins: readonly string[];
  host: string;
  port: number;
  /** SERVICE_SHARE_PORT: several processes may listen on the same ports (SO_REUSEPORT); otherwise a port in use is refused. */
  sharePort: boolean;
  /** SERVICE_MCP_PORT: the MCP server's listener on `host`; null when `off`. */
  mcpPort: number | null;
  database: DatabaseSettings;
  /** The tunable limits as configured (limits.ts). */
  limits: Tunables;
  dbPoolSize: number;
  dbConnectTimeoutMs: number;
  workerThreads: number;
  allowUwsFallback: boolean;
  /** The sync receiver's settings. */
  ingest: IngestSettings;
}

/** The sync receiver (Puls Sync Protocol v1): its listener, shared upload secret and database login. */
export interface IngestSettings {
  /** SERVICE_UPLOAD_TOKEN; null until resolved (generated with the embedded database, else only device tokens). */
  uploadToken: string | null;
  /** SERVICE_INGEST_PORT, on SERVICE_HOST. */
  port: number;
  /** INGEST_DATABASE_URL (default DATABASE_URL); null means the embedded cluster's writer login. */
  databaseUrl: string | null;
  /** INGEST_DB_POOL_SIZE: batches stored at once (the app sends up to 8 at a time). */
  poolSize: number;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  }
  return Number(raw);
}

function uuid(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  const canonical = canonicalUuid(raw);
  if (canonical === null) throw new ConfigError(`${name} must be a uuid`);
  return canonical;
}

/**
 * SERVICE_CORS_ORIGINS: comma-separated exact origins, as a browser sends them
 * in `Origin` (https://dash.example.org, http://localhost:3000). `*`, a path
 * or a trailing slash would never match, so they are refused rather than
 * silently allowing nothing.
 */
function corsOrigins(env: Env): string[] {
  const raw = env.SERVICE_CORS_ORIGINS;
  if (raw === undefined || raw.trim() === '') return [];
  return [...new Set(raw.split(',').map((item) => item.trim()).filter((item) => item !== ''))].map((origin) => {
    let url: URL | null = null;
    try {
      url = new URL(origin);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError(`SERVICE_CORS_ORIGINS must list exact origins such as https://dash.example.org (scheme, lowercase host, optional port; no path, no trailing slash, no *): ${JSON.stringify(origin).slice(0, 80)} is not one`);
    }
    return url.origin;
  });
}

function timeZone(env: Env): string {
  const zone = env.SERVICE_TIME_ZONE || 'UTC';
  if (!isValidZone(zone)) throw new ConfigError('SERVICE_TIME_ZONE must be an IANA time zone such as Europe/Berlin');
  return zoneSpelling(zone);
}

/** SERVICE_TIME_ZONE (UTC when unset), and whether it was set: unset, a command follows the stored zone (servingZone). */
const zoneSetting = (env: Env): { timeZone: string; timeZoneSet: boolean } => ({ timeZone: timeZone(env), timeZoneSet: Boolean(env.SERVICE_TIME_ZONE) });

/** SERVICE_MCP_PORT: a port (0 picks a free one) none of the other listeners has, or `off`. */
function mcpPort(env: Env, others: Readonly<Record<string, number>>): number | null {
  if (env.SERVICE_MCP_PORT === 'off') return null;
  let port: number;
  try {
    port = integer(env, 'SERVICE_MCP_PORT', 8082, 0, 65535);
  } catch {
    throw new ConfigError('SERVICE_MCP_PORT must be an integer from 0 to 65535, or off');
  }
  for (const [name, other] of Object.entries(others)) {
    if (port !== 0 && port === other) throw new ConfigError(`SERVICE_MCP_PORT must differ from ${name}`);
  }
  return port;
}

/** SERVICE_HOST as a URL writes it: an IPv6 address in brackets. */
export const hostInUrl = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

export const DEFAULT_EMBEDDED_PORT = 54329;

/**
 * A connection string setting, when set: a URL node-postgres reads
 * (postgres://user:password@host:port/database). Refused in one line naming
 * the setting, never quoting it (it holds a password).
 */
export function connectionUrl(env: Env, name: string): string | null {
  const value = env[name];
  if (!value) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // refused below
  }
  if (url === null || !['postgres:', 'postgresql:', 'socket:'].includes(url.protocol)) {
    throw new ConfigError(`${name} must be a connection URL such as postgres://user:password@host:5432/database (a port from 1 to 65535; characters such as @ : / in the password percent-encoded)`);
  }
  return value;
}

export function loadDatabaseSettings(env: Env = process.env): DatabaseSettings {
  return {
    url: connectionUrl(env, 'DATABASE_URL'),
    dataDir: resolve(env.HEALTHD_DATA_DIR || 'data'),
    embeddedPort: integer(env, 'EMBEDDED_PG_PORT', DEFAULT_EMBEDDED_PORT, 1, 65535),
  };
}

/** A token's rules, wherever it was set (`where`: the setting, or the file holding it). */
export function checkSecret(where: string, value: string): void {
  if (value === 'change-me') throw new ConfigError(`${where} still holds the placeholder change-me; set a secret of at least 16 characters`);
  if (value.length < 16) throw new ConfigError(`${where} must be at least 16 characters`);
  // A bearer token travels in a header as one word: a space, a control character or a non-ASCII one could never be presented.
  if (!/^[\x21-\x7e]+$/.test(value)) throw new ConfigError(`${where} must hold only visible ASCII characters (no spaces): a bearer token with others can never be presented`);
}

function secret(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  checkSecret(name, value);
  return value;
}

/** The receiver's group; `apiToken` is SERVICE_API_TOKEN, which an upload secret may never equal. */
export function loadIngestSettings(env: Env, apiToken: string | undefined, database: DatabaseSettings): IngestSettings {
  const uploadToken = secret(env, 'SERVICE_UPLOAD_TOKEN');
  if (uploadToken !== undefined && uploadToken === apiToken) {
    throw new ConfigError('SERVICE_UPLOAD_TOKEN must differ from SERVICE_API_TOKEN (an upload token may only upload, a read token only read)');
  }
  return {
    uploadToken: uploadToken ?? null,
    port: integer(env, 'SERVICE_INGEST_PORT', 8080, 0, 65535),
    databaseUrl: connectionUrl(env, 'INGEST_DATABASE_URL') ?? database.url,
    poolSize: integer(env, 'INGEST_DB_POOL_SIZE', 8, 1, 100),
  };
}

function tunables(env: Env): Tunables {
  const entries = Object.entries(TUNABLES).map(([name, t]) => [name, integer(env, t.setting, t.default, t.min, t.max)]);
  return Object.fromEntries(entries) as unknown as Tunables;
}

/** The server's settings (`npm start`). */
export function loadConfig(env: Env = process.env): Config {
  const database = loadDatabaseSettings(env);

  const token = secret(env, 'SERVICE_API_TOKEN');
  if (token === undefined && database.url) throw new ConfigError('SERVICE_API_TOKEN is required when DATABASE_URL is set');

  const userId = uuid(env, 'SERVICE_USER_ID');
  if (userId === null && database.url) throw new ConfigError('SERVICE_USER_ID is required when DATABASE_URL is set');

  const host = env.SERVICE_HOST || '127.0.0.1';
  if (/\s/.test(host)) throw new ConfigError('SERVICE_HOST must be a host address');
  const port = integer(env, 'SERVICE_PORT', 8081, 0, 65535);
  const ingest = loadIngestSettings(env, token, database);
  if (port !== 0 && ingest.port === port) throw new ConfigError('SERVICE_INGEST_PORT must differ from SERVICE_PORT (the receiver has its own listener)');

  const sharePort = bool(env, 'SERVICE_SHARE_PORT', false);
  if (sharePort && !database.url) {
    throw new ConfigError('SERVICE_SHARE_PORT=true needs DATABASE_URL: processes sharing the ports share one PostgreSQL, and the embedded one belongs to the process that started it');
  }

  return {
    apiToken: token ?? null,
    defaultUserId: userId,
    multiUser: bool(env, 'SERVICE_MULTI_USER', false),
    ...zoneSetting(env),
    trustProxyHeaders: bool(env, 'TRUST_PROXY_HEADERS', false),
    corsOrigins: corsOrigins(env),
    host,
    port,
    sharePort,
    mcpPort: mcpPort(env, { SERVICE_PORT: port, SERVICE_INGEST_PORT: ingest.port }),
    database,
    limits: tunables(env),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 200),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 3_000, 100, 60_000),
    workerThreads: integer(env, 'WORKER_THREADS', 2, 1, 64),
    allowUwsFallback: bool(env, 'ALLOW_UWS_FALLBACK', false),
    ingest,
  };
}

/** `npm run import`: the user and zone it imports for, and where it writes. */
export interface ImportSettings {
  /** SERVICE_USER_ID, when set (`--user` overrides it). */
  userId: string | null;
  timeZone: string;
  timeZoneSet: boolean;
  /** HEALTHD_IMPORT_BATCH_ROWS: most samples per committed batch; undefined for the importer's default. */
  batchRows: number | undefined;
  database: DatabaseSettings;
}

export function loadImportSettings(env: Env = process.env): ImportSettings {
  const batchRows = integer(env, 'HEALTHD_IMPORT_BATCH_ROWS', 0, 1, 10_000_000);
  return { userId: uuid(env, 'SERVICE_USER_ID'), ...zoneSetting(env), batchRows: batchRows || undefined, database: loadDatabaseSettings(env) };
}

/** `npm run migrate` and `npm run demo`: the database they write, which must be named. */
export function loadDatabaseUrl(env: Env = process.env): string {
  const databaseUrl = connectionUrl(env, 'DATABASE_URL');
  if (databaseUrl === null) throw new ConfigError('DATABASE_URL must be set (the database to write)');
  return databaseUrl;
}

/** SERVICE_TIME_ZONE alone (`npm run demo` cuts its days in it unless told another zone). */
export function loadTimeZone(env: Env = process.env): string {
  return timeZone(env);
}
