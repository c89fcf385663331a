// The sync receiver's sessions: its own login (INGEST_DATABASE_URL, the
// writer role), never the read API's read-only ones. A batch's statements
// are bounded like the reference bounds its work (INGEST.batchTimeoutMs) and
// commit durably.
import pg from 'pg';
import { INGEST } from '../limits.js';
import { withSessionOptions } from './pool.js';
import { describeError, log } from '../log.js';

export function createWriterPool(options: { connectionString: string; max: number; connectTimeoutMs: number }): pg.Pool {
  const pool = new pg.Pool({
    // A 200 tells the app the batch is stored for good (it never re-sends it), so commits wait for the WAL
    // flush whatever the cluster's default; work_mem sorts a 100,000-sample batch into key order in memory.
    ...withSessionOptions(
      options.connectionString,
      `-c statement_timeout=${INGEST.batchTimeoutMs} -c idle_in_transaction_session_timeout=${INGEST.batchTimeoutMs} -c synchronous_commit=on -c work_mem=64MB`,
    ),
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'healthd-ingest',
  });
  pool.on('connect', (client) => {
    client.on('error', (error) => log.warn('database connection lost', { pool: 'healthd-ingest', ...describeError(error) }));
  });
  pool.on('error', () => {});
  return pool;
}
