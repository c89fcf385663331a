// Issue 7, disconnects: 1,000 clients that hang up — while their query waits
// on a lock, at random moments of a JSON answer, in the middle of a pooled
// series downsampling, a summary, and an export that has started streaming.
// uWS kills the process when a response is touched after its client left, so
// the server must survive; afterwards every pool client and export slot must
// be back (counted on the database side), and the server must answer in full.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import {
  bearer, DAY, getRequest, inParallel, OWN_STATEMENT_READ, person, rawRequest, requestAndHangUp, seedBulkSamples, seedCommon, seedPerson, sessionCounts, sleep, T0, validPaths, waitFor,
} from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './support/server.js';

const ME = person(1, { userId: DEFAULT_USER });
const POOL_SIZE = 4;
/** Over the 20,000-point threshold, so the series route downsamples in the worker pool. */
const STREAM_POINTS = 30_000;
const BULK_EXPORT = `/v1/export?format=jsonl&dataset=samples&type=HKQuantityTypeIdentifierHeartRate&start=${T0}&end=${T0 + 30 * DAY}`;

let db: TestDatabase;
let server: TestServer;
/** Random but repeatable: a failure names its seed. */
let seed = Number(process.env.DISCONNECT_SEED ?? Date.now() % 100_000);
const random = () => {
  seed = (seed * 16807) % 2147483647;
  return (seed % 1_000_000) / 1_000_000;
};
const initialSeed = seed;

before(async () => {
  db = await createTestDatabase();
  await seedCommon(db.query);
  await seedPerson(db.query, ME, STREAM_POINTS);
  await seedBulkSamples(db.query, ME.userId, 60_000);
  // The summary covers the days up to today: give it a month of daily data to chew on.
  await db.query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum)
     SELECT $1, (SELECT type_id FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierActiveEnergyBurned'), current_date - d, 400 + d
     FROM generate_series(0, 90) AS d`,
    [ME.userId],
  );
  // Clients that hang up at once leave their work queued faster than 4 pool
  // clients drain it; a request waits for a free client within its query
  // time limit (30 s), which this flood must not reach.
  server = await startServer({ databaseUrl: db.url, env: { DB_POOL_SIZE: String(POOL_SIZE), WORKER_THREADS: '1' } });
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

const hangUps = { beforeQuery: 300, json: 300, series: 150, summary: 100, export: 150 };

test(`1,000 clients hang up mid-request: no crash, no leaked pool client or export slot (seed ${initialSeed})`, async (t) => {
  let phaseStart = Date.now();
  const phase = (name: string) => {
    t.diagnostic(`${name}: ${Date.now() - phaseStart} ms`);
    phaseStart = Date.now();
  };
  const json = validPaths(ME).filter((r) => r.operationId !== 'exportDataset').map((r) => r.path);
  const request = (path: string) => getRequest(path, bearer(TEST_TOKEN));

  // 1. Clients hang up while their queries wait on a lock: the first
  // POOL_SIZE hang up once their queries are on it; the rest queue for a
  // pool client and hang up at once (their queries are never sent).
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE profiles, users, samples, daily_aggregates, activity_summaries, workouts, workout_streams, state_of_mind IN ACCESS EXCLUSIVE MODE');
    const onTheLock = Array.from({ length: POOL_SIZE }, (_, i) => requestAndHangUp(server.port, request(json[i % json.length]), { afterMs: 5_000, reset: i % 2 === 0 }));
    await waitFor('the pool busy on the lock', async () => (await sessionCounts(db.adminUrl, db.name)).waitingOnLock === POOL_SIZE);
    await inParallel(hangUps.beforeQuery - POOL_SIZE, 50, (i) => requestAndHangUp(server.port, request(json[i % json.length]), { reset: i % 2 === 0 }));
    await Promise.all(onTheLock);
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
  phase(`${hangUps.beforeQuery} hang-ups while the queries wait on a lock`);

  // 2. JSON routes, hanging up 0–20 ms after sending.
  await inParallel(hangUps.json, 20, (i) => requestAndHangUp(server.port, request(json[i % json.length]), { afterMs: Math.floor(random() * 20), reset: random() < 0.5 }));

  phase(`${hangUps.json} JSON hang-ups`);
  // 3. Series: the stream is on its way to or from a worker thread.
  await inParallel(hangUps.series, 10, () => requestAndHangUp(server.port, request(`/v1/workouts/${ME.workoutUuid}/series`), { afterMs: Math.floor(random() * 40) }));
  phase(`${hangUps.series} series hang-ups`);
  // 4. Summary (one statement, then the aggregation on the event loop).
  await inParallel(hangUps.summary, 10, (i) => requestAndHangUp(server.port, request(`/v1/summary?range=90d&format=${i % 2 ? 'json' : 'markdown'}`), { afterMs: Math.floor(random() * 30) }));
  phase(`${hangUps.summary} summary hang-ups`);
  // 5. Exports: hang up once some of the file arrived (or at once; a busy slot's 503 is fine).
  await inParallel(hangUps.export, 2, (i) =>
    requestAndHangUp(server.port, request(BULK_EXPORT), i % 3 === 0 ? { afterMs: Math.floor(random() * 10) } : { afterBytes: 1 + Math.floor(random() * 400_000), reset: i % 2 === 0 }),
  );

  phase(`${hangUps.export} export hang-ups`);
  // Quiet again. The work of clients that left may still run (a query already
  // sent, a worker's task) and be queued in the server, not in the database:
  // a fresh request queues behind it for a pool client, then the database
  // must stay idle.
  assert.equal((await rawRequest(server.port, request('/v1/profile'), { timeoutMs: 60_000 }))?.status, 200);
  let quietPolls = 0;
  const counts = await waitFor('the server to settle', async () => {
    const c = await sessionCounts(db.adminUrl, db.name);
    quietPolls = c.active === 0 && c.exportSlots === 0 ? quietPolls + 1 : 0;
    return quietPolls >= 5 ? c : undefined;
  }, 30_000, 100);
  phase('settling');
  assert.equal(server.child.exitCode, null, 'the server is still running');
  assert.ok(counts.api <= POOL_SIZE, `${counts.api} query-pool sessions`);
  assert.ok(counts.export <= 4, `${counts.export} export-pool sessions`);
  assert.equal(counts.idleInTransaction, 0);
  assert.equal(counts.exportSlots, 0);

  // Every pool client can still be checked out: POOL_SIZE queries wait on a
  // lock at once. A leaked client is gone for good; a busy one comes back, so
  // a shortfall is tried again before it counts.
  let onLock = 0;
  for (let attempt = 1; attempt <= 3 && onLock < POOL_SIZE; attempt++) {
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    await check.query('BEGIN');
    await check.query(`LOCK TABLE ${OWN_STATEMENT_READ.table} IN ACCESS EXCLUSIVE MODE`);
    const waiting = Array.from({ length: POOL_SIZE * 2 }, () => rawRequest(server.port, request(OWN_STATEMENT_READ.path), { timeoutMs: 60_000 }).catch((error: Error) => error));
    await waitFor('every pool client on the lock', async () => (onLock = (await sessionCounts(db.adminUrl, db.name)).waitingOnLock) === POOL_SIZE, 5_000).catch(() => {});
    await check.query('ROLLBACK');
    await check.end();
    for (const answer of await Promise.all(waiting)) assert.equal((answer as { status?: number }).status, 200, String(answer));
  }
  assert.equal(onLock, POOL_SIZE, `only ${onLock} of ${POOL_SIZE} pool clients could be checked out: the others leaked`);
  phase('pool check');

  // Every route answers in full.
  for (const path of json) {
    const answer = await rawRequest(server.port, request(path));
    assert.equal(answer?.status, 200, path);
    assert.ok(answer!.complete, path);
  }
  const both = await Promise.all([1, 2].map(() => rawRequest(server.port, request(BULK_EXPORT), { timeoutMs: 60_000 })));
  for (const done of both) {
    assert.equal(done?.status, 200);
    assert.equal(done?.complete, true);
    assert.equal(done!.body.toString().trimEnd().split('\n').length, 60_000 + 7 * 144, 'every heart-rate sample (bulk and seeded), one JSON line each');
  }
  const output = server.output();
  assert.ok(!output.includes('unhandled request failure'), 'no failure escaped the request pipeline');
  assert.ok(!/"level":"error"/.test(output), `no errors logged for clients that left:\n${output.split('\n').filter((l) => l.includes('"error"')).slice(0, 5).join('\n')}`);
});

test('a query whose client hung up while it waited for a pool connection is never sent', async () => {
  const request = (path: string) => getRequest(path, bearer(TEST_TOKEN));
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE ${OWN_STATEMENT_READ.table}, profiles IN ACCESS EXCLUSIVE MODE`);
  try {
    // Every pool connection is busy on the lock …
    const holders = Array.from({ length: POOL_SIZE }, () => rawRequest(server.port, request(OWN_STATEMENT_READ.path), { timeoutMs: 60_000 }));
    await waitFor('the pool busy on the lock', async () => (await sessionCounts(db.adminUrl, db.name)).waitingOnLock === POOL_SIZE);
    // … while 40 more requests queue for one, and their clients hang up:
    // requests with a statement each, and requests folded into one (profiles).
    await inParallel(40, 40, (i) => requestAndHangUp(server.port, request(i % 4 < 2 ? OWN_STATEMENT_READ.path : '/v1/profile'), { afterMs: 50, reset: i % 2 === 0 }));
    await sleep(100);
    // The holders' queries are cancelled: the pool opens fresh connections
    // for whoever waits next. Had the abandoned queries been sent, they would
    // take every one of them and sit on the lock, and this last request with them.
    const admin = new pg.Client({ connectionString: db.adminUrl });
    await admin.connect();
    await admin.query(
      `SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'healthd' AND wait_event_type = 'Lock'`,
      [db.name],
    );
    await admin.end();
    for (const answer of await Promise.all(holders)) assert.equal(answer?.status, 504, 'a cancelled query answers as a timed-out one');
    const last = rawRequest(server.port, request('/v1/profile'), { timeoutMs: 60_000 });
    await waitFor('the last request alone on the lock', async () => (await sessionCounts(db.adminUrl, db.name)).waitingOnLock === 1);
    await sleep(200);
    assert.equal((await sessionCounts(db.adminUrl, db.name)).waitingOnLock, 1, 'no query of a client that left reached the database');
    await locker.query('ROLLBACK');
    assert.equal((await last)?.status, 200);
  } finally {
    await locker.end();
  }
});
