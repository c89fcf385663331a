// Issue 7, faults: PostgreSQL stopping under a running server (health, /v1
// answers, recovery without a restart), PostgreSQL dying in the middle of an
// export, a worker that throws on bad data, and SIGTERM with requests and
// exports in flight. PostgreSQL is stopped and started here, so this file runs
// its own cluster on a fixed port rather than the shared test cluster.
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { loadUws } from '../src/http/uws.js';
import { defineRoute, json } from '../src/routes/route.js';
import { Enum } from '../src/schemas/common.js';
import type { Services } from '../src/services.js';
import { createWorkerPool } from '../src/worker-pool.js';
import { freePort, startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { tmpRoot, withDatabase } from './support/db.js';
import {
  bearer, DAY, getRequest, OWN_STATEMENT_READ, person, rawRequest, seedBulkSamples, seedCommon, seedPerson, sessionCounts, sleep, T0, validPaths, waitFor,
} from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './support/server.js';
import { provokingErrors } from './support/provoked.js';

const DATABASE = 'healthd_faults';
const ME = person(1, { userId: DEFAULT_USER });
/** A workout whose stream is long enough for the worker pool but whose values array is one short. */
const BROKEN_WORKOUT = '10000000-0000-4000-8000-00000000bad0';
/** Rows in the bulk export: about 9 MB of CSV, more than loopback socket buffers hold. */
const BULK_SAMPLES = 120_000;
const BULK_EXPORT = `/v1/export?format=csv&dataset=samples&type=HKQuantityTypeIdentifierHeartRate&start=${T0}&end=${T0 + 30 * DAY}`;

let dir: string;
let port: number;
let cluster: EmbeddedDatabase | null = null;
let adminUrl: string;
let url: string;

async function startCluster(): Promise<void> {
  cluster = await startEmbeddedDatabase({ dir, port, unsafeFast: true });
  adminUrl = cluster.adminUrl;
}

async function stopCluster(): Promise<void> {
  await cluster?.stop();
  cluster = null;
}

async function query(sql: string, params?: unknown[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpRoot(), 'faults-pg-'));
  port = await freePort();
  await startCluster();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  url = withDatabase(adminUrl, DATABASE);
  await applyMigrations(url);
  await seedCommon(query);
  await seedPerson(query, ME);
  await seedBulkSamples(query, ME.userId, BULK_SAMPLES);
  // 25,000 times but 24,999 values: a writer bug the storage contract forbids,
  // and enough points that the series route hands the stream to a worker.
  await query(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, $2, 'rowing', $3::bigint, $3::bigint + 3600000)`, [ME.userId, BROKEN_WORKOUT, T0]);
  await query(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
     SELECT $1, $2, (SELECT type_id FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierHeartRate'),
            array_agg($3::bigint + i * 100 ORDER BY i), (array_agg(100.0 + i % 7 ORDER BY i))[1:24999]
     FROM generate_series(0, 24999) AS i`,
    [ME.userId, BROKEN_WORKOUT, T0],
  );
});

after(async () => {
  await stopCluster();
  rmSync(dir, { recursive: true, force: true });
});

/** One well-formed request for every /v1 route that exists. */
const v1Requests = () => validPaths(ME);

describe('PostgreSQL stops while serving', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: url, env: { DB_CONNECT_TIMEOUT_MS: '1000' } });
  });
  after(async () => {
    await server.stop();
  });

  test('healthz turns 503 within its cache window, /v1 answers 500/503 without the cause, and everything recovers without a restart', async () => {
    const healthy = await server.getJson('/healthz', { token: null });
    assert.deepEqual([healthy.status, healthy.body], [200, { ok: true, db: true }]);
    for (const { path } of v1Requests()) {
      const response = await server.get(path);
      assert.equal(response.status, 200, path);
      await response.arrayBuffer();
    }

    await stopCluster();
    const stoppedAt = Date.now();
    // The cached status may be up to 2 s old; the next ping fails at once (connection refused).
    const down = await waitFor('healthz 503', async () => {
      const { status, body } = await server.getJson('/healthz', { token: null });
      return status === 503 ? body : undefined;
    }, 5_000, 100);
    const after503 = Date.now() - stoppedAt;
    assert.deepEqual(down, { ok: false, db: false });
    assert.ok(after503 <= 2_000 + 1_500, `healthz answered 503 after ${after503} ms`);

    for (const { operationId, path } of v1Requests()) {
      if (operationId === 'listCatalogTypes') continue; // served from its cache while the database is away (spec: Limits)
      const t = Date.now();
      const response = await rawRequest(server.port, getRequest(path, bearer(TEST_TOKEN)));
      assert.ok(response, `${path}: an answer`);
      assert.ok([500, 503].includes(response.status), `${path}: ${response.status}`);
      assert.match(response.headers['content-type'], /^application\/json/);
      const body = JSON.parse(response.body.toString());
      assert.deepEqual(Object.keys(body), ['error'], path);
      assert.ok(['internal error', 'database unavailable'].includes(body.error), `${path}: ${body.error} names no cause`);
      assert.ok(Date.now() - t < 3_000, `${path} answered within the connect timeout`);
    }
    for (const path of ['/', '/openapi.json', '/docs']) {
      assert.equal((await server.get(path, { token: null })).status, 200, `${path} needs no database`);
    }
    await sleep(200);
    assert.equal(server.child.exitCode, null, `still running:\n${server.output()}`);

    await startCluster();
    const upAgain = await waitFor('healthz 200', async () => ((await server.getJson('/healthz', { token: null })).status === 200 ? true : undefined), 10_000, 100);
    assert.ok(upAgain);
    for (const { path } of v1Requests()) {
      const response = await server.get(path);
      assert.equal(response.status, 200, `${path} after recovery`);
      await response.arrayBuffer();
    }
    assert.equal(server.child.exitCode, null, 'the same process, never restarted');

    // The log says what an operator needs (route, request id, the connection error) and nothing of the request.
    const failures = server.output().split('\n').filter((line) => line.includes('"request failed"'));
    assert.ok(failures.length > 0);
    for (const line of failures) {
      const entry = JSON.parse(line);
      assert.deepEqual(Object.keys(entry).filter((k) => !['time', 'level', 'msg', 'requestId', 'route', 'error', 'code', 'stack'].includes(k)), [], line);
      assert.ok(!line.includes(TEST_TOKEN) && !line.includes(ME.userId) && !line.includes(String(T0)), line);
    }
  });
});

describe('PostgreSQL freezes (alive, connections open, no answers: a stopped host or a network partition)', () => {
  let server: TestServer;
  before(async () => {
    if (!cluster) await startCluster();
    server = await startServer({ databaseUrl: url, env: { QUERY_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_MS: '1000', DB_POOL_SIZE: '4' } });
  });
  after(async () => {
    await server.stop();
  });

  /** The postmaster and its backends. */
  function postgresPids(): number[] {
    const postmaster = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('pgrep', ['-P', String(postmaster)]).toString().trim().split('\n').map(Number);
    return [postmaster, ...children];
  }

  test('requests on open connections fail within the query timeout + 2 s instead of hanging; healthz 503; thawed, all recovers', async () => {
    // Open every pool connection, so requests meet established connections that no longer answer.
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: 4 }, async () => assert.equal((await server.getJson('/v1/profile')).status, 200)));
    }
    const pids = postgresPids();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      const frozenAt = Date.now();
      const answers = await Promise.all(
        v1Requests().map(async ({ path }) => {
          const response = await rawRequest(server.port, getRequest(path, bearer(TEST_TOKEN)), { timeoutMs: 15_000 }).catch((error: Error) => error);
          return { path, response, ms: Date.now() - frozenAt };
        }),
      );
      for (const { path, response, ms } of answers) {
        if (response instanceof Error) assert.fail(`${path} hung: ${response.message}`);
        if (path.startsWith('/v1/catalog/types')) continue; // may be served from its cache
        // 500: its statement got no answer within the client's margin; 504: it waited for a pool connection the query time limit long.
        assert.ok([500, 503, 504].includes(response!.status), `${path}: ${response!.status}`);
        assert.deepEqual(Object.keys(JSON.parse(response!.body.toString())), ['error']);
        // Query timeout 1 s + 2 s client margin; a request queued behind a stuck one may wait for the pool up to 1 s more.
        assert.ok(ms < 1_000 + 2_000 + 1_000 + 1_500, `${path} answered after ${ms} ms`);
      }
      const health = await server.getJson('/healthz', { token: null });
      assert.equal(health.status, 503);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    await waitFor('healthz 200', async () => ((await server.getJson('/healthz', { token: null })).status === 200 ? true : undefined), 10_000, 100);
    for (const { path } of v1Requests()) {
      const response = await server.get(path);
      assert.equal(response.status, 200, `${path} after thawing`);
      await response.arrayBuffer();
    }
  });
});

describe('PostgreSQL dies in the middle of an export', () => {
  let server: TestServer;
  before(async () => {
    if (!cluster) await startCluster();
    server = await startServer({ databaseUrl: url, env: { DB_CONNECT_TIMEOUT_MS: '1000', QUERY_TIMEOUT_MS: '2000', SHUTDOWN_GRACE_MS: '1000' } });
  });
  after(async () => {
    if (!cluster) await startCluster();
    // Whatever happened to the export, SIGTERM ends the process, with 0, within
    // grace + a request's wait for a connection, its query and the client's margin + 5 s for the pools (here 1 + 2 + 2 + 2 + 5 s).
    const exited = once(server.child, 'exit');
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const code = await Promise.race([exited.then(([c]) => c as number | null), sleep(14_000).then(() => 'hung' as const)]);
    if (code === 'hung') server.child.kill('SIGKILL');
    assert.equal(code, 0, `SIGTERM exit after ${Date.now() - signalledAt} ms`);
  });

  test('the download is cut off, never ended cleanly, and the slot is free again', async () => {
    let paused: (() => void) | null = null;
    const download = rawRequest(server.port, getRequest(BULK_EXPORT, bearer(TEST_TOKEN)), {
      timeoutMs: 15_000,
      onHead: (socket) => {
        // Stop reading: the server fills the socket buffers and waits, mid-file.
        socket.pause();
        paused = () => socket.resume();
      },
    });
    await waitFor('export head', async () => paused !== null, 10_000);
    await waitFor('the export holding a slot', async () => (await sessionCounts(adminUrl, DATABASE)).exportSlots === 1, 5_000);
    await sleep(300);
    await stopCluster();
    paused!();
    const response = await download.catch((error: Error) => {
      throw new Error(`the export neither ended nor was cut off after PostgreSQL died: ${error.message}`);
    });
    assert.ok(response);
    assert.equal(response.status, 200);
    assert.equal(response.complete, false, 'the body never reaches its last chunk');
    // No complete chunk may have arrived: uWS sends a chunk's closing CRLF with the next chunk, and
    // the client stopped reading at the head (with the header row's chunk, but not its end).
    assert.ok(response.body.length === 0 || response.body.toString().startsWith('type,unit,uuid,'), "what arrived is the file's start");
    const rows = response.body.toString().split('\n').length - 1;
    assert.ok(rows < BULK_SAMPLES, `cut off after ${rows} of ${BULK_SAMPLES} rows`);
    await sleep(200);
    assert.equal(server.child.exitCode, null, `still running:\n${server.output()}`);

    await startCluster();
    await waitFor('healthz 200', async () => ((await server.getJson('/healthz', { token: null })).status === 200 ? true : undefined), 10_000, 100);
    // Both slots are usable: two exports at once run to a clean end.
    const both = await Promise.all([1, 2].map(() => rawRequest(server.port, getRequest(BULK_EXPORT, bearer(TEST_TOKEN)), { timeoutMs: 60_000 })));
    for (const done of both) {
      assert.equal(done?.status, 200);
      assert.equal(done?.complete, true);
      // Header + the bulk samples + seedPerson's heart rate every 10 minutes for 7 days (7 × 144).
      assert.equal(done!.body.toString().trimEnd().split('\n').length, 1 + BULK_SAMPLES + 7 * 144, 'header and every row');
    }
    const counts = await waitFor('slots released', async () => {
      const c = await sessionCounts(adminUrl, DATABASE);
      return c.exportSlots === 0 ? c : undefined;
    });
    assert.equal(counts.idleInTransaction, 0);
  });
});

describe('an export fails before its first row', () => {
  let server: TestServer;
  before(async () => {
    if (!cluster) await startCluster();
    server = await startServer({ databaseUrl: url });
  });
  after(async () => {
    await server.stop();
  });

  test('CSV is cut off after its header row; JSONL, with nothing sent yet, answers a 500; the slots are free again', async () => {
    const jsonlExport = BULK_EXPORT.replace('format=csv', 'format=jsonl');
    // The samples held by a lock, so both exports wait on their first row; then their sessions are ended.
    // The watcher is another session: inside the locker's transaction pg_stat_activity would stay as first read.
    const locker = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await Promise.all([locker.connect(), watcher.connect()]);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE samples IN ACCESS EXCLUSIVE MODE');
      let csvHead = false;
      const csv = rawRequest(server.port, getRequest(BULK_EXPORT, bearer(TEST_TOKEN)), { timeoutMs: 15_000, onHead: () => (csvHead = true) });
      const jsonl = rawRequest(server.port, getRequest(jsonlExport, bearer(TEST_TOKEN)), { timeoutMs: 15_000 });
      const waiting = `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'healthd-export' AND wait_event_type = 'Lock'`;
      await waitFor('both exports waiting on their first row', async () => ((await watcher.query(waiting, [DATABASE])).rows.length === 2 ? true : undefined), 10_000);
      await waitFor('the CSV head and header row out before the first row is read', async () => csvHead || undefined, 5_000);
      await watcher.query(`SELECT pg_terminate_backend(pid) FROM (${waiting}) w`, [DATABASE]);
      const [cut, refused] = await Promise.all([csv, jsonl]);
      assert.equal(cut?.status, 200);
      assert.equal(cut?.complete, false, 'the CSV never reaches its last chunk');
      // uWS sends a chunk's closing CRLF with the next chunk, so the header row's chunk never completes here.
      assert.ok(['', 'type,unit,uuid,start,end,value,label,source\r\n'].includes(cut!.body.toString()), 'nothing but the header row');
      assert.equal(refused?.status, 500, 'a JSONL file with nothing sent is answered with the error, never a 200 that reads as an empty file');
      assert.equal(refused?.complete, true);
      assert.deepEqual(JSON.parse(refused!.body.toString()), { error: 'internal error' });
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await Promise.all([locker.end(), watcher.end()]);
    }
    await waitFor('slots released', async () => ((await sessionCounts(adminUrl, DATABASE)).exportSlots === 0 ? true : undefined));
    const whole = await rawRequest(server.port, getRequest(jsonlExport, bearer(TEST_TOKEN)), { timeoutMs: 60_000 });
    assert.equal(whole?.status, 200);
    assert.equal(whole?.complete, true);
    assert.equal(whole!.body.toString().split('\n').length - 1, BULK_SAMPLES + 7 * 144, 'every row');
    assert.match(server.output(), /"level":"error"/, 'the cause went to the log');
  });
});

describe('a worker throws', () => {
  let server: TestServer;
  before(async () => {
    if (!cluster) await startCluster();
    server = await startServer({ databaseUrl: url, env: { WORKER_THREADS: '1' } });
  });
  after(async () => {
    await server.stop();
  });

  test('that request is a 500 saying nothing of the cause; the pool goes on serving', async () => {
    for (let round = 0; round < 3; round++) {
      const broken = await server.getJson(`/v1/workouts/${BROKEN_WORKOUT}/series`);
      assert.equal(broken.status, 500);
      assert.deepEqual(broken.body, { error: 'internal error' });
      const good = await server.getJson(`/v1/workouts/${ME.workoutUuid}/series?maxPoints=10`);
      assert.equal(good.status, 200);
      assert.equal(good.body.series[0].points.length, 10);
    }
    // Several at once, good and bad interleaved, on one worker thread.
    const mixed = await Promise.all(
      Array.from({ length: 12 }, (_, i) => server.getJson(i % 2 ? `/v1/workouts/${BROKEN_WORKOUT}/series` : `/v1/workouts/${ME.workoutUuid}/series?maxPoints=5`)),
    );
    mixed.forEach((r, i) => assert.equal(r.status, i % 2 ? 500 : 200));
    assert.equal(server.child.exitCode, null);
    assert.ok(server.output().includes('a stream needs as many values as times'), 'the log has the cause');
  });
});

describe('a worker dies', () => {
  // No stored data can make a worker thread exit, so this runs the real HTTP
  // front and the real worker pool in this process, with one extra route that
  // sends a failing task (test/support/crash-worker.ts) to that pool, then
  // checks the pool still runs the production task afterwards.
  const CRASH_WORKER = new URL('./support/crash-worker.js', import.meta.url).href;
  const MODES = ['throwInTask', 'exitThread', 'crashThread'] as const;
  const faultRoute = defineRoute({
    operationId: 'workerFault',
    path: '/v1/worker-fault',
    auth: true,
    summary: 'Test only',
    description: 'Runs a failing task, or (ok) the production downsampling task, on the worker pool.',
    example: {},
    params: Type.Object({ mode: Enum(['ok', ...MODES], 'What the worker does.') }),
    responses: [{ status: 200, description: 'The task ran.' }],
    async handler({ query, services }) {
      if (query.mode === 'ok') {
        const times = Float64Array.from({ length: 1000 }, (_, i) => i * 1000);
        const values = Float64Array.from({ length: 1000 }, (_, i) => i % 10);
        const [stream] = (await services.workers.run({ streams: [{ times, values }], maxPoints: 3 }, { name: 'downsampleSeries', transferList: [times.buffer, values.buffer] })) as { times: Float64Array }[];
        return json({ times: Array.from(stream.times) });
      }
      await services.workers.run(null, { filename: CRASH_WORKER, name: query.mode });
      return json({ unexpected: true });
    },
  });

  test('that request is a 500, the pool replaces the thread, later requests succeed, the process lives on', async () => {
    const { uws } = loadUws(false);
    const config = loadConfig({ SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: DEFAULT_USER });
    const workers = createWorkerPool(1);
    // Only config and workers are reached by this route; the database-backed services stay out.
    const services = { config: { ...config, apiToken: TEST_TOKEN, defaultUserId: DEFAULT_USER }, workers } as unknown as Services;
    const http = createHttpServer(uws, services, [faultRoute]);
    const port = await http.listen('127.0.0.1', 0);
    const call = async (mode: string) => {
      const response = await rawRequest(port, getRequest(`/v1/worker-fault?mode=${mode}`, bearer(TEST_TOKEN)));
      return { status: response!.status, body: JSON.parse(response!.body.toString()) };
    };
    const crashes: unknown[] = [];
    const onUncaught = (error: unknown) => crashes.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      // downsampling 0..999 s to 3 points: first (0), mean of the 998 inner times (1..998 s → 499.5 s), last (999 s).
      const expected = { status: 200, body: { times: [0, 499_500, 999_000] } };
      assert.deepEqual(await call('ok'), expected);
      // The server runs in this process: its log of these 500s is labelled as provoked.
      await provokingErrors('worker tasks fail and threads die', async () => {
        for (const mode of [...MODES, ...MODES]) {
          assert.deepEqual(await call(mode), { status: 500, body: { error: 'internal error' } }, mode);
          assert.deepEqual(await call('ok'), expected, `after ${mode}`);
          assert.equal(workers.threads, 1, `one thread again after ${mode}`);
        }
        const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 3 ? 'ok' : 'exitThread')));
        burst.forEach((r, i) => assert.equal(r.status, i % 3 ? 200 : 500));
      });
      assert.deepEqual(crashes, [], 'nothing reached the main thread uncaught');
    } finally {
      process.off('uncaughtException', onUncaught);
      http.stopListening();
      await workers.destroy();
    }
  });
});

describe('SIGTERM under load', () => {
  test('a SIGTERM the moment the server says it is listening still takes the graceful path (exit 0)', async () => {
    if (!cluster) await startCluster();
    for (let i = 0; i < 3; i++) {
      const server = await startServer({ databaseUrl: url });
      assert.equal(await server.stop('SIGTERM'), 0);
    }
  });

  test('in-flight JSON requests finish, new connections are refused, the process exits 0', async () => {
    if (!cluster) await startCluster();
    const server = await startServer({ databaseUrl: url, env: { DB_POOL_SIZE: '4' } });
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      // Hold the requests inside their queries: 4 wait on the lock, 16 queue for a pool client.
      await locker.query('BEGIN');
      // Half of them read profiles, whose requests fold into a statement of a turn (src/db/fold.ts).
      await locker.query(`LOCK TABLE ${OWN_STATEMENT_READ.table}, profiles IN ACCESS EXCLUSIVE MODE`);
      const paths = Array.from({ length: 20 }, (_, i) => (i % 2 ? '/v1/profile' : OWN_STATEMENT_READ.path));
      const inFlight = paths.map((path) => rawRequest(server.port, getRequest(path, bearer(TEST_TOKEN)), { timeoutMs: 20_000 }));
      await waitFor('4 queries waiting on the lock', async () => (await sessionCounts(adminUrl, DATABASE)).waitingOnLock === 4);
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      server.child.kill('SIGTERM');
      await waitFor('the server to begin its stop', async () => server.output().includes('"msg":"shutting down"'));
      assert.equal(server.child.exitCode, null, 'waits for running requests');
      assert.equal(await rawRequest(server.port, getRequest('/healthz'), { timeoutMs: 2_000 }), null, 'the listening socket is closed');
      await locker.query('ROLLBACK');
      const answers = await Promise.all(inFlight);
      answers.forEach((answer, i) => {
        assert.equal(answer?.status, 200);
        const body = JSON.parse(answer!.body.toString());
        if (paths[i] === '/v1/profile') assert.equal(body.name, ME.name);
        else assert.ok(Array.isArray(body.samples));
      });
      assert.equal(await exited, 0);
    } finally {
      await locker.end();
      await server.stop();
    }
  });

  test('exports get their grace: one that finishes in time ends cleanly, a stalled one is cut off at the end of it; exit 0', async () => {
    if (!cluster) await startCluster();
    const GRACE_MS = 2_000; // 15 s in production; the mechanism is the same
    const server = await startServer({ databaseUrl: url, env: { SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    try {
      let stalledHead = false;
      const stalled = rawRequest(server.port, getRequest(BULK_EXPORT, bearer(TEST_TOKEN)), {
        timeoutMs: 30_000,
        onHead: (socket) => {
          socket.pause();
          stalledHead = true;
          // Read again only well after the grace: what arrives then is whatever was buffered.
          setTimeout(() => socket.resume(), GRACE_MS + 1_500);
        },
      });
      await waitFor('stalled export started', async () => stalledHead);
      await sleep(200);
      const small = `/v1/export?format=jsonl&dataset=samples&type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${T0 + 7 * DAY}`;
      let smallHead = false;
      const finishing = rawRequest(server.port, getRequest(small, bearer(TEST_TOKEN)), { onHead: () => (smallHead = true) });
      await waitFor('small export started', async () => smallHead);
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const done = await finishing;
      assert.equal(done?.status, 200);
      assert.equal(done?.complete, true, 'the export that could finish ended cleanly');
      assert.equal(done!.body.toString().trimEnd().split('\n').length, 7 * 24, 'every step sample');
      assert.equal(await exited, 0);
      const tookMs = Date.now() - signalledAt;
      assert.ok(tookMs >= GRACE_MS - 100 && tookMs < GRACE_MS + 3_000, `exited ${tookMs} ms after SIGTERM`);
      const cut = await stalled;
      assert.equal(cut?.status, 200);
      assert.equal(cut?.complete, false, 'the stalled export was aborted, not ended');
    } finally {
      await server.stop();
    }
  });
});
