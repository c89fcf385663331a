// Reads and validates every setting once, at start. A refusal is a ConfigError
// whose message is one line naming the setting and what is wrong with it.
import { isValidZone } from './core/local-days.js';

export class ConfigError extends Error {}

export interface Config {
  /** null until resolved: with the embedded database an unset token is generated. */
  apiToken: string | null;
  defaultUserId: string | null;
  multiUser: boolean;
  timeZone: string;
  trustProxyHeaders: boolean;
  host: string;
  port: number;
  databaseUrl: string | null;
  limits: {
    queryTimeoutMs: number;
    dbConnectTimeoutMs: number;
    dbPoolSize: number;
    exportTimeLimitMs: number;
    exportIdleLimitMs: number;
    shutdownGraceMs: number;
    catalogFreshMs: number;
    catalogStaleMs: number;
    healthCacheMs: number;
  };
  workerThreads: number;
  allowUwsFallback: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

type Env = Record<string, string | undefined>;

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

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = env.DATABASE_URL || null;

  const token = env.SERVICE_API_TOKEN;
  if (token !== undefined) {
    if (token === 'change-me') throw new ConfigError('SERVICE_API_TOKEN still holds the placeholder change-me; set a secret of at least 16 characters');
    if (token.length < 16) throw new ConfigError('SERVICE_API_TOKEN must be at least 16 characters');
  } else if (databaseUrl) {
    throw new ConfigError('SERVICE_API_TOKEN is required when DATABASE_URL is set');
  }

  const userId = env.SERVICE_USER_ID || null;
  if (userId !== null && !isUuid(userId)) throw new ConfigError('SERVICE_USER_ID must be a uuid');
  if (userId === null && databaseUrl) throw new ConfigError('SERVICE_USER_ID is required when DATABASE_URL is set');

  const timeZone = env.SERVICE_TIME_ZONE || 'UTC';
  if (!isValidZone(timeZone)) throw new ConfigError(`SERVICE_TIME_ZONE must be an IANA time zone such as Europe/Berlin`);

  const host = env.SERVICE_HOST || '127.0.0.1';
  if (/\s/.test(host)) throw new ConfigError('SERVICE_HOST must be a host address');

  return {
    apiToken: token ?? null,
    defaultUserId: userId === null ? null : userId.toLowerCase(),
    multiUser: bool(env, 'SERVICE_MULTI_USER', false),
    timeZone,
    trustProxyHeaders: bool(env, 'TRUST_PROXY_HEADERS', false),
    host,
    port: integer(env, 'SERVICE_PORT', 8081, 0, 65535),
    databaseUrl,
    limits: {
      queryTimeoutMs: integer(env, 'QUERY_TIMEOUT_MS', 30_000, 1, 3_600_000),
      dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 3_000, 100, 60_000),
      dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 200),
      exportTimeLimitMs: integer(env, 'EXPORT_TIME_LIMIT_MS', 30 * 60_000, 1, 24 * 3_600_000),
      exportIdleLimitMs: integer(env, 'EXPORT_IDLE_LIMIT_MS', 60_000, 1, 3_600_000),
      shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 15_000, 0, 600_000),
      catalogFreshMs: integer(env, 'CATALOG_FRESH_MS', 5 * 60_000, 0, 24 * 3_600_000),
      catalogStaleMs: integer(env, 'CATALOG_STALE_MS', 60 * 60_000, 0, 24 * 3_600_000),
      healthCacheMs: integer(env, 'HEALTH_CACHE_MS', 2_000, 0, 60_000),
    },
    workerThreads: integer(env, 'WORKER_THREADS', 2, 1, 64),
    allowUwsFallback: bool(env, 'ALLOW_UWS_FALLBACK', false),
  };
}
