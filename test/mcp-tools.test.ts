// Issue 14: the MCP server's tools over Streamable HTTP, with the SDK's own
// client, against the real server on a hand-made fixture in America/New_York
// with multi-user reads on. tools/list, resources and prompts; each tool's
// answer against the matching REST route's over HTTP (the same data written
// the tools' way: local ISO times, rounded values) and against numbers worked
// out by hand below — 2026-03-08, the 23-hour spring-forward day, included;
// another user through `user`; every kind of bad input as a tool error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { connectHttp, toolError, toolJson, toolText } from './support/mcp.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';
import { INGEST, MCP } from '../src/limits.js';

const ZONE = 'America/New_York';
const A = DEFAULT_USER;
const B = '00000000-0000-4000-8000-000000000002';
const STEPS = 'HKQuantityTypeIdentifierStepCount';
const HR = 'HKQuantityTypeIdentifierHeartRate';
const RHR = 'HKQuantityTypeIdentifierRestingHeartRate';
const MASS = 'HKQuantityTypeIdentifierBodyMass';
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const FLIGHTS = 'HKQuantityTypeIdentifierFlightsClimbed';
const DISTANCE = 'HKQuantityTypeIdentifierDistanceWalkingRunning';
const VO2 = 'HKQuantityTypeIdentifierVO2Max';

// New York local midnights around the spring-forward day (EST = UTC−5 until 2026-03-08 07:00Z, then EDT = UTC−4).
const MAR7 = Date.UTC(2026, 2, 7, 5);
const MAR8 = Date.UTC(2026, 2, 8, 5); // 2026-03-08 is 23 hours long
const MAR9 = Date.UTC(2026, 2, 9, 4);
const MAR11 = Date.UTC(2026, 2, 11, 4);
const MIN = 60_000;

const RUN = 'a0000000-0000-4000-8000-000000000001';
const YOGA = 'a0000000-0000-4000-8000-000000000002';
const B_RUN = 'b0000000-0000-4000-8000-000000000001';
const NO_SUCH = 'e0000000-0000-4000-8000-000000000001';
const RUN_START = Date.UTC(2026, 2, 8, 12); // 08:00 EDT
const RUN_END = RUN_START + 30 * MIN;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

// The run's route: 10 points a second apart, due north in steps of 0.0001° at 8.5° E (as test/workout-route.test.ts):
// 9 × 11.1195 m = 100.0756 m, climbing 1 + 2 + 3 + 2 + 4 = 12 m (the unknown altitude skipped).
const ROUTE_TIMES = Array.from({ length: 10 }, (_, i) => RUN_START + i * 1000);
const ROUTE_LATS = Array.from({ length: 10 }, (_, i) => 47 + i * 0.0001);
const ROUTE_ALTS = [400, 401, 403, null, 402, 405, 405, 404, 406, 410];
// The run's heart rate: a point a minute.
const HR_TIMES = Array.from({ length: 10 }, (_, i) => RUN_START + i * MIN);
const HR_VALUES = [120, 125, 130, 135.456, 140, 142, 144, 146, 148, 150];

// Ten years of one value a day for three types (10,959 day rows: more than one page of the daily route's default 10,000).
const DECADE_FROM = '2016-01-01';
const DECADE_TO = '2025-12-31';
const DECADE_DAYS = 3653;

let db: TestDatabase;
let server: TestServer;
let client: Client;

/** Today and yesterday in New York, for the summary. */
const todayNy = DateTime.now().setZone(ZONE).toISODate()!;
const yesterdayNy = DateTime.now().setZone(ZONE).minus({ days: 1 }).toISODate()!;

async function seed(d: TestDatabase): Promise<void> {
  await d.query(`INSERT INTO settings VALUES ('time_zone', $1)`, [ZONE]);
  await d.query(`INSERT INTO users VALUES ($1, 1000), ($2, 2000)`, [A, B]);
  await d.query(`INSERT INTO profiles VALUES ($1, 'Ada', 'ada@example.org', $2, 'female', 5)`, [A, Date.UTC(1990, 4, 17)]);
  await d.query(`INSERT INTO upload_batches VALUES ($1, $2, 10)`, [A, MAR9 + 3 * 3_600_000]);
  await d.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (2, $2), (3, $3), (4, $4), (5, $5), (6, $6), (7, $7)`, [STEPS, HR, RHR, MASS, SLEEP, FLIGHTS, DISTANCE]);
  await d.query(`INSERT INTO sources (source_id, name) VALUES (1, 'Watch'), (2, 'Phone')`);
  const sample = `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ($1, $2, $3, $4, $5, $6, $7)`;
  // Heart rate on the 23-hour day [MAR8, MAR9): its first instant, 01:30 EST from both devices, 03:30 EDT, its last millisecond;
  // and 00:30 EDT on 03-09, which a 24-hour day from MAR8 would wrongly take in.
  await d.query(sample, [A, uuid(1), 2, MAR8, MAR8, 55, 1]);
  await d.query(sample, [A, uuid(2), 2, MAR8 + 90 * MIN, MAR8 + 90 * MIN, 60, 1]);
  await d.query(sample, [A, uuid(3), 2, MAR8 + 90 * MIN, MAR8 + 90 * MIN, 61, 2]);
  await d.query(sample, [A, uuid(4), 2, MAR8 + 150 * MIN, MAR8 + 150 * MIN, 72.333, 1]);
  await d.query(sample, [A, uuid(5), 2, MAR9 - 1, MAR9 - 1, 80, 1]);
  await d.query(sample, [A, uuid(6), 2, MAR9 + 30 * MIN, MAR9 + 30 * MIN, 90, 1]);
  await d.query(sample, [B, uuid(7), 2, MAR8 + 60 * MIN, MAR8 + 60 * MIN, 150, 1]);
  await d.query(sample, [A, uuid(8), 4, RUN_START, RUN_START, 68.04, 2]);
  // The night into 03-08 (as test/sleep.test.ts N1): phone in bed 23:00 EST → 07:30 EDT, 450 real minutes;
  // the watch's stages core 120 + deep 60 + REM 120 + core 80 = 380 asleep, awake 10.
  const night: [number, number, string, string][] = [
    [2, 0, '2026-03-08T04:00Z', '2026-03-08T11:30Z'],
    [1, 3, '2026-03-08T04:30Z', '2026-03-08T06:30Z'],
    [1, 4, '2026-03-08T06:30Z', '2026-03-08T07:30Z'],
    [1, 2, '2026-03-08T07:30Z', '2026-03-08T07:40Z'],
    [1, 5, '2026-03-08T07:40Z', '2026-03-08T09:40Z'],
    [1, 3, '2026-03-08T09:40Z', '2026-03-08T11:00Z'],
  ];
  for (const [i, [source, value, start, end]] of night.entries()) await d.query(sample, [A, uuid(20 + i), 5, Date.parse(start), Date.parse(end), value, source]);

  const daily = `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg) VALUES ($1, $2, $3, $4, $5)`;
  for (const [day, steps] of [['2026-03-07', 1000], ['2026-03-08', 2000], ['2026-03-09', 3000.55], ['2026-03-10', 4000]] as const) await d.query(daily, [A, 1, day, steps, null]);
  await d.query(daily, [A, 3, '2026-03-08', null, 58.44]);
  await d.query(daily, [A, 3, '2026-03-09', null, 61.25]);
  await d.query(daily, [B, 1, '2026-03-08', 77777, null]);
  await d.query(daily, [A, 1, todayNy, 5000, null]);
  await d.query(daily, [A, 1, yesterdayNy, 7000, null]);
  await d.query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg)
     SELECT $1, t.type_id, day::date, CASE WHEN t.type_id = 6 THEN 1 WHEN t.type_id = 7 THEN 2 END,
            CASE WHEN t.type_id = 2 THEN 60 + (row_number() OVER (PARTITION BY t.type_id ORDER BY day) - 1) % 2 END
     FROM generate_series($2::date, $3::date, interval '1 day') AS day, (VALUES (2), (6), (7)) AS t(type_id)`,
    [A, DECADE_FROM, DECADE_TO],
  );

  await d.query(
    `INSERT INTO activity_summaries (user_id, day, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours, move_mode)
     VALUES ($1, '2026-03-08', 450.25, 500, 35, 30, 10, 12, 1), ($1, '2026-03-10', 612.123, 500, 3.333, 30, 9, 12, 1), ($2, '2026-03-08', 999, 500, 99, 30, 9, 12, 1)`,
    [A, B],
  );

  const workout = `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, statistics, events, activities)
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
  await d.query(workout, [
    A, RUN, 'running', RUN_START, RUN_END, 1800.4, 5012.345, 300.55,
    JSON.stringify({ [HR]: { min: 120, avg: 135.456, max: 150 } }),
    JSON.stringify([{ type: 'pause', start: RUN_START + 10 * MIN, end: RUN_START + 11 * MIN }]),
    '[]',
  ]);
  await d.query(workout, [A, YOGA, 'yoga', MAR9 + 14 * 3_600_000, MAR9 + 15 * 3_600_000, 3600, null, 120, null, null, null]);
  await d.query(workout, [B, B_RUN, 'running', RUN_START, RUN_END, 1800, 4000, 250, null, null, null]);
  await d.query(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values") VALUES ($1, $2, 2, $3::bigint[], $4::float8[])`,
    [A, RUN, HR_TIMES, HR_VALUES],
  );
  await d.query(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES ($1, $2, $3::bigint[], $4::float8[], $5::float8[], $6::float8[])`,
    [A, RUN, ROUTE_TIMES, ROUTE_LATS, ROUTE_LATS.map(() => 8.5), ROUTE_ALTS],
  );
  await d.query(
    `INSERT INTO state_of_mind (user_id, uuid, logged_at_ms, kind, valence, valence_classification, labels, associations)
     VALUES ($1, $2, $3, 'dailyMood', 0.4567, 'slightlyPleasant', '{happy}', '{family}'), ($4, $5, $3, 'dailyMood', -0.5, 'unpleasant', '{}', '{}')`,
    [A, uuid(40), MAR8 + 15 * 3_600_000, B, uuid(41)],
  );
}

before(async () => {
  db = await createTestDatabase();
  await seed(db);
  server = await startServer({ databaseUrl: db.url, mcp: true, env: { SERVICE_TIME_ZONE: ZONE, SERVICE_MULTI_USER: 'true' } });
  client = await connectHttp(server.mcpUrl, server.token);
});

after(async () => {
  await client?.close();
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

// The REST answer written the tools' way, implemented apart from src/mcp/compact.ts.
const local = (ms: number) => DateTime.fromMillis(ms, { zone: ZONE }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
const localOrNull = (ms: number | null) => (ms === null ? null : local(ms));
const round = (v: number | null) => (v === null ? null : Math.abs(v) >= 10 ? Math.round(v * 10) / 10 : Math.abs(v) >= 1 ? Math.round(v * 100) / 100 : Number(v.toPrecision(3)));
const roundEach = (o: Record<string, any>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]));

async function rest(path: string): Promise<any> {
  const { status, body } = await server.getJson(path);
  assert.equal(status, 200, `${path} → ${JSON.stringify(body)}`);
  return body;
}

describe('discovery', () => {
  test('tools/list: every tool with an object input schema, read-only annotations and a user input (but list_users)', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'list_users', 'get_summary', 'get_profile', 'list_available_types', 'get_latest_metrics', 'get_daily_metrics', 'get_activity_rings', 'list_workouts',
        'get_workout', 'get_workout_series', 'get_sleep', 'get_samples', 'get_state_of_mind', 'get_workout_route', 'get_metric_stats',
      ],
    );
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description && tool.description.length > 40, tool.name);
      assert.deepEqual(
        { readOnly: tool.annotations?.readOnlyHint, idempotent: tool.annotations?.idempotentHint, destructive: tool.annotations?.destructiveHint },
        { readOnly: true, idempotent: true, destructive: false },
        tool.name,
      );
      assert.equal('user' in (tool.inputSchema.properties ?? {}), tool.name !== 'list_users', tool.name);
    }
    const daily = tools.find((t) => t.name === 'get_daily_metrics')!;
    assert.deepEqual([...(daily.inputSchema.required ?? [])].sort(), ['end_date', 'start_date', 'types']);
    assert.equal((daily.inputSchema.properties as any).types.maxItems, 10);
    const workouts = tools.find((t) => t.name === 'list_workouts')!;
    assert.equal((workouts.inputSchema.properties as any).limit.maximum, 200);
    // The lists never change while connected: no change notifications are promised.
    const capabilities = client.getServerCapabilities();
    assert.deepEqual([capabilities?.tools?.listChanged, capabilities?.resources?.listChanged, capabilities?.prompts?.listChanged], [false, false, false]);
    // Every tool says it takes no other arguments (and refuses them: below).
    for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
  });

  test('resources: the guide names the zone; the type catalog lists identifiers with units', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), ['healthd://guide', 'healthd://types']);
    const guide = await client.readResource({ uri: 'healthd://guide' });
    const text = (guide.contents[0] as { text: string }).text;
    assert.match(text, /local days in America\/New_York/);
    assert.match(text, /get_samples \(raw records as synced/);
    assert.match(text, /Whose data\? \(multi-user reads are on: pass `user`/);
    assert.match(text, /one decimal from 10 up, two from 1 to 10 and 3 significant digits below 1/);
    const types = JSON.parse(((await client.readResource({ uri: 'healthd://types' })).contents[0] as { text: string }).text);
    assert.deepEqual(types.types.find((t: any) => t.identifier === STEPS), { identifier: STEPS, kind: 'quantity', unit: 'count', aggregation: 'total' });
    assert.deepEqual(types.types.find((t: any) => t.identifier === HR), { identifier: HR, kind: 'quantity', unit: 'count/min', aggregation: 'mean' });
  });

  test('prompts: weekly_summary names this week and the one before; compare_workouts names both workouts, or the one given', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['weekly_summary', 'compare_workouts']);
    const weekly = await client.getPrompt({ name: 'weekly_summary', arguments: { user: B } });
    const text = (weekly.messages[0].content as { text: string }).text;
    const from = DateTime.now().setZone(ZONE).minus({ days: 13 }).toISODate()!;
    assert.ok(text.includes(`${from} to `) && text.includes(`to ${todayNy}`) && text.includes(B), text);
    // The stats it asks for cover exactly the two weeks it names (group_by week would cut Monday-to-Sunday weeks instead).
    const [prevEnd, thisStart] = [DateTime.now().setZone(ZONE).minus({ days: 7 }).toISODate()!, DateTime.now().setZone(ZONE).minus({ days: 6 }).toISODate()!];
    assert.ok(text.includes(`start_date ${thisStart}, end_date ${todayNy}`) && text.includes(`start_date ${from}, end_date ${prevEnd}`), text);
    assert.doesNotMatch(text, /group_by week/);
    const compare = await client.getPrompt({ name: 'compare_workouts', arguments: { first: RUN, second: YOGA } });
    assert.match((compare.messages[0].content as { text: string }).text, new RegExp(`${RUN} and ${YOGA}`));
    // One uuid alone is one of the two, compared with the latest other of its activity type: never dropped.
    for (const args of [{ first: RUN }, { second: RUN }] as Record<string, string>[]) {
      const single = ((await client.getPrompt({ name: 'compare_workouts', arguments: args })).messages[0].content as { text: string }).text;
      assert.match(single, new RegExp(`workout ${RUN} and my most recent other workout of the same activity type`), JSON.stringify(args));
    }
  });
});

describe('each tool answers what its REST route answers', () => {
  test('list_users', async () => {
    const tool = await toolJson(client, 'list_users');
    const body = await rest('/v1/users');
    assert.deepEqual(tool, { ...body, total: 2, users: body.users.map((u: any) => ({ ...u, createdAt: local(u.createdAt), lastSync: localOrNull(u.lastSync) })) });
    assert.equal(tool.timeZone, ZONE);
    assert.deepEqual(tool.users.map((u: any) => u.userID), [A, B]);
    // 03-09 07:00 EDT, the upload batch.
    assert.equal(tool.users[0].lastSync, '2026-03-09T03:00:00-04:00');
  });

  test('list_users: pages of limit users with the total and how to go on; search by name, e-mail or id in any case', async () => {
    const ids = (body: any) => body.users.map((u: any) => u.userID);
    const first = await toolJson(client, 'list_users', { limit: 1 });
    assert.deepEqual([ids(first), first.total, first.nextOffset, first.note], [[A], 2, 1, '1 more; call again with offset 1']);
    const second = await toolJson(client, 'list_users', { limit: 1, offset: 1 });
    assert.deepEqual([ids(second), second.total, 'nextOffset' in second, 'note' in second], [[B], 2, false, false]);
    assert.deepEqual(ids(await toolJson(client, 'list_users', { offset: 5 })), []);
    for (const search of ['ada', 'ADA@EXAMPLE', A.slice(-6)]) {
      const found = await toolJson(client, 'list_users', { search });
      assert.deepEqual([ids(found), found.total], [[A], 1], search);
    }
    assert.deepEqual((await toolJson(client, 'list_users', { search: B.slice(-6) })).users.map((u: any) => u.userID), [B]);
    assert.deepEqual((await toolJson(client, 'list_users', { search: 'nobody' })).total, 0);
    assert.match(await toolError(client, 'list_users', { limit: MCP.usersPerCall + 1 }), new RegExp(`must be at most ${MCP.usersPerCall} at limit`));
    assert.match(await toolError(client, 'list_users', { search: '  ' }), /must not be empty at search/);
  });

  test('get_profile: the date of birth as a date, and the age it gives today', async () => {
    const tool = await toolJson(client, 'get_profile');
    const body = await rest('/v1/profile');
    const now = DateTime.now().setZone(ZONE);
    const age = now.year - 1990 - (now.toFormat('MM-dd') < '05-17' ? 1 : 0);
    assert.deepEqual(tool, { ...body, dateOfBirth: '1990-05-17', age });
    assert.equal(await toolError(client, 'get_profile', { user: B }), 'profile not found');
  });

  test('list_available_types', async () => {
    const tool = await toolJson(client, 'list_available_types');
    const body = await rest('/v1/catalog/types');
    assert.deepEqual(
      tool.types.map(({ readWith: _r, ...t }: any) => t),
      body.types.map((t: any) => ({ ...t, earliest: localOrNull(t.earliest), latest: localOrNull(t.latest) })),
    );
    const hr = tool.types.find((t: any) => t.identifier === HR);
    assert.equal(hr.rawRows, 6);
    assert.match(hr.readWith, /get_daily_metrics/);
    assert.equal(tool.types.find((t: any) => t.identifier === MASS).readWith, 'get_latest_metrics or get_samples (no daily values)');
  });

  test('get_latest_metrics: newest sample, rounded, local time; types without data under noData', async () => {
    const tool = await toolJson(client, 'get_latest_metrics', { types: [HR, MASS, VO2] });
    const body = await rest(`/v1/metrics/latest?types=${HR},${MASS},${VO2}`);
    assert.deepEqual(tool.metrics, body.metrics.map((m: any) => ({ ...m, value: round(m.value), timestamp: local(m.timestamp) })));
    assert.deepEqual(tool, {
      metrics: [
        { identifier: HR, unit: 'count/min', value: 90, timestamp: '2026-03-09T00:30:00-04:00' },
        { identifier: MASS, unit: 'kg', value: 68, timestamp: '2026-03-08T08:00:00-04:00' },
      ],
      noData: [VO2],
    });
  });

  test('get_daily_metrics: every day of the range, totals and means, rounded', async () => {
    const tool = await toolJson(client, 'get_daily_metrics', { types: [STEPS, RHR], start_date: '2026-03-07', end_date: '2026-03-10' });
    const body = await rest(`/v1/metrics/daily?types=${STEPS},${RHR}&start=${MAR7}&end=${MAR11}`);
    assert.deepEqual(
      tool.metrics.map(({ aggregation: _a, ...m }: any) => m),
      body.metrics.map((m: any) => ({ ...m, days: m.days.map((d: any) => ({ date: d.date, value: round(d.value) })) })),
    );
    assert.deepEqual(tool, {
      startDate: '2026-03-07',
      endDate: '2026-03-10',
      metrics: [
        {
          identifier: STEPS, unit: 'count', aggregation: 'total',
          days: [{ date: '2026-03-07', value: 1000 }, { date: '2026-03-08', value: 2000 }, { date: '2026-03-09', value: 3000.6 }, { date: '2026-03-10', value: 4000 }],
        },
        { identifier: RHR, unit: 'count/min', aggregation: 'mean', days: [{ date: '2026-03-08', value: 58.4 }, { date: '2026-03-09', value: 61.3 }] },
      ],
    });
  });

  test('get_daily_metrics on the 23-hour day: [00:00 EST, 00:00 EDT next day), as REST answers that range', async () => {
    const tool = await toolJson(client, 'get_daily_metrics', { types: [STEPS], start_date: '2026-03-08', end_date: '2026-03-08' });
    const body = await rest(`/v1/metrics/daily?types=${STEPS}&start=${MAR8}&end=${MAR9}`);
    assert.equal(MAR9 - MAR8, 23 * 3_600_000);
    assert.deepEqual(tool.metrics[0].days, body.metrics[0].days);
    assert.deepEqual(tool.metrics[0].days, [{ date: '2026-03-08', value: 2000 }]);
  });

  test('get_daily_metrics returns a leap year whole: 366 days', async () => {
    const tool = await toolJson(client, 'get_daily_metrics', { types: [FLIGHTS], start_date: '2016-01-01', end_date: '2016-12-31' });
    assert.equal(tool.metrics[0].days.length, 366);
    const start = DateTime.fromISO('2016-01-01', { zone: ZONE }).toMillis();
    const end = DateTime.fromISO('2017-01-01', { zone: ZONE }).toMillis();
    const body = await rest(`/v1/metrics/daily?types=${FLIGHTS}&start=${start}&end=${end}`);
    assert.deepEqual(tool.metrics[0].days, body.metrics[0].days);
  });

  test('get_metric_stats: ten years over several pages of the daily route, totals and means checked against REST and by hand', async () => {
    const tool = await toolJson(client, 'get_metric_stats', { types: [FLIGHTS, DISTANCE, HR], start_date: DECADE_FROM, end_date: DECADE_TO });
    // Days alternate 60, 61 from 60: 1,827 sixties and 1,826 sixty-ones.
    assert.deepEqual(tool.metrics, [
      { identifier: FLIGHTS, unit: 'count', aggregation: 'total', periods: [{ from: DECADE_FROM, to: DECADE_TO, days: DECADE_DAYS, mean: 1, min: 1, max: 1, total: DECADE_DAYS }] },
      { identifier: DISTANCE, unit: 'm', aggregation: 'total', periods: [{ from: DECADE_FROM, to: DECADE_TO, days: DECADE_DAYS, mean: 2, min: 2, max: 2, total: 2 * DECADE_DAYS }] },
      { identifier: HR, unit: 'count/min', aggregation: 'mean', periods: [{ from: DECADE_FROM, to: DECADE_TO, days: DECADE_DAYS, mean: 60.5, min: 60, max: 61 }] },
    ]);
    const start = DateTime.fromISO(DECADE_FROM, { zone: ZONE }).toMillis();
    const end = DateTime.fromISO('2026-01-01', { zone: ZONE }).toMillis();
    const body = await rest(`/v1/metrics/daily?types=${FLIGHTS},${DISTANCE},${HR}&start=${start}&end=${end}&limit=50000`);
    const restDays = body.metrics.map((m: any) => m.days.length);
    assert.deepEqual(restDays, [DECADE_DAYS, DECADE_DAYS, DECADE_DAYS]);
    const hrMean = body.metrics[2].days.reduce((s: number, d: any) => s + d.value, 0) / DECADE_DAYS;
    assert.equal(tool.metrics[2].periods[0].mean, round(hrMean));
  });

  test('get_metric_stats by month (leap February) and by ISO week, clipped to the range', async () => {
    const months = await toolJson(client, 'get_metric_stats', { types: [FLIGHTS], start_date: '2016-01-15', end_date: '2016-03-10', group_by: 'month' });
    assert.deepEqual(months.metrics[0].periods.map((p: any) => [p.from, p.to, p.days, p.total]), [
      ['2016-01-15', '2016-01-31', 17, 17],
      ['2016-02-01', '2016-02-29', 29, 29],
      ['2016-03-01', '2016-03-10', 10, 10],
    ]);
    // 2016-01-06 is a Wednesday.
    const weeks = await toolJson(client, 'get_metric_stats', { types: [FLIGHTS], start_date: '2016-01-06', end_date: '2016-01-17', group_by: 'week' });
    assert.deepEqual(weeks.metrics[0].periods.map((p: any) => [p.from, p.to, p.days]), [['2016-01-06', '2016-01-10', 5], ['2016-01-11', '2016-01-17', 7]]);
  });

  test('get_activity_rings', async () => {
    const tool = await toolJson(client, 'get_activity_rings', { start_date: '2026-03-07', end_date: '2026-03-10' });
    const body = await rest(`/v1/activity/summary?start=${MAR7}&end=${MAR11}`);
    assert.deepEqual(tool.days, body.days.map(roundEach));
    assert.deepEqual(tool.days.map((d: any) => [d.date, d.moveKcal, d.exerciseMin]), [['2026-03-08', 450.3, 35], ['2026-03-10', 612.1, 3.33]]);
  });

  test('list_workouts: newest first, local times; a full page says how to go on', async () => {
    const tool = await toolJson(client, 'list_workouts', {});
    const body = await rest('/v1/workouts?limit=20');
    const shaped = body.workouts.map((w: any) => ({ ...w, start: local(w.start), end: local(w.end), durationS: round(w.durationS), distanceM: round(w.distanceM), energyKcal: round(w.energyKcal) }));
    assert.deepEqual(tool, { workouts: shaped, nextOffset: 2 });
    assert.deepEqual(tool.workouts.map((w: any) => [w.uuid, w.start, w.durationS, w.distanceM, w.energyKcal]), [
      [YOGA, '2026-03-09T14:00:00-04:00', 3600, null, 120],
      [RUN, '2026-03-08T08:00:00-04:00', 1800.4, 5012.3, 300.6],
    ]);
    const page = await toolJson(client, 'list_workouts', { limit: 1 });
    assert.deepEqual(page.workouts.map((w: any) => w.uuid), [YOGA]);
    assert.match(page.note, /offset 1/);
    const rest2 = await toolJson(client, 'list_workouts', { limit: 1, offset: 1 });
    assert.deepEqual(rest2.workouts.map((w: any) => w.uuid), [RUN]);
    const onDay = await toolJson(client, 'list_workouts', { start_date: '2026-03-08', end_date: '2026-03-08' });
    assert.deepEqual(onDay.workouts.map((w: any) => w.uuid), [RUN]);
    const bodyOnDay = await rest(`/v1/workouts?start=${MAR8}&end=${MAR9}`);
    assert.deepEqual(onDay.workouts.map((w: any) => w.uuid), bodyOnDay.workouts.map((w: any) => w.uuid));
    const fromDay = await toolJson(client, 'list_workouts', { start_date: '2026-03-09', activity_type: 'yoga' });
    assert.deepEqual(fromDay.workouts.map((w: any) => w.uuid), [YOGA]);
    // As long a name as the route takes (and a writer stores) is a filter, not an error.
    const longest = 'x'.repeat(INGEST.nameChars);
    assert.deepEqual((await rest(`/v1/workouts?activityType=${longest}`)).workouts, []);
    assert.deepEqual((await toolJson(client, 'list_workouts', { activity_type: longest })).workouts, []);
  });

  test('get_workout: statistics rounded, event instants local', async () => {
    const tool = await toolJson(client, 'get_workout', { uuid: RUN.toUpperCase() });
    const body = await rest(`/v1/workouts/${RUN}`);
    assert.deepEqual(tool.statisticsDetail, { [HR]: roundEach(body.statisticsDetail[HR]) });
    assert.deepEqual(tool.statisticsDetail[HR], { min: 120, avg: 135.5, max: 150 });
    assert.deepEqual(tool.events, [{ type: 'pause', start: '2026-03-08T08:10:00-04:00', end: '2026-03-08T08:11:00-04:00' }]);
    assert.deepEqual(tool.activities, []);
    assert.equal(tool.start, local(body.start));
  });

  test('get_workout_series: points as seconds from the start, values rounded', async () => {
    const tool = await toolJson(client, 'get_workout_series', { uuid: RUN });
    const body = await rest(`/v1/workouts/${RUN}/series?maxPoints=100`);
    assert.deepEqual(tool.series, body.series.map((s: any) => ({ ...s, points: s.points.map(([t, v]: number[]) => [(t - RUN_START) / 1000, round(v)]) })));
    assert.deepEqual(tool.series[0].points.slice(2, 4), [[120, 130], [180, 135.5]]);
    assert.equal(tool.maxPoints, 100);
    const reduced = await toolJson(client, 'get_workout_series', { uuid: RUN, types: [HR], max_points: 3 });
    const restReduced = await rest(`/v1/workouts/${RUN}/series?types=${HR}&maxPoints=3`);
    assert.deepEqual(reduced.series[0].points, restReduced.series[0].points.map(([t, v]: number[]) => [Math.round((t - RUN_START) / 1000), round(v)]));
    assert.equal(reduced.series[0].totalPoints, 10);
  });

  test('get_workout_route: the track with its distance and climb', async () => {
    const tool = await toolJson(client, 'get_workout_route', { uuid: RUN, max_points: 4 });
    const body = await rest(`/v1/workouts/${RUN}/route?maxPoints=4`);
    assert.deepEqual(tool, {
      uuid: RUN,
      start: '2026-03-08T08:00:00-04:00',
      end: '2026-03-08T08:30:00-04:00',
      maxPoints: 4,
      totalPoints: 10,
      distanceM: 100.1,
      elevationGainM: 12,
      points: body.points.map(([t, lat, lon, alt]: number[]) => [(t - RUN_START) / 1000, Number(lat.toFixed(5)), Number(lon.toFixed(5)), alt]),
    });
    assert.deepEqual(tool.points.map((p: number[]) => p[0]), [0, 3, 6, 9]);
    const none = await toolJson(client, 'get_workout_route', { uuid: YOGA });
    assert.deepEqual([none.totalPoints, none.distanceM, none.elevationGainM, none.points], [0, 0, null, []]);
  });

  test('get_sleep: the night into the 23-hour day, counted by hand', async () => {
    const tool = await toolJson(client, 'get_sleep', { start_date: '2026-03-08', end_date: '2026-03-08' });
    const body = await rest(`/v1/sleep/daily?start=${MAR8}&end=${MAR9}`);
    assert.deepEqual(tool.nights, body.nights.map((n: any) => ({ ...n, start: local(n.start), end: local(n.end) })));
    assert.deepEqual(tool.nights, [
      {
        date: '2026-03-08',
        start: '2026-03-07T23:00:00-05:00',
        end: '2026-03-08T07:30:00-04:00',
        inBedMinutes: 450,
        asleepMinutes: 380,
        stages: { core: 200, deep: 60, rem: 120, unspecified: 0, awake: 10 },
        sources: 2,
      },
    ]);
  });

  test('get_samples over 31 local days holding the fall-back day: the 745th hour is left out, and the note says so', async () => {
    const tool = await toolJson(client, 'get_samples', { type: HR, start_date: '2026-10-15', end_date: '2026-11-14' });
    assert.deepEqual(tool.samples, []);
    assert.equal(
      tool.note,
      'samples from 2026-11-14T23:00:00-05:00 on are left out: a clock change makes this range 745 hours, past the 31 × 24 a call covers; ask for 2026-11-14 alone to read that day whole',
    );
  });

  test('get_samples: raw, both devices, exactly the 23 hours of 03-08', async () => {
    const tool = await toolJson(client, 'get_samples', { type: HR, start_date: '2026-03-08', end_date: '2026-03-08' });
    const body = await rest(`/v1/samples?type=${HR}&start=${MAR8}&end=${MAR9}&limit=200`);
    assert.deepEqual(tool.samples, body.samples.map((s: any) => [local(s.start), local(s.end), round(s.value), s.source]));
    assert.deepEqual(tool, {
      type: HR,
      kind: 'quantity',
      unit: 'count/min',
      columns: ['start', 'end', 'value', 'source'],
      samples: [
        ['2026-03-08T00:00:00-05:00', '2026-03-08T00:00:00-05:00', 55, 'Watch'],
        ['2026-03-08T01:30:00-05:00', '2026-03-08T01:30:00-05:00', 60, 'Watch'],
        ['2026-03-08T01:30:00-05:00', '2026-03-08T01:30:00-05:00', 61, 'Phone'],
        ['2026-03-08T03:30:00-04:00', '2026-03-08T03:30:00-04:00', 72.3, 'Watch'],
        ['2026-03-08T23:59:59-04:00', '2026-03-08T23:59:59-04:00', 80, 'Watch'],
      ],
      nextOffset: 5,
    });
    const page = await toolJson(client, 'get_samples', { type: HR, start_date: '2026-03-08', end_date: '2026-03-08', limit: 2, offset: 2 });
    assert.deepEqual(page.samples.map((s: unknown[]) => s[2]), [61, 72.3]);
    assert.match(page.note, /offset 4/);
    const sleep = await toolJson(client, 'get_samples', { type: SLEEP, start_date: '2026-03-07', end_date: '2026-03-07' });
    assert.deepEqual(sleep.columns, ['start', 'end', 'value', 'label', 'source']);
    assert.deepEqual(sleep.samples[0], ['2026-03-07T23:00:00-05:00', '2026-03-08T07:30:00-04:00', 0, 'inBed', 'Phone']);
  });

  test('get_state_of_mind', async () => {
    const tool = await toolJson(client, 'get_state_of_mind', { start_date: '2026-03-08', end_date: '2026-03-08' });
    const body = await rest(`/v1/state-of-mind?start=${MAR8}&end=${MAR9}`);
    assert.deepEqual(tool.entries, body.entries.map(({ uuid: _u, ...e }: any) => ({ ...e, timestamp: local(e.timestamp), valence: round(e.valence) })));
    assert.deepEqual(tool.entries, [
      { date: '2026-03-08', timestamp: '2026-03-08T16:00:00-04:00', kind: 'dailyMood', valence: 0.457, valenceClassification: 'slightlyPleasant', labels: ['happy'], associations: ['family'] },
    ]);
  });

  test('get_sleep and get_state_of_mind over 366 days that a fall-back day lengthens past 366 × 24 h: asked in two pieces, the same answer', async () => {
    // 2025-11-01 to 2026-11-01 in New York holds two fall-backs and one spring-forward: 8,785 hours.
    for (const [tool, key] of [['get_sleep', 'nights'], ['get_state_of_mind', 'entries']] as const) {
      const whole = await toolJson(client, tool, { start_date: '2025-11-01', end_date: '2026-11-01' });
      const first = await toolJson(client, tool, { start_date: '2025-11-01', end_date: '2026-04-30' });
      const second = await toolJson(client, tool, { start_date: '2026-05-01', end_date: '2026-11-01' });
      assert.ok(whole[key].length > 0, `${tool}: the fixture's days are in the range`);
      assert.deepEqual(whole[key], [...first[key], ...second[key]], tool);
    }
  });

  test('get_summary: the markdown page of /v1/summary', async () => {
    for (const range of ['7d', '30d']) {
      const tool = await toolText(client, 'get_summary', { range });
      const response = await server.get(`/v1/summary?range=${range}`);
      const page = await response.text();
      // "Generated HH:mm" may tick over between the two calls.
      const timeless = (text: string) => text.replace(/Generated \d{4}-\d{2}-\d{2} \d{2}:\d{2}/, 'Generated …');
      assert.equal(timeless(tool), timeless(page));
    }
    const week = await toolText(client, 'get_summary', {});
    assert.match(week, /^# Health summary for Ada/);
    assert.match(week, /Steps: 6,?000 steps .*12,?000 steps in total/);
  });
});

describe('another user', () => {
  test('user names whom the tools read (multi-user on), and nothing of the default user leaks', async () => {
    const steps = await toolJson(client, 'get_daily_metrics', { types: [STEPS], start_date: '2026-03-08', end_date: '2026-03-08', user: B });
    assert.deepEqual(steps.metrics[0].days, [{ date: '2026-03-08', value: 77777 }]);
    const samples = await toolJson(client, 'get_samples', { type: HR, start_date: '2026-03-08', end_date: '2026-03-08', user: B.toUpperCase() });
    assert.deepEqual(samples.samples.map((s: unknown[]) => s[2]), [150]);
    const rings = await toolJson(client, 'get_activity_rings', { start_date: '2026-03-08', end_date: '2026-03-08', user: B });
    assert.deepEqual(rings.days.map((d: any) => d.moveKcal), [999]);
    const workouts = await toolJson(client, 'list_workouts', { user: B });
    assert.deepEqual(workouts.workouts.map((w: any) => w.uuid), [B_RUN]);
    const mood = await toolJson(client, 'get_state_of_mind', { start_date: '2026-03-08', end_date: '2026-03-08', user: B });
    assert.deepEqual(mood.entries.map((e: any) => e.valence), [-0.5]);
    // One user's workout is not found for another.
    assert.equal(await toolError(client, 'get_workout', { uuid: RUN, user: B }), 'workout not found');
    assert.equal(await toolError(client, 'get_workout_series', { uuid: B_RUN }), 'workout not found');
    assert.equal(await toolError(client, 'get_workout_route', { uuid: RUN, user: B }), 'workout not found');
  });
});

describe('bad inputs are tool errors naming the problem', () => {
  const day = { types: [STEPS], start_date: '2026-03-01', end_date: '2026-03-02' };
  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['malformed date', 'get_daily_metrics', { ...day, start_date: '2026-3-1' }, /YYYY-MM-DD.*start_date/],
    ['impossible date', 'get_sleep', { start_date: '2026-02-30', end_date: '2026-03-02' }, /calendar day.*start_date/],
    ['end before start', 'get_activity_rings', { start_date: '2026-03-08', end_date: '2026-03-07' }, /^end_date 2026-03-07 is before start_date 2026-03-08$/],
    ['daily range over 366 days', 'get_daily_metrics', { ...day, start_date: '2025-01-01', end_date: '2026-01-02' }, /covers 367 days; at most 366/],
    ['sleep range over 366 days', 'get_sleep', { start_date: '2025-01-01', end_date: '2026-01-02' }, /covers 367 days; at most 366/],
    ['samples range over 31 days', 'get_samples', { type: HR, start_date: '2026-03-01', end_date: '2026-04-01' }, /covers 32 days; at most 31/],
    ['stats range over ten years', 'get_metric_stats', { ...day, start_date: '2010-01-01', end_date: '2026-01-01' }, /at most 3660/],
    // A HealthKit name the route finds unstored: pointed to the tool that lists the types, not to the API's path.
    ['unknown type', 'get_daily_metrics', { ...day, types: [STEPS, 'HKQuantityTypeIdentifierNope'] }, /^unknown type: HKQuantityTypeIdentifierNope \(the types stored for a user are listed by list_available_types\)$/],
    ['a type in the wrong case', 'get_samples', { type: 'HKQuantityTypeIdentifierheartrate', start_date: '2026-03-01', end_date: '2026-03-02' }, /^unknown type: HKQuantityTypeIdentifierheartrate; did you mean HKQuantityTypeIdentifierHeartRate\? \(the types stored for a user are listed by list_available_types\)$/],
    ['unknown sample type', 'get_samples', { type: 'HKNope', start_date: '2026-03-01', end_date: '2026-03-02' }, /^unknown type: HKNope/],
    ['a category for daily values', 'get_daily_metrics', { ...day, types: [SLEEP] }, /SleepAnalysis is a category type.*get_samples/],
    ['a workout type for samples', 'get_samples', { type: 'HKWorkoutTypeIdentifier', start_date: '2026-03-01', end_date: '2026-03-02' }, /list_workouts/],
    ['unknown stream type', 'get_workout_series', { uuid: RUN, types: ['HKNope'] }, /^unknown type: HKNope/],
    ['unstored stream type', 'get_workout_series', { uuid: RUN, types: ['HKQuantityTypeIdentifierNope'] }, /^unknown type: HKQuantityTypeIdentifierNope \(the types stored for a user are listed by list_available_types\)$/],
    ['eleven types', 'get_latest_metrics', { types: Array(11).fill(HR) }, /at most 10 types.*types/],
    ['no types', 'get_latest_metrics', { types: [] }, /at least one type/],
    ['unknown workout', 'get_workout', { uuid: NO_SUCH }, /^workout not found$/],
    ['not a uuid', 'get_workout', { uuid: 'run-1' }, /workout uuid.*uuid/],
    ['not a user id', 'get_profile', { user: 'ada' }, /user id.*user/],
    ['too many points', 'get_workout_series', { uuid: RUN, max_points: 5001 }, /at most 5000.*max_points/],
    ['too few points', 'get_workout_route', { uuid: RUN, max_points: 1 }, /at least 2.*max_points/],
    ['workouts page over 200', 'list_workouts', { limit: 201 }, /at most 200.*limit/],
    ['samples page over 5000', 'get_samples', { type: HR, start_date: '2026-03-01', end_date: '2026-03-02', limit: 5001 }, /at most 5000.*limit/],
    ['negative offset', 'get_samples', { type: HR, start_date: '2026-03-01', end_date: '2026-03-02', offset: -1 }, /0 or more.*offset/],
    ['summary range', 'get_summary', { range: '8d' }, /range/],
    ['missing input', 'get_sleep', { start_date: '2026-03-01' }, /end_date/],
    // Only the type is named: zod would also measure a string's characters against the list's cap, or a list against a name's.
    ['one type as a string, not a list', 'get_daily_metrics', { ...day, types: STEPS }, /: Invalid input: expected array, received string at types$/],
    ['an activity type longer than a writer stores', 'list_workouts', { activity_type: 'x'.repeat(INGEST.nameChars + 1) }, /at most 255 characters.*activity_type/],
    ['a type longer than a writer stores', 'get_samples', { type: 'HKQuantityTypeIdentifier' + 'x'.repeat(INGEST.nameChars), start_date: '2026-03-01', end_date: '2026-03-02' }, /at most 255 characters.*type/],
    // The route reads spaces alone as nothing given, and would name its own parameter (activityType).
    ['spaces for an activity type', 'list_workouts', { activity_type: ' \t\u00a0' }, /^[^\n]*: must not be empty at activity_type$/],
    // Each said once.
    ['an empty activity type', 'list_workouts', { activity_type: '' }, /^[^\n]*: must not be empty at activity_type$/],
    ['an empty type', 'get_samples', { type: '', start_date: '2026-03-01', end_date: '2026-03-02' }, /^[^\n]*: must not be empty at type$/],
    ['spaces for a type in a list', 'get_daily_metrics', { ...day, types: [' '] }, /^[^\n]*: must not be empty at types[^\n]*$/],
    ['a list for a name', 'list_workouts', { activity_type: Array(201).fill('running') }, /: Invalid input: expected string, received array at activity_type$/],
    // The route reads a list comma-separated and trimmed: such an item would be read as other types than the one checked (past the cap, or as noData).
    ['two types in one item', 'get_latest_metrics', { types: [`${STEPS},${HR}`] }, /one identifier, without commas.*types/],
    ['spaces around a type', 'get_daily_metrics', { ...day, types: [`${STEPS} `] }, /must not begin or end with spaces.*types/],
    // PostgreSQL text cannot hold NUL: refused as the routes refuse it, not a failed query.
    ['NUL in an activity type', 'list_workouts', { activity_type: 'run\u0000ning' }, /must not contain a NUL character.*activity_type/],
    ['NUL in a type', 'get_samples', { type: `${HR}\u0000`, start_date: '2026-03-01', end_date: '2026-03-02' }, /must not contain a NUL character.*type/],
    ['NUL in a list\'s type', 'get_daily_metrics', { ...day, types: [`${STEPS}\u0000`] }, /must not contain a NUL character.*types/],
    ['before 1970', 'get_activity_rings', { start_date: '1969-12-01', end_date: '1970-01-05' }, /between 1970/],
    // An argument a tool does not take is named, never dropped (dropped, these would answer unfiltered, or for the default user).
    ['the API\'s field name for a filter', 'list_workouts', { activityType: 'running' }, /activityType/],
    ['a misspelt user', 'get_profile', { userId: B }, /userId/],
    ['a misspelt option', 'get_workout_series', { uuid: RUN, maxPoints: 5 }, /maxPoints/],
    ['a date bound out of range alone', 'list_workouts', { start_date: '0001-01-01' }, /between 1970/],
  ];
  for (const [name, tool, args, message] of cases) {
    test(name, async () => {
      assert.match(await toolError(client, tool, args), message);
    });
  }

  test('an unknown tool is a tool error too, and the connection goes on', async () => {
    assert.match(await toolError(client, 'delete_everything', {}), /delete_everything not found/);
    assert.equal((await toolJson(client, 'list_users')).users.length, 2);
  });
});

describe('a type a writer stored that the registry does not know', () => {
  // Last in the file: it adds a type to the catalog the tests above compare.
  const CUSTOM = 'HKQuantityTypeIdentifierAuditCustom';
  test('the tools read it as the routes do (list_available_types says which); one never stored is still unknown', async () => {
    await db.query(`INSERT INTO sample_types (type_id, identifier) VALUES (100, $1)`, [CUSTOM]);
    await db.query(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ($1, $2, 100, $3, $3, 4.5, 1)`, [A, uuid(900), MAR8 + 60 * MIN]);
    const latest = await toolJson(client, 'get_latest_metrics', { types: [CUSTOM] });
    assert.deepEqual(latest.metrics.map((m: any) => [m.identifier, m.value]), [[CUSTOM, 4.5]]);
    const samples = await toolJson(client, 'get_samples', { type: CUSTOM, start_date: '2026-03-08', end_date: '2026-03-08' });
    assert.deepEqual(samples.samples, [['2026-03-08T01:00:00-05:00', '2026-03-08T01:00:00-05:00', 4.5, 'Watch']]);
    assert.match(await toolError(client, 'get_latest_metrics', { types: ['HKQuantityTypeIdentifierNeverStored'] }), /^unknown type: HKQuantityTypeIdentifierNeverStored/);
  });
});
