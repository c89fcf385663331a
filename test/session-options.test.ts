// A connection string may carry its own `options` (a search_path, say). pg lets
// them replace a pool's, which dropped the read API's read-only sessions and
// statement timeout and the receiver's durable commits: on the real cluster,
// the string's options are kept and healthd's win over any they contradict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadOnlyPool } from '../src/db/pool.js';
import { createWriterPool } from '../src/db/writer-pool.js';
import { INGEST } from '../src/limits.js';
import { fileDatabase } from './support/db.js';

const file = fileDatabase();

/** The URL with `options` that set search_path and try to undo healthd's settings. */
function withTheirOptions(url: string): string {
  const withOptions = new URL(url);
  withOptions.searchParams.set('options', '-c search_path=public,pg_catalog -c default_transaction_read_only=off -c statement_timeout=0 -c plan_cache_mode=force_custom_plan -c synchronous_commit=off');
  return withOptions.toString();
}

test("the read API's sessions stay read-only with their statement timeout and generic plans, the string's own options kept", async () => {
  const pool = createReadOnlyPool({ connectionString: withTheirOptions(file.db.url), max: 1, statementTimeoutMs: 12_345, connectTimeoutMs: 3_000, applicationName: 'test' });
  try {
    const { rows } = await pool.query(
      `SELECT current_setting('default_transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout,
              current_setting('plan_cache_mode') AS plans, current_setting('search_path') AS path`,
    );
    assert.deepEqual(rows[0], { ro: 'on', timeout: '12345ms', plans: 'force_generic_plan', path: 'public,pg_catalog' });
    await assert.rejects(pool.query('CREATE TABLE must_not_exist (x int)'), /read-only transaction/);
  } finally {
    await pool.end();
  }
});

test("the receiver's sessions keep their batch timeout and durable commits", async () => {
  const pool = createWriterPool({ connectionString: withTheirOptions(file.db.url), max: 1, connectTimeoutMs: 3_000 });
  try {
    const { rows } = await pool.query(`SELECT current_setting('statement_timeout') AS timeout, current_setting('synchronous_commit') AS sync, current_setting('search_path') AS path`);
    assert.deepEqual(rows[0], { timeout: `${INGEST.batchTimeoutMs / 60_000}min`, sync: 'on', path: 'public,pg_catalog' });
  } finally {
    await pool.end();
  }
});
