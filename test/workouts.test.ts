// Issue 3: /v1/workouts and /v1/workouts/{uuid} on a real server and database —
// order, paging, clamp, filters, hasRoute, availableMetrics, detail fields,
// 404s, uuid validation and case, and user isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';
import { WorkoutDetail } from '../src/schemas/resources.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const BULK_USER = '00000000-0000-4000-8000-000000000003';
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

const HR = 'HKQuantityTypeIdentifierHeartRate';
const POWER = 'HKQuantityTypeIdentifierRunningPower';
const SPEED = 'HKQuantityTypeIdentifierRunningSpeed';

// Default user's workouts. Starts: w1 T0+1h, w2 T0+2h, w3 T0+3h, w4 and w5 both T0+4h.
const W1 = 'a0000000-0000-4000-8000-000000000001';
const W2 = 'a0000000-0000-4000-8000-000000000002';
const W3 = 'a0000000-0000-4000-8000-000000000003';
const W4 = 'a0000000-0000-4000-8000-000000000004';
const W5 = 'a0000000-0000-4000-8000-000000000005';
const OTHERS = 'b0000000-0000-4000-8000-000000000001';
const MISSING = 'c0000000-0000-4000-8000-000000000001';

const W1_STATISTICS = { [HR]: { min: 98, avg: 151.5, max: 178 }, HKQuantityTypeIdentifierActiveEnergyBurned: { sum: 412.5 } };
const W1_EVENTS = [
  { type: 'pause', start: T0 + HOUR + 600_000, end: T0 + HOUR + 660_000 },
  { type: 'lap', start: T0 + HOUR, end: T0 + HOUR + 900_000 },
];

async function seed(db: TestDatabase): Promise<void> {
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await db.query(`INSERT INTO sample_types (identifier) VALUES ($1), ($2), ($3)`, [SPEED, POWER, HR]);
  await db.query(`INSERT INTO sources (source_id, name) VALUES (1, 'Watch')`);
  const insert = `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, source_id, statistics, events, activities)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11)`;
  await db.query(insert, [DEFAULT_USER, W1, 'running', T0 + HOUR, T0 + HOUR + 1_800_000, 1800, 5012.5, 412.5, JSON.stringify(W1_STATISTICS), JSON.stringify(W1_EVENTS), null]);
  await db.query(insert, [DEFAULT_USER, W2, 'cycling', T0 + 2 * HOUR, T0 + 2 * HOUR + 3_600_000, 3600, null, 600, null, null, null]);
  await db.query(insert, [DEFAULT_USER, W3, 'running', T0 + 3 * HOUR, T0 + 3 * HOUR + 1_200_000, 1200, 3000, 250, '{}', '[]', '[]']);
  // w5 is inserted before w4: the tie on start is broken by uuid, not insertion.
  await db.query(insert, [DEFAULT_USER, W5, 'yoga', T0 + 4 * HOUR, T0 + 5 * HOUR, null, null, null, null, null, null]);
  await db.query(insert, [DEFAULT_USER, W4, 'yoga', T0 + 4 * HOUR, T0 + 5 * HOUR, 3600, null, 120, null, null, JSON.stringify([{ activityType: 'yoga', start: T0 + 4 * HOUR, end: T0 + 5 * HOUR }])]);
  await db.query(insert, [OTHER_USER, OTHERS, 'running', T0 + 5 * HOUR, T0 + 6 * HOUR, 3600, 10000, 700, null, null, null]);
  // 205 workouts an hour apart for the bulk user, to see the clamp at 200.
  await db.query(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms)
     SELECT $1, gen_random_uuid(), 'walking', $2::bigint + i * 3600000, $2::bigint + i * 3600000 + 60000 FROM generate_series(1, 205) i`,
    [BULK_USER, T0],
  );
  // Routes: w1 three points; w2 a row with empty arrays (no point); w4 a row with one position.
  await db.query(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES
     ($1, $2, ARRAY[1, 2, 3]::bigint[], ARRAY[52.1, 52.2, 52.3], ARRAY[4.1, 4.2, 4.3], ARRAY[1, 2, 3]::float8[]),
     ($1, $3, '{}', '{}', '{}', '{}'),
     ($1, $4, NULL, ARRAY[52.0], ARRAY[4.0], NULL)`,
    [DEFAULT_USER, W1, W2, W4],
  );
  // Streams: w1 power then heart rate (inserted unsorted), w3 speed, the other user's heart rate.
  const stream = `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
                  VALUES ($1, $2, (SELECT type_id FROM sample_types WHERE identifier = $3), ARRAY[1, 2]::bigint[], ARRAY[1, 2]::float8[])`;
  await db.query(stream, [DEFAULT_USER, W1, POWER]);
  await db.query(stream, [DEFAULT_USER, W1, HR]);
  await db.query(stream, [DEFAULT_USER, W3, SPEED]);
  await db.query(stream, [OTHER_USER, OTHERS, HR]);
}

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  await seed(db);
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

const uuidsOf = (body: { workouts: { uuid: string }[] }) => body.workouts.map((w) => w.uuid);

describe('GET /v1/workouts', () => {
  test('newest first; equal starts ordered by uuid', async () => {
    const { status, body } = await server.getJson('/v1/workouts');
    assert.equal(status, 200);
    // Starts 4h (w4, w5 by uuid), 3h (w3), 2h (w2), 1h (w1); the other user's never.
    assert.deepEqual(uuidsOf(body), [W4, W5, W3, W2, W1]);
    assert.equal(body.nextOffset, 5);
  });

  test('summary fields, hasRoute and sorted availableMetrics', async () => {
    const { body } = await server.getJson('/v1/workouts');
    const byUuid = new Map(body.workouts.map((w: { uuid: string }) => [w.uuid, w]));
    assert.deepEqual(byUuid.get(W1), {
      uuid: W1,
      activityType: 'running',
      start: T0 + HOUR,
      end: T0 + HOUR + 1_800_000,
      durationS: 1800,
      distanceM: 5012.5,
      energyKcal: 412.5,
      hasRoute: true,
      availableMetrics: [HR, POWER], // HeartRate < RunningPower
    });
    assert.deepEqual(byUuid.get(W2), {
      uuid: W2,
      activityType: 'cycling',
      start: T0 + 2 * HOUR,
      end: T0 + 3 * HOUR,
      durationS: 3600,
      distanceM: null,
      energyKcal: 600,
      hasRoute: false, // a route row without a point
      availableMetrics: [],
    });
    assert.equal((byUuid.get(W3) as { hasRoute: boolean }).hasRoute, false); // no route row
    assert.deepEqual((byUuid.get(W3) as { availableMetrics: string[] }).availableMetrics, [SPEED]);
    assert.equal((byUuid.get(W4) as { hasRoute: boolean }).hasRoute, true); // one position
    assert.deepEqual(byUuid.get(W5), {
      uuid: W5,
      activityType: 'yoga',
      start: T0 + 4 * HOUR,
      end: T0 + 5 * HOUR,
      durationS: null,
      distanceM: null,
      energyKcal: null,
      hasRoute: false,
      availableMetrics: [],
    });
  });

  test('paging: nextOffset is offset plus the rows on the page', async () => {
    let page = (await server.getJson('/v1/workouts?limit=2')).body;
    assert.deepEqual(uuidsOf(page), [W4, W5]);
    assert.equal(page.nextOffset, 2); // 0 + 2
    page = (await server.getJson(`/v1/workouts?limit=2&offset=${page.nextOffset}`)).body;
    assert.deepEqual(uuidsOf(page), [W3, W2]);
    assert.equal(page.nextOffset, 4); // 2 + 2
    page = (await server.getJson(`/v1/workouts?limit=2&offset=${page.nextOffset}`)).body;
    assert.deepEqual(uuidsOf(page), [W1]); // shorter than limit: the last page
    assert.equal(page.nextOffset, 5); // 4 + 1
    page = (await server.getJson('/v1/workouts?offset=10')).body;
    assert.deepEqual(page, { workouts: [], nextOffset: 10 }); // 10 + 0
  });

  test('limit above 200 is clamped to 200; the default is 50', async () => {
    const clamped = (await server.getJson(`/v1/workouts?user=${BULK_USER}&limit=99999`)).body;
    assert.equal(clamped.workouts.length, 200); // 205 stored
    assert.equal(clamped.nextOffset, 200);
    // Newest first: the 205th hour first, then the 204th.
    assert.equal(clamped.workouts[0].start, T0 + 205 * HOUR);
    assert.equal(clamped.workouts[1].start, T0 + 204 * HOUR);
    const rest = (await server.getJson(`/v1/workouts?user=${BULK_USER}&limit=300&offset=200`)).body;
    assert.equal(rest.workouts.length, 5); // 205 − 200
    assert.equal(rest.nextOffset, 205);
    assert.equal(rest.workouts[4].start, T0 + HOUR);
    const byDefault = (await server.getJson(`/v1/workouts?user=${BULK_USER}`)).body;
    assert.equal(byDefault.workouts.length, 50);
    assert.equal(byDefault.nextOffset, 50);
  });

  test('invalid limit or offset is a 400', async () => {
    for (const query of ['limit=0', 'limit=-1', 'limit=1.5', 'limit=1e3', 'limit=abc', 'offset=-1', 'offset=x']) {
      const { status, body } = await server.getJson(`/v1/workouts?${query}`);
      assert.equal(status, 400, query);
      assert.match(body.error, /^(limit|offset) /, query);
    }
  });

  test('start (at or after) and end (before) filter on the workout start', async () => {
    assert.deepEqual(uuidsOf((await server.getJson(`/v1/workouts?start=${T0 + 2 * HOUR}`)).body), [W4, W5, W3, W2]);
    assert.deepEqual(uuidsOf((await server.getJson(`/v1/workouts?end=${T0 + 3 * HOUR}`)).body), [W2, W1]);
    assert.deepEqual(uuidsOf((await server.getJson(`/v1/workouts?start=${T0 + 2 * HOUR}&end=${T0 + 3 * HOUR}`)).body), [W2]);
    // w1 runs 1h–1h30: a start filter after its start leaves it out though it is still running.
    assert.deepEqual(uuidsOf((await server.getJson(`/v1/workouts?start=${T0 + HOUR + 1}&end=${T0 + 2 * HOUR}`)).body), []);
  });

  test('end must be after start when both are given', async () => {
    for (const query of [`start=${T0}&end=${T0}`, `start=${T0 + 1}&end=${T0}`]) {
      const { status, body } = await server.getJson(`/v1/workouts?${query}`);
      assert.equal(status, 400);
      assert.deepEqual(body, { error: 'end must be after start (start and end are epoch milliseconds)' });
    }
    assert.equal((await server.getJson('/v1/workouts?start=-1')).status, 400);
    assert.equal((await server.getJson('/v1/workouts?end=253402300800000')).status, 400);
  });

  test('activityType is an exact match', async () => {
    assert.deepEqual(uuidsOf((await server.getJson('/v1/workouts?activityType=running')).body), [W3, W1]);
    assert.deepEqual(uuidsOf((await server.getJson('/v1/workouts?activityType=Running')).body), []);
    assert.deepEqual(uuidsOf((await server.getJson('/v1/workouts?activityType=run')).body), []);
    assert.equal((await server.getJson('/v1/workouts?activityType=')).status, 400);
  });

  test("another user's workouts only with user=", async () => {
    const { body } = await server.getJson(`/v1/workouts?user=${OTHER_USER}`);
    assert.deepEqual(uuidsOf(body), [OTHERS]);
    assert.deepEqual(body.workouts[0].availableMetrics, [HR]);
  });
});

describe('GET /v1/workouts/{uuid}', () => {
  test('detail: summary fields plus statisticsDetail, events and activities', async () => {
    const { status, body } = await server.getJson(`/v1/workouts/${W1}`);
    assert.equal(status, 200);
    assert.deepEqual(body, {
      uuid: W1,
      activityType: 'running',
      start: T0 + HOUR,
      end: T0 + HOUR + 1_800_000,
      durationS: 1800,
      distanceM: 5012.5,
      energyKcal: 412.5,
      hasRoute: true,
      availableMetrics: [HR, POWER],
      statisticsDetail: W1_STATISTICS,
      events: W1_EVENTS,
      activities: [], // stored as NULL
    });
    // The answer's bytes: its members in WorkoutDetail's order (deepEqual above does not compare order).
    assert.deepEqual(Object.keys(body), Object.keys(WorkoutDetail.properties));
  });

  test('null statistics, events and activities read as {} and []', async () => {
    const { body } = await server.getJson(`/v1/workouts/${W2}`);
    assert.deepEqual(body.statisticsDetail, {});
    assert.deepEqual(body.events, []);
    assert.deepEqual(body.activities, []);
    const w4 = (await server.getJson(`/v1/workouts/${W4}`)).body;
    assert.deepEqual(w4.activities, [{ activityType: 'yoga', start: T0 + 4 * HOUR, end: T0 + 5 * HOUR }]);
  });

  test('an uppercase uuid finds the workout and comes back lowercase', async () => {
    const { status, body } = await server.getJson(`/v1/workouts/${W1.toUpperCase()}`);
    assert.equal(status, 200);
    assert.equal(body.uuid, W1);
  });

  test('404 for a missing workout and for another user\'s', async () => {
    for (const uuid of [MISSING, OTHERS]) {
      const { status, body } = await server.getJson(`/v1/workouts/${uuid}`);
      assert.equal(status, 404, uuid);
      assert.deepEqual(body, { error: 'workout not found' });
    }
    // With multi-user reads on, user= reads the other user's workout…
    assert.equal((await server.getJson(`/v1/workouts/${OTHERS}?user=${OTHER_USER}`)).status, 200);
    // …and then the default user's is the one not found.
    assert.equal((await server.getJson(`/v1/workouts/${W1}?user=${OTHER_USER}`)).status, 404);
  });

  test('a path that is not a uuid is a 400', async () => {
    for (const path of ['nope', 'a0000000-0000-4000-8000-00000000000', 'a0000000-0000-4000-8000-00000000000g']) {
      const { status, body } = await server.getJson(`/v1/workouts/${path}`);
      assert.equal(status, 400, path);
      assert.deepEqual(body, { error: 'uuid must be a uuid' });
    }
  });
});
