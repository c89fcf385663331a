// The upload totals /v1/users reads (migration 7): every statement that
// writes upload_batches — INSERT (a replayed batch id skipped by ON
// CONFLICT), COPY, DELETE, UPDATE, TRUNCATE — leaves per user the batches and
// declared samples stored, in a session that skips foreign-key checks too;
// folding keeps one row a user; the migration counts the rows stored before
// it; /v1/users answers from them. (The receiver's, importer's and demo's
// writes: countMismatches in their tests.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { finished } from 'node:stream/promises';
import { migrations } from '../src/db/migrations.js';
import { compactUploadTotals } from '../src/db/writes/sample-counts.js';
import { countMismatches, databaseWithClient } from './support/db.js';
import { startServer } from './support/server.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

const own = databaseWithClient((db) => db.query(`INSERT INTO users (user_id, created_at_ms) VALUES ('${A}', 1), ('${B}', 2)`));

const rowsOf = async (user: string) => Number((await own.db.query<{ n: string }>('SELECT count(*) AS n FROM upload_totals WHERE user_id = $1', [user]))[0].n);

test('every kind of write to upload_batches leaves the totals the table holds, in a replica session too', async () => {
  const c = own.client;
  await c.query(`INSERT INTO upload_batches (user_id, received_at_ms, sample_count, batch_id) SELECT $1, 1000 + i, i, gen_random_uuid() FROM generate_series(1, 50) i`, [A]);
  await c.query(`INSERT INTO upload_batches (user_id, received_at_ms, sample_count) VALUES ($1, 5000, 0), ($2, 6000, 7)`, [A, B]);
  assert.deepEqual(await countMismatches(own.db), [], 'insert');
  const [{ batch_id: replayed }] = (await c.query(`SELECT batch_id FROM upload_batches WHERE user_id = $1 AND batch_id IS NOT NULL LIMIT 1`, [A])).rows;
  await c.query(
    `INSERT INTO upload_batches (user_id, received_at_ms, sample_count, batch_id) VALUES ($1, 9000, 99, $2) ON CONFLICT (user_id, batch_id) WHERE batch_id IS NOT NULL DO NOTHING`,
    [A, replayed],
  );
  assert.deepEqual(await countMismatches(own.db), [], 'a replayed batch id');
  const copy = c.query(copyFrom('COPY upload_batches (user_id, received_at_ms, sample_count) FROM STDIN'));
  copy.end(`${B}\t7000\t10\n${B}\t7001\t20\n${A}\t7002\t0\n`);
  await finished(copy);
  assert.deepEqual(await countMismatches(own.db), [], 'copy');
  await c.query(`UPDATE upload_batches SET sample_count = sample_count + 5 WHERE user_id = $1 AND received_at_ms < 1010`, [A]);
  await c.query(`UPDATE upload_batches SET user_id = $2 WHERE user_id = $1 AND received_at_ms BETWEEN 1010 AND 1019`, [A, B]);
  assert.deepEqual(await countMismatches(own.db), [], 'update');
  await c.query(`DELETE FROM upload_batches WHERE user_id = $1 AND received_at_ms BETWEEN 1020 AND 1029`, [A]);
  assert.deepEqual(await countMismatches(own.db), [], 'delete');
  await c.query('SET session_replication_role = replica');
  try {
    await c.query(`INSERT INTO upload_batches (user_id, received_at_ms, sample_count) VALUES ($1, 8000, 1000)`, [A]);
    await c.query(`DELETE FROM upload_batches WHERE user_id = $1 AND received_at_ms = 7000`, [B]);
  } finally {
    await c.query('RESET session_replication_role');
  }
  assert.deepEqual(await countMismatches(own.db), [], 'a session skipping foreign-key checks');
  assert.ok((await rowsOf(A)) > 3, 'each statement appended a row');
});

test('folding leaves one row a user with the same sums, and skips a user another session is folding', async () => {
  const before = await countMismatches(own.db);
  assert.deepEqual(before, []);
  await compactUploadTotals(own.client, [A, B]);
  assert.deepEqual(await countMismatches(own.db), []);
  assert.equal(await rowsOf(A), 1);
  assert.equal(await rowsOf(B), 1);

  const other = new pg.Client({ connectionString: own.db.url });
  await other.connect();
  try {
    await own.client.query(`INSERT INTO upload_batches (user_id, received_at_ms, sample_count) VALUES ($1, 10000, 3)`, [A]);
    await other.query('BEGIN');
    await compactUploadTotals(other, [A]);
    await own.client.query(`INSERT INTO upload_batches (user_id, received_at_ms, sample_count) VALUES ($1, 10001, 4)`, [A]);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, 5000, 'late')));
    const settled = await Promise.race([compactUploadTotals(own.client, [A]), late]);
    clearTimeout(timer);
    assert.notEqual(settled, 'late', 'a second fold of the same user returns at once');
    await other.query('COMMIT');
  } finally {
    await other.end();
  }
  assert.deepEqual(await countMismatches(own.db), [], 'two folds');
});

test('the migration counts the batches stored before it', async () => {
  const c = own.client;
  await c.query('ALTER TABLE upload_batches DISABLE TRIGGER ALL');
  try {
    await c.query(`INSERT INTO upload_batches (user_id, received_at_ms, sample_count) SELECT $1, 20000 + i, 2 FROM generate_series(1, 30) i`, [B]);
  } finally {
    await c.query('ALTER TABLE upload_batches ENABLE TRIGGER ALL');
  }
  assert.equal((await countMismatches(own.db)).length, 1, 'rows written with the triggers off are not counted');
  const migration = migrations.find((m) => m.name === 'upload totals');
  assert.ok(migration);
  await c.query(migration.sql);
  assert.deepEqual(await countMismatches(own.db), []);
});

test('/v1/users answers the totals and the newest upload; TRUNCATE forgets every total', async () => {
  const server = await startServer({ databaseUrl: own.db.url, env: { SERVICE_MULTI_USER: 'true' } });
  try {
    const truth = await own.db.query<{ user_id: string; batches: string; samples: string; last: string }>(
      `SELECT user_id, count(*) AS batches, coalesce(sum(sample_count), 0) AS samples, max(received_at_ms) AS last FROM upload_batches GROUP BY user_id ORDER BY user_id`,
    );
    assert.equal(truth.length, 2);
    const body = (await (await server.get('/v1/users')).json()) as { users: { userID: string; batches: number; uploadedSamples: number; lastSync: number | null }[] };
    for (const row of truth) {
      const user = body.users.find((u) => u.userID === row.user_id);
      assert.deepEqual(
        { batches: user?.batches, uploadedSamples: user?.uploadedSamples, lastSync: user?.lastSync },
        { batches: Number(row.batches), uploadedSamples: Number(row.samples), lastSync: Number(row.last) },
      );
    }
    await own.client.query('TRUNCATE upload_batches');
    assert.deepEqual(await own.db.query('SELECT * FROM upload_totals'), []);
    const after = (await (await server.get('/v1/users')).json()) as typeof body;
    assert.deepEqual(after.users.map((u) => [u.batches, u.uploadedSamples, u.lastSync]), [[0, 0, null], [0, 0, null]]);
  } finally {
    await server.stop();
  }
});
