// Folded reads (src/db/fold.ts): the users, profile, workouts, workout,
// latest-metric, daily (first page), activity and state-of-mind requests that arrive in one turn of the event
// loop share one statement.
// Over HTTP, many such requests at once — for two people, someone without a
// profile, another's workout — each get the answer they get alone. And the
// folding itself, on a real pool: one statement for a turn's distinct inputs,
// none for requests whose clients left, one failed on a value tried input by
// input (not one that timed out).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { foldedRead, perResult } from '../src/db/fold.js';
import { ClientGone, RequestDb } from '../src/db/pool.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DAY, person, seedCommon, seedPerson, T0, validPaths } from './support/faults.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const A = person(1, { userId: DEFAULT_USER });
const B = person(2);
const NOBODY = 'f0000000-0000-4000-8000-00000000000f';
const FOLDED = ['listUsers', 'getProfile', 'listWorkouts', 'getWorkout', 'getLatestMetrics', 'getDailyMetrics', 'getActivitySummary', 'getStateOfMind'];

let db: TestDatabase;
let server: TestServer;
let pool: pg.Pool;

before(async () => {
  db = await createTestDatabase();
  await seedCommon(db.query);
  await seedPerson(db.query, A);
  await seedPerson(db.query, B);
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true', DB_POOL_SIZE: '2' } });
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});

after(async () => {
  await pool?.end();
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

test('many folded requests at once: each gets the answer it gets alone', async () => {
  const paths = [
    ...validPaths(A, A.userId),
    ...validPaths(B, B.userId),
    ...validPaths(A, B.userId), // A's workout read as B: 404
    ...validPaths(B, NOBODY), // no profile: 404; no workout: 404; no samples: empty
  ]
    .filter((r) => FOLDED.includes(r.operationId))
    .map((r) => r.path);
  paths.push(`/v1/metrics/latest?types=HKQuantityTypeIdentifierStepCount&user=${B.userId}`, '/v1/users', '/v1/profile');
  // Types in another order, a page shorter than the days (read the other way), ranges that differ: one day, and the week.
  paths.push(
    `/v1/metrics/daily?types=HKQuantityTypeIdentifierRestingHeartRate,HKQuantityTypeIdentifierStepCount&start=${T0}&end=${T0 + 7 * DAY}&user=${A.userId}`,
    `/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierRestingHeartRate&start=${T0}&end=${T0 + 7 * DAY}&user=${B.userId}&limit=1`,
    `/v1/workouts?user=${B.userId}`,
    `/v1/workouts?limit=1&offset=1&user=${B.userId}`,
    `/v1/workouts?activityType=running&start=${T0}`,
  );
  for (const days of [1, 7]) paths.push(`/v1/activity/summary?start=${T0}&end=${T0 + days * DAY}&user=${B.userId}`, `/v1/state-of-mind?start=${T0}&end=${T0 + days * DAY}`);
  const alone = new Map<string, { status: number; body: string }>();
  for (const path of paths) {
    const answer = await server.get(path);
    alone.set(path, { status: answer.status, body: await answer.text() });
  }
  assert.deepEqual(new Set([...alone.values()].map((a) => a.status)), new Set([200, 404]));
  const together = Array.from({ length: 8 }, () => paths).flat();
  const answers = await Promise.all(together.map(async (path) => {
    const answer = await server.get(path);
    return { path, status: answer.status, body: await answer.text() };
  }));
  for (const { path, status, body } of answers) assert.deepEqual({ status, body }, alone.get(path), path);
});

test('one statement for the distinct inputs of a turn; none for requests whose client left; a failed one tried input by input', async () => {
  const runs: string[][] = [];
  const read = foldedRead<string, string>(async (client, inputs) => {
    runs.push([...inputs]);
    const { rows } = await client.query<{ v: string }>('SELECT upper(v) AS v FROM unnest($1::text[]) WITH ORDINALITY AS t (v, i) ORDER BY i', [inputs]);
    return rows.map((row) => row.v);
  });
  const live = new RequestDb(pool, () => false);
  assert.deepEqual(await Promise.all(['a', 'b', 'a', 'c', 'b'].map((key) => read(live, key, key))), ['A', 'B', 'A', 'C', 'B']);
  assert.deepEqual(runs, [['a', 'b', 'c']]);
  // The next turn, its own statement.
  assert.equal(await read(pool, 'd', 'd'), 'D');
  assert.deepEqual(runs.at(-1), ['d']);

  // Clients gone before the statement: refused with ClientGone, and left out of it; all gone, no statement.
  const gone = new RequestDb(pool, () => true);
  const mixed = await Promise.allSettled([read(gone, 'x', 'x'), read(live, 'y', 'y')]);
  assert.ok(mixed[0].status === 'rejected' && mixed[0].reason instanceof ClientGone);
  assert.deepEqual(mixed[1], { status: 'fulfilled', value: 'Y' });
  assert.deepEqual(runs.at(-1), ['y']);
  const before = runs.length;
  await assert.rejects(read(gone, 'z', 'z'), ClientGone);
  assert.equal(runs.length, before);

  // On one connection (an export's), a read runs alone.
  const client = await pool.connect();
  try {
    assert.equal(await read(client, 'e', 'e'), 'E');
  } finally {
    client.release();
  }

  // A statement that fails is tried again input by input: the input the database refuses fails alone.
  const divisions: number[][] = [];
  const divide = foldedRead<number, number>(async (c, inputs) => {
    divisions.push([...inputs]);
    const { rows } = await c.query<{ q: number }>('SELECT 60 / d AS q FROM unnest($1::int[]) WITH ORDINALITY AS t (d, i) ORDER BY i', [inputs]);
    return rows.map((row) => row.q);
  });
  const outcomes = await Promise.allSettled([2, 0, 5, 0].map((d) => divide(live, String(d), d)));
  assert.deepEqual(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : /division by zero/.test(String(o.reason)))), [30, true, 12, true]);
  assert.deepEqual(divisions[0], [2, 0, 5]);
  assert.deepEqual(divisions.slice(1).map(([d]) => d).sort(), [0, 2, 5]);

  // A timeout is no input's doing: tried again input by input, each request would wait a whole timeout more.
  let slowRuns = 0;
  const slow = foldedRead<number, number>(async (c, inputs) => {
    slowRuns++;
    await c.query('SET statement_timeout = 100');
    await c.query('SELECT pg_sleep(5)');
    return [...inputs];
  });
  const timedOut = await Promise.allSettled([1, 2, 3].map((n) => slow(live, String(n), n)));
  for (const outcome of timedOut) assert.ok(outcome.status === 'rejected' && (outcome.reason as { code?: string }).code === '57014', String(outcome.status));
  assert.equal(slowRuns, 1);
});

test('perResult: made once for the requests of a turn that got the same result, again for another turn\'s', async () => {
  let made = 0;
  const bodyOf = perResult((row: { v: string }) => `${row.v}#${++made}`);
  const read = foldedRead<string, { v: string }>(async (client, inputs) => {
    const { rows } = await client.query<{ v: string }>('SELECT upper(v) AS v FROM unnest($1::text[]) WITH ORDINALITY AS t (v, i) ORDER BY i', [inputs]);
    return rows;
  });
  const live = new RequestDb(pool, () => false);
  const bodies = await Promise.all(['a', 'a', 'b', 'a'].map(async (key) => bodyOf(await read(live, key, key))));
  assert.deepEqual(bodies, ['A#1', 'A#1', 'B#2', 'A#1']);
  assert.equal(bodyOf(await read(live, 'a', 'a')), 'A#3', 'a later turn reads again, and its body is made again');
});
