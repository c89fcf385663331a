// Issue 3: /v1/metrics/latest and /v1/metrics/daily on a real server and
// database in America/New_York — newest sample per type, the sum-or-mean
// choice, local days across both DST changes, grazing ranges, paging across
// types, clamping, refusals and user isolation. Every expected number is
// worked out by hand below from the fixture.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allTypes } from '../src/core/registry.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const STEPS = 'HKQuantityTypeIdentifierStepCount'; // cumulative, count
const HEART = 'HKQuantityTypeIdentifierHeartRate'; // discrete, count/min
const MASS = 'HKQuantityTypeIdentifierBodyMass'; // discrete, kg
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let db: TestDatabase;
let server: TestServer;

async function seed(database: TestDatabase): Promise<void> {
  await database.query(`INSERT INTO settings VALUES ('time_zone', 'America/New_York')`);
  await database.query(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [DEFAULT_USER, OTHER_USER]);
  await database.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (2, $2), (3, $3), (4, $4)`, [STEPS, HEART, MASS, SLEEP]);
  await database.query(`INSERT INTO sources (source_id, name) VALUES (1, 'Watch'), (2, 'Phone')`);
  await database.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     -- default user, heart rate: newest start is 5000, shared by uuid 12 and uuid 11;
     -- uuid 12 is the greater, so value 80 wins. uuid 13 ends latest but starts at 3000.
     ($1, '${uuid(10)}', 2, 1000, 1000, 60, 1),
     ($1, '${uuid(11)}', 2, 5000, 5000, 72, 1),
     ($1, '${uuid(12)}', 2, 5000, 5000, 80, 2),
     ($1, '${uuid(13)}', 2, 3000, 999000, 99, 1),
     -- default user, steps from watch and phone: newest start 7000, value 250.
     ($1, '${uuid(20)}', 1, 2000, 6000, 100, 1),
     ($1, '${uuid(21)}', 1, 7000, 8000, 250, 2),
     -- default user, a sleep sample (category: never a latest metric).
     ($1, '${uuid(30)}', 4, 9000, 9500, 3, 1),
     -- other user: heart rate newer than anything of the default user, and body mass.
     ($2, '${uuid(40)}', 2, 999999, 999999, 150, 1),
     ($2, '${uuid(41)}', 3, 9000, 9000, 70.5, 2)`,
    [DEFAULT_USER, OTHER_USER],
  );
  await database.query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg, min, max) VALUES
     -- steps (cumulative → sum). 03-09 has no sum, so it is left out even with an avg.
     ($1, 1, '2026-03-07', 1000, 7, NULL, NULL),
     ($1, 1, '2026-03-08', 2000, 7, NULL, NULL),
     ($1, 1, '2026-03-09', NULL, 3, NULL, NULL),
     ($1, 1, '2026-03-10', 4000, NULL, NULL, NULL),
     ($1, 1, '2026-10-31', 10, NULL, NULL, NULL),
     ($1, 1, '2026-11-01', 20, NULL, NULL, NULL),
     ($1, 1, '2026-11-02', 30, NULL, NULL, NULL),
     -- heart rate (discrete → avg). 03-10 has no avg, so it is left out even with a sum.
     ($1, 2, '2026-03-08', 9999, 61.5, 50, 90),
     ($1, 2, '2026-03-09', NULL, 70, 55, 120),
     ($1, 2, '2026-03-10', 5, NULL, NULL, NULL),
     -- other user: steps on 03-08.
     ($2, 1, '2026-03-08', 77777, NULL, NULL, NULL)`,
    [DEFAULT_USER, OTHER_USER],
  );
}

before(async () => {
  db = await createTestDatabase();
  await seed(db);
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: 'America/New_York', SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

async function expect400(path: string, message?: RegExp): Promise<void> {
  const { status, body } = await server.getJson(path);
  assert.equal(status, 400, `${path} → ${JSON.stringify(body)}`);
  assert.equal(typeof body.error, 'string');
  if (message) assert.match(body.error, message);
}

describe('/v1/metrics/latest', () => {
  test('newest sample by start per type, request order, types without data left out', async () => {
    const { status, body, headers } = await server.getJson(`/v1/metrics/latest?types=${STEPS},${MASS},${HEART}`);
    assert.equal(status, 200);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.deepEqual(body, {
      metrics: [
        { identifier: STEPS, unit: 'count', value: 250, timestamp: 7000 },
        // tie at start 5000 → greatest uuid (…12) → 80; not uuid 13 (latest end, start 3000).
        { identifier: HEART, unit: 'count/min', value: 80, timestamp: 5000 },
      ],
    });
  });

  test('another user\'s rows never appear; user= reads them with multi-user on', async () => {
    const mine = await server.getJson(`/v1/metrics/latest?types=${HEART},${MASS}`);
    assert.deepEqual(mine.body.metrics, [{ identifier: HEART, unit: 'count/min', value: 80, timestamp: 5000 }]);
    const theirs = await server.getJson(`/v1/metrics/latest?types=${MASS},${HEART}&user=${OTHER_USER}`);
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body.metrics, [
      { identifier: MASS, unit: 'kg', value: 70.5, timestamp: 9000 },
      { identifier: HEART, unit: 'count/min', value: 150, timestamp: 999999 },
    ]);
  });

  test('no data is an empty array', async () => {
    const { status, body } = await server.getJson(`/v1/metrics/latest?types=HKQuantityTypeIdentifierVO2Max`);
    assert.equal(status, 200);
    assert.deepEqual(body, { metrics: [] });
  });

  test('50 known quantity types are fine; 51 are a 400', async () => {
    const quantities = allTypes.filter((t) => t.kind === 'quantity').map((t) => t.identifier);
    const fifty = quantities.slice(0, 50);
    assert.equal(fifty.length, 50);
    const ok = await server.getJson(`/v1/metrics/latest?types=${fifty.join(',')}`);
    assert.equal(ok.status, 200);
    await expect400(`/v1/metrics/latest?types=${quantities.slice(0, 51).join(',')}`, /50/);
    // The cap counts the list as sent: 51 copies of one identifier are still 51.
    await expect400(`/v1/metrics/latest?types=${Array(51).fill(quantities[0]).join(',')}`, /50/);
  });

  test('refusals: unknown, non-quantity, missing, empty', async () => {
    await expect400(`/v1/metrics/latest?types=${HEART},HKQuantityTypeIdentifierFoo`, /^unknown type: HKQuantityTypeIdentifierFoo \(the types stored for a user are listed at \/v1\/catalog\/types\)$/);
    await expect400(`/v1/metrics/latest?types=${SLEEP}`, new RegExp(SLEEP));
    await expect400(`/v1/metrics/latest?types=HKWorkoutTypeIdentifier`, /HKWorkoutTypeIdentifier/);
    await expect400(`/v1/metrics/latest`, /types/);
    await expect400(`/v1/metrics/latest?types=`, /types/);
  });
});

describe('/v1/metrics/daily', () => {
  // New York local midnights (EST = UTC−5, EDT = UTC−4 from 2026-03-08 03:00 to 2026-11-01 02:00):
  const mar7 = Date.UTC(2026, 2, 7, 5); //   2026-03-07 00:00 EST
  const mar8 = Date.UTC(2026, 2, 8, 5); //   2026-03-08 00:00 EST (a 23-hour day)
  const mar9 = Date.UTC(2026, 2, 9, 4); //   2026-03-09 00:00 EDT
  const mar11 = Date.UTC(2026, 2, 11, 4); // 2026-03-11 00:00 EDT
  const nov1 = Date.UTC(2026, 10, 1, 4); //  2026-11-01 00:00 EDT (a 25-hour day)
  const nov2 = Date.UTC(2026, 10, 2, 5); //  2026-11-02 00:00 EST
  const MIN = 60_000;
  const daily = (query: string) => server.getJson(`/v1/metrics/daily?${query}`);

  // Every row of [03-07, 03-11) for types=HEART,STEPS, in response order:
  //   HEART 03-08 61.5 (avg, not the sum 9999), HEART 03-09 70 (avg; 03-10 has no avg),
  //   STEPS 03-07 1000, STEPS 03-08 2000 (sum, not the avg 7), STEPS 03-10 4000 (03-09 has no sum) — 5 rows.
  const allRows = `types=${HEART},${STEPS}&start=${mar7}&end=${mar11}`;

  test('sum for cumulative, mean for discrete, days without a value left out, request order kept', async () => {
    const { status, body, headers } = await daily(allRows);
    assert.equal(status, 200);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.deepEqual(body, {
      metrics: [
        { identifier: HEART, unit: 'count/min', days: [{ date: '2026-03-08', value: 61.5 }, { date: '2026-03-09', value: 70 }] },
        {
          identifier: STEPS,
          unit: 'count',
          days: [{ date: '2026-03-07', value: 1000 }, { date: '2026-03-08', value: 2000 }, { date: '2026-03-10', value: 4000 }],
        },
      ],
      nextOffset: 5, // 0 + 5 rows
    });
    const reversed = await daily(`types=${STEPS},${HEART}&start=${mar7}&end=${mar11}`);
    assert.deepEqual(reversed.body.metrics.map((m: { identifier: string }) => m.identifier), [STEPS, HEART]);
  });

  test('the 23-hour spring-forward day: [00:00 EST, 00:00 EDT next day) is 2026-03-08 only', async () => {
    // mar9 - mar8 = 23 h; a 24-hour reading of the day would reach 01:00 EDT on the 9th.
    assert.equal(mar9 - mar8, 23 * 3_600_000);
    const { body } = await daily(`types=${HEART},${STEPS}&start=${mar8}&end=${mar9}`);
    assert.deepEqual(body.metrics, [
      { identifier: HEART, unit: 'count/min', days: [{ date: '2026-03-08', value: 61.5 }] },
      { identifier: STEPS, unit: 'count', days: [{ date: '2026-03-08', value: 2000 }] },
    ]);
    assert.equal(body.nextOffset, 2);
  });

  test('a range grazing one minute of a day returns that whole day', async () => {
    // 23:59 EST on the 7th → 00:01 EDT on the 9th touches the 7th, 8th and 9th.
    const { body } = await daily(`types=${STEPS},${HEART}&start=${mar8 - MIN}&end=${mar9 + MIN}`);
    assert.deepEqual(body.metrics, [
      { identifier: STEPS, unit: 'count', days: [{ date: '2026-03-07', value: 1000 }, { date: '2026-03-08', value: 2000 }] },
      { identifier: HEART, unit: 'count/min', days: [{ date: '2026-03-08', value: 61.5 }, { date: '2026-03-09', value: 70 }] },
    ]);
    // One minute of the 7th alone (23:59–00:00 EST) still returns the 7th's total.
    const minute = await daily(`types=${STEPS}&start=${mar8 - MIN}&end=${mar8}`);
    assert.deepEqual(minute.body.metrics, [{ identifier: STEPS, unit: 'count', days: [{ date: '2026-03-07', value: 1000 }] }]);
  });

  test('the 25-hour fall-back day: [00:00 EDT, 00:00 EST next day) is 2026-11-01 only', async () => {
    assert.equal(nov2 - nov1, 25 * 3_600_000);
    const whole = await daily(`types=${STEPS}&start=${nov1}&end=${nov2}`);
    assert.deepEqual(whole.body.metrics, [{ identifier: STEPS, unit: 'count', days: [{ date: '2026-11-01', value: 20 }] }]);
    // 24 h after 00:00 EDT is 23:00 EST, still the 1st; a 24-hour day would wrongly end there.
    const lateEvening = await daily(`types=${STEPS}&start=${nov1 + 24 * 3_600_000}&end=${nov1 + 24 * 3_600_000 + MIN}`);
    assert.deepEqual(lateEvening.body.metrics, [{ identifier: STEPS, unit: 'count', days: [{ date: '2026-11-01', value: 20 }] }]);
    // One millisecond before 00:00 EDT is the 31st; one after 00:00 EST the 2nd: 10 + 20 + 30 over three days.
    const around = await daily(`types=${STEPS}&start=${nov1 - 1}&end=${nov2 + 1}`);
    assert.deepEqual(around.body.metrics[0].days, [
      { date: '2026-10-31', value: 10 },
      { date: '2026-11-01', value: 20 },
      { date: '2026-11-02', value: 30 },
    ]);
  });

  test('paging counts day rows across types; a boundary may fall inside a type', async () => {
    // Rows 0–2: HEART 03-08, HEART 03-09, STEPS 03-07.
    const first = await daily(`${allRows}&limit=3`);
    assert.deepEqual(first.body, {
      metrics: [
        { identifier: HEART, unit: 'count/min', days: [{ date: '2026-03-08', value: 61.5 }, { date: '2026-03-09', value: 70 }] },
        { identifier: STEPS, unit: 'count', days: [{ date: '2026-03-07', value: 1000 }] },
      ],
      nextOffset: 3, // 0 + 3
    });
    // Rows 3–4: STEPS opens the next page too; 2 rows < limit 3, so it is the last page.
    const second = await daily(`${allRows}&limit=3&offset=3`);
    assert.deepEqual(second.body, {
      metrics: [{ identifier: STEPS, unit: 'count', days: [{ date: '2026-03-08', value: 2000 }, { date: '2026-03-10', value: 4000 }] }],
      nextOffset: 5, // 3 + 2
    });
    // Row 1 alone: the second day of HEART.
    const inside = await daily(`${allRows}&limit=1&offset=1`);
    assert.deepEqual(inside.body, {
      metrics: [{ identifier: HEART, unit: 'count/min', days: [{ date: '2026-03-09', value: 70 }] }],
      nextOffset: 2, // 1 + 1
    });
    // Past the end: empty, nextOffset = offset.
    const past = await daily(`${allRows}&offset=10`);
    assert.deepEqual(past.body, { metrics: [], nextOffset: 10 });
  });

  test('a limit above 50000 is clamped, not refused', async () => {
    const { status, body } = await daily(`${allRows}&limit=99999`);
    assert.equal(status, 200);
    assert.equal(body.nextOffset, 5);
    const huge = await daily(`${allRows}&limit=99999999999999999999`);
    assert.equal(huge.status, 200);
    assert.equal(huge.body.nextOffset, 5);
  });

  test('no range cap: the whole timestamp range', async () => {
    // 0 is 1969-12-31 in New York; 253402300799999 is 9999-12-31. Of the 7 step buckets,
    // the 6 with a sum: 03-07, 03-08, 03-10, 10-31, 11-01, 11-02 (03-09 has none).
    const { status, body } = await daily(`types=${STEPS}&start=0&end=253402300799999`);
    assert.equal(status, 200);
    assert.deepEqual(
      body.metrics[0].days.map((d: { date: string }) => d.date),
      ['2026-03-07', '2026-03-08', '2026-03-10', '2026-10-31', '2026-11-01', '2026-11-02'],
    );
    assert.equal(body.nextOffset, 6);
  });

  test('types without aggregates in range are omitted; an empty answer is an empty array', async () => {
    const { body } = await daily(`types=${MASS},${STEPS},${SLEEP}&start=${mar8}&end=${mar9}`);
    assert.deepEqual(body, { metrics: [{ identifier: STEPS, unit: 'count', days: [{ date: '2026-03-08', value: 2000 }] }], nextOffset: 1 });
    const none = await daily(`types=${STEPS}&start=${Date.UTC(2020, 0, 1)}&end=${Date.UTC(2020, 0, 2)}`);
    assert.deepEqual(none.body, { metrics: [], nextOffset: 0 });
  });

  test('another user\'s buckets never appear; user= reads them with multi-user on', async () => {
    const mine = await daily(`types=${STEPS}&start=${mar8}&end=${mar9}`);
    assert.deepEqual(mine.body.metrics[0].days, [{ date: '2026-03-08', value: 2000 }]);
    const theirs = await daily(`types=${STEPS},${HEART}&start=${mar8}&end=${mar9}&user=${OTHER_USER}`);
    assert.deepEqual(theirs.body, { metrics: [{ identifier: STEPS, unit: 'count', days: [{ date: '2026-03-08', value: 77777 }] }], nextOffset: 1 });
  });

  test('refusals: limit, offset, range, types', async () => {
    for (const bad of ['0', '-1', '1.5', '1e3', 'abc', '']) await expect400(`/v1/metrics/daily?${allRows}&limit=${bad}`, /limit/);
    for (const bad of ['-1', '1.5', '1e3', 'abc', '']) await expect400(`/v1/metrics/daily?${allRows}&offset=${bad}`, /offset/);
    await expect400(`/v1/metrics/daily?types=${STEPS}&start=${mar9}&end=${mar9}`, /^end must be after start \(start and end are epoch milliseconds\)$/);
    await expect400(`/v1/metrics/daily?types=${STEPS}&start=${mar9}&end=${mar8}`, /^end must be after start \(start and end are epoch milliseconds\)$/);
    await expect400(`/v1/metrics/daily?types=${STEPS}&start=${mar8}`, /end/);
    await expect400(`/v1/metrics/daily?types=${STEPS}&start=-1&end=${mar8}`, /start/);
    await expect400(`/v1/metrics/daily?types=${STEPS}&start=0&end=253402300800000`, /end/);
    await expect400(`/v1/metrics/daily?start=${mar8}&end=${mar9}`, /types/);
    await expect400(`/v1/metrics/daily?types=HKQuantityTypeIdentifierFoo&start=${mar8}&end=${mar9}`, /^unknown type: HKQuantityTypeIdentifierFoo \(the types stored for a user are listed at \/v1\/catalog\/types\)$/);
    const many = Array.from({ length: 51 }, (_, i) => `HKQuantityTypeIdentifierX${i}`).join(',');
    await expect400(`/v1/metrics/daily?types=${many}&start=${mar8}&end=${mar9}`, /50/);
  });
});
