// The sync receiver beside the read API (`npm start`): started when an upload
// token exists — SERVICE_UPLOAD_TOKEN (generated with the embedded database)
// or any device token, including one issued while the server runs. It gets
// its own listener, its own writer pool, and the read API's failed-auth
// throttle; it claims the zone that cuts stored days, and refuses to start
// when its login lacks the writer role's privileges.
import type pg from 'pg';
import { ConfigError, hostInUrl } from '../config.js';
import { missingWritePrivileges } from '../db/writes/ingest.js';
import { claimTimeZone, zoneMismatch } from '../db/writes/setup.js';
import { createWriterPool } from '../db/writer-pool.js';
import type { FailedAuthThrottle } from '../http/throttle.js';
import type { Uws } from '../http/uws.js';
import { NameIds } from '../ingest/names.js';
import { createIngestServer, type IngestServer } from '../ingest/server.js';
import { PROTOCOL_DEFAULT_USER, TOKEN_REFRESH_MS } from '../limits.js';
import { databaseFailure } from '../db/migrate.js';
import { describeError, log } from '../log.js';
import type { ResolvedConfig } from '../services.js';
import { uploadAuthenticator, type TokenStore } from '../tokens/store.js';
import { sameZone } from '../core/local-days.js';

export interface RunningReceiver {
  server: IngestServer;
  port: number;
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface ReceiverParts {
  /** The writer login (INGEST_DATABASE_URL, or the embedded healthd_ingest). */
  databaseUrl: string;
  tokens: TokenStore;
  /** The read API's: one allowance per address across both ports. */
  throttle: FailedAuthThrottle;
}

/**
 * Starts the receiver now when an upload token exists (a failure refuses the
 * start), else once the first device token is issued (announced then, no
 * restart needed). A start that fails then (a login without the writer role,
 * the port taken) is logged and tried again at each re-read of the tokens, so
 * that granting the role or freeing the port is enough. Answers a getter of
 * the running receiver, or null.
 */
export async function receiverBeside(uws: Uws, config: ResolvedConfig, parts: ReceiverParts): Promise<ReceiverHandle> {
  let running: RunningReceiver | null = null;
  /** Set when the server stops: no start from then on, and one under way is closed as it comes up. */
  let stopped = false;
  if (config.ingest.uploadToken !== null || parts.tokens.hasUploadTokens) {
    running = await startReceiver(uws, config, parts);
  } else {
    let starting = false;
    let lastFailure = '';
    parts.tokens.whileUploadTokens(() => {
      if (running || starting || stopped) return;
      starting = true;
      startReceiver(uws, config, parts).then(
        (started) => {
          starting = false;
          if (stopped) {
            started.server.stopListening();
            void started.close();
            return;
          }
          running = started;
          process.stdout.write(receiverBanner(config, started.port, false));
        },
        (error) => {
          starting = false;
          const fields = error instanceof ConfigError ? { error: error.message } : describeError(error);
          // Once per cause, not at every re-read.
          if (fields.error !== lastFailure) log.error(RECEIVER_RETRY, fields);
          lastFailure = String(fields.error);
        },
      );
    });
  }
  return Object.assign(() => running, { stopStarting: () => void (stopped = true) });
}

/** The running receiver, or null; `stopStarting` (at shutdown) ends the tries to start one. */
export interface ReceiverHandle {
  (): RunningReceiver | null;
  stopStarting(): void;
}

export const RECEIVER_RETRY = `could not start the sync receiver for the device tokens; tried again every ${TOKEN_REFRESH_MS / 1000} s`;

export async function startReceiver(uws: Uws, config: ResolvedConfig, parts: ReceiverParts): Promise<RunningReceiver> {
  const pool = createWriterPool({ connectionString: parts.databaseUrl, max: config.ingest.poolSize, connectTimeoutMs: config.dbConnectTimeoutMs });
  // New type and source names commit on their own sessions while every batch session may be busy in its transaction.
  const namesPool = createWriterPool({ connectionString: parts.databaseUrl, max: 2, connectTimeoutMs: config.dbConnectTimeoutMs });
  try {
    let missing: string[];
    try {
      missing = await missingWritePrivileges(pool);
    } catch (error) {
      throw new ConfigError(`INGEST_DATABASE_URL: cannot use the database (${databaseFailure(error)})`);
    }
    if (missing.length > 0) {
      throw new ConfigError(`INGEST_DATABASE_URL: its login lacks ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}; grant it the healthd_writer role`);
    }
    // healthd_writer has no TRUNCATE: a login that has it owns the tables or is a superuser (said once listening).
    const ownsTables = config.database.url !== null && (await pool.query<{ owns: boolean }>(`SELECT has_table_privilege('samples', 'TRUNCATE') AS owns`)).rows[0].owns;
    const zone = await claimTimeZone(pool, config.timeZone);
    if (!sameZone(zone, config.timeZone)) throw new ConfigError(await zoneMismatch(pool, config.timeZone, zone, !config.database.url));
    const server = createIngestServer(uws, {
      store: { pool, names: new NameIds(namesPool), timeZone: config.timeZone },
      authenticate: uploadAuthenticator(parts.tokens, config.ingest.uploadToken),
      throttle: parts.throttle,
      trustProxyHeaders: config.trustProxyHeaders,
      sharePort: config.sharePort,
    });
    let port: number;
    try {
      port = await server.listen(config.host, config.ingest.port);
    } catch (error) {
      throw new ConfigError(`SERVICE_INGEST_PORT: ${(error as Error).message}`);
    }
    if (ownsTables) log.warn("INGEST_DATABASE_URL's login (DATABASE_URL's when unset) owns the tables or is a superuser: give the receiver a login of its own in healthd_writer (README: Your own PostgreSQL)");
    return { server, port, pool, close: () => Promise.all([pool.end(), namesPool.end()]).then(() => {}) };
  } catch (error) {
    await Promise.all([pool.end().catch(() => {}), namesPool.end().catch(() => {})]);
    throw error;
  }
}

/** What the start-up prints about the receiver: its URL, the upload token (embedded only) and whose data the app writes. */
/** What the banner says in place of a token the operator set. */
export const NOT_SHOWN = (setting: string): string => `set by ${setting} (not shown)`;

/** The receiver's lines of the banner; the upload token shown when it was generated (`showToken`), else where it was set. */
export function receiverBanner(config: ResolvedConfig, port: number, showToken: boolean): string {
  const url = `http://${hostInUrl(config.host)}:${port}`;
  const lines = [`healthd receiver listening on ${url} (Puls Sync Protocol v1; point the PulsHealth app here)`];
  if (config.ingest.uploadToken) lines.push(`  upload token: ${showToken ? config.ingest.uploadToken : NOT_SHOWN('SERVICE_UPLOAD_TOKEN')}`);
  const readAs =
    config.defaultUserId === PROTOCOL_DEFAULT_USER
      ? 'the read API serves it by default'
      : `read it with SERVICE_USER_ID=${PROTOCOL_DEFAULT_USER}, or user=${PROTOCOL_DEFAULT_USER} with SERVICE_MULTI_USER=true`;
  lines.push(`  the app uploads as ${PROTOCOL_DEFAULT_USER} unless its User ID is set; ${readAs}`);
  return lines.join('\n') + '\n';
}
