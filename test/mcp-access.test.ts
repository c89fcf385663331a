// Issue 14: who may use the MCP server, and its two transports. With
// multi-user reads off, `user` naming someone else is refused with the read
// API's message and nothing of theirs is read; a per-user read token (an
// authenticator binding a user, as the sync receiver's tokens do) reads only
// its user over MCP too. Over HTTP: /healthz without a token, 405 on GET
// /mcp, 401 with WWW-Authenticate: Bearer for a missing or wrong token, and
// the read API's failed-auth throttle — 429 before the token, shared with the
// read API's port. Over stdio (the `npm run mcp` entry): the same tools, and
// nothing but protocol on stdout. SERVICE_MCP_PORT refused when malformed,
// `off` starts no listener. A real statement timeout is the 504 message as a tool error;
// a call whose client left sends no query.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadConfig } from '../src/config.js';
import { BATCH_REFUSED, createMcpHttpServer } from '../src/mcp/http.js';
import { ARGUMENTS_NOT_OBJECT, CALL_WITHOUT_NAME } from '../src/mcp/call-screen.js';
import { McpCore } from '../src/mcp/server.js';
import { allRoutes } from '../src/routes/all.js';
import { closeServices, createServices } from '../src/services.js';
import { QUERY_TIMEOUT_MESSAGE } from '../src/errors.js';
import { CORS, FAILED_AUTH, MCP } from '../src/limits.js';
import { launchChromium } from './support/browser.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { sessionCounts, sleep, waitFor } from './support/faults.js';
import { connectHttp, toolError, toolJson } from './support/mcp.js';
import { DEFAULT_USER, runServerExpectingExit, startServer, TEST_TOKEN, type TestServer } from './support/server.js';

const A = DEFAULT_USER;
const B = '00000000-0000-4000-8000-000000000002';
const STEPS = 'HKQuantityTypeIdentifierStepCount';
const B_RUN = 'b0000000-0000-4000-8000-000000000001';
const DAY = { types: [STEPS], start_date: '2026-03-08', end_date: '2026-03-08' };
const STDIO = join(process.cwd(), 'dist', 'src', 'mcp', 'stdio.js');

let db: TestDatabase;
let server: TestServer;
let client: Client;
/** A per-user read token for B, issued with `npm run tokens` before the server starts. */
let bReadToken = '';

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await db.query(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [A, B]);
  await db.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1)`, [STEPS]);
  await db.query(`INSERT INTO daily_aggregates (user_id, type_id, day, sum) VALUES ($1, 1, '2026-03-08', 1234), ($2, 1, '2026-03-08', 98765)`, [A, B]);
  await db.query(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, $2, 'running', $3, $4)`, [B, B_RUN, Date.UTC(2026, 2, 8, 12), Date.UTC(2026, 2, 8, 13)]);
  const tokensCli = join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js');
  const issued = await promisify(execFile)(process.execPath, [tokensCli, 'issue', '--read', '--user', B, '--name', 'B assistant'], { env: { ...process.env, DATABASE_URL: db.url } });
  bReadToken = issued.stdout.trim();
  server = await startServer({ databaseUrl: db.url, mcp: true });
  client = await connectHttp(server.mcpUrl, server.token);
});

after(async () => {
  await client?.close();
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

describe('multi-user reads off', () => {
  test('user naming someone else is refused with the read API message; the default user by name is fine', async () => {
    for (const [tool, args] of [
      ['get_daily_metrics', DAY],
      ['get_profile', {}],
      ['list_workouts', {}],
      ['get_workout', { uuid: B_RUN }],
      ['get_summary', {}],
    ] as const) {
      assert.equal(await toolError(client, tool, { ...args, user: B }), 'multi-user reads are disabled', tool);
    }
    const rest = await server.getJson(`/v1/metrics/daily?types=${STEPS}&start=0&end=1&user=${B}`);
    assert.deepEqual([rest.status, rest.body], [403, { error: 'multi-user reads are disabled' }]);
    const mine = await toolJson(client, 'get_daily_metrics', { ...DAY, user: A.toUpperCase() });
    assert.deepEqual(mine.metrics[0].days, [{ date: '2026-03-08', value: 1234 }]);
  });

  test('isolation: only the default user is listed or read', async () => {
    const users = await toolJson(client, 'list_users');
    assert.deepEqual([users.multiUser, users.users.map((u: any) => u.userID)], [false, [A]]);
    const workouts = await toolJson(client, 'list_workouts');
    assert.deepEqual(workouts.workouts, []);
    assert.equal(await toolError(client, 'get_workout', { uuid: B_RUN }), 'workout not found');
  });
});

describe('a per-user read token', () => {
  test('issued with npm run tokens, it reads only its own user over MCP too', async () => {
    assert.match(bReadToken, /^hdr_/);
    const bClient = await connectHttp(server.mcpUrl, bReadToken);
    try {
      const users = await toolJson(bClient, 'list_users');
      assert.deepEqual([users.default, users.users.map((u: any) => u.userID)], [B, [B]]);
      assert.deepEqual((await toolJson(bClient, 'get_daily_metrics', DAY)).metrics[0].days, [{ date: '2026-03-08', value: 98765 }]);
      assert.deepEqual((await toolJson(bClient, 'list_workouts')).workouts.map((w: any) => w.uuid), [B_RUN]);
      assert.equal(await toolError(bClient, 'get_daily_metrics', { ...DAY, user: A }), 'this token reads only its own user');
      // Its guide says so too, not what the server's settings allow the static token.
      const guide = ((await bClient.readResource({ uri: 'healthd://guide' })).contents[0] as { text: string }).text;
      assert.match(guide, /Whose data\? \(this token reads only its own user\)/);
    } finally {
      await bClient.close();
    }
  });

  test('reads only its own user over MCP, whatever user names; servers reused between requests never mix readers up', async () => {
    const config = { ...loadConfig({ SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: A, SERVICE_MULTI_USER: 'true', WORKER_THREADS: '1' }), apiToken: TEST_TOKEN, defaultUserId: A };
    const services = createServices(config, db.url);
    const bToken = 'token-of-b-0123456789';
    const mcp = createMcpHttpServer(new McpCore(services, allRoutes()), {
      authenticate: (authorization) => (authorization === `Bearer ${bToken}` ? { boundUser: B } : authorization === `Bearer ${TEST_TOKEN}` ? { boundUser: null } : null),
    });
    const port = await mcp.listen('127.0.0.1', 0);
    const url = `http://127.0.0.1:${port}/mcp`;
    const bClient = await connectHttp(url, bToken);
    const staticClient = await connectHttp(url, TEST_TOKEN);
    try {
      const users = await toolJson(bClient, 'list_users');
      assert.deepEqual([users.default, users.multiUser, users.users.map((u: any) => u.userID)], [B, false, [B]]);
      assert.equal(await toolError(bClient, 'get_daily_metrics', { ...DAY, user: A }), 'this token reads only its own user');
      // Both readers at once, many times over: each answer is its own reader's.
      const steps = (client: Client) => toolJson(client, 'get_daily_metrics', DAY).then((body) => body.metrics[0].days[0].value);
      const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => steps(i % 2 === 0 ? bClient : staticClient)));
      assert.deepEqual(answers, Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 98765 : 1234)));
      for (let i = 0; i < 6; i++) assert.equal(await steps(i % 2 === 0 ? staticClient : bClient), i % 2 === 0 ? 1234 : 98765);
      const all = await toolJson(staticClient, 'list_users');
      assert.deepEqual(all.users.map((u: any) => u.userID), [A, B]);
    } finally {
      await bClient.close();
      await staticClient.close();
      mcp.stopListening();
      await closeServices(services, 5_000);
    }
  });
});

describe('stdio', () => {
  const stdioEnv = () => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_')) env[key] = value;
    return Object.assign(env, { DATABASE_URL: db.url, SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: A, WORKER_THREADS: '1', DB_POOL_SIZE: '2' });
  };

  test('npm run mcp: the same tools and answers, only protocol on stdout, logs on stderr', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [STDIO], env: stdioEnv(), stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk) => (stderr += chunk));
    const stdio = new Client({ name: 'healthd-tests', version: '1.0.0' });
    const protocolErrors: Error[] = [];
    stdio.onerror = (error) => protocolErrors.push(error);
    await stdio.connect(transport);
    try {
      const { tools } = await stdio.listTools();
      const overHttp = await client.listTools();
      assert.deepEqual(tools, overHttp.tools);
      assert.deepEqual(await toolJson(stdio, 'get_daily_metrics', DAY), await toolJson(client, 'get_daily_metrics', DAY));
      assert.equal(await toolError(stdio, 'get_daily_metrics', { ...DAY, user: B }), 'multi-user reads are disabled');
      assert.match(stdio.getInstructions() ?? '', /local days in UTC/);
    } finally {
      await stdio.close();
    }
    assert.deepEqual(protocolErrors, []);
    assert.match(stderr, /"msg":"mcp serving on stdio"/);
  });

  /** `npm run mcp` given an initialized session, then `calls`, then the end of its stdin; its stdout as it comes. */
  function stdioSession(calls: object[], env: Record<string, string> = {}) {
    const child = spawn(process.execPath, [STDIO], { env: { ...stdioEnv(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.resume();
    const message = (body: object) => JSON.stringify({ jsonrpc: '2.0', ...body }) + '\n';
    const initialize = { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sh', version: '0' } } };
    child.stdin.end([initialize, { method: 'notifications/initialized' }, ...calls].map(message).join(''));
    return { child, exit: once(child, 'exit'), answers: () => stdout.trimEnd().split('\n').map((line) => JSON.parse(line)) };
  }

  test('stdin closed right after the requests: every one is answered, every stdout line is a JSON-RPC message', async () => {
    const session = stdioSession([
      { id: 2, method: 'tools/call', params: { name: 'get_daily_metrics', arguments: DAY } },
      { id: 3, method: 'tools/call', params: { name: 'list_users', arguments: null } },
      { id: 4, method: 'tools/call', params: { name: 'list_users', arguments: [] } },
    ]);
    const [code] = await session.exit;
    assert.equal(code, 0);
    const lines = session.answers().sort((a, b) => a.id - b.id);
    assert.deepEqual(lines.map((m) => [m.jsonrpc, m.id]), [['2.0', 1], ['2.0', 2], ['2.0', 3], ['2.0', 4]]);
    assert.deepEqual(JSON.parse(lines[1].result.content[0].text).metrics[0].days, [{ date: '2026-03-08', value: 1234 }]);
    // arguments: null is no arguments; a list is a tool error, as over HTTP.
    assert.equal(JSON.parse(lines[2].result.content[0].text).users.length, 1);
    assert.deepEqual(lines[3].result, { content: [{ type: 'text', text: ARGUMENTS_NOT_OBJECT }], isError: true });
  });

  test('stdin closed after the client cancelled a call: that call is waited for no longer (the SDK never answers it)', async () => {
    // With an hour's query limit, waiting for the cancelled call would outlast the test.
    const session = stdioSession(
      [
        { id: 2, method: 'tools/call', params: { name: 'get_daily_metrics', arguments: DAY } },
        { method: 'notifications/cancelled', params: { requestId: 2 } },
        { id: 3, method: 'tools/call', params: { name: 'list_users' } },
      ],
      { QUERY_TIMEOUT_MS: String(60 * 60_000) },
    );
    const stuck = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 30_000).unref());
    const outcome = await Promise.race([session.exit, stuck]);
    if (outcome === 'stuck') session.child.kill('SIGKILL');
    assert.notEqual(outcome, 'stuck', 'the server still waited for the cancelled call');
    assert.deepEqual(outcome, [0, null]);
    const ids = session.answers().map((answer) => answer.id);
    assert.deepEqual(ids.sort(), [1, 3], 'every call but the cancelled one answered');
  });
});

describe('HTTP front', () => {
  const post = (headers: Record<string, string> = {}) =>
    fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  test('GET /healthz answers without a token; other paths 404; GET /mcp 405', async () => {
    const base = server.mcpUrl.replace(/\/mcp$/, '');
    const health = await fetch(`${base}/healthz`);
    assert.deepEqual([health.status, await health.json()], [200, { ok: true, db: true }]);
    const missing = await fetch(`${base}/v1/users`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    assert.equal(missing.status, 404);
    const get = await fetch(server.mcpUrl, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
  });

  test('a plain JSON-RPC POST with the token answers JSON', async () => {
    const response = await post({ authorization: `Bearer ${TEST_TOKEN}` });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    const body = await response.json();
    assert.equal(body.result.tools.length, 15);
  });

  test('a body over the limit is 413; malformed JSON is the SDK\'s JSON-RPC parse error', async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const big = await fetch(server.mcpUrl, { method: 'POST', headers: auth, body: ' '.repeat(MCP.bodyBytes + 1) });
    assert.deepEqual([big.status, await big.json()], [413, { error: `request body over ${MCP.bodyBytes} bytes` }]);
    const malformed = await fetch(server.mcpUrl, { method: 'POST', headers: auth, body: '{"jsonrpc":' });
    assert.equal(malformed.status, 400);
    assert.equal((await malformed.json()).error.code, -32700);
  });

  test('a web page of another origin is refused before its token is looked at (the transport\'s DNS-rebinding rule)', async () => {
    const headers = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'https://evil.example' };
    const answer = await fetch(server.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(answer.status, 403);
    assert.match((await answer.json()).error, /^a web page of this Origin may not call the MCP server/);
  });

  test('tools/call arguments: null counts as none; a list, a string or a number is a tool error naming the problem; params without a tool\'s name JSON-RPC\'s invalid params', async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const callWith = async (args: unknown) => {
      const answer = await fetch(server.mcpUrl, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_users', arguments: args } }) });
      assert.equal(answer.status, 200);
      const body = await answer.json();
      assert.equal(body.error, undefined, JSON.stringify(body));
      return body.result;
    };
    const none = await callWith(null);
    assert.equal(none.isError, undefined);
    assert.equal(JSON.parse(none.content[0].text).users.length, 1);
    for (const args of [[1], 'all', 3]) {
      assert.deepEqual(await callWith(args), { content: [{ type: 'text', text: ARGUMENTS_NOT_OBJECT }], isError: true }, JSON.stringify(args));
    }
    // Without params, or params without a tool's name: JSON-RPC's invalid params, saying what a call holds (not zod's issues; params that are
    // not an object are the transport's own refusal).
    for (const params of [undefined, { arguments: {} }, { name: 5 }]) {
      const answer = await fetch(server.mcpUrl, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }) });
      const body = await answer.json();
      assert.equal(answer.status, 200, JSON.stringify([params, body]));
      assert.deepEqual(body.error, { code: -32602, message: CALL_WITHOUT_NAME }, JSON.stringify(params));
    }
    // The transport's own checks come first, as for any call.
    const { accept: _accept, ...withoutAccept } = auth;
    const noAccept = await fetch(server.mcpUrl, { method: 'POST', headers: withoutAccept, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_users', arguments: [] } }) });
    assert.equal(noAccept.status, 406);
    await noAccept.body?.cancel();
  });

  test('a JSON-RPC batch is refused at once with -32600 (the SDK\'s JSON mode hangs on a request cancelled in its own batch)', async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_summary', arguments: { range: '90d' } } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    ];
    const answer = await fetch(server.mcpUrl, { method: 'POST', headers: auth, body: JSON.stringify(batch), signal: AbortSignal.timeout(5_000) });
    assert.equal(answer.status, 400);
    assert.deepEqual(await answer.json(), { jsonrpc: '2.0', error: { code: -32600, message: BATCH_REFUSED }, id: null });
  });

  test('a client that hangs up in the middle of its body is logged as gone, not as an error', async () => {
    const port = Number(new URL(server.mcpUrl).port);
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`);
    await sleep(100);
    socket.destroy();
    await waitFor('the hang-up logged', async () => server.output().includes('mcp client left before its request was read'), 5_000);
    assert.doesNotMatch(server.output(), /mcp request failed/);
  });

  test('missing or wrong token: 401 with WWW-Authenticate: Bearer; the SDK client cannot connect', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: `Basic ${TEST_TOKEN}` }];
    for (const headers of attempts) {
      const response = await post(headers);
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(await response.json(), { error: 'missing or invalid bearer token' });
    }
    await assert.rejects(connectHttp(server.mcpUrl, 'wrong-token-0123456789'));
  });

  // Last: it exhausts this address's allowance, on both ports.
  test('failed authentications are throttled: 429 with Retry-After before the token, on the read API too', async () => {
    let status = 0;
    let failures = 0;
    while (status !== 429 && failures <= FAILED_AUTH.burst) {
      status = (await post({ authorization: 'Bearer wrong-token-0123456789' })).status;
      if (status === 401) failures++;
    }
    assert.equal(status, 429);
    // The earlier test's four failures count too: the burst was spent in all.
    assert.ok(failures <= FAILED_AUTH.burst, `${failures} failures`);
    const right = await post({ authorization: `Bearer ${TEST_TOKEN}` });
    assert.equal(right.status, 429);
    assert.ok(Number(right.headers.get('retry-after')) >= 1);
    const readApi = await server.get('/v1/users');
    assert.equal(readApi.status, 429);
    const health = await fetch(server.mcpUrl.replace(/\/mcp$/, '/healthz'));
    assert.equal(health.status, 200);
  });
});

describe('a web page of an origin in SERVICE_CORS_ORIGINS', () => {
  let cors: TestServer;
  /** Two real pages on loopback (Chromium lets only a loopback page call a loopback server): one of a listed origin, one not. */
  const pages: HttpServer[] = [];
  const origins: string[] = [];
  before(async () => {
    for (let i = 0; i < 2; i++) {
      const page = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>dash</title>'));
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      pages.push(page);
      origins.push(`http://127.0.0.1:${(page.address() as AddressInfo).port}`);
    }
    cors = await startServer({ databaseUrl: db.url, mcp: true, env: { SERVICE_CORS_ORIGINS: `https://dash.example.org,${origins[0]}` } });
  });
  after(async () => {
    await cors.stop();
    for (const page of pages) page.close();
  });

  const corsHeaders = (response: Response) =>
    Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));

  test('its preflight of a POST is answered; its answers, errors included, carry Access-Control-Allow-Origin; other origins are refused as before', async () => {
    const preflight = await fetch(cors.mcpUrl, {
      method: 'OPTIONS',
      headers: { origin: 'https://dash.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });
    assert.equal(preflight.status, 204);
    assert.deepEqual(corsHeaders(preflight), {
      'access-control-allow-origin': 'https://dash.example.org',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': CORS.mcpAllowedHeaders,
      'access-control-expose-headers': CORS.exposedHeaders,
      'access-control-max-age': String(CORS.preflightMaxAgeS),
      vary: 'Origin',
    });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const listed = await fetch(cors.mcpUrl, { method: 'POST', headers: { ...json, origin: 'https://dash.example.org', authorization: `Bearer ${TEST_TOKEN}` }, body });
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get('access-control-allow-origin'), 'https://dash.example.org');
    assert.equal((await listed.json()).result.tools.length, 15);
    const unauthorized = await fetch(cors.mcpUrl, { method: 'POST', headers: { ...json, origin: 'https://dash.example.org' }, body });
    assert.deepEqual([unauthorized.status, unauthorized.headers.get('access-control-allow-origin')], [401, 'https://dash.example.org']);
    await unauthorized.body?.cancel();
    const stranger = await fetch(cors.mcpUrl, { method: 'POST', headers: { ...json, origin: 'https://evil.example', authorization: `Bearer ${TEST_TOKEN}` }, body });
    assert.deepEqual([stranger.status, corsHeaders(stranger)], [403, {}]);
    await stranger.body?.cancel();
    const strangersPreflight = await fetch(cors.mcpUrl, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.deepEqual([strangersPreflight.status, corsHeaders(strangersPreflight)], [405, {}]);
    await strangersPreflight.body?.cancel();
  });

  test('a real browser on that origin calls a tool; on another origin it is blocked', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const callTool = (origin: string) =>
        page.goto(`${origin}/`).then(() =>
          page.evaluate(
            async ({ url, token }) => {
              try {
                const answer = await fetch(url, {
                  method: 'POST',
                  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-06-18' },
                  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_users', arguments: {} } }),
                });
                return `${answer.status} ${JSON.parse((await answer.json()).result.content[0].text).users.length} users`;
              } catch (error) {
                return String(error);
              }
            },
            { url: cors.mcpUrl, token: TEST_TOKEN },
          ),
        );
      assert.equal(await callTool(origins[0]), '200 1 users');
      assert.match(await callTool(origins[1]), /TypeError: Failed to fetch/);
    } finally {
      await browser.close();
    }
  });
});

describe('the query time limit', () => {
  test('a query past QUERY_TIMEOUT_MS is a tool error with the read API\'s 504 message; the same tool answers once the database does', async () => {
    const slow = await startServer({ databaseUrl: db.url, mcp: true, env: { QUERY_TIMEOUT_MS: '300' } });
    const slowClient = await connectHttp(slow.mcpUrl, slow.token);
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE daily_aggregates IN ACCESS EXCLUSIVE MODE');
      assert.equal(await toolError(slowClient, 'get_daily_metrics', DAY), QUERY_TIMEOUT_MESSAGE);
      const rest = await slow.getJson(`/v1/metrics/daily?types=${STEPS}&start=${Date.UTC(2026, 2, 8)}&end=${Date.UTC(2026, 2, 9)}`);
      assert.deepEqual([rest.status, rest.body], [504, { error: QUERY_TIMEOUT_MESSAGE }]);
      await locker.query('ROLLBACK');
      assert.deepEqual((await toolJson(slowClient, 'get_daily_metrics', DAY)).metrics[0].days, [{ date: '2026-03-08', value: 1234 }]);
    } finally {
      await locker.end();
      await slowClient.close();
      await slow.stop();
    }
  });

  test('a tool call that waits for a busy pool is bounded by QUERY_TIMEOUT_MS (the 504\'s message), not by the connect timeout', async () => {
    const busy = await startServer({ databaseUrl: db.url, mcp: true, env: { DB_POOL_SIZE: '1', DB_CONNECT_TIMEOUT_MS: '100', QUERY_TIMEOUT_MS: '1000' } });
    const busyClient = await connectHttp(busy.mcpUrl, busy.token);
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE daily_aggregates IN ACCESS EXCLUSIVE MODE');
      // A request of the read API holds the pool's one connection, waiting on the lock.
      const holder = busy.getJson(`/v1/metrics/daily?types=${STEPS}&start=${Date.UTC(2026, 2, 8)}&end=${Date.UTC(2026, 2, 9)}`);
      await waitFor('the read API request waiting on the lock', async () => (await sessionCounts(db.adminUrl, db.name)).waitingOnLock === 1 || undefined);
      // The tool call waits for that connection past the connect timeout: its time runs out in the queue or, once it has the connection, on the lock.
      assert.equal(await toolError(busyClient, 'get_daily_metrics', DAY), QUERY_TIMEOUT_MESSAGE);
      assert.equal((await holder).status, 504);
      await locker.query('ROLLBACK');
      assert.deepEqual((await toolJson(busyClient, 'get_daily_metrics', DAY)).metrics[0].days, [{ date: '2026-03-08', value: 1234 }]);
    } finally {
      await locker.end();
      await busyClient.close();
      await busy.stop();
    }
  });
});

describe('clients that leave', () => {
  test('a tool call whose client hung up while it waited for a pool connection sends no query', async () => {
    const POOL = 2;
    const small = await startServer({ databaseUrl: db.url, mcp: true, env: { DB_POOL_SIZE: String(POOL) } });
    const call = (signal?: AbortSignal) =>
      fetch(small.mcpUrl, {
        method: 'POST',
        signal,
        headers: { authorization: `Bearer ${small.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_daily_metrics', arguments: DAY } }),
      });
    const onLock = async () => (await sessionCounts(db.adminUrl, db.name)).waitingOnLock;
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE daily_aggregates IN ACCESS EXCLUSIVE MODE');
      // Every pool connection is busy on the lock, while 20 more calls queue for one and their clients hang up.
      // One holder at a time: calls arriving in one turn would fold into one statement (src/db/fold.ts), one connection.
      const holders: Promise<Response>[] = [];
      for (let held = 1; held <= POOL; held++) {
        holders.push(call());
        await waitFor('the pool busy on the lock', async () => (await onLock()) === held);
      }
      await Promise.all(Array.from({ length: 20 }, () => call(AbortSignal.timeout(50)).catch(() => 'aborted')));
      await sleep(100);
      // Cancelled, the holders free their connections; had the abandoned calls' queries been sent, they would take them and sit on the lock.
      const admin = new pg.Client({ connectionString: db.adminUrl });
      await admin.connect();
      await admin.query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'healthd' AND wait_event_type = 'Lock'`, [db.name]);
      await admin.end();
      for (const answer of await Promise.all(holders)) {
        const body = await answer.json();
        assert.deepEqual([body.result.isError, body.result.content[0].text], [true, QUERY_TIMEOUT_MESSAGE]);
      }
      const last = call();
      await waitFor('the last call alone on the lock', async () => (await onLock()) === 1);
      await sleep(200);
      assert.equal(await onLock(), 1, 'no query of a client that left reached the database');
      await locker.query('ROLLBACK');
      const body = await (await last).json();
      assert.deepEqual(JSON.parse(body.result.content[0].text).metrics[0].days, [{ date: '2026-03-08', value: 1234 }]);
      assert.doesNotMatch(small.output(), /"level":"error"/, 'a client that left is not an error');
    } finally {
      await locker.end();
      await small.stop();
    }
  });
});

describe('SERVICE_MCP_PORT', () => {
  test('a malformed value or the read API\'s port is refused in one line; off starts no MCP listener', async () => {
    const base = { DATABASE_URL: db.url, SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: A };
    for (const value of ['eighty', '70000', '-1', ' 8082']) {
      assert.throws(() => loadConfig({ ...base, SERVICE_MCP_PORT: value }), { message: 'SERVICE_MCP_PORT must be an integer from 0 to 65535, or off' });
    }
    assert.throws(() => loadConfig({ ...base, SERVICE_PORT: '9000', SERVICE_MCP_PORT: '9000' }), { message: 'SERVICE_MCP_PORT must differ from SERVICE_PORT' });
    assert.throws(() => loadConfig({ ...base, SERVICE_MCP_PORT: '8080' }), { message: 'SERVICE_MCP_PORT must differ from SERVICE_INGEST_PORT' });
    assert.deepEqual([loadConfig(base).mcpPort, loadConfig({ ...base, SERVICE_MCP_PORT: 'off' }).mcpPort, loadConfig({ ...base, SERVICE_MCP_PORT: '0' }).mcpPort], [8082, null, 0]);
    const { code, output } = await runServerExpectingExit({ ...base, SERVICE_PORT: '0', SERVICE_MCP_PORT: 'eighty' });
    assert.notEqual(code, 0);
    assert.deepEqual(output.trim().split('\n'), ['healthd: SERVICE_MCP_PORT must be an integer from 0 to 65535, or off']);
    const off = await startServer({ databaseUrl: db.url, env: { SERVICE_MCP_PORT: 'off' } });
    try {
      assert.equal((await off.get('/v1/users')).status, 200);
      assert.doesNotMatch(off.output(), /mcp:/);
    } finally {
      await off.stop();
    }
  });
});

describe('shutdown', () => {
  // Last: it stops the file's server (whose keep-alive connections the clients above still hold).
  test('SIGTERM: both listeners stop and the process exits 0', async () => {
    assert.equal(await server.stop('SIGTERM'), 0);
    await assert.rejects(fetch(server.mcpUrl, { method: 'POST' }));
  });
});
