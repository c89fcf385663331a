// Issue 3 "no sequential scan of samples at any size": every data route is
// called over HTTP on a table big enough for the planner to have a choice, and
// PostgreSQL's own counter of sequential scans on `samples` must not move.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const WORKOUT = '10000000-0000-4000-8000-000000000001';
const TYPES = [
  'HKQuantityTypeIdentifierHeartRate',
  'HKQuantityTypeIdentifierStepCount',
  'HKQuantityTypeIdentifierBodyMass',
  'HKQuantityTypeIdentifierBodyFatPercentage',
  'HKQuantityTypeIdentifierRestingHeartRate',
  'HKQuantityTypeIdentifierHeartRateVariabilitySDNN',
  'HKCategoryTypeIdentifierSleepAnalysis',
];

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await db.query(`INSERT INTO users VALUES ($1, 0), ($2, 0)`, [DEFAULT_USER, OTHER_USER]);
  await db.query(`INSERT INTO sample_types (identifier) SELECT unnest($1::text[])`, [TYPES]);
  await db.query(`INSERT INTO sources (name) VALUES ('Watch'), ('Phone')`);
  // 2 users × 7 types × 60 days × 120 samples a day = 100,800 samples.
  await db.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT u, gen_random_uuid(), t.type_id, $1::bigint + d::bigint * ${DAY} + i * 720000, $1::bigint + d::bigint * ${DAY} + i * 720000 + 60000,
            CASE WHEN t.identifier LIKE 'HKCategory%' THEN i % 6 ELSE 50 + i END, 1 + i % 2
     FROM unnest(ARRAY[$2::uuid, $3::uuid]) u, sample_types t, generate_series(0, 59) d, generate_series(0, 119) i`,
    [T0, DEFAULT_USER, OTHER_USER],
  );
  await db.query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg, min, max)
     SELECT u, t.type_id, DATE '2026-01-01' + d, 100, 60, 40, 90
     FROM unnest(ARRAY[$1::uuid, $2::uuid]) u, sample_types t, generate_series(0, 59) d`,
    [DEFAULT_USER, OTHER_USER],
  );
  await db.query(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s)
     SELECT $1, CASE WHEN d = 0 THEN $3::uuid ELSE gen_random_uuid() END, 'running', $2::bigint + d::bigint * ${DAY}, $2::bigint + d::bigint * ${DAY} + 1800000, 1800
     FROM generate_series(0, 59) d`,
    [DEFAULT_USER, T0, WORKOUT],
  );
  await db.query(
    `INSERT INTO workout_streams SELECT $1, $2, type_id, ARRAY(SELECT $3::bigint + g * 1000 FROM generate_series(0, 1799) g), ARRAY(SELECT 120 + g % 30 FROM generate_series(0, 1799) g)
     FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierHeartRate'`,
    [DEFAULT_USER, WORKOUT, T0],
  );
  await db.query(
    `INSERT INTO state_of_mind SELECT $1, gen_random_uuid(), $2::bigint + d::bigint * ${DAY}, 'dailyMood', 0.5, 'pleasant', ARRAY['happy'], ARRAY['work'] FROM generate_series(0, 59) d`,
    [DEFAULT_USER, T0],
  );
  await db.query(`INSERT INTO activity_summaries (user_id, day, move_kcal) SELECT $1, DATE '2026-01-01' + d, 300 FROM generate_series(0, 59) d`, [DEFAULT_USER]);
  await db.query('ANALYZE');
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
});

async function samplesSeqScans(): Promise<number> {
  const [row] = await db.query<{ seq_scan: string }>(`SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'samples'`);
  return Number(row.seq_scan);
}

test('no data route scans the samples table sequentially', async () => {
  const before = await samplesSeqScans();
  const server = await startServer({ databaseUrl: db.url });
  const range = `start=${T0 + 10 * DAY}&end=${T0 + 40 * DAY}`;
  const paths = [
    '/v1/catalog/types',
    `/v1/metrics/latest?types=${TYPES.slice(0, 6).join(',')}`,
    `/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierHeartRate&${range}`,
    `/v1/activity/summary?${range}`,
    '/v1/workouts',
    `/v1/workouts/${WORKOUT}`,
    `/v1/workouts/${WORKOUT}/series`,
    `/v1/sleep/daily?${range}`,
    `/v1/samples?type=HKQuantityTypeIdentifierHeartRate&start=${T0 + 10 * DAY}&end=${T0 + 20 * DAY}`,
    `/v1/samples?type=HKQuantityTypeIdentifierHeartRate&start=${T0 + 10 * DAY}&end=${T0 + 20 * DAY}&offset=1000`,
    `/v1/state-of-mind?${range}`,
    '/v1/summary?range=90d&format=json',
    `/v1/export?format=csv&dataset=samples&type=HKQuantityTypeIdentifierHeartRate&start=${T0 + 10 * DAY}&end=${T0 + 20 * DAY}`,
    `/v1/export?format=jsonl&dataset=sleep&${range}`,
  ];
  try {
    for (const path of paths) {
      const response = await server.get(path);
      assert.equal(response.status, 200, path);
      await response.arrayBuffer();
    }
  } finally {
    assert.equal(await server.stop(), 0); // the server's sessions end, flushing their statistics
  }
  let after = await samplesSeqScans();
  for (let i = 0; i < 20 && after === before; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await samplesSeqScans();
  }
  assert.equal(after - before, 0, 'sequential scans of samples while serving the routes');
  // The counter does move when a sequential scan happens, so the check above can fail.
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off');
    await client.query('SELECT count(*) FROM samples WHERE value > 0');
    await client.query('SELECT pg_stat_force_next_flush()');
  } finally {
    await client.end();
  }
  await new Promise((r) => setTimeout(r, 200));
  assert.ok((await samplesSeqScans()) > after, 'a forced sequential scan is counted');
});
