// A busy database is not an unreachable one. When every connection of the
// read pool is busy, a request waits for one within its database time
// (api.md Limits: "Database time per request: 30 seconds, then 504"), not
// within the connect timeout that tells a database that does not answer
// (open-details: "With the database unreachable, /v1 routes answer 500 within
// a few seconds"); and /healthz asks on a connection of its own, so a busy
// pool does not read as a database that does not answer. Nor does the
// server's own upkeep take the requests' connections when a table it reads
// is locked: a ping stuck behind the lock is cancelled at its timeout, and
// the issued tokens' re-read never runs twice at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { QUERY_TIMEOUT_MESSAGE } from '../src/errors.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DAY, person, seedCommon, seedPerson, sessionCounts, sleep, T0, waitFor } from './support/faults.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const ME = person(1, { userId: DEFAULT_USER });
const ACTIVITY = `/v1/activity/summary?start=${T0}&end=${T0 + 7 * DAY}`;

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  await seedCommon(db.query);
  await seedPerson(db.query, ME);
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
});

/** A session holding `tables` locked until `release`: whatever reads them waits, on a connection of the pool. */
async function lock(...tables: string[]): Promise<{ release(): Promise<void> }> {
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await locker.query('ROLLBACK');
      await locker.end();
    },
  };
}

const waitingOnLock = (n: number) => waitFor(`${n} request(s) waiting on the lock`, async () => (await sessionCounts(db.adminUrl, db.name)).waitingOnLock === n || undefined);

describe('a pool of one connection, busy', () => {
  let server: TestServer;
  after(() => server?.stop());

  test('a request that waits for the busy connection longer than the connect timeout is served once it frees; /healthz stays 200 meanwhile', async () => {
    server = await startServer({ databaseUrl: db.url, env: { DB_POOL_SIZE: '1', DB_CONNECT_TIMEOUT_MS: '200', QUERY_TIMEOUT_MS: '20000', HEALTH_CACHE_MS: '0' } });
    // Warm: the pool's connection is made, the user and catalog known; and the probe's own
    // connection (made within DB_CONNECT_TIMEOUT_MS, which a loaded machine can outlast).
    assert.equal((await server.getJson('/v1/profile')).status, 200);
    assert.equal((await server.getJson('/healthz', { token: null })).status, 200);
    const locked = await lock('activity_summaries');
    let released = false;
    try {
      const holder = server.getJson(ACTIVITY);
      await waitingOnLock(1);
      const waiter = server.getJson('/v1/profile');
      const health = await server.getJson('/healthz', { token: null });
      assert.equal(health.status, 200, 'a busy pool is not a database that does not answer');
      // Four connect timeouts go by while the profile waits for the only connection.
      await sleep(800);
      await locked.release();
      released = true;
      const [held, waited] = await Promise.all([holder, waiter]);
      assert.equal(held.status, 200);
      assert.equal(waited.status, 200, JSON.stringify(waited.body));
      assert.equal(waited.body.userID, ME.userId);
    } finally {
      if (!released) await locked.release();
    }
  });
});

describe('a pool of one connection whose session stopped answering', () => {
  let server: TestServer;
  after(() => server?.stop());

  test('a request still waiting for it at the query time limit is a 504 with its message; the pool serves again after', async () => {
    server = await startServer({ databaseUrl: db.url, env: { DB_POOL_SIZE: '1', DB_CONNECT_TIMEOUT_MS: '100', QUERY_TIMEOUT_MS: '1000' } });
    assert.equal((await server.getJson('/v1/profile')).status, 200);
    const locked = await lock('activity_summaries');
    // The backend holding the pool's only connection is stopped: its statement
    // timeout cannot end it, so the waiter's time runs out in the pool's queue.
    let stopped: number | undefined;
    try {
      const holder = server.getJson(ACTIVITY);
      await waitingOnLock(1);
      const [{ pid }] = await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'healthd' AND wait_event_type = 'Lock'`, [db.name]);
      process.kill(pid, 'SIGSTOP');
      stopped = pid;
      const waited = await server.getJson('/v1/profile');
      assert.deepEqual([waited.status, waited.body], [504, { error: QUERY_TIMEOUT_MESSAGE }]);
      assert.match(server.output(), /no database connection came free within the query time limit/);
      process.kill(pid, 'SIGCONT');
      stopped = undefined;
      await locked.release();
      // The holder ends as its own limits say (its statement cancelled, the client's margin past it, or answered once thawed): not a hang.
      assert.ok([200, 500, 504].includes((await holder).status));
      const after = await server.getJson('/v1/profile');
      assert.equal(after.status, 200);
    } finally {
      if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
      await locked.release().catch(() => {});
    }
  });
});

/** Sessions of `application` on the test database waiting on a lock. */
async function waitingSessions(application: string): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND wait_event_type = 'Lock'`,
    [db.name, application],
  );
  return n;
}

describe('upkeep behind a lock', () => {
  let server: TestServer;
  after(() => server?.stop());

  test('a /healthz ping stuck behind a lock says the database is down, is cancelled at its timeout, and takes none of the requests\' connections', async () => {
    server = await startServer({ databaseUrl: db.url, env: { DB_POOL_SIZE: '1', HEALTH_CACHE_MS: '0' } });
    assert.equal((await server.getJson('/healthz', { token: null })).status, 200);
    const locked = await lock('users');
    try {
      // A load balancer's polls, one after another.
      for (let i = 0; i < 4; i++) assert.equal((await server.getJson('/healthz', { token: null })).status, 503);
      assert.equal(await waitingSessions('healthd'), 0, 'no ping waits on a connection of the requests');
      const samples = await server.getJson(`/v1/samples?type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${T0 + DAY}`);
      assert.equal(samples.status, 200);
      // The last ping, cancelled by its own statement timeout rather than after the query time limit.
      await waitFor('no ping waiting on the lock', async () => (await waitingSessions('healthd-probe')) === 0 || undefined, 5_000);
    } finally {
      await locked.release();
    }
    assert.equal((await server.getJson('/healthz', { token: null })).status, 200);
  });

  test('the issued tokens\' re-read (every 2 s) runs once at a time while their table is locked, and requests are served', async () => {
    await server.stop();
    // One connection for the re-read waiting on the lock, one for the requests.
    server = await startServer({ databaseUrl: db.url, env: { DB_POOL_SIZE: '2' } });
    const locked = await lock('access_tokens');
    let most = 0;
    try {
      // Three re-read intervals and more.
      for (let i = 0; i < 14; i++) {
        most = Math.max(most, await waitingSessions('healthd'));
        await sleep(500);
      }
      assert.equal((await server.getJson('/v1/profile')).status, 200);
    } finally {
      await locked.release();
    }
    assert.equal(most, 1, 'one re-read waiting on the lock, never more');
  });
});
