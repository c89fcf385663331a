// The API's connection pools. Every session is read-only and carries the
// statement timeout (→ 504); connecting is bounded so a dead database gives a
// prompt 500, not a hang. Exports get their own small pool without the timeout.
import pg from 'pg';
import { describeError, log } from '../log.js';

// bigint (int8) and numeric arrive as strings by default; our bigints are epoch
// ms and counts, all far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export interface PoolOptions {
  connectionString: string;
  max: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  applicationName: string;
}

export function createReadOnlyPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName,
    options: `-c default_transaction_read_only=on -c statement_timeout=${options.statementTimeoutMs}`,
  });
  // An idle client whose server went away emits 'error'; without a listener
  // that would crash the process. The pool drops the client by itself.
  pool.on('error', (error) => log.warn('idle database connection lost', describeError(error)));
  return pool;
}
