// The HTTP front's per-request shortcuts keep their meaning: header sets built
// once still give every reply its own X-Request-Id, no-store where the route
// says (and on paths no route serves) and the reply's own headers; the shared
// 401 reply stays whole; the pipeline's order is route → method → throttle →
// token → user → parameters, so a malformed query never turns a 401 or 429
// into a 400; the throttle reads the socket address only when no trusted
// X-Forwarded-For entry names the client. The real front and uWS in this
// process, with test routes and no database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../src/config.js';
import { canonicalAddress, forwardedAddress } from '../src/http/auth.js';
import { createHttpServer, type HttpServer } from '../src/http/server.js';
import { loadUws } from '../src/http/uws.js';
import { defineRoute, json } from '../src/routes/route.js';
import type { Services } from '../src/services.js';
import { bearer, getRequest, rawExchange, rawRequest, type RawResponse } from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN } from './support/server.js';

const UNAUTHORIZED_BODY = '{"error":"missing or invalid bearer token"}';

/** The /instant route: whether its answer is at hand, and how often its handler ran. */
const instant = { atHand: false, handled: 0 };

const routes = [
  defineRoute({
    operationId: 'echo', path: '/v1/echo', auth: true, summary: 'Test', description: 'JSON with a header of its own.',
    example: {},
    params: Type.Object({}), responses: [],
    async handler() {
      return json({ ok: true }, 200, { 'X-Own': 'yes' });
    },
  }),
  defineRoute({
    operationId: 'plain', path: '/plain', auth: false, summary: 'Test', description: 'Text outside /v1.',
    example: {},
    params: Type.Object({}), responses: [],
    async handler() {
      return { kind: 'text', contentType: 'text/plain', body: 'plain' };
    },
  }),
  defineRoute({
    operationId: 'health', path: '/healthz', auth: false, noStore: true, summary: 'Test', description: 'Like /healthz.',
    example: {},
    params: Type.Object({}), responses: [],
    async handler() {
      return json({ ok: true });
    },
  }),
  defineRoute({
    operationId: 'instant', path: '/instant', auth: false, noStore: true, summary: 'Test', description: 'Like /healthz: an answer at hand once `at hand` is set.',
    example: {},
    params: Type.Object({}), responses: [],
    async handler() {
      instant.handled++;
      return json({ ok: false }, 503, { 'X-Own': 'yes' });
    },
    immediate: () => (instant.atHand ? json({ ok: false }, 503, { 'X-Own': 'yes' }) : undefined),
  }),
  defineRoute({
    operationId: 'strict', path: '/v1/strict', auth: true, summary: 'Test', description: 'Needs an integer parameter.',
    example: {},
    params: Type.Object({ n: Type.Integer({ minimum: 0 }) }), responses: [],
    async handler({ query }) {
      return json({ n: query.n });
    },
  }),
];

function start(env: Record<string, string> = {}): { http: HttpServer; listen: () => Promise<number> } {
  const { uws } = loadUws(false);
  const config = loadConfig({ SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: DEFAULT_USER, ...env });
  // Only config is reached by these routes.
  const services = { config: { ...config, apiToken: TEST_TOKEN, defaultUserId: DEFAULT_USER } } as unknown as Services;
  const http = createHttpServer(uws, services, routes);
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

  test('every reply: nosniff, its own X-Request-Id, no-store unless the route says otherwise, its own headers and type', async () => {
    const cases = [
      { path: '/v1/echo', headers: bearer(TEST_TOKEN), status: 200, noStore: true, type: 'application/json', own: { 'x-own': 'yes' } },
      { path: '/healthz', headers: {}, status: 200, noStore: true, type: 'application/json', own: {} },
      { path: '/plain', headers: {}, status: 200, noStore: false, type: 'text/plain', own: {} },
      { path: '/nope', headers: {}, status: 404, noStore: true, type: 'application/json', own: {} },
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

  test("a route's immediate answer is the reply its handler gives: same status, body and head but the request id; other methods still 405", async () => {
    const head = (r: RawResponse) => Object.fromEntries(Object.entries(r.headers).filter(([name]) => !['x-request-id', 'date'].includes(name)));
    instant.atHand = false;
    const handled = instant.handled;
    const waited = await get('/instant?x=1');
    assert.equal(instant.handled, handled + 1, 'the handler answered');
    instant.atHand = true;
    const atOnce = await get('/instant?x=1');
    assert.equal(instant.handled, handled + 1, 'answered at once, without the handler');
    assert.deepEqual([atOnce.status, atOnce.body.toString(), head(atOnce)], [waited.status, waited.body.toString(), head(waited)]);
    assert.deepEqual([atOnce.status, atOnce.headers['x-own'], atOnce.headers['cache-control']], [503, 'yes', 'no-store']);
    assert.notEqual(atOnce.headers['x-request-id'], waited.headers['x-request-id']);
    const post = (await rawRequest(port, `POST /instant HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`))!;
    assert.equal(post.status, 405);
  });

  test('HTTP framing: Content-Length given twice closes the connection unanswered, nothing behind it served; a HEAD answer has no body', async () => {
    for (const path of ['/instant', '/v1/echo']) {
      const smuggled = await rawExchange(port, [`GET ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 38\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n`]);
      assert.equal(smuggled, '', `${path}: no answer, and none for the request smuggled behind it`);
    }
    for (const path of ['/v1/echo', '/nowhere']) {
      const head = await rawExchange(port, [`HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
      assert.match(head, /^HTTP\/1\.1 40[45] [^]*?\r\n\r\nHTTP\/1\.1 401 /, `${path}: the next answer follows the HEAD answer's head at once`);
    }
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

  test('a malformed query without a token is a 401, not a 400; with the token it is the 400', async () => {
    for (const query of ['n=x', 'n=%zz', 'user=not-a-uuid', 'n=1&n=2']) {
      const anonymous = await get(`/v1/strict?${query}`);
      assert.equal(anonymous.status, 401, query);
      assert.equal(anonymous.body.toString(), UNAUTHORIZED_BODY, query);
      assert.equal((await get(`/v1/strict?${query}`, bearer(TEST_TOKEN))).status, 400, query);
    }
    assert.equal((await get('/v1/strict?n=%zz', bearer('wrong-token-000000000'))).status, 401, 'a wrong token too');
    assert.deepEqual(JSON.parse((await get('/v1/strict?n=7', bearer(TEST_TOKEN))).body.toString()), { n: 7 });
  });
});

describe('the throttle comes before the parameters', () => {
  test('while an address is throttled, a malformed query gets 429 — with or without the token', async () => {
    const started = start();
    const port = await started.listen();
    const get = async (path: string, token: string | null) => (await rawRequest(port, getRequest(path, token === null ? {} : bearer(token))))!;
    try {
      for (let i = 0; i < 10; i++) assert.equal((await get('/v1/strict?n=1', 'wrong-token-000000000')).status, 401);
      for (const token of [null, TEST_TOKEN]) {
        const response = await get('/v1/strict?n=%zz', token);
        assert.equal(response.status, 429, `token: ${token === null ? 'none' : 'valid'}`);
        assert.match(response.headers['retry-after'], /^[1-6]$/);
      }
    } finally {
      started.http.stopListening();
    }
  });
});

describe("the throttle's address, read by uWS or by node", () => {
  test('the same client is one key whichever listener read its address (a dual-stack SERVICE_HOST)', () => {
    // As uWS and node write the same two clients on a listener bound to '::'.
    assert.equal(canonicalAddress('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
    assert.equal(canonicalAddress('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(canonicalAddress('0000:0000:0000:0000:0000:0000:0000:0001'), '::1');
    assert.equal(canonicalAddress('::1'), '::1');
    assert.equal(canonicalAddress('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1');
    assert.equal(canonicalAddress('203.0.113.9'), '203.0.113.9');
  });

  test('a forwarded entry is the same key however a proxy writes its client: with a port, bracketed, IPv4-mapped', () => {
    for (const entry of ['203.0.113.9', '203.0.113.9:4711', '::ffff:203.0.113.9', '[::ffff:203.0.113.9]:4711', '[::ffff:cb00:7109]']) {
      assert.equal(forwardedAddress(entry), '203.0.113.9', entry);
    }
    for (const entry of ['2001:db8::1', '[2001:db8::1]', '[2001:0db8:0:0:0:0:0:1]:4711']) assert.equal(forwardedAddress(entry), '2001:db8::1', entry);
    // Not an address: kept as it is (still one key per text).
    assert.equal(forwardedAddress('unknown'), 'unknown');
  });
});

describe('shutting down', () => {
  test('once the pools are closing, a request on a kept-alive connection is a 503 that closes it, never a query on an ended pool', async () => {
    const started = start();
    const port = await started.listen();
    try {
      started.http.refuseRequests();
      const response = (await rawRequest(port, getRequest('/v1/echo', bearer(TEST_TOKEN))))!;
      assert.equal(response.status, 503);
      assert.equal(response.headers['retry-after'], '1');
      assert.equal(response.headers.connection, 'close');
      assert.deepEqual(JSON.parse(response.body.toString()), { error: "the server is shutting down; retry" });
    } finally {
      started.http.stopListening();
    }
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

  test('X-Forwarded-For on several header lines: the key is the last entry of the last line, read while the request is throttled too', async () => {
    const started = start({ TRUST_PROXY_HEADERS: 'true' });
    const port = await started.listen();
    // getRequest takes one value a name: the second line is written out.
    const twoLines = (token: string, first: string, last: string) =>
      getRequest('/v1/echo', bearer(token)).replace(/\r\n\r\n$/, `\r\nX-Forwarded-For: ${first}\r\nX-Forwarded-For: ${last}\r\n\r\n`);
    const status = async (request: string) => (await rawRequest(port, request))!.status;
    try {
      const began = Date.now();
      let failures = 0;
      // Spoofed first lines vary; the last line's last entry is the client.
      while ((await status(twoLines('wrong-token-000000000', `198.51.100.${failures}`, '203.0.113.21'))) === 401 && failures < 100) failures++;
      assert.ok(failures >= 10 && failures <= 10 + Math.floor((Date.now() - began) / 6_000), `${failures} failures before 429`);
      assert.equal(await status(twoLines(TEST_TOKEN, '198.51.100.250', '203.0.113.21')), 429, 'that client is throttled, with the right token too');
      assert.equal(await status(twoLines(TEST_TOKEN, '203.0.113.21', '203.0.113.22')), 200, 'another last line is another client');
      assert.equal(await status(getRequest('/v1/echo', { ...bearer(TEST_TOKEN), 'X-Forwarded-For': '203.0.113.21' })), 429, 'one line naming it is the same client');
    } finally {
      started.http.stopListening();
    }
  });
});
