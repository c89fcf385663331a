// Issue 13, what batches do beyond the corpus: concurrent batches from one
// device (overlapping samples, one batch id sent twice at once) neither
// deadlock nor double a row; a batch larger than one staging chunk; routes and
// series arriving in pieces, out of order and before their workout; deletions
// after inserts, scoped to the user, taking a workout's route and streams;
// day buckets feeding /v1/metrics/daily; rings and profile replaced; users
// chosen by X-User-ID; and the optional reads the app calls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { INGEST } from '../src/limits.js';
import { createTestDatabase, countMismatches, stopOwnCluster, type TestDatabase } from './support/db.js';
import { sessionsIdleInTransaction, waitFor } from './support/faults.js';
import { batch, getIngest, heartRate, postBatch, SYNC_USER, UPLOAD_TOKEN } from './support/ingest.js';
import { startServer, type TestServer } from './support/server.js';

const T = Date.UTC(2024, 5, 10, 6);
const DAY = 86_400_000;
const OTHER = '0f0f0f0f-0000-4000-8000-000000000002';

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  server = await startServer({
    databaseUrl: db.url,
    receiver: true,
    env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN, SERVICE_USER_ID: SYNC_USER, SERVICE_MULTI_USER: 'true', SERVICE_TIME_ZONE: 'America/Los_Angeles' },
  });
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

const uuid = (prefix: number, n: number) => `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`.toUpperCase();

async function ok(body: string, headers: Record<string, string> = {}) {
  const answer = await postBatch(server.ingestUrl, body, { headers });
  assert.equal(answer.status, 200, `${answer.text}\n${server.output().slice(-1500)}`);
  return answer.body;
}

describe('concurrency', () => {
  test('8 concurrent batches of 1,000 samples, each sharing half its samples with the next: every sample stored once', async () => {
    const batches = Array.from({ length: 8 }, (_, b) =>
      batch({ samples: Array.from({ length: 1000 }, (_, i) => heartRate(uuid(0x10, ((b * 500 + i) % 4000) + 1), T + ((b * 500 + i) % 4000) * 1000, 60 + (i % 40))) }),
    );
    const answers = await Promise.all(batches.map((body) => postBatch(server.ingestUrl, body)));
    for (const answer of answers) assert.equal(answer.status, 200, `${answer.text}\n${server.output().slice(-2000)}`);
    const accepted = answers.reduce((sum, a) => sum + a.body.accepted, 0);
    const duplicates = answers.reduce((sum, a) => sum + a.body.duplicates, 0);
    assert.equal(accepted, 4000);
    assert.equal(duplicates, 4000);
    const [row] = await db.query(`SELECT count(*)::int AS n, count(DISTINCT uuid)::int AS distinct FROM samples WHERE uuid::text LIKE '00000010-%'`);
    assert.deepEqual(row, { n: 4000, distinct: 4000 });
  });

  test('a batch in time order holding a sample stored by an earlier batch and one twice: the COPY the unique index refuses is staged, each counted a duplicate, nothing lost', async () => {
    const stored = heartRate(uuid(0x15, 1), T - 6 * DAY, 55);
    assert.equal((await ok(batch({ samples: [stored] }))).accepted, 1);
    const repeated = heartRate(uuid(0x15, 2), T - 6 * DAY + 1000, 56);
    const fresh = Array.from({ length: 10 }, (_, i) => heartRate(uuid(0x15, 10 + i), T - 6 * DAY + (2 + i) * 1000, 57));
    const answer = await ok(batch({ samples: [stored, repeated, repeated, ...fresh] }));
    assert.deepEqual([answer.accepted, answer.duplicates], [11, 2]);
    const rows = await db.query(`SELECT uuid::text, value FROM samples WHERE uuid::text LIKE '00000015-%' ORDER BY start_ms`);
    assert.equal(rows.length, 12);
    assert.deepEqual(rows.slice(0, 2), [{ uuid: uuid(0x15, 1).toLowerCase(), value: 55 }, { uuid: uuid(0x15, 2).toLowerCase(), value: 56 }]);
  });

  test('a batch refused while a chunk of it is still being stored answers only once that chunk is done: nothing of it runs after its rollback', async () => {
    // The chunk's path: its COPY refused (a sample stored already), its rows staged, then moved — where the move waits
    // on a sample another transaction holds. Meanwhile the line after the chunk refuses the batch.
    const stored = heartRate(uuid(0x16, 1), T - 8 * DAY, 55);
    assert.equal((await ok(batch({ samples: [stored] }))).accepted, 1);
    const held = heartRate(uuid(0x16, 2), T - 8 * DAY + 1000, 56);
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let answered = false;
    try {
      await locker.query('BEGIN');
      await locker.query(
        `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value)
         SELECT $1, $2, type_id, $3, $3, 56 FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierHeartRate'`,
        [SYNC_USER, held.uuid.toLowerCase(), held.start],
      );
      const chunk = [stored, held, ...Array.from({ length: INGEST.stagingRows - 2 }, (_, i) => heartRate(uuid(0x16, 10 + i), T - 8 * DAY + (2 + i) * 1000, 57))];
      const pending = postBatch(server.ingestUrl, batch({ samples: chunk }) + JSON.stringify(heartRate(uuid(0x16, 10 + INGEST.stagingRows), T, 58)) + '\n');
      void pending.then(() => (answered = true), () => (answered = true));
      // The move is under way inside the batch's transaction (it waits on the held sample) ...
      await waitFor('the chunk waiting on the held sample', async () => {
        const [row] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'healthd-ingest' AND wait_event_type = 'Lock'`,
        );
        return row.n === 1;
      });
      // ... and the refusal has not gone out before it.
      assert.equal(answered, false, 'the refusal waits for the chunk');
      await locker.query('ROLLBACK');
      const answer = await pending;
      assert.equal(answer.status, 400);
      assert.match(answer.body.error, /more lines than the header declared/);
    } finally {
      await locker.end();
    }
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM samples WHERE uuid::text LIKE '00000016-%'`);
    assert.equal(row.n, 1, 'only the sample stored before');
    assert.equal(await sessionsIdleInTransaction(db.adminUrl, db.name), 0);
  });

  test('one batch id sent twice at once: one stores it, the other is its replay', async () => {
    const body = batch({ samples: Array.from({ length: 300 }, (_, i) => heartRate(uuid(0x11, i + 1), T + i * 1000, 70)) });
    const [a, b] = await Promise.all([postBatch(server.ingestUrl, body), postBatch(server.ingestUrl, body)]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual([a.body.accepted + b.body.accepted, a.body.duplicates + b.body.duplicates], [300, 300]);
    const [row] = await db.query(`SELECT count(*)::int AS n FROM samples WHERE uuid::text LIKE '00000011-%'`);
    assert.equal(row.n, 300);
  });
});

test('batches larger than one staging chunk: in time order (moved chunk by chunk), then shuffled with new ones (stored at the end)', async () => {
  const count = Math.round(2.4 * INGEST.stagingRows); // two whole chunks and part of a third
  const samples = Array.from({ length: count }, (_, i) => heartRate(uuid(0x12, i + 1), T - 2 * DAY + i * 1000, 50 + (i % 50)));
  assert.deepEqual(await ok(batch({ samples })), { accepted: count, deleted: 0, duplicates: 0, routePoints: 0, seriesPoints: 0, aggregateSamples: 0, activitySummaries: 0 });
  const more = [...samples, ...Array.from({ length: 100 }, (_, i) => heartRate(uuid(0x13, i + 1), T - 3 * DAY + i * 1000, 70))];
  // A fixed shuffle: every 7th sample first, then the rest backwards.
  const shuffled = [...more.filter((_, i) => i % 7 === 0), ...more.filter((_, i) => i % 7 !== 0).reverse()];
  const again = await ok(batch({ samples: shuffled }));
  assert.deepEqual([again.accepted, again.duplicates], [100, count]);
  const [row] = await db.query(`SELECT count(*)::int AS n FROM samples WHERE uuid::text LIKE '00000012-%' OR uuid::text LIKE '00000013-%'`);
  assert.equal(row.n, count + 100);
});

describe('workouts, routes and series', () => {
  const W = uuid(0x20, 1);
  const route = (ts: number[]) => ({ workoutUUID: W, points: ts.map((t) => ({ t: T + t * 1000, lat: 37 + t / 1000, lon: -122, alt: t })) });
  const series = (ts: number[]) => ({ workoutUUID: W, type: 'HKQuantityTypeIdentifierCyclingPower', unit: 'W', points: ts.map((t) => ({ t: T + t * 1000, value: 200 + t })) });

  test('points arrive before the workout, in pieces, out of order, some twice; kept once each and ordered', async () => {
    const first = await ok(batch({ routes: [route([5, 3]), route([3, 1])], series: [series([9, 2])] }));
    assert.deepEqual([first.routePoints, first.seriesPoints], [3, 2]);
    const second = await ok(batch({ routes: [route([4, 1, 2])], series: [series([2, 5])] }));
    assert.deepEqual([second.routePoints, second.seriesPoints], [2, 1]);
    const workout = {
      uuid: W, type: 'HKWorkoutTypeIdentifier', kind: 'workout', start: T, end: T + 3600_000, sourceName: 'Apple Watch',
      workout: { activityType: 'cycling', duration: 3600, totalDistanceMeters: 20000, statistics: { HKQuantityTypeIdentifierActiveEnergyBurned: 500, HKQuantityTypeIdentifierHeartRate: 140 } },
    };
    assert.equal((await ok(batch({ samples: [workout] }))).accepted, 1);
    const detail = await server.getJson(`/v1/workouts/${W.toLowerCase()}`);
    assert.equal(detail.body.hasRoute, true);
    assert.deepEqual(detail.body.availableMetrics, ['HKQuantityTypeIdentifierCyclingPower']);
    assert.deepEqual(detail.body.statisticsDetail, { HKQuantityTypeIdentifierActiveEnergyBurned: { sum: 500 }, HKQuantityTypeIdentifierHeartRate: { avg: 140 } });
    const [stored] = await db.query(`SELECT times_ms::float8[] AS t, altitudes_m AS alt FROM workout_routes WHERE workout_uuid = $1`, [W]);
    assert.deepEqual(stored, { t: [1, 2, 3, 4, 5].map((s) => T + s * 1000), alt: [1, 2, 3, 4, 5] });
    const streamed = await server.getJson(`/v1/workouts/${W.toLowerCase()}/series`);
    assert.deepEqual(streamed.body.series[0].points, [2, 5, 9].map((s) => [T + s * 1000, 200 + s]));
  });

  test('deleting the workout takes its route and streams; a deletion in the same batch as an insert wins', async () => {
    const S = uuid(0x21, 1);
    const answer = await ok(batch({ samples: [heartRate(S, T, 80)], deletions: [{ uuid: W.toLowerCase(), type: 'HKWorkoutTypeIdentifier' }, { uuid: S, type: 'HKQuantityTypeIdentifierHeartRate' }] }));
    assert.deepEqual([answer.accepted, answer.deleted], [1, 2]);
    const [left] = await db.query(
      `SELECT (SELECT count(*) FROM workouts WHERE uuid = $1)::int AS workouts, (SELECT count(*) FROM workout_routes WHERE workout_uuid = $1)::int AS routes,
              (SELECT count(*) FROM workout_streams WHERE workout_uuid = $1)::int AS streams, (SELECT count(*) FROM samples WHERE uuid = $2)::int AS samples`,
      [W, S],
    );
    assert.deepEqual(left, { workouts: 0, routes: 0, streams: 0, samples: 0 });
  });

  test("points another user sends for this user's workout are not stored, and never shut out this user's own", async () => {
    const mine = uuid(0x23, 1);
    const workout = { uuid: mine, type: 'HKWorkoutTypeIdentifier', kind: 'workout', start: T, end: T + 600_000, sourceName: 'Apple Watch', workout: { activityType: 'running', duration: 600 } };
    await ok(batch({ samples: [workout] }));
    const points = (value: number) => ({ workoutUUID: mine, type: 'HKQuantityTypeIdentifierHeartRate', unit: 'count/min', points: [{ t: T + 1000, value }] });
    const track = { workoutUUID: mine, points: [{ t: T + 1000, lat: 1, lon: 2 }] };
    const theirs = await ok(batch({ routes: [track], series: [points(99)] }), { 'x-user-id': OTHER });
    assert.deepEqual([theirs.routePoints, theirs.seriesPoints], [0, 0]);
    const own = await ok(batch({ routes: [track], series: [points(120)] }));
    assert.deepEqual([own.routePoints, own.seriesPoints], [1, 1]);
    const rows = await db.query(
      `SELECT user_id::text AS owner, 'stream' AS what FROM workout_streams WHERE workout_uuid = $1 UNION ALL SELECT user_id::text, 'route' FROM workout_routes WHERE workout_uuid = $1 ORDER BY 2`,
      [mine.toLowerCase()],
    );
    assert.deepEqual(rows, [{ owner: SYNC_USER, what: 'route' }, { owner: SYNC_USER, what: 'stream' }]);
  });

  test("another user's deletion never touches this user's rows", async () => {
    const S = uuid(0x22, 1);
    await ok(batch({ samples: [heartRate(S, T, 90)] }));
    const answer = await ok(batch({ deletions: [{ uuid: S, type: 'HKQuantityTypeIdentifierHeartRate' }] }), { 'x-user-id': OTHER });
    assert.equal(answer.deleted, 0);
    const [row] = await db.query(`SELECT user_id::text AS owner FROM samples WHERE uuid = $1`, [S]);
    assert.equal(row.owner, SYNC_USER);
  });
});

test('text PostgreSQL cannot hold is stored with U+FFFD in its place, and members nested thousands deep are left out where kept as given, ignored elsewhere: never a refusal or a 5xx (FACTS §6)', async () => {
  const [plain, escaped, deepWorkout] = [uuid(0x30, 1), uuid(0x30, 2), uuid(0x30, 3)];
  // A renamed key meets one the sender wrote as it now reads: theirs is kept, the renamed one takes another U+FFFD.
  const unstorable = { ...heartRate(plain, T, 61), sourceName: 'nul\u0000', metadata: { note: 'a\ud800b', 'k\u0000': 'v', 'k\uFFFD': 'theirs' }, future: 'x\u0000\udc00' };
  // JSON.stringify writes a valid pair as it is: the escape is put in by hand. The nesting too (it would overflow JSON.stringify).
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  const withEscape = { ...heartRate(escaped, T, 62), sourceName: 'W EMOJI', future: 'DEEP' };
  const event = { type: 'lap', start: T + 60_000, end: T + 120_000, future: 'DEEP_EVENT', list: 'DEEP_LIST', proto: 'PROTO' };
  const workout = { uuid: deepWorkout, type: 'HKWorkoutTypeIdentifier', kind: 'workout', start: T, end: T + 600_000, sourceName: 'Apple Watch', workout: { activityType: 'running', duration: 600, events: [event] } };
  const context = { timeZoneID: 'Europe/Berlin', utcOffsetSeconds: 7200, source: 'device', confidence: 'high', future: 'DEEP_CONTEXT' };
  const bucket = { type: 'HKQuantityTypeIdentifierStepCount', func: 'sum', intervalValue: 1, intervalUnit: 'day', deviceFilter: 'all', bucketStart: T, bucketEnd: T + DAY, value: 1, bucketStartContext: context };
  const body = batch({ samples: [unstorable, withEscape, workout], aggregates: [bucket] }, { future: 'header \u0000' })
    .replace('EMOJI', '\\ud83d\\ude00')
    .replace('"DEEP"', deep(20_000))
    .replace('"DEEP_EVENT"', deepObject(5_000))
    .replace('"DEEP_CONTEXT"', deepObject(5_000))
    .replace('"DEEP_LIST"', deep(40))
    .replace('"proto":"PROTO"', '"__proto__":{"a":1}');
  assert.match(body, /"nul\\u0000"/, 'the NUL goes as an escape');
  const answer = await ok(body);
  assert.deepEqual([answer.accepted, answer.aggregateSamples], [3, 1]);
  assert.equal((await ok(body)).accepted, 0, 'a replay stores nothing more');
  const sources = await db.query(`SELECT s.uuid::text, src.name, s.metadata FROM samples s JOIN sources src USING (source_id) WHERE s.uuid = ANY($1::uuid[]) ORDER BY 1`, [[plain, escaped]]);
  assert.deepEqual(sources, [
    { uuid: plain.toLowerCase(), name: 'nul\uFFFD', metadata: { note: 'a\uFFFDb', 'k\uFFFD': 'theirs', 'k\uFFFD\uFFFD': 'v' } },
    { uuid: escaped.toLowerCase(), name: 'W \u{1F600}', metadata: null },
  ]);
  const depth = (value: unknown): number => (typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0);
  const detail = await server.getJson(`/v1/workouts/${deepWorkout.toLowerCase()}`);
  assert.equal(detail.status, 200);
  const [stored] = detail.body.events;
  assert.deepEqual([stored.type, stored.start, stored.end], ['lap', T + 60_000, T + 120_000]);
  assert.equal(depth(stored), INGEST.freeFormDepth, 'the event keeps its members down to the limit');
  assert.equal(depth(stored.list), INGEST.freeFormDepth - 1, 'a list nested past the limit is cut there');
  assert.doesNotMatch(JSON.stringify(stored.list), /null/, 'left out, not written as null');
  assert.deepEqual(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value, { a: 1 }, 'a member named __proto__ is kept as sent');
  const [aggregate] = await db.query(`SELECT start_context AS context FROM aggregate_buckets WHERE bucket_start_ms = $1`, [T]);
  assert.equal(aggregate.context.timeZoneID, 'Europe/Berlin');
  assert.equal(depth(aggregate.context), INGEST.freeFormDepth);
  assert.doesNotMatch(server.output(), /Maximum call stack|"level":"error"/);
});

test("a sample line whose kind is not its known type's is dropped, the batch still 200 (FACTS §7): nothing shows where no route reads it", async () => {
  const [asQuantity, summary, asWorkout, fine] = [uuid(0x31, 1), uuid(0x31, 2), uuid(0x31, 3), uuid(0x31, 4)];
  const lines = [
    { ...heartRate(asQuantity, T, 1), type: 'HKWorkoutTypeIdentifier' },
    { ...heartRate(summary, T, 1), type: 'HKActivitySummaryTypeIdentifier' },
    { uuid: asWorkout, type: 'HKQuantityTypeIdentifierHeartRate', kind: 'workout', start: T, end: T + 60_000, workout: { activityType: 'running', duration: 60 } },
    heartRate(fine, T, 70),
  ];
  const answer = await ok(batch({ samples: lines }));
  assert.equal(answer.accepted, 1);
  const stored = await db.query(
    `SELECT uuid::text FROM samples WHERE uuid = ANY($1::uuid[]) UNION ALL SELECT uuid::text FROM workouts WHERE uuid = ANY($1::uuid[])`,
    [[asQuantity, summary, asWorkout, fine]],
  );
  assert.deepEqual(stored, [{ uuid: fine.toLowerCase() }]);
  assert.match(server.output(), /batch lines dropped: their kind is not their type's","userId":"[^"]+","lines":3/);
});

describe('aggregates, rings and profile', () => {
  const bucket = (type: string, func: string, start: number, value: number | null, extra: object = {}) => ({
    type, func, intervalValue: 1, intervalUnit: 'day', deviceFilter: 'all', bucketStart: start, bucketEnd: start + DAY, value, ...extra,
  });
  // Midnight in Los Angeles (the stored zone) on 2024-06-10 and 2024-06-11.
  const D10 = Date.UTC(2024, 5, 10, 7);
  const D11 = D10 + DAY;

  test('day buckets over every device feed /v1/metrics/daily on their local day; a repeat in a batch counts once, the last winning', async () => {
    const answer = await ok(
      batch({
        aggregates: [
          bucket('HKQuantityTypeIdentifierStepCount', 'sum', D10, 5000),
          bucket('HKQuantityTypeIdentifierStepCount', 'sum', D10, 8000),
          bucket('HKQuantityTypeIdentifierStepCount', 'sum', D11, 9000),
          bucket('HKQuantityTypeIdentifierStepCount', 'sum', D11, 1, { deviceFilter: 'watch' }),
          bucket('HKQuantityTypeIdentifierStepCount', 'average', D11, 1),
          bucket('HKQuantityTypeIdentifierRestingHeartRate', 'average', D10, 55),
          bucket('HKQuantityTypeIdentifierRestingHeartRate', 'min', D10, 50),
          bucket('HKQuantityTypeIdentifierRestingHeartRate', 'duration', D10, 3600, { unit: 's' }),
        ],
      }),
    );
    assert.equal(answer.aggregateSamples, 7);
    const daily = await server.getJson(`/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierRestingHeartRate&start=${D10}&end=${D11 + DAY}`);
    assert.deepEqual(daily.body.metrics, [
      { identifier: 'HKQuantityTypeIdentifierStepCount', unit: 'count', days: [{ date: '2024-06-10', value: 8000 }, { date: '2024-06-11', value: 9000 }] },
      { identifier: 'HKQuantityTypeIdentifierRestingHeartRate', unit: 'count/min', days: [{ date: '2024-06-10', value: 55 }] },
    ]);
    const [rhr] = await db.query(`SELECT sum, avg, min, max FROM daily_aggregates d JOIN sample_types t USING (type_id) WHERE t.identifier = 'HKQuantityTypeIdentifierRestingHeartRate'`);
    assert.deepEqual(rhr, { sum: null, avg: 55, min: 50, max: null });
  });

  test('a null bucket clears its day', async () => {
    await ok(batch({ aggregates: [bucket('HKQuantityTypeIdentifierStepCount', 'sum', D11, null)] }));
    const daily = await server.getJson(`/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount&start=${D10}&end=${D11 + DAY}`);
    assert.deepEqual(daily.body.metrics[0].days, [{ date: '2024-06-10', value: 8000 }]);
  });

  test('rings: the last line of a day wins, legacy dates shift by their offset, moveMode 0/1 becomes 1/2', async () => {
    const context = { timeZoneID: 'America/Los_Angeles', utcOffsetSeconds: -25200, source: 'device_current', confidence: 'inferred' };
    const answer = await ok(
      batch({
        summaries: [
          { date: D10, localDate: '2024-06-10', moveKcal: 100, moveMode: 0 },
          { date: D10, localDate: '2024-06-10', moveKcal: 300, moveMode: 1, moveTimeMin: 20 },
          { date: Date.UTC(2024, 5, 12, 6), temporalContext: context, exerciseMin: 12 },
        ],
      }),
    );
    assert.equal(answer.activitySummaries, 2);
    const rings = await server.getJson(`/v1/activity/summary?start=${D10}&end=${D11 + 2 * DAY}`);
    assert.deepEqual(
      rings.body.days.map((d: { date: string; moveKcal: number; moveMode: number; exerciseMin: number }) => [d.date, d.moveKcal, d.moveMode, d.exerciseMin]),
      [['2024-06-10', 300, 2, null], ['2024-06-11', null, null, 12]],
    );
  });

  test('the profile line replaces the whole profile; {} clears it', async () => {
    await ok(batch({ profile: { name: 'Ada', email: 'ada@example.org', dateOfBirth: 0.4, biologicalSex: 'female' } }));
    assert.deepEqual((await server.getJson('/v1/profile')).body, { userID: SYNC_USER, name: 'Ada', email: 'ada@example.org', dateOfBirth: 0, biologicalSex: 'female' });
    await ok(batch({ profile: {} }));
    assert.deepEqual((await server.getJson('/v1/profile')).body, { userID: SYNC_USER, name: null, email: null, dateOfBirth: null, biologicalSex: null });
  });
});

test('optional fields sent as null read as absent (FACTS.md §7): a sample\'s end, the header\'s counts, a context\'s tzdbVersion', async () => {
  const context = { timeZoneID: 'Europe/Berlin', utcOffsetSeconds: 7200, source: 'device', confidence: 'high', tzdbVersion: null };
  const sample = { ...heartRate(uuid(0x50, 1), T + 5 * DAY, 70), end: null, startContext: context };
  const answer = await ok(batch({ samples: [sample] }, { deletionCount: null, routeCount: null, profileCount: null }));
  assert.equal(answer.accepted, 1);
  const rows = await db.query(`SELECT start_ms::float8 AS start, end_ms::float8 AS end FROM samples WHERE uuid = $1`, [uuid(0x50, 1).toLowerCase()]);
  assert.deepEqual(rows, [{ start: T + 5 * DAY, end: T + 5 * DAY }]);
});

describe('users and the optional reads', () => {
  test('X-User-ID names the user, created on first sight with an empty profile; /v1/users counts its batches', async () => {
    await ok(batch({ samples: [heartRate(uuid(0x30, 1), T, 61), heartRate(uuid(0x30, 2), T + 1000, 62)] }), { 'x-user-id': OTHER.toUpperCase() });
    const users = await server.getJson('/v1/users');
    const other = users.body.users.find((u: { userID: string }) => u.userID === OTHER);
    assert.ok(other, JSON.stringify(users.body));
    assert.equal(other.uploadedSamples, 2);
    assert.ok(other.batches >= 2);
    assert.deepEqual((await server.getJson(`/v1/profile?user=${OTHER}`)).body, { userID: OTHER, name: null, email: null, dateOfBirth: null, biologicalSex: null });
  });

  test('capabilities, stats, uuids and digest', async () => {
    const caps = await getIngest(server.ingestUrl, '/v1/capabilities');
    assert.deepEqual(caps.body, {
      protocolVersions: [1],
      features: ['batches', 'stats', 'digest', 'uuids', 'aggregates', 'activitySummaries', 'routes', 'series', 'profile'],
      server: 'healthd',
      version: '1.0.0',
    });
    const stats = await getIngest(server.ingestUrl, '/v1/stats', { headers: { 'x-user-id': OTHER } });
    assert.deepEqual(
      stats.body.map((s: { type: string; rows: number; earliest: number; latest: number; batches: number; lastBatchAt: number }) => [s.type, s.rows, s.earliest, s.latest, s.batches, typeof s.lastBatchAt]),
      [['HKQuantityTypeIdentifierHeartRate', 2, T, T + 1000, 1, 'number']],
    );
    const uuids = await getIngest(server.ingestUrl, `/v1/uuids?type=HKQuantityTypeIdentifierHeartRate&from=${T}&to=${T + DAY}`, { headers: { 'x-user-id': OTHER } });
    assert.deepEqual(uuids.body, { uuids: [uuid(0x30, 1), uuid(0x30, 2)] });
    const tooLong = await getIngest(server.ingestUrl, `/v1/uuids?type=HKQuantityTypeIdentifierHeartRate&from=${T}&to=${T + 36 * DAY}`);
    assert.deepEqual([tooLong.status, tooLong.body], [400, { error: 'range exceeds 35 days' }]);
    const digest = await getIngest(server.ingestUrl, `/v1/digest?type=HKQuantityTypeIdentifierHeartRate&from=0&to=${T + DAY}`, { headers: { 'x-user-id': OTHER } });
    const xor = Buffer.alloc(16);
    for (const id of [uuid(0x30, 1), uuid(0x30, 2)]) Buffer.from(id.replace(/-/g, ''), 'hex').forEach((byte, i) => (xor[i] ^= byte));
    assert.deepEqual(digest.body, [{ window: Date.UTC(2024, 5, 1), rows: 2, digest: xor.toString('hex') }]);
    // Fractions are accepted wherever a timestamp appears (FACTS.md §7), here too: [from, to) as sent.
    const fractional = await getIngest(server.ingestUrl, `/v1/uuids?type=HKQuantityTypeIdentifierHeartRate&from=${T}.5&to=${T + 1000}.5`, { headers: { 'x-user-id': OTHER } });
    assert.deepEqual([fractional.status, fractional.body], [200, { uuids: [uuid(0x30, 2)] }]);
    const below = await getIngest(server.ingestUrl, `/v1/uuids?type=HKQuantityTypeIdentifierHeartRate&from=${T - 1}.5&to=${T + 1000}`, { headers: { 'x-user-id': OTHER } });
    assert.deepEqual([below.status, below.body], [200, { uuids: [uuid(0x30, 1)] }]);
    const fractionalDigest = await getIngest(server.ingestUrl, `/v1/digest?type=HKQuantityTypeIdentifierHeartRate&from=0.5&to=${T + DAY}.25`, { headers: { 'x-user-id': OTHER } });
    assert.deepEqual([fractionalDigest.status, fractionalDigest.body], [200, digest.body]);
    const unknown = await getIngest(server.ingestUrl, `/v1/digest?type=HKQuantityTypeIdentifierNope&from=0&to=${T}`);
    assert.deepEqual([unknown.status, unknown.body], [200, []]);
    const missing = await getIngest(server.ingestUrl, `/v1/digest?type=HKQuantityTypeIdentifierHeartRate&from=0`);
    assert.deepEqual([missing.status, missing.body], [400, { error: 'to is required' }]);
    const badUser = await getIngest(server.ingestUrl, '/v1/stats', { headers: { 'x-user-id': 'nope' } });
    assert.equal(badUser.status, 400);
    const health = await getIngest(server.ingestUrl, '/healthz', { token: null });
    assert.deepEqual([health.status, health.body], [200, { ok: true }]);
  });
});

test(`the receiver folds a user's sample counts and upload totals every ${INGEST.foldCountsEvery} batches, the sums unchanged`, async () => {
  const FOLDED = '0f0f0f0f-0000-4000-8000-0000000000f0';
  const batches = INGEST.foldCountsEvery + 6;
  for (let i = 0; i < batches; i++) await ok(batch({ samples: [heartRate(uuid(0x50, i), T + i * 1000, 60 + (i % 20))] }), { 'x-user-id': FOLDED });
  const rows = async (table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE user_id = $1`, [FOLDED]))[0].n);
  // Unfolded, each batch would have left a row in each; a fold leaves one, then the batches after it add theirs.
  assert.ok((await rows('upload_totals')) <= INGEST.foldCountsEvery, `upload_totals rows: ${await rows('upload_totals')}`);
  assert.ok((await rows('sample_counts')) <= INGEST.foldCountsEvery, `sample_counts rows: ${await rows('sample_counts')}`);
  assert.deepEqual(await countMismatches(db), []);
  const user = (await server.getJson('/v1/users')).body.users.find((u: { userID: string }) => u.userID === FOLDED);
  assert.deepEqual([user.batches, user.uploadedSamples], [batches, batches]);
});

test('after every batch above (concurrent, overlapping, refused, deleting, for several users) the counts the catalog and /v1/users read are what is stored', async () => {
  const [{ users, samples }] = await db.query<{ users: string; samples: string }>('SELECT count(DISTINCT user_id) AS users, count(*) AS samples FROM samples');
  assert.ok(Number(users) >= 2 && Number(samples) > 5000, `the batches stored samples for several users (${users}, ${samples})`);
  const [{ deltas }] = await db.query<{ deltas: string }>('SELECT count(*) AS deltas FROM sample_counts');
  assert.ok(Number(deltas) > 0, 'the receiver wrote counts');
  assert.deepEqual(await countMismatches(db), []);
});
