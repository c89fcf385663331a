// Issue 3: /v1/activity/summary on a real server and database in Asia/Kolkata
// (+05:30, so every local day begins at 18:30Z the evening before): rings per
// local day touched, grazing ranges, nulls for untracked rings, move-time
// fields, no range cap, refusals and user isolation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
// Kolkata local midnights: 00:00 IST = 18:30Z the day before.
const jan15 = Date.UTC(2026, 0, 14, 18, 30); // 2026-01-15 00:00 IST
const jan16 = Date.UTC(2026, 0, 15, 18, 30); // 2026-01-16 00:00 IST
const jan17 = Date.UTC(2026, 0, 16, 18, 30); // 2026-01-17 00:00 IST
const MIN = 60_000;

const day14 = {
  date: '2026-01-14',
  moveKcal: 512.5,
  moveGoalKcal: 600,
  exerciseMin: 31,
  exerciseGoalMin: 30,
  standHours: 11,
  standGoalHours: 12,
  moveMode: 1,
  moveTimeMin: null,
  moveTimeGoalMin: null,
};
// A phone without a watch: only the move ring is tracked.
// Active-energy mode, with move-time figures a writer stored anyway: api.md gives those in move-time mode only.
const day15 = {
  date: '2026-01-15',
  moveKcal: 250,
  moveGoalKcal: 400,
  exerciseMin: null,
  exerciseGoalMin: null,
  standHours: null,
  standGoalHours: null,
  moveMode: 1,
  moveTimeMin: null,
  moveTimeGoalMin: null,
};
// Move-time mode.
const day16 = {
  date: '2026-01-16',
  moveKcal: null,
  moveGoalKcal: null,
  exerciseMin: 12,
  exerciseGoalMin: 30,
  standHours: 8,
  standGoalHours: 12,
  moveMode: 2,
  moveTimeMin: 45,
  moveTimeGoalMin: 60,
};

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'Asia/Kolkata')`);
  await db.query(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [DEFAULT_USER, OTHER_USER]);
  await db.query(
    `INSERT INTO activity_summaries (user_id, day, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min,
       stand_hours, stand_goal_hours, move_time_min, move_time_goal_min, move_mode) VALUES
     ($1, '2026-01-14', 512.5, 600, 31, 30, 11, 12, NULL, NULL, 1),
     ($1, '2026-01-15', 250, 400, NULL, NULL, NULL, NULL, 33, 30, 1),
     ($1, '2026-01-16', NULL, NULL, 12, 30, 8, 12, 45, 60, 2),
     ($2, '2026-01-15', 999, 1000, 99, 100, 9, 10, NULL, NULL, 1)`,
    [DEFAULT_USER, OTHER_USER],
  );
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: 'Asia/Kolkata', SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

const activity = (query: string) => server.getJson(`/v1/activity/summary?${query}`);

test('one local day, [00:00 IST, 00:00 IST next day), is that day only; its move-time figures null in active-energy mode, in the export too', async () => {
  // In UTC this range is 01-14 18:30Z → 01-15 18:30Z; a UTC reading would return the 14th and the 15th.
  const { status, body, headers } = await activity(`start=${jan15}&end=${jan16}`);
  assert.equal(status, 200);
  assert.equal(headers.get('cache-control'), 'no-store');
  assert.deepEqual(body, { days: [day15] });
  const csv = await (await server.get(`/v1/export?format=csv&dataset=activity&start=${jan15}&end=${jan16}`)).text();
  assert.match(csv.split('\r\n')[1], /^2026-01-15,250,400,,,,,1,,$/);
});

test('a range grazing one minute of each side returns both whole days, ascending', async () => {
  // 23:59 IST on the 15th → 00:01 IST on the 16th.
  const { body } = await activity(`start=${jan16 - MIN}&end=${jan16 + MIN}`);
  assert.deepEqual(body, { days: [day15, day16] });
  // One millisecond before 00:00 IST on the 15th is still the 14th.
  const edge = await activity(`start=${jan15 - 1}&end=${jan15}`);
  assert.deepEqual(edge.body, { days: [day14] });
});

test('no range cap; days without a summary are simply absent', async () => {
  const { status, body } = await activity(`start=0&end=253402300799999`);
  assert.equal(status, 200);
  assert.deepEqual(body, { days: [day14, day15, day16] });
  const later = await activity(`start=${jan17}&end=${jan17 + 10 * 86_400_000}`);
  assert.deepEqual(later.body, { days: [] });
});

test('another user\'s days never appear; user= reads them with multi-user on', async () => {
  const mine = await activity(`start=${jan15}&end=${jan16}`);
  assert.equal(mine.body.days[0].moveKcal, 250);
  const theirs = await activity(`start=${jan15}&end=${jan17}&user=${OTHER_USER}`);
  assert.deepEqual(theirs.body, {
    days: [
      {
        date: '2026-01-15',
        moveKcal: 999,
        moveGoalKcal: 1000,
        exerciseMin: 99,
        exerciseGoalMin: 100,
        standHours: 9,
        standGoalHours: 10,
        moveMode: 1,
        moveTimeMin: null,
        moveTimeGoalMin: null,
      },
    ],
  });
});

test('refusals: end not after start, missing or malformed bounds', async () => {
  for (const [query, message] of [
    [`start=${jan15}&end=${jan15}`, /^end must be after start \(start and end are epoch milliseconds\)$/],
    [`start=${jan16}&end=${jan15}`, /^end must be after start \(start and end are epoch milliseconds\)$/],
    [`start=${jan15}`, /end/],
    [`end=${jan15}`, /start/],
    [`start=1.5&end=${jan15}`, /start/],
    [`start=${jan15}&end=253402300800000`, /end/],
  ] as const) {
    const { status, body } = await activity(query);
    assert.equal(status, 400, query);
    assert.match(body.error, message);
  }
});

test('at the top of the timestamp range east of UTC, a day with a five-digit year (10000-01-01) reads whole, and the days after it in the answer too', async () => {
  const top = 253402300799999; // 10000-01-01 05:29 IST
  const from = Date.UTC(9999, 11, 29, 18, 30); // 9999-12-30 00:00 IST
  await db.query(`INSERT INTO sample_types (identifier) VALUES ('HKQuantityTypeIdentifierStepCount'), ('HKQuantityTypeIdentifierRestingHeartRate') ON CONFLICT DO NOTHING`);
  const id = (identifier: string) => `(SELECT type_id FROM sample_types WHERE identifier = '${identifier}')`;
  await db.query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg) VALUES
     ($1, ${id('HKQuantityTypeIdentifierStepCount')}, '9999-12-31', 7, NULL), ($1, ${id('HKQuantityTypeIdentifierStepCount')}, '10000-01-01', 9, NULL),
     ($1, ${id('HKQuantityTypeIdentifierRestingHeartRate')}, '9999-12-30', NULL, 55), ($1, ${id('HKQuantityTypeIdentifierRestingHeartRate')}, '9999-12-31', NULL, 56)`,
    [DEFAULT_USER],
  );
  await db.query(`INSERT INTO activity_summaries (user_id, day, move_kcal, move_mode) VALUES ($1, '9999-12-31', 1, 1), ($1, '10000-01-01', 2, 1)`, [DEFAULT_USER]);
  try {
    const types = 'HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierRestingHeartRate';
    const first = await server.getJson(`/v1/metrics/daily?types=${types}&start=${from}&end=${top}`);
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.metrics.map((m: { days: unknown[] }) => m.days), [
      [{ date: '9999-12-31', value: 7 }, { date: '10000-01-01', value: 9 }],
      [{ date: '9999-12-30', value: 55 }, { date: '9999-12-31', value: 56 }],
    ]);
    const later = await server.getJson(`/v1/metrics/daily?types=${types}&start=${from}&end=${top}&offset=1`);
    assert.deepEqual(later.body.metrics[0].days, [{ date: '10000-01-01', value: 9 }]);
    const rings = await activity(`start=${from}&end=${top}`);
    assert.deepEqual(rings.body.days.map((d: { date: string; moveKcal: number }) => [d.date, d.moveKcal]), [['9999-12-31', 1], ['10000-01-01', 2]]);
  } finally {
    await db.query(`DELETE FROM daily_aggregates WHERE day > '9999-01-01'`);
    await db.query(`DELETE FROM activity_summaries WHERE day > '9999-01-01'`);
  }
});
