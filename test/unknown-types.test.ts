// Types the registry does not know but a writer stored (the importer or a
// phone met them first; the protocol keeps unknown identifiers): every route
// that takes identifiers reads them, their kind from their prefix and their
// unit null (the unit travels with each sample's metadata); an identifier no
// writer stored is still refused as unknown.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { USER_HOLDS_TYPE } from '../src/reads/types.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const FUTURE = 'HKQuantityTypeIdentifierSomethingAppleAddsNext';
const GOAL = 'HKDataTypeSleepDurationGoal';
const FUTURE_EVENT = 'HKCategoryTypeIdentifierSomethingNew';
const NEVER_STORED = 'HKQuantityTypeIdentifierNeverStored';
/** Stored by another user only (a sample, a daily value, a workout's stream): unknown to this one. */
const OTHERS = ['HKQuantityTypeIdentifierOtherUsersSample', 'HKQuantityTypeIdentifierOtherUsersDaily', 'HKQuantityTypeIdentifierOtherUsersStream'];
const OTHER_USER = '0f0f0f0f-0000-4000-8000-0000000000ff';
const OTHER_WORKOUT = '0f0f0f0f-0000-4000-8000-0000000000aa';
const T0 = Date.UTC(2026, 0, 10, 8);
const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await db.query(`INSERT INTO users VALUES ($1, 1)`, [DEFAULT_USER]);
  await db.query(`INSERT INTO sample_types (identifier) VALUES ($1), ($2), ($3)`, [FUTURE, GOAL, FUTURE_EVENT]);
  const id = (identifier: string) => `(SELECT type_id FROM sample_types WHERE identifier = '${identifier}')`;
  await db.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, metadata) VALUES
     ($1, '${U(1)}', ${id(FUTURE)}, ${T0}, ${T0 + 60_000}, 4.5, '{"unit":"zz"}'),
     ($1, '${U(2)}', ${id(FUTURE)}, ${T0 + 3_600_000}, ${T0 + 3_660_000}, 5.5, '{"unit":"zz"}'),
     ($1, '${U(3)}', ${id(GOAL)}, ${T0}, ${T0}, 8, '{"unit":"hr"}'),
     ($1, '${U(4)}', ${id(FUTURE_EVENT)}, ${T0}, ${T0 + 1000}, 0, NULL)`,
    [DEFAULT_USER],
  );
  // A phone's 1-day bucket of a quantity type we do not know: whichever column its function named.
  await db.query(`INSERT INTO daily_aggregates (user_id, type_id, day, sum) VALUES ($1, ${id(FUTURE)}, '2026-01-10', 10)`, [DEFAULT_USER]);
  await db.query(`INSERT INTO users VALUES ($1, 1)`, [OTHER_USER]);
  await db.query(`INSERT INTO sample_types (identifier) SELECT unnest($1::text[])`, [OTHERS]);
  await db.query(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value) VALUES ($1, '${U(9)}', ${id(OTHERS[0])}, ${T0}, ${T0}, 1)`, [OTHER_USER]);
  await db.query(`INSERT INTO daily_aggregates (user_id, type_id, day, sum) VALUES ($1, ${id(OTHERS[1])}, '2026-01-10', 1)`, [OTHER_USER]);
  await db.query(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s) VALUES ($1, $2, 'running', ${T0}, ${T0 + 60_000}, 60)`, [OTHER_USER, OTHER_WORKOUT]);
  await db.query(`INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, values) VALUES ($1, $2, ${id(OTHERS[2])}, '{${T0}}', '{1}')`, [OTHER_USER, OTHER_WORKOUT]);
  server = await startServer({ databaseUrl: db.url });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

const range = `start=${Date.UTC(2026, 0, 10)}&end=${Date.UTC(2026, 0, 11)}`;

test('/v1/samples reads a stored unknown type: kind from its prefix, unit null', async () => {
  for (const [type, kind, values] of [[FUTURE, 'quantity', [4.5, 5.5]], [GOAL, 'quantity', [8]], [FUTURE_EVENT, 'category', [0]]] as const) {
    const { status, body } = await server.getJson(`/v1/samples?type=${type}&${range}`);
    assert.equal(status, 200, type);
    assert.equal(body.kind, kind, type);
    assert.equal(body.unit, null, type);
    assert.deepEqual(body.samples.map((s: { value: number }) => s.value), values, type);
    assert.ok(body.samples.every((s: { label: unknown }) => s.label === null), `${type}: no label for an unknown category`);
  }
});

test('/v1/metrics/latest and /v1/metrics/daily read a stored unknown quantity type', async () => {
  const latest = await server.getJson(`/v1/metrics/latest?types=${FUTURE}`);
  assert.deepEqual(latest.body, { metrics: [{ identifier: FUTURE, unit: null, value: 5.5, timestamp: T0 + 3_600_000 }] });
  const daily = await server.getJson(`/v1/metrics/daily?types=${FUTURE}&${range}`);
  assert.deepEqual(daily.body, { metrics: [{ identifier: FUTURE, unit: null, days: [{ date: '2026-01-10', value: 10 }] }], nextOffset: 1 });
  const refused = await server.getJson(`/v1/metrics/latest?types=${FUTURE_EVENT}`);
  assert.equal(refused.status, 400);
  assert.match(refused.body.error, /must name quantity types/);
});

test('the samples export reads a stored unknown type too', async () => {
  const response = await server.get(`/v1/export?format=csv&dataset=samples&type=${FUTURE}&${range}`);
  assert.equal(response.status, 200);
  assert.deepEqual((await response.text()).split('\r\n'), [
    'type,unit,uuid,start,end,value,label,source',
    `${FUTURE},,${U(1)},${T0},${T0 + 60_000},4.5,,`,
    `${FUTURE},,${U(2)},${T0 + 3_600_000},${T0 + 3_660_000},5.5,,`,
    '',
  ]);
});

test('an identifier no writer stored, or only for another user, is still unknown, everywhere: whether another user stored a name is not told', async () => {
  for (const type of [NEVER_STORED, ...OTHERS]) {
    for (const path of [
      `/v1/samples?type=${type}&${range}`,
      `/v1/metrics/latest?types=${type}`,
      `/v1/metrics/daily?types=${type}&${range}`,
      `/v1/export?format=csv&dataset=samples&type=${type}&${range}`,
      `/v1/export?format=csv&dataset=daily_metrics&types=${type}&${range}`,
    ]) {
      const { status, body } = await server.getJson(path);
      assert.equal(status, 400, path);
      assert.match(body.error, new RegExp(`^unknown type: ${type}`), path);
    }
  }
  // Whether a user holds a stream of a type is an index probe, whatever other users hold: no scan whose time would tell.
  const session = new pg.Client({ connectionString: db.url });
  await session.connect();
  try {
    await session.query('SET enable_seqscan = off');
    const explained = await session.query(`EXPLAIN ${USER_HOLDS_TYPE([]).text}`.replace(/\$1/g, `'${DEFAULT_USER}'::uuid`).replace(/\$2/g, '1'));
    const plan = explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    assert.match(plan, /Index Only Scan using workout_streams_user_type on workout_streams/, plan);
    assert.doesNotMatch(plan, /Seq Scan/, plan);
  } finally {
    await session.end();
  }
  // The other user's own reads know them (a per-user token for them reads as they do).
  const asOther = await startServer({ databaseUrl: db.url, env: { SERVICE_USER_ID: OTHER_USER } });
  try {
    assert.equal((await asOther.getJson(`/v1/samples?type=${OTHERS[0]}&${range}`)).body.samples.length, 1);
    assert.deepEqual((await asOther.getJson(`/v1/metrics/daily?types=${OTHERS[1]}&${range}`)).body.metrics[0].days, [{ date: '2026-01-10', value: 1 }]);
    const series = await asOther.getJson(`/v1/workouts/${OTHER_WORKOUT}/series?types=${OTHERS[2]}`);
    assert.equal(series.status, 200);
    assert.equal(series.body.series[0].type, OTHERS[2]);
  } finally {
    await asOther.stop();
  }
});
