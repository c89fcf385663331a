// Issue 3: /v1/workouts/{uuid}/series on a real server and database — bucket
// means worked out by hand, totalPoints, first/last kept, maxPoints default,
// clamp and minimum, types filter and order, units, a series large enough for
// the worker pool (counted by the pool itself), 404s and user isolation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { loadUws } from '../src/http/uws.js';
import { allRoutes } from '../src/routes/all.js';
import { INLINE_SERIES_POINTS } from '../src/routes/workout-series.js';
import { closeServices, createServices } from '../src/services.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const T0 = Date.UTC(2026, 2, 1, 7);
const HR = 'HKQuantityTypeIdentifierHeartRate';
const POWER = 'HKQuantityTypeIdentifierRunningPower';
const SPEED = 'HKQuantityTypeIdentifierRunningSpeed';

const RUN = 'a0000000-0000-4000-8000-000000000001';
const LONG_RIDE = 'a0000000-0000-4000-8000-000000000002';
const OTHERS = 'b0000000-0000-4000-8000-000000000001';
/** A run whose heart-rate arrays hold elements that are no value: NULL, NaN, ±Infinity, a NULL time. */
const GAPPY = 'a0000000-0000-4000-8000-000000000003';

// The run's heart rate: 10 points a second apart.
const HR_TIMES = Array.from({ length: 10 }, (_, i) => T0 + i * 1000);
const HR_VALUES = [60, 62, 64, 70, 80, 90, 100, 110, 120, 130];
// Its power: 3 points.
const POWER_POINTS: [number, number][] = [
  [T0, 200],
  [T0 + 4000, 250.5],
  [T0 + 9000, 230],
];
// The long ride: 20,002 speed points a second apart, value = index — above
// the inline threshold (20,000 points), so it is downsampled in the pool.
const LONG_POINTS = 20_002;

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await db.query(`INSERT INTO sample_types (identifier) VALUES ($1), ($2), ($3)`, [POWER, SPEED, HR]);
  const workout = `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, $2, $3, $4, $5)`;
  await db.query(workout, [DEFAULT_USER, RUN, 'running', T0, T0 + 9000]);
  await db.query(workout, [DEFAULT_USER, LONG_RIDE, 'cycling', T0, T0 + (LONG_POINTS - 1) * 1000]);
  await db.query(workout, [OTHER_USER, OTHERS, 'running', T0, T0 + 9000]);
  const stream = `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
                  VALUES ($1, $2, (SELECT type_id FROM sample_types WHERE identifier = $3), $4::bigint[], $5::float8[])`;
  await db.query(stream, [DEFAULT_USER, RUN, POWER, POWER_POINTS.map((p) => p[0]), POWER_POINTS.map((p) => p[1])]);
  await db.query(stream, [DEFAULT_USER, RUN, HR, HR_TIMES, HR_VALUES]);
  await db.query(stream, [OTHER_USER, OTHERS, HR, HR_TIMES, HR_VALUES]);
  await db.query(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
     SELECT $1, $2, (SELECT type_id FROM sample_types WHERE identifier = $3),
            array_agg($4::bigint + i * 1000 ORDER BY i), array_agg(i::float8 ORDER BY i)
     FROM generate_series(0, $5::int - 1) i`,
    [DEFAULT_USER, LONG_RIDE, SPEED, T0, LONG_POINTS],
  );
  await db.query(workout, [DEFAULT_USER, GAPPY, 'running', T0, T0 + 9000]);
  await db.query(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
     VALUES ($1, $2, (SELECT type_id FROM sample_types WHERE identifier = $3), $4::bigint[], $5::float8[])`,
    [DEFAULT_USER, GAPPY, HR, [T0, T0 + 1000, T0 + 2000, T0 + 3000, T0 + 4000, T0 + 5000, null, T0 + 7000, T0 + 8000], [60, null, 'NaN', 70, 'Infinity', '-Infinity', 90, 80, 100]],
  );
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

const zip = (times: number[], values: number[]) => times.map((t, i) => [t, values[i]]);

test('default: every stream by identifier, unchanged under 500 points', async () => {
  const { status, body } = await server.getJson(`/v1/workouts/${RUN}/series`);
  assert.equal(status, 200);
  assert.deepEqual(body, {
    uuid: RUN,
    start: T0,
    end: T0 + 9000,
    maxPoints: 500,
    series: [
      // HeartRate sorts before RunningPower.
      { type: HR, unit: 'count/min', totalPoints: 10, points: zip(HR_TIMES, HR_VALUES) },
      { type: POWER, unit: 'W', totalPoints: 3, points: POWER_POINTS },
    ],
  });
});

test('an element without a value (NULL, NaN, ±Infinity, a NULL time) is not a point: not sent, not counted, not averaged', async () => {
  const whole = (await server.getJson(`/v1/workouts/${GAPPY}/series`)).body;
  assert.deepEqual(whole.series, [{ type: HR, unit: 'count/min', totalPoints: 4, points: [[T0, 60], [T0 + 3000, 70], [T0 + 7000, 80], [T0 + 8000, 100]] }]);
  // One bucket between the first and the last: the two points with a value in it, (T0 + 3000 + T0 + 7000) / 2 and (70 + 80) / 2.
  const three = (await server.getJson(`/v1/workouts/${GAPPY}/series?maxPoints=3`)).body;
  assert.deepEqual(three.series[0], { type: HR, unit: 'count/min', totalPoints: 4, points: [[T0, 60], [T0 + 5000, 75], [T0 + 8000, 100]] });
});

test('10 points to maxPoints 4: first, two bucket means, last', async () => {
  const { body } = await server.getJson(`/v1/workouts/${RUN}/series?maxPoints=4`);
  assert.equal(body.maxPoints, 4);
  const hr = body.series[0];
  assert.equal(hr.totalPoints, 10);
  // Inner points are indices 1–8, split into maxPoints − 2 = 2 buckets of 4:
  //   indices 1–4: times T0 + 1000…4000 → mean T0 + 2500; values (62 + 64 + 70 + 80) / 4 = 276 / 4 = 69
  //   indices 5–8: times T0 + 5000…8000 → mean T0 + 6500; values (90 + 100 + 110 + 120) / 4 = 420 / 4 = 105
  assert.deepEqual(hr.points, [
    [T0, 60],
    [T0 + 2500, 69],
    [T0 + 6500, 105],
    [T0 + 9000, 130],
  ]);
  // Power has 3 ≤ 4 points: unchanged.
  assert.deepEqual(body.series[1], { type: POWER, unit: 'W', totalPoints: 3, points: POWER_POINTS });
});

test('10 points to maxPoints 3 and 2', async () => {
  const three = (await server.getJson(`/v1/workouts/${RUN}/series?maxPoints=3&types=${HR}`)).body;
  // One bucket of indices 1–8: times mean T0 + 4500; values (62+64+70+80+90+100+110+120) / 8 = 696 / 8 = 87.
  assert.deepEqual(three.series[0].points, [
    [T0, 60],
    [T0 + 4500, 87],
    [T0 + 9000, 130],
  ]);
  const two = (await server.getJson(`/v1/workouts/${RUN}/series?maxPoints=2`)).body;
  assert.deepEqual(two.series[0].points, [
    [T0, 60],
    [T0 + 9000, 130],
  ]);
  // Power's 3 points become its first and last.
  assert.deepEqual(two.series[1].points, [
    [T0, 200],
    [T0 + 9000, 230],
  ]);
  assert.equal(two.series[1].totalPoints, 3);
});

test('maxPoints above 5000 is clamped to 5000; below 2 or not an integer is a 400', async () => {
  const { status, body } = await server.getJson(`/v1/workouts/${RUN}/series?maxPoints=99999`);
  assert.equal(status, 200);
  assert.equal(body.maxPoints, 5000);
  for (const value of ['1', '0', '-3', '2.5', 'x']) {
    const refused = await server.getJson(`/v1/workouts/${RUN}/series?maxPoints=${value}`);
    assert.equal(refused.status, 400, value);
    assert.match(refused.body.error, /^maxPoints /, value);
  }
});

test('a series above the inline threshold: bucket means worked out by hand', async () => {
  const { body } = await server.getJson(`/v1/workouts/${LONG_RIDE}/series?maxPoints=402`);
  const [speed] = body.series;
  assert.equal(speed.type, SPEED);
  assert.equal(speed.unit, 'm/s');
  assert.equal(speed.totalPoints, 20_002);
  assert.equal(speed.points.length, 402);
  // 20,000 inner points (indices 1–20,000) in 400 buckets of exactly 50: bucket b
  // holds indices 1 + 50b … 50 + 50b, mean index 25.5 + 50b, so its time is
  // T0 + 1000 · (25.5 + 50b) = T0 + 25,500 + 50,000b and its value 25.5 + 50b.
  assert.deepEqual(speed.points[0], [T0, 0]);
  for (let b = 0; b < 400; b++) assert.deepEqual(speed.points[1 + b], [T0 + 25_500 + 50_000 * b, 25.5 + 50 * b], `bucket ${b}`);
  assert.deepEqual(speed.points[401], [T0 + 20_001_000, 20_001]);
  // Default 500: 498 buckets over 20,000 points; the first holds floor(20000 / 498) = 40
  // points (indices 1–40, mean index 20.5), first and last still kept.
  const byDefault = (await server.getJson(`/v1/workouts/${LONG_RIDE}/series`)).body.series[0];
  assert.equal(byDefault.points.length, 500);
  assert.deepEqual(byDefault.points[0], [T0, 0]);
  assert.deepEqual(byDefault.points[1], [T0 + 20_500, 20.5]);
  assert.deepEqual(byDefault.points[499], [T0 + 20_001_000, 20_001]);
});

test('the worker pool downsamples a series of at least INLINE_SERIES_POINTS points, and only those', async () => {
  assert.ok(LONG_POINTS >= INLINE_SERIES_POINTS && 10 + POWER_POINTS.length < INLINE_SERIES_POINTS);
  // The real front and services in this process, so the pool's own count of finished tasks can be read.
  const config = { ...loadConfig({ SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: DEFAULT_USER, WORKER_THREADS: '1' }), apiToken: TEST_TOKEN, defaultUserId: DEFAULT_USER };
  const services = createServices(config, db.url);
  const http = createHttpServer(loadUws(false).uws, services, allRoutes());
  const port = await http.listen('127.0.0.1', 0);
  const series = async (uuid: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/workouts/${uuid}/series`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    assert.equal(response.status, 200);
    return (await response.json()) as { series: { points: unknown[] }[] };
  };
  try {
    assert.equal(services.workers.threads, 0, 'a server not yet asked for a long series holds no worker thread');
    assert.equal((await series(RUN)).series.length, 2);
    assert.equal(services.workers.completed, 0, 'a small workout stays inline');
    assert.equal(services.workers.threads, 0);
    assert.equal((await series(LONG_RIDE)).series[0].points.length, 500);
    assert.equal(services.workers.completed, 1, 'the long ride went through the pool, once');
    assert.equal(services.workers.threads, 1, 'its thread stays');
  } finally {
    http.stopListening();
    await closeServices(services, 5_000);
  }
});

test('types: only those asked for, in request order; unrecorded ones absent', async () => {
  const both = (await server.getJson(`/v1/workouts/${RUN}/series?types=${POWER},${HR}`)).body;
  assert.deepEqual(
    both.series.map((s: { type: string }) => s.type),
    [POWER, HR],
  );
  const one = (await server.getJson(`/v1/workouts/${RUN}/series?types=${HR}`)).body;
  assert.deepEqual(
    one.series.map((s: { type: string }) => s.type),
    [HR],
  );
  // Cycling power is a known type this workout did not record.
  const none = (await server.getJson(`/v1/workouts/${RUN}/series?types=HKQuantityTypeIdentifierCyclingPower`)).body;
  assert.deepEqual(none.series, []);
  const mixed = (await server.getJson(`/v1/workouts/${RUN}/series?types=HKQuantityTypeIdentifierCyclingPower,${POWER}`)).body;
  assert.deepEqual(
    mixed.series.map((s: { type: string }) => s.type),
    [POWER],
  );
});

test('types: an unknown identifier or more than 50 is a 400', async () => {
  const unknown = await server.getJson(`/v1/workouts/${RUN}/series?types=${HR},HKQuantityTypeIdentifierFoo`);
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body, { error: 'unknown type: HKQuantityTypeIdentifierFoo (the types stored for a user are listed at /v1/catalog/types)' });
  const many = Array.from({ length: 51 }, (_, i) => `HKQuantityTypeIdentifierX${i}`).join(',');
  const tooMany = await server.getJson(`/v1/workouts/${RUN}/series?types=${many}`);
  assert.equal(tooMany.status, 400);
  assert.deepEqual(tooMany.body, { error: 'types must name at most 50 identifiers' });
});

test('uuid: uppercase works, not a uuid is a 400, missing or someone else\'s is a 404', async () => {
  const upper = await server.getJson(`/v1/workouts/${RUN.toUpperCase()}/series?maxPoints=2`);
  assert.equal(upper.status, 200);
  assert.equal(upper.body.uuid, RUN);
  const invalid = await server.getJson('/v1/workouts/not-a-uuid/series');
  assert.equal(invalid.status, 400);
  assert.deepEqual(invalid.body, { error: 'uuid must be a uuid' });
  for (const uuid of ['c0000000-0000-4000-8000-000000000001', OTHERS]) {
    const missing = await server.getJson(`/v1/workouts/${uuid}/series`);
    assert.equal(missing.status, 404, uuid);
    assert.deepEqual(missing.body, { error: 'workout not found' });
  }
  const theirs = await server.getJson(`/v1/workouts/${OTHERS}/series?user=${OTHER_USER}&maxPoints=4`);
  assert.equal(theirs.status, 200);
  assert.deepEqual(theirs.body.series[0].points[1], [T0 + 2500, 69]);
});
