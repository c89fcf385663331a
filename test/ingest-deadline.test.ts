// A batch's database time is bounded (README: the receiver's sessions are
// "bounded at 5 minutes a batch"; FACTS §5: it "bounds its own DB work at 5
// min"). PostgreSQL enforces that with the sessions' statement and
// idle-in-transaction timeouts, which a server that stopped answering (a
// frozen host, a network partition) cannot: the receiver then closes the
// session itself once the bound and a margin have passed, and the batch is
// answered 503 (nothing stored; the phone sends it again). Run in process on
// a real PostgreSQL with a short bound, against a backend stopped by SIGSTOP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { CLIENT_TIMEOUT_MARGIN_MS } from '../src/db/pool.js';
import { createWriterPool } from '../src/db/writer-pool.js';
import { ApiError } from '../src/errors.js';
import { storeBatch } from '../src/ingest/batch.js';
import { ndjsonLines } from '../src/ingest/body.js';
import { NameIds } from '../src/ingest/names.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { batch, heartRate } from './support/ingest.js';

const USER = '5ea4d000-0000-4000-8000-000000000001';
const TIME_LIMIT_MS = 500;

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
});

test('a batch whose database stops answering is answered 503 once its time bound and the margin have passed, its session dropped; nothing is stored', { timeout: 30_000 }, async () => {
  const pool = createWriterPool({ connectionString: db.url, max: 1, connectTimeoutMs: 2_000 });
  const namesPool = createWriterPool({ connectionString: db.url, max: 1, connectTimeoutMs: 2_000 });
  const store = { pool, names: new NameIds(namesPool), timeZone: 'UTC', timeLimitMs: TIME_LIMIT_MS };
  // The pool's one session, made now: its backend is the one stopped.
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0].pid;
  const body = batch({ samples: [heartRate('DEAD0000-0000-4000-8000-000000000001', Date.UTC(2026, 0, 5), 60)] });
  process.kill(pid, 'SIGSTOP');
  let stopped = true;
  try {
    const startedAt = Date.now();
    const stored = storeBatch(store, {
      userId: USER,
      requestedVersion: null,
      batchIdHeader: '',
      lines: ndjsonLines(Readable.from([Buffer.from(body)]), false)[Symbol.asyncIterator](),
    }).then(
      () => 'stored',
      (error: unknown) => error,
    );
    // A batch left waiting on the stopped backend fails the test here (and the backend is let go below), not by hanging.
    let watchdog: NodeJS.Timeout | undefined;
    const hung = new Promise((resolve) => (watchdog = setTimeout(() => resolve('no answer in 15 s'), 15_000)));
    const outcome = await Promise.race([stored, hung]);
    clearTimeout(watchdog);
    const tookMs = Date.now() - startedAt;
    assert.ok(outcome instanceof ApiError, String(outcome));
    assert.equal(outcome.status, 503);
    // Not before the bound and its margin: a slow database keeps its due.
    assert.ok(tookMs >= TIME_LIMIT_MS + CLIENT_TIMEOUT_MARGIN_MS - 50, `answered after ${tookMs} ms`);
    process.kill(pid, 'SIGCONT');
    stopped = false;
    // The session was dropped, not handed back: the next batch gets a new one, and stores.
    const next = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    assert.notEqual(next.rows[0].pid, pid);
    assert.deepEqual(await db.query('SELECT count(*)::int AS n FROM samples'), [{ n: 0 }]);
  } finally {
    if (stopped) process.kill(pid, 'SIGCONT');
    await pool.end();
    await namesPool.end();
  }
});
