// Issue 13, tokens: `npm run tokens` issues per-device upload tokens and
// per-user read tokens (printed once, stored as hashes); the first device
// token starts the receiver of a server that had none; a device token writes
// only as its user (another X-User-ID is 403); a read token reads only its
// user on the read API; tokens never cross (upload ↔ read is 401);
// revocation takes effect within seconds; failed attempts on either port
// draw from one throttle.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { batch, getIngest, heartRate, postBatch } from './support/ingest.js';
import { TOKENS_UNCHECKED } from '../src/errors.js';
import { TOKEN_REFRESH_MS, TOKEN_TAKE_UP_MS, TOKENS_STALE_MS } from '../src/limits.js';
import { startServer, TEST_TOKEN, type TestServer } from './support/server.js';

const CLI = join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js');
const ADA = 'ada00000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const T = Date.UTC(2024, 5, 10, 6);

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  server = await startServer({ databaseUrl: db.url, mcp: true });
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

async function tokens(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: db.url };
  return promisify(execFile)(process.execPath, [CLI, ...args], { env });
}

/** Resolves once the server has printed a line matching `pattern` (it may have already). */
function printed(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(server.output());
      if (!match) return;
      server.child.stdout!.off('data', check);
      clearTimeout(timer);
      resolve(match);
    };
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in ${timeoutMs} ms:\n${server.output()}`)), timeoutMs);
    server.child.stdout!.on('data', check);
    check();
  });
}

/**
 * Retries `probe` until it holds: the token store re-reads every 2 s, so a
 * change shows within seconds. Spaced so that the refusals meanwhile (at
 * most four) leave the failed-auth allowance for the later tests.
 */
async function within(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 700));
  }
}

let ingestUrl = '';
let deviceToken = '';
let readToken = '';

test('no upload token, no receiver; the first device token starts it', async () => {
  assert.doesNotMatch(server.output(), /receiver listening/);
  const issued = await tokens('issue', '--user', ADA, '--name', "Ada's iPhone");
  deviceToken = issued.stdout.trim();
  assert.match(deviceToken, /^hdu_[A-Za-z0-9_-]{43}$/);
  assert.match(issued.stderr, /issued upload token 1 \(Ada's iPhone\) for user ada00000-/);
  const [, port] = await printed(/receiver listening on http:\/\/[^:]+:(\d+)/);
  ingestUrl = `http://127.0.0.1:${port}`;
});

test('a device token writes as its user; naming another user is 403 and stores nothing', async () => {
  const own = await postBatch(ingestUrl, batch({ samples: [heartRate('ADA00000-0000-4000-8000-0000000000A1', T, 60)] }), { token: deviceToken });
  assert.equal(own.status, 200, own.text);
  const named = await postBatch(ingestUrl, batch({ samples: [heartRate('ADA00000-0000-4000-8000-0000000000A2', T, 61)] }), { token: deviceToken, headers: { 'x-user-id': ADA.toUpperCase() } });
  assert.equal(named.status, 200, named.text);
  const other = await postBatch(ingestUrl, batch({ samples: [heartRate('ADA00000-0000-4000-8000-0000000000A3', T, 62)] }), { token: deviceToken, headers: { 'x-user-id': BOB } });
  assert.equal(other.status, 403);
  assert.match(other.body.error, /bound to another user/);
  const stats = await getIngest(ingestUrl, '/v1/stats', { token: deviceToken, headers: { 'x-user-id': BOB } });
  assert.equal(stats.status, 403);
  const rows = await db.query(`SELECT user_id::text AS owner, count(*)::int AS n FROM samples GROUP BY 1`);
  assert.deepEqual(rows, [{ owner: ADA, n: 2 }]);
});

test("a read token reads its user's data on the read API, and only that user", async () => {
  readToken = (await tokens('issue', '--read', '--user', ADA, '--name', "Ada's dashboard")).stdout.trim();
  assert.match(readToken, /^hdr_/);
  const samples = `/v1/samples?type=HKQuantityTypeIdentifierHeartRate&start=${T}&end=${T + 1000}`;
  // At once: issue returns once running servers have taken the token up (a script trying it straight away is not refused).
  const read = await server.getJson(samples, { token: readToken });
  assert.equal(read.status, 200);
  assert.deepEqual(read.body.samples.map((s: { uuid: string }) => s.uuid), ['ada00000-0000-4000-8000-0000000000a1', 'ada00000-0000-4000-8000-0000000000a2']);
  const users = await server.getJson('/v1/users', { token: readToken });
  assert.deepEqual([users.body.users.map((u: { userID: string }) => u.userID), users.body.default, users.body.multiUser], [[ADA], ADA, false]);
  const other = await server.getJson(`/v1/profile?user=${BOB}`, { token: readToken });
  assert.equal(other.status, 403);
  // The static token keeps its meaning: the default user, multi-user off.
  assert.equal((await server.getJson(`/v1/profile?user=${ADA}`)).status, 403);
});

test('tokens never cross: an upload token cannot read, a read token cannot upload', async () => {
  assert.equal((await server.getJson('/v1/users', { token: deviceToken })).status, 401);
  assert.equal((await postBatch(ingestUrl, batch({}), { token: readToken })).status, 401);
  assert.equal((await postBatch(ingestUrl, batch({}), { token: TEST_TOKEN })).status, 401);
});

test('list shows them, the database holds only hashes, revoke stops a token within seconds', async () => {
  const list = (await tokens('list')).stdout;
  assert.match(list, /^id\s+kind\s+user\s+name\s+created\s+revoked$/m);
  assert.match(list, /^1\s+upload\s+ada00000-0000-4000-8000-000000000001\s+Ada's iPhone\s+\S+Z\s+-$/m);
  assert.match(list, /^2\s+read\s+/m);
  const stored = await db.query(`SELECT token_hash FROM access_tokens`);
  for (const { token_hash } of stored) assert.ok(token_hash !== deviceToken && token_hash !== readToken && /^[0-9a-f]{64}$/.test(token_hash));
  assert.match((await tokens('revoke', '1')).stdout, /revoked token 1; running servers refuse it now/);
  // At once: revoke returns once running servers have re-read the tokens.
  assert.equal((await postBatch(ingestUrl, batch({}), { token: deviceToken })).status, 401);
  assert.match((await tokens('list')).stdout, /^1\s+upload.*Z\s+\S+Z$/m);
  await assert.rejects(tokens('revoke', '1'), /no active token 1/);
  // Read by a reader that stops early (`npm run tokens -- list | head -1`): the closed pipe ends it quietly.
  const child = spawn(process.execPath, [CLI, 'list'], { env: { ...process.env, DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'close');
  assert.deepEqual([code, stderr], [0, '']);
});

test(`tokens not re-read for ${TOKENS_STALE_MS / 1000} s (the database away): an issued token is a 503, not honoured (it may be revoked); SERVICE_API_TOKEN still reads`, { timeout: 90_000 }, async () => {
  // --no-wait returns at once and says when servers will have it (for scripts issuing many).
  const issued = await tokens('issue', '--read', '--no-wait', '--user', ADA, '--name', 'while the tokens are away');
  assert.match(issued.stderr, new RegExp(`; running servers take it up within ${TOKEN_TAKE_UP_MS / 1000} s;`));
  const token = issued.stdout.trim();
  await within('the new read token is accepted', async () => (await server.get('/v1/users', { token })).status === 200);
  const mcp = (bearer: string) =>
    fetch(server.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  await db.query('ALTER TABLE access_tokens RENAME TO access_tokens_away');
  try {
    // 503s are not failed authentications: the throttle's allowance is left for the next test.
    await within('the issued token answered 503', async () => (await server.get('/v1/users', { token })).status === 503, TOKENS_STALE_MS + 15_000);
    const refused = await server.getJson('/v1/users', { token });
    assert.deepEqual([refused.body, refused.headers.get('retry-after')], [{ error: TOKENS_UNCHECKED }, String(TOKEN_REFRESH_MS / 1000)]);
    assert.equal((await mcp(token)).status, 503);
    assert.equal((await server.get('/v1/users')).status, 200, 'SERVICE_API_TOKEN is not in the database');
    assert.equal((await mcp(TEST_TOKEN)).status, 200);
  } finally {
    await db.query('ALTER TABLE access_tokens_away RENAME TO access_tokens');
  }
  await within('the issued token honoured again once read', async () => (await server.get('/v1/users', { token })).status === 200);
});

test('failed attempts on either port share one throttle: 429 before the token is compared', async () => {
  let status = 0;
  for (let i = 0; i < 11 && status !== 429; i++) status = (await postBatch(ingestUrl, batch({}), { token: 'wrong-token-0123456789' })).status;
  assert.equal(status, 429);
  const valid = await postBatch(ingestUrl, batch({}), { token: deviceToken });
  assert.equal(valid.status, 429);
  assert.match(valid.headers.get('retry-after') ?? '', /^[1-6]$/);
  assert.equal((await server.get('/v1/users')).status, 429);
});
