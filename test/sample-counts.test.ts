// The sample counts the catalog reads (migration 6): every statement that
// writes samples — INSERT (duplicates skipped by ON CONFLICT), COPY, DELETE,
// UPDATE, TRUNCATE — leaves per user and type the number of samples stored;
// a bulk writer skipping the foreign-key checks skips them too and recounts;
// folding keeps the sums in one row per type; writers in concurrent
// transactions never wait for one another. (The receiver's own counting:
// ingest-batches.test.ts and ingest-fixtures.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { finished } from 'node:stream/promises';
import { beginUncountedWrites, compactSampleCounts, endUncountedWrites, recountSamples, recoverStaleCounts } from '../src/db/writes/sample-counts.js';
import { catalogRows } from '../src/db/queries/catalog.js';
import { skipForeignKeyChecks } from '../src/db/writes/bulk-load.js';
import { countMismatches, databaseWithClient } from './support/db.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const uuid = (n: number) => `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const own = databaseWithClient((db) =>
  own.db.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, 'HKQuantityTypeIdentifierHeartRate'), (2, 'HKQuantityTypeIdentifierStepCount'), (3, 'HKCategoryTypeIdentifierSleepAnalysis')`),
);

/** Sums of the counts and true counts, per user and type, both sorted. */
async function countsAndTruth(): Promise<{ counts: string[]; truth: string[] }> {
  const counts = await own.db.query<{ k: string }>(
    `SELECT user_id || ' ' || type_id || ' ' || sum(n) AS k FROM sample_counts GROUP BY user_id, type_id HAVING sum(n) <> 0 ORDER BY 1`,
  );
  const truth = await own.db.query<{ k: string }>(`SELECT user_id || ' ' || type_id || ' ' || count(*) AS k FROM samples GROUP BY user_id, type_id ORDER BY 1`);
  return { counts: counts.map((r) => r.k), truth: truth.map((r) => r.k) };
}

/** Whether `work` settles within `ms` (the timer cleared either way). */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function assertCounted(message: string): Promise<void> {
  const { counts, truth } = await countsAndTruth();
  assert.ok(truth.length > 0 || message.includes('truncate'), `${message}: there are samples`);
  assert.deepEqual(counts, truth, message);
}

/** Samples i = from…to (uuid and start from i) of type `type` (SQL over i), skipping uuids already stored. */
const insertSql = (user: string, from: number, to: number, type: string) =>
  `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value)
   SELECT '${user}', ('10000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, ${type}, i * 1000, i * 1000, i
   FROM generate_series(${from}, ${to}) i ON CONFLICT DO NOTHING`;
const MIXED = '1 + i % 3';

test('every kind of write to samples leaves the counts the table holds', async () => {
  await own.client.query(insertSql(A, 1, 300, MIXED));
  await assertCounted('insert');
  await own.client.query(insertSql(A, 250, 400, MIXED)); // 51 already stored: skipped, not counted
  await assertCounted('insert with duplicates skipped');
  await own.client.query(insertSql(B, 1000, 1099, '1'));
  await assertCounted('another user');

  const copy = own.client.query(copyFrom('COPY samples (user_id, uuid, type_id, start_ms, end_ms, value) FROM STDIN'));
  copy.end(Array.from({ length: 40 }, (_, i) => `${B}\t${uuid(5000 + i)}\t${1 + (i % 2)}\t${i}\t${i}\t1\n`).join(''));
  await finished(copy);
  await assertCounted('COPY');

  await own.client.query(`DELETE FROM samples WHERE user_id = $1 AND start_ms < 120000`, [A]);
  await assertCounted('delete');
  await own.client.query(`UPDATE samples SET type_id = 3 WHERE user_id = $1 AND type_id = 2 AND start_ms < 200000`, [A]);
  await own.client.query(`UPDATE samples SET user_id = $2 WHERE user_id = $1 AND type_id = 1 AND start_ms > 390000`, [A, B]);
  await own.client.query(`UPDATE samples SET value = value + 1 WHERE user_id = $1`, [B]);
  await assertCounted('update of type, user and value');

  // A rolled-back write leaves nothing behind.
  await own.client.query('BEGIN');
  await own.client.query(insertSql(A, 2000, 2100, '1'));
  await own.client.query('ROLLBACK');
  await assertCounted('rollback');
});

test('a login that may not set session_replication_role is not made to try (a refused SET is an ERROR in PostgreSQL\'s log for every session)', async () => {
  const login = `no_replica_${process.pid}`;
  await own.db.query(`CREATE ROLE ${login} LOGIN PASSWORD 'pw-${process.pid}'`);
  const url = new URL(own.db.url);
  url.username = login;
  url.password = `pw-${process.pid}`;
  const session = new pg.Client({ connectionString: url.toString() });
  await session.connect();
  const sent: string[] = [];
  const query = session.query.bind(session) as (...args: unknown[]) => unknown;
  (session as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    sent.push(String(args[0]));
    return query(...args);
  };
  try {
    assert.equal(await skipForeignKeyChecks(session, 'samples'), false);
    assert.deepEqual(sent.filter((text) => /SET session_replication_role/.test(text)), []);
  } finally {
    await session.end();
    await own.db.query(`DROP ROLE ${login}`);
  }
});

test('a session that skips foreign-key checks skips the counting too; a recount then makes the counts right', async () => {
  const session = new pg.Client({ connectionString: own.db.url });
  await session.connect();
  const before = await countsAndTruth();
  try {
    assert.equal(await skipForeignKeyChecks(session, 'samples'), true, 'the count triggers do not stop a bulk writer skipping the checks');
    assert.equal((await session.query('SHOW session_replication_role')).rows[0].session_replication_role, 'replica');
    await session.query(insertSql(A, 3000, 3199, MIXED));
    await session.query(`DELETE FROM samples WHERE user_id = $1 AND start_ms >= 3100000 AND start_ms < 3150000`, [A]);
  } finally {
    await session.end();
  }
  const after = await countsAndTruth();
  assert.deepEqual(after.counts, before.counts, 'nothing counted for the replica session');
  assert.notDeepEqual(after.truth, before.truth);
  await recountSamples(own.client, [A, B]);
  await assertCounted('recounted');
});

test('folding leaves one row per type with the same sums, and skips a user another session is folding', async () => {
  await own.client.query(insertSql(A, 3500, 3599, MIXED));
  await own.client.query(`DELETE FROM samples WHERE user_id = $1 AND start_ms >= 3500000 AND start_ms < 3520000`, [A]);
  const before = await countsAndTruth();
  const rowsOf = async (user: string) => Number((await own.db.query<{ n: string }>('SELECT count(*) AS n FROM sample_counts WHERE user_id = $1', [user]))[0].n);
  assert.ok((await rowsOf(A)) > 3, 'writes appended several rows');
  await compactSampleCounts(own.client, [A, B]);
  assert.deepEqual(await countsAndTruth(), before);
  assert.equal(await rowsOf(A), 3);

  // While one transaction holds A's fold, a second fold of A does nothing and does not wait.
  const other = new pg.Client({ connectionString: own.db.url });
  await other.connect();
  try {
    await own.client.query(insertSql(A, 4000, 4010, '1'));
    await other.query('BEGIN');
    await compactSampleCounts(other, [A]);
    await own.client.query(insertSql(A, 4020, 4030, '1'));
    assert.ok(await settlesWithin(compactSampleCounts(own.client, [A]), 5000), 'a second fold of the same user returns at once');
    await other.query('COMMIT');
  } finally {
    await other.end();
  }
  await assertCounted('two folds');
});

test('writers in concurrent transactions append without waiting for each other', async () => {
  const first = new pg.Client({ connectionString: own.db.url });
  const second = new pg.Client({ connectionString: own.db.url });
  await first.connect();
  await second.connect();
  try {
    await first.query('BEGIN');
    await first.query(insertSql(A, 6000, 6100, MIXED));
    await second.query('BEGIN');
    const done = second.query(insertSql(A, 7000, 7100, MIXED)).then(() => second.query(`DELETE FROM samples WHERE user_id = $1 AND start_ms BETWEEN 1000 AND 1002000`, [B]));
    assert.ok(await settlesWithin(done, 5000), 'the second writer does not wait for the first to commit');
    await second.query('COMMIT');
    await compactSampleCounts(first, [A]); // a fold inside the first transaction sees its own rows and the second's committed ones
    await first.query('COMMIT');
  } finally {
    await first.end();
    await second.end();
  }
  await assertCounted('concurrent writers');
});

test('a user marked stale is counted by the catalog itself; the mark outlives a killed writer until a recovery recounts, never while a writer is at it', async () => {
  const rawOf = async (client: pg.ClientBase) => (await catalogRows(client, A)).map((row) => `${row.identifier} ${row.rawRows}`);
  const truth = async () =>
    (await own.db.query<{ k: string }>(
      `SELECT t.identifier || ' ' || count(*) AS k FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 GROUP BY t.identifier ORDER BY t.identifier`,
      [A],
    )).map((row) => row.k);
  const writer = new pg.Client({ connectionString: own.db.url });
  await writer.connect();
  await beginUncountedWrites(writer, A);
  await writer.query('SET session_replication_role = replica');
  await writer.query(insertSql(A, 9000, 9400, MIXED));
  assert.notDeepEqual(await countMismatches(own.db), [], 'the writer skipped the counting triggers');
  const reader = own.client;
  assert.deepEqual((await rawOf(reader)).sort(), await truth(), 'the catalog counts a user marked stale itself');
  assert.deepEqual(await recoverStaleCounts(reader), [], 'no recovery while the writer is at it');
  await writer.end(); // killed: no recount, no end
  assert.equal((await own.db.query('SELECT 1 FROM stale_sample_counts WHERE user_id = $1', [A])).length, 1, 'the mark outlives it');
  assert.deepEqual((await rawOf(reader)).sort(), await truth());
  assert.deepEqual(await recoverStaleCounts(reader), [A]);
  assert.deepEqual(await own.db.query('SELECT * FROM stale_sample_counts'), []);
  assert.deepEqual(await countMismatches(own.db), [], 'recovered: the counts are the samples stored');

  // Two writers of one user: the first to end leaves the mark to the other, which clears it.
  const [first, second] = [new pg.Client({ connectionString: own.db.url }), new pg.Client({ connectionString: own.db.url })];
  await first.connect();
  await second.connect();
  try {
    await beginUncountedWrites(first, A);
    await beginUncountedWrites(second, A);
    await recountSamples(first, [A]);
    await endUncountedWrites(first, A);
    assert.equal((await own.db.query('SELECT 1 FROM stale_sample_counts WHERE user_id = $1', [A])).length, 1, 'kept while the second writes');
    await recountSamples(second, [A]);
    await endUncountedWrites(second, A);
    assert.deepEqual(await own.db.query('SELECT * FROM stale_sample_counts'), []);
  } finally {
    await first.end();
    await second.end();
  }
});

test('TRUNCATE forgets every count', async () => {
  await own.client.query('TRUNCATE samples');
  await assertCounted('truncate');
  assert.deepEqual(await own.db.query('SELECT * FROM sample_counts'), []);
});
