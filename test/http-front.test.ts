// The HTTP front's per-request shortcuts keep their meaning: header sets built
// once still give every reply its own X-Request-Id, no-store only where it
// belongs and the reply's own headers; the shared 401 reply stays whole; the
// abort signal a route reads (made only then) is aborted when the client goes,
// even if first read after it went; the throttle reads the socket address only
// when no trusted X-Forwarded-For entry names the client. The real front and
// uWS in this process, with test routes and no database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../src/config.js';
import { createHttpServer, type HttpServer } from '../src/http/server.js';
import { loadUws } from '../src/http/uws.js';
import { defineRoute, json } from '../src/routes/route.js';
import type { Services } from '../src/services.js';
import { bearer, getRequest, rawRequest, requestAndHangUp, sleep, waitFor, type RawResponse } from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN } from './support/server.js';

const UNAUTHORIZED_BODY = '{"error":"missing or invalid bearer token"}';

/** What each signal route saw, by request tag: whether ctx.signal was aborted. */
const seen = new Map<string, boolean>();

const routes = [
  defineRoute({
    operationId: 'echo', path: '/v1/echo', auth: true, summary: 'Test', description: 'JSON with a header of its own.',
    params: Type.Object({}), responses: [],
    async handler() {
      return json({ ok: true }, 200, { 'X-Own': 'yes' });
    },
  }),
  defineRoute({
    operationId: 'plain', path: '/plain', auth: false, summary: 'Test', description: 'Text outside /v1.',
    params: Type.Object({}), responses: [],
    async handler() {
      return { kind: 'text', contentType: 'text/plain', body: 'plain' };
    },
  }),
  defineRoute({
    operationId: 'health', path: '/healthz', auth: false, summary: 'Test', description: 'Like /healthz.',
    params: Type.Object({}), responses: [],
    async handler() {
      return json({ ok: true });
    },
  }),
  defineRoute({
    // Reads the signal at once and waits up to 2 s for it to abort.
    operationId: 'listen', path: '/v1/listen', auth: true, summary: 'Test', description: 'Waits on ctx.signal.',
    params: Type.Object({ tag: Type.String() }), responses: [],
    async handler({ query, signal }) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      seen.set(query.tag, signal.aborted);
      return json({});
    },
  }),
  defineRoute({
    // Reads the signal for the first time after 300 ms.
    operationId: 'late', path: '/v1/late', auth: true, summary: 'Test', description: 'Reads ctx.signal late.',
    params: Type.Object({ tag: Type.String() }), responses: [],
    async handler(ctx) {
      await sleep(300);
      seen.set(ctx.query.tag, ctx.signal.aborted);
      return json({});
    },
  }),
];

function start(env: Record<string, string> = {}): { http: HttpServer; listen: () => Promise<number> } {
  const { uws } = loadUws(false);
  const config = loadConfig({ SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: DEFAULT_USER, ...env });
  // Only config is reached by these routes.
  const services = { config: { ...config, apiToken: TEST_TOKEN, defaultUserId: DEFAULT_USER }, shutdownSignal: new AbortController().signal } as unknown as Services;
  const http = createHttpServer(uws, services, routes as never);
  return { http, listen: () => http.listen('127.0.0.1', 0) };
}

describe('the HTTP front', () => {
  let server: HttpServer;
  let port: number;
  const get = async (path: string, headers: Record<string, string> = {}): Promise<RawResponse> => (await rawRequest(port, getRequest(path, headers)))!;

  before(async () => {
    const started = start();
    server = started.http;
    port = await started.listen();
  });
  after(() => server.stopListening());

  test('every reply: nosniff, its own X-Request-Id, no-store on /v1 and /healthz only, its own headers and type', async () => {
    const cases = [
      { path: '/v1/echo', headers: bearer(TEST_TOKEN), status: 200, noStore: true, type: 'application/json', own: { 'x-own': 'yes' } },
      { path: '/healthz', headers: {}, status: 200, noStore: true, type: 'application/json', own: {} },
      { path: '/plain', headers: {}, status: 200, noStore: false, type: 'text/plain', own: {} },
      { path: '/nope', headers: {}, status: 404, noStore: false, type: 'application/json', own: {} },
      { path: '/v1/nope', headers: {}, status: 404, noStore: true, type: 'application/json', own: {} },
    ];
    const ids = new Set<string>();
    for (const c of [...cases, ...cases]) {
      const response = await get(c.path, c.headers);
      assert.equal(response.status, c.status, c.path);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', c.path);
      assert.equal(response.headers['cache-control'], c.noStore ? 'no-store' : undefined, c.path);
      assert.equal(response.headers['content-type'], c.type, c.path);
      for (const [name, value] of Object.entries(c.own)) assert.equal(response.headers[name], value, c.path);
      assert.match(response.headers['x-request-id'], /^[0-9a-f]{6}-[0-9a-z]+$/, c.path);
      ids.add(response.headers['x-request-id']);
    }
    assert.equal(ids.size, cases.length * 2, 'a fresh request id on every reply');
  });

  test('405 carries Allow: GET with the rest of the head', async () => {
    const response = (await rawRequest(port, `POST /v1/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`))!;
    assert.equal(response.status, 405);
    assert.equal(response.headers.allow, 'GET');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(JSON.parse(response.body.toString()), { error: 'method not allowed; this API answers GET only' });
  });

  test('401s: the same whole body and WWW-Authenticate every time, each with its own request id', async () => {
    const first = await get('/v1/echo', bearer('wrong-token-000000000'));
    const second = await get('/v1/echo');
    for (const response of [first, second]) {
      assert.equal(response.status, 401);
      assert.equal(response.body.toString(), UNAUTHORIZED_BODY);
      assert.equal(response.headers['www-authenticate'], 'Bearer');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers['content-type'], 'application/json');
      assert.equal(response.headers['content-length'], String(UNAUTHORIZED_BODY.length));
    }
    assert.notEqual(first.headers['x-request-id'], second.headers['x-request-id']);
  });

  test('ctx.signal is aborted when the client goes, also when a route first reads it afterwards; not otherwise', async () => {
    await requestAndHangUp(port, getRequest('/v1/listen?tag=gone', bearer(TEST_TOKEN)), { afterMs: 50 });
    await requestAndHangUp(port, getRequest('/v1/late?tag=late-gone', bearer(TEST_TOKEN)), { afterMs: 50 });
    assert.equal((await get('/v1/late?tag=late-stayed', bearer(TEST_TOKEN))).status, 200);
    await waitFor('both hung-up requests to finish', async () => seen.has('gone') && seen.has('late-gone'));
    assert.equal(seen.get('gone'), true, 'a listener hears the client go');
    assert.equal(seen.get('late-gone'), true, 'a signal made after the client went is already aborted');
    assert.equal(seen.get('late-stayed'), false);
  });
});

describe('throttle key with trusted proxy headers', () => {
  test('an X-Forwarded-For whose last entry is empty falls back to the socket address', async () => {
    const started = start({ TRUST_PROXY_HEADERS: 'true' });
    const port = await started.listen();
    const get = async (headers: Record<string, string>) => (await rawRequest(port, getRequest('/v1/echo', { ...bearer('wrong-token-000000000'), ...headers })))!.status;
    try {
      // Ten failures keyed on the socket (127.0.0.1), then 429. A slow machine may refill one token per 6 s elapsed.
      const began = Date.now();
      let failures = 0;
      while ((await get({ 'X-Forwarded-For': '203.0.113.9, ' })) === 401 && failures < 100) failures++;
      assert.ok(failures >= 10 && failures <= 10 + Math.floor((Date.now() - began) / 6_000), `${failures} failures before 429`);
      assert.equal(await get({}), 429, 'no X-Forwarded-For: the same socket address, throttled');
      assert.equal(await get({ 'X-Forwarded-For': '203.0.113.9' }), 401, 'a forwarded address is another client');
    } finally {
      started.http.stopListening();
    }
  });
});
