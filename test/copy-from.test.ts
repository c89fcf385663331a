// The COPY … FROM STDIN stream every bulk writer uses (copyFromStdin, src/db/
// writes/bulk-load.ts): once its COPY has failed — here its session ended
// under it, as when the database goes away mid-import — a later write goes
// nowhere instead of throwing outside any handler, which killed the process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { copyFromStdin } from '../src/db/writes/bulk-load.js';
import { fileDatabase } from './support/db.js';

const file = fileDatabase();

test('a COPY whose session ended reports that, and a write after it neither throws nor reaches the connection', async () => {
  const client = new pg.Client({ connectionString: file.db.url });
  await client.connect();
  const clientErrors: unknown[] = [];
  client.on('error', (error) => clientErrors.push(error));
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await client.query('CREATE TEMP TABLE copied (x int)');
    const copy = client.query(copyFromStdin('COPY copied (x) FROM STDIN'));
    const failed = new Promise<Error>((resolve) => copy.once('error', resolve));
    // Its callback comes once PostgreSQL has started the COPY and the row went out.
    await new Promise<void>((resolve, reject) => copy.write('1\n', (error) => (error ? reject(error) : resolve())));

    await file.db.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    const error = (await failed) as Error & { code?: string };
    assert.equal(error.code, '57P01', 'the COPY fails with its session, as terminated');

    assert.doesNotThrow(() => copy.write('2\n'));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    await client.end().catch(() => {});
  }
});
