// Issue 15, point 9: browser dashboards on another origin. SERVICE_CORS_ORIGINS
// unset keeps every reply as it was (no CORS header, OPTIONS a 405); set, an
// allowed origin's GETs carry the CORS headers (errors too) and its preflight
// is answered, while any other origin, the same-origin pages and non-preflight
// OPTIONS are answered as before; a malformed origin stops the server with
// one line naming the setting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, runServerExpectingExit, startServer, TEST_TOKEN, type TestServer } from './support/server.js';

const DASHBOARD = 'https://dash.example.org';
const LOCAL = 'http://localhost:3000';
const STRANGER = 'https://evil.example.com';
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers', 'access-control-max-age', 'vary'];

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await db.query(`INSERT INTO users VALUES ($1, 1000)`, [DEFAULT_USER]);
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
});

const corsHeadersOf = (response: Response) => Object.fromEntries(CORS_HEADERS.filter((h) => response.headers.has(h)).map((h) => [h, response.headers.get(h)]));

async function call(server: TestServer, path: string, init: { method?: string; headers?: Record<string, string>; token?: boolean } = {}) {
  const headers = { ...(init.token === false ? {} : { authorization: `Bearer ${TEST_TOKEN}` }), ...init.headers };
  const response = await fetch(server.baseUrl + path, { method: init.method ?? 'GET', headers });
  const body = await response.text();
  return { status: response.status, cors: corsHeadersOf(response), body, headers: response.headers };
}

describe('SERVICE_CORS_ORIGINS unset: nothing changes', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: db.url });
  });
  after(() => server.stop());

  test('no CORS header on any answer, whatever the Origin; OPTIONS is the 405 it always was', async () => {
    for (const path of ['/v1/users', '/healthz', '/openapi.json', '/nope']) {
      assert.deepEqual((await call(server, path, { headers: { origin: DASHBOARD } })).cors, {}, path);
    }
    const preflight = await call(server, '/v1/users', { method: 'OPTIONS', token: false, headers: { origin: DASHBOARD, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    assert.equal(preflight.status, 405);
    assert.equal(preflight.headers.get('allow'), 'GET');
    assert.deepEqual(preflight.cors, {});
  });
});

describe('SERVICE_CORS_ORIGINS set', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: db.url, env: { SERVICE_CORS_ORIGINS: ` ${DASHBOARD}, ${LOCAL} ` } });
  });
  after(() => server.stop());

  const allowed = (origin: string) => ({
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'Content-Disposition, Retry-After, WWW-Authenticate, X-Request-Id',
    vary: 'Origin',
  });

  test('a GET from an allowed origin carries the CORS headers, errors included', async () => {
    for (const origin of [DASHBOARD, LOCAL]) {
      const ok = await call(server, '/v1/users', { headers: { origin } });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.cors, allowed(origin));
    }
    const unauthorized = await call(server, '/v1/users', { token: false, headers: { origin: DASHBOARD } });
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(unauthorized.cors, allowed(DASHBOARD), 'a dashboard can read the 401');
    const bad = await call(server, '/v1/metrics/latest?types=HeartRate', { headers: { origin: DASHBOARD } });
    assert.equal(bad.status, 400);
    assert.match(JSON.parse(bad.body).error, /did you mean HKQuantityTypeIdentifierHeartRate/);
    assert.deepEqual(bad.cors, allowed(DASHBOARD));
    for (const path of ['/healthz', '/openapi.json', '/', '/nope']) assert.deepEqual((await call(server, path, { headers: { origin: DASHBOARD } })).cors, allowed(DASHBOARD), path);
  });

  test('its preflight is answered 204 for GET with Authorization allowed, before any token or throttle', async () => {
    const preflight = await call(server, '/v1/workouts/00000000-0000-4000-8000-000000000009/series', {
      method: 'OPTIONS',
      token: false,
      headers: { origin: DASHBOARD, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.body, '');
    assert.deepEqual(preflight.cors, {
      'access-control-allow-origin': DASHBOARD,
      'access-control-allow-methods': 'GET',
      'access-control-allow-headers': 'Authorization, Content-Type',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
  });

  test('any other origin, a non-preflight OPTIONS, another method and the same-origin pages are answered as before', async () => {
    const stranger = await call(server, '/v1/users', { headers: { origin: STRANGER } });
    assert.equal(stranger.status, 200);
    assert.deepEqual(stranger.cors, { vary: 'Origin' }, 'no allow-origin for a stranger; Vary keeps caches apart');
    const strangerPreflight = await call(server, '/v1/users', { method: 'OPTIONS', token: false, headers: { origin: STRANGER, 'access-control-request-method': 'GET' } });
    assert.equal(strangerPreflight.status, 405);
    assert.equal(strangerPreflight.cors['access-control-allow-origin'], undefined);
    const plainOptions = await call(server, '/v1/users', { method: 'OPTIONS', headers: { origin: DASHBOARD } });
    assert.equal(plainOptions.status, 405, 'OPTIONS without Access-Control-Request-Method is no preflight');
    const post = await call(server, '/v1/users', { method: 'POST', headers: { origin: DASHBOARD } });
    assert.equal(post.status, 405);
    for (const path of ['/docs', '/app']) {
      const page = await call(server, path, { headers: { origin: DASHBOARD } });
      assert.deepEqual(page.cors, {}, `${path} is a same-origin page`);
      const pagePreflight = await call(server, path, { method: 'OPTIONS', headers: { origin: DASHBOARD, 'access-control-request-method': 'GET' } });
      assert.equal(pagePreflight.status, 405, path);
    }
    const docs = await (await fetch(`${server.baseUrl}/docs`)).text();
    assert.ok(docs.includes(`This server allows <code>${DASHBOARD}</code>, <code>${LOCAL}</code>.`), '/docs names the allowed origins');
  });
});

describe('a malformed origin stops the server with one line', () => {
  for (const value of ['*', 'https://dash.example.org/', 'dash.example.org', 'https://dash.example.org/app', 'ftp://files.example.org', 'https://Dash.example.org']) {
    test(JSON.stringify(value), async () => {
      const { code, output } = await runServerExpectingExit({ DATABASE_URL: db.url, SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: DEFAULT_USER, SERVICE_PORT: '0', SERVICE_CORS_ORIGINS: `https://ok.example.org,${value}` });
      assert.notEqual(code, 0);
      const lines = output.trim().split('\n');
      assert.equal(lines.length, 1, output);
      assert.match(lines[0], /^healthd: SERVICE_CORS_ORIGINS must list exact origins/);
    });
  }
});
