// The demo generator on a real embedded cluster: the same seed gives the same
// rows in two databases, daily aggregates agree with a recount from the raw
// rows in SQL, and the shapes the API relies on hold (streams, nights, rings).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { demoUserId, generateDemo, type DemoOptions, type DemoResult } from '../src/demo/generate.js';
import { countMismatches } from './support/db.js';

const ZONE = 'America/New_York';
// Ten days around the spring DST change (2026-03-08 has 23 hours in New York).
const OPTIONS: DemoOptions = { users: 3, days: 10, seed: 7, timeZone: ZONE, endDay: '2026-03-12' };

let dir: string;
let cluster: EmbeddedDatabase;
let urlA: string;
let urlB: string;
let resultA: DemoResult;
let resultB: DemoResult;
let a: pg.Client;
let b: pg.Client;

before(async () => {
  dir = await mkdtemp(join(process.cwd(), '.tmp', 'demo-test-'));
  cluster = await startEmbeddedDatabase({ dir, unsafeFast: true });
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE demo_a');
  await admin.query('CREATE DATABASE demo_b');
  await admin.end();
  urlA = cluster.adminUrl.replace(/\/postgres$/, '/demo_a');
  urlB = cluster.adminUrl.replace(/\/postgres$/, '/demo_b');
  await applyMigrations(urlA);
  await applyMigrations(urlB);
  resultA = await generateDemo(urlA, OPTIONS);
  resultB = await generateDemo(urlB, OPTIONS);
  a = new pg.Client({ connectionString: urlA });
  b = new pg.Client({ connectionString: urlB });
  await a.connect();
  await b.connect();
});

after(async () => {
  await a?.end();
  await b?.end();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function one<T>(client: pg.Client, sql: string, params: unknown[] = []): Promise<T> {
  return Object.values((await client.query(sql, params)).rows[0])[0] as T;
}

const CHECKSUMS: Record<string, string> = {
  users: `SELECT md5(string_agg(concat_ws('|', user_id, created_at_ms), ',' ORDER BY user_id)) FROM users`,
  profiles: `SELECT md5(string_agg(concat_ws('|', user_id, name, email, date_of_birth_ms, biological_sex), ',' ORDER BY user_id)) FROM profiles`,
  samples: `SELECT md5(string_agg(concat_ws('|', user_id, uuid, t.identifier, start_ms, end_ms, value, s.name, metadata), ',' ORDER BY user_id, uuid))
            FROM samples JOIN sample_types t USING (type_id) JOIN sources s USING (source_id)`,
  daily_aggregates: `SELECT md5(string_agg(concat_ws('|', user_id, t.identifier, day, sum, avg, min, max), ',' ORDER BY user_id, t.identifier, day))
                     FROM daily_aggregates JOIN sample_types t USING (type_id)`,
  workouts: `SELECT md5(string_agg(concat_ws('|', user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, statistics, events, activities, metadata), ',' ORDER BY uuid)) FROM workouts`,
  workout_streams: `SELECT md5(string_agg(concat_ws('|', workout_uuid, type_id, times_ms, "values"), ',' ORDER BY workout_uuid, type_id)) FROM workout_streams`,
  workout_routes: `SELECT md5(string_agg(concat_ws('|', workout_uuid, times_ms, latitudes, longitudes, altitudes_m), ',' ORDER BY workout_uuid)) FROM workout_routes`,
  activity_summaries: `SELECT md5(string_agg(concat_ws('|', user_id, day, move_kcal, move_goal_kcal, exercise_min, stand_hours, move_time_min, move_mode), ',' ORDER BY user_id, day)) FROM activity_summaries`,
  state_of_mind: `SELECT md5(string_agg(concat_ws('|', uuid, logged_at_ms, kind, valence, valence_classification, labels, associations), ',' ORDER BY uuid)) FROM state_of_mind`,
  upload_batches: `SELECT md5(string_agg(concat_ws('|', user_id, received_at_ms, sample_count), ',' ORDER BY user_id, received_at_ms)) FROM upload_batches`,
};

test('the same seed writes the same rows into two databases', async () => {
  assert.deepEqual(resultA.userIds, resultB.userIds);
  assert.deepEqual(resultA.userIds, [0, 1, 2].map((i) => demoUserId(7, i)));
  assert.equal(resultA.samples, resultB.samples);
  assert.equal(resultA.samples, Number(await one<string>(a, 'SELECT count(*) FROM samples')));
  for (const [table, sql] of Object.entries(CHECKSUMS)) {
    const countA = await one<string>(a, `SELECT count(*) FROM ${table}`);
    assert.ok(Number(countA) > 0, `${table} has rows`);
    assert.equal(countA, await one<string>(b, `SELECT count(*) FROM ${table}`), `${table} row count`);
    assert.equal(await one<string>(a, sql), await one<string>(b, sql), `${table} checksum`);
  }
  assert.deepEqual(await countMismatches({ query: async (sql) => (await a.query(sql)).rows }), [], 'the counts the catalog and /v1/users read are what is stored');
});

// Day of an instant in the data's zone, by PostgreSQL's own time zone rules.
const LOCAL_DAY = `(to_timestamp(start_ms / 1000.0) AT TIME ZONE '${ZONE}')::date`;

test('steps and distance aggregates equal a recount with the watch winning over the phone', async () => {
  const watch = await one<number>(a, `SELECT source_id FROM sources WHERE name = 'Apple Watch'`);
  const phone = await one<number>(a, `SELECT source_id FROM sources WHERE name = 'iPhone'`);
  for (const identifier of ['HKQuantityTypeIdentifierStepCount', 'HKQuantityTypeIdentifierDistanceWalkingRunning']) {
    // The recount below adds overlaps pairwise, exact only while the watch's own samples never overlap.
    const watchOverlaps = await one<string>(
      a,
      `SELECT count(*) FROM samples x JOIN samples y USING (user_id, type_id, source_id)
       WHERE x.uuid < y.uuid AND x.start_ms < y.end_ms AND y.start_ms < x.end_ms AND source_id = $1
         AND type_id = (SELECT type_id FROM sample_types WHERE identifier = $2)`,
      [watch, identifier],
    );
    assert.equal(watchOverlaps, '0');
    const sources = await a.query(
      `SELECT DISTINCT source_id FROM samples WHERE type_id = (SELECT type_id FROM sample_types WHERE identifier = $1)`,
      [identifier],
    );
    assert.deepEqual(sources.rows.map((r) => r.source_id).sort(), [watch, phone].sort());

    const { rows } = await a.query<{ user_id: string; day: string; recount: number; stored: number | null }>(
      `WITH s AS (
         SELECT user_id, uuid, start_ms, end_ms, value, source_id, ${LOCAL_DAY} AS day FROM samples
         WHERE type_id = (SELECT type_id FROM sample_types WHERE identifier = $1)),
       counted AS (
         SELECT p.user_id, p.day,
                CASE WHEN p.source_id = $2 OR p.end_ms = p.start_ms THEN p.value
                     ELSE p.value * (1 - coalesce((
                       SELECT sum(least(p.end_ms, w.end_ms) - greatest(p.start_ms, w.start_ms)) FROM s w
                       WHERE w.user_id = p.user_id AND w.source_id = $2 AND w.start_ms < p.end_ms AND p.start_ms < w.end_ms), 0)::float8
                       / (p.end_ms - p.start_ms)) END AS value
         FROM s p)
       SELECT c.user_id, c.day::text, sum(c.value) AS recount, d.sum AS stored
       FROM counted c LEFT JOIN daily_aggregates d ON d.user_id = c.user_id AND d.day = c.day
         AND d.type_id = (SELECT type_id FROM sample_types WHERE identifier = $1)
       GROUP BY c.user_id, c.day, d.sum ORDER BY 1, 2`,
      [identifier, watch],
    );
    assert.equal(rows.length, 3 * 10);
    for (const row of rows) {
      assert.notEqual(row.stored, null, `${identifier} ${row.day} has an aggregate`);
      assert.ok(Math.abs(row.recount - (row.stored as number)) < 1e-6, `${identifier} ${row.user_id} ${row.day}: ${row.recount} vs ${row.stored}`);
    }
    // The phone really does overlap the watch, so deduplication mattered.
    const naive = await one<number>(a, `SELECT sum(value) FROM samples WHERE type_id = (SELECT type_id FROM sample_types WHERE identifier = $1)`, [identifier]);
    const stored = await one<number>(a, `SELECT sum(sum) FROM daily_aggregates WHERE type_id = (SELECT type_id FROM sample_types WHERE identifier = $1)`, [identifier]);
    assert.ok(naive > stored * 1.2, `${identifier}: raw ${naive} well above deduplicated ${stored}`);
  }
});

test('discrete aggregates are the day mean, min and max of the raw rows; cumulative ones only a sum', async () => {
  const { rows } = await a.query(
    `SELECT t.identifier, d.day::text, d.avg, d.min, d.max, r.avg AS raw_avg, r.min AS raw_min, r.max AS raw_max
     FROM daily_aggregates d JOIN sample_types t USING (type_id)
     JOIN (SELECT user_id, type_id, ${LOCAL_DAY} AS day, avg(value), min(value), max(value) FROM samples GROUP BY 1, 2, 3) r
       USING (user_id, type_id, day)
     WHERE t.identifier IN ('HKQuantityTypeIdentifierHeartRate', 'HKQuantityTypeIdentifierOxygenSaturation', 'HKQuantityTypeIdentifierBodyMass')`,
  );
  assert.ok(rows.length >= 3 * 10 * 2);
  for (const row of rows) {
    assert.ok(Math.abs(row.avg - row.raw_avg) < 1e-6, `${row.identifier} ${row.day}`);
    assert.equal(row.min, row.raw_min);
    assert.equal(row.max, row.raw_max);
  }
  const misfilled = await one<string>(
    a,
    `SELECT count(*) FROM daily_aggregates d JOIN sample_types t USING (type_id)
     WHERE CASE WHEN t.identifier IN ('HKQuantityTypeIdentifierStepCount', 'HKQuantityTypeIdentifierActiveEnergyBurned',
                                      'HKQuantityTypeIdentifierDistanceWalkingRunning', 'HKQuantityTypeIdentifierDistanceCycling',
                                      'HKQuantityTypeIdentifierDistanceSwimming')
                THEN d.sum IS NULL OR d.avg IS NOT NULL OR d.min IS NOT NULL OR d.max IS NOT NULL
                ELSE d.sum IS NOT NULL OR d.avg IS NULL OR d.min IS NULL OR d.max IS NULL END`,
  );
  assert.equal(misfilled, '0');
});

test('every workout stream and route has equal-length arrays ordered by time', async () => {
  const bad = await one<string>(
    a,
    `SELECT count(*) FROM workout_streams s JOIN workouts w ON w.uuid = s.workout_uuid
     WHERE cardinality(s.times_ms) = 0 OR cardinality(s.times_ms) <> cardinality(s."values")
        OR s.times_ms[1] < w.start_ms OR s.times_ms[cardinality(s.times_ms)] >= w.end_ms
        OR s.times_ms <> (SELECT array_agg(DISTINCT t ORDER BY t) FROM unnest(s.times_ms) t)`,
  );
  assert.equal(bad, '0');
  const badRoutes = await one<string>(
    a,
    `SELECT count(*) FROM workout_routes WHERE cardinality(times_ms) = 0 OR cardinality(times_ms) <> cardinality(latitudes)
       OR cardinality(times_ms) <> cardinality(longitudes) OR cardinality(times_ms) <> cardinality(altitudes_m)`,
  );
  assert.equal(badRoutes, '0');
  const strength = await a.query(
    `SELECT w.distance_m, r.workout_uuid FROM workouts w LEFT JOIN workout_routes r ON r.workout_uuid = w.uuid
     WHERE w.activity_type IN ('traditionalStrengthTraining', 'yoga')`,
  );
  for (const row of strength.rows) assert.deepEqual([row.distance_m, row.workout_uuid], [null, null]);
  const workoutsPerWeek = Number(await one<string>(a, 'SELECT count(*) FROM workouts')) / 3 / (10 / 7);
  assert.ok(workoutsPerWeek >= 2 && workoutsPerWeek <= 6, `${workoutsPerWeek} workouts a week`);
});

test('every night crosses local midnight, with the phone in bed around the watch stages', async () => {
  const { rows } = await a.query(
    `SELECT s.name, count(*) AS samples,
            count(*) FILTER (WHERE (to_timestamp(start_ms / 1000.0) AT TIME ZONE '${ZONE}')::date
                                 <> (to_timestamp(end_ms / 1000.0) AT TIME ZONE '${ZONE}')::date) AS crossing,
            array_agg(DISTINCT value ORDER BY value) AS values
     FROM samples JOIN sources s USING (source_id)
     WHERE type_id = (SELECT type_id FROM sample_types WHERE identifier = 'HKCategoryTypeIdentifierSleepAnalysis')
     GROUP BY s.name ORDER BY s.name`,
  );
  assert.deepEqual(rows.map((r) => r.name), ['Apple Watch', 'iPhone']);
  const [watch, phone] = rows;
  assert.deepEqual(phone.values, [0]);
  assert.equal(phone.samples, String(3 * 10));
  assert.equal(phone.crossing, phone.samples);
  assert.deepEqual(watch.values, [2, 3, 4, 5]);
});

test('one of three users has no profile; rings, moods and batches keep their rules', async () => {
  const withoutProfile = await one<string>(a, 'SELECT count(*) FROM users LEFT JOIN profiles USING (user_id) WHERE profiles.user_id IS NULL');
  assert.equal(withoutProfile, '1');
  assert.equal(await one<string>(a, 'SELECT count(*) FROM profiles WHERE date_of_birth_ms % 86400000 <> 0'), '0');

  assert.equal(await one<string>(a, 'SELECT count(*) FROM activity_summaries'), String(3 * 10));
  const badRings = await one<string>(
    a,
    `SELECT count(*) FROM activity_summaries WHERE move_kcal IS NULL
       OR (move_mode = 1 AND (move_goal_kcal IS NULL OR move_time_min IS NOT NULL OR move_time_goal_min IS NOT NULL))
       OR (move_mode = 2 AND (move_goal_kcal IS NOT NULL OR move_time_min IS NULL OR move_time_goal_min IS NULL))
       OR move_mode NOT IN (1, 2)`,
  );
  assert.equal(badRings, '0');

  const moods = await a.query('SELECT valence, valence_classification AS band, kind FROM state_of_mind');
  const bands = ['veryUnpleasant', 'unpleasant', 'slightlyUnpleasant', 'neutral', 'slightlyPleasant', 'pleasant', 'veryPleasant'];
  for (const { valence, band } of moods.rows) {
    assert.ok(valence >= -1 && valence <= 1);
    // Seven equal bands over [-1, 1]: -1 + 2k/7 ≤ valence < -1 + 2(k+1)/7.
    const k = bands.indexOf(band);
    assert.ok(valence >= -1 + (2 * k) / 7 - 1e-9 && (valence < -1 + (2 * (k + 1)) / 7 || k === 6), `${valence} is ${band}`);
  }
  assert.deepEqual([...new Set(moods.rows.map((r) => r.kind))].sort(), ['dailyMood', 'momentaryEmotion']);

  const batches = await a.query(
    `SELECT u.user_id, (SELECT sum(sample_count) FROM upload_batches b WHERE b.user_id = u.user_id) AS declared,
            (SELECT count(*) FROM samples s WHERE s.user_id = u.user_id) AS stored FROM users u`,
  );
  for (const row of batches.rows) assert.equal(row.declared, row.stored);
});

test('a database whose days are cut in another zone is refused, naming both zones', async () => {
  await assert.rejects(generateDemo(urlA, { ...OPTIONS, timeZone: 'Europe/Berlin' }), (error: Error) => {
    assert.match(error.message, /America\/New_York/);
    assert.match(error.message, /Europe\/Berlin/);
    return true;
  });
});

test('only foreign-key checks are skipped: a trigger of the project on samples still fires', async () => {
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE demo_c');
  await admin.end();
  const urlC = cluster.adminUrl.replace(/\/postgres$/, '/demo_c');
  await applyMigrations(urlC);
  const c = new pg.Client({ connectionString: urlC });
  await c.connect();
  try {
    await c.query(`CREATE TABLE inserted (n bigint NOT NULL); INSERT INTO inserted VALUES (0);
      CREATE FUNCTION count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE inserted SET n = n + (SELECT count(*) FROM new_rows); RETURN NULL; END $$;
      CREATE TRIGGER count_inserted AFTER INSERT ON samples REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION count_inserted();`);
    const result = await generateDemo(urlC, { ...OPTIONS, users: 1, days: 2 });
    assert.ok(result.samples > 0);
    assert.equal(await one<string>(c, 'SELECT n FROM inserted'), String(result.samples));
  } finally {
    await c.end();
  }
});

test('running again with the same seed replaces those users\' rows with the same data', async () => {
  const again = await generateDemo(urlA, OPTIONS);
  assert.equal(again.samples, resultA.samples);
  for (const [table, sql] of Object.entries(CHECKSUMS)) {
    assert.equal(await one<string>(a, `SELECT count(*) FROM ${table}`), await one<string>(b, `SELECT count(*) FROM ${table}`), `${table} row count`);
    assert.equal(await one<string>(a, sql), await one<string>(b, sql), `${table} checksum`);
  }
  assert.deepEqual(await countMismatches({ query: async (sql) => (await a.query(sql)).rows }), [], 'the counts the catalog and /v1/users read are what is stored');
});
