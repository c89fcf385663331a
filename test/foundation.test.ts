// Issue 2: the HTTP front on a real server and database — index, errors, 404,
// 405, auth, throttle, user selection, users, profile, catalog, OpenAPI, docs,
// 500 and 504 — and every refusal at start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { INGEST } from '../src/limits.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { person, validPaths } from './support/faults.js';
import { OPERATIONS } from './support/operations.js';
import { DEFAULT_USER, TEST_TOKEN, runServerExpectingExit, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const STRANGER = '00000000-0000-4000-8000-0000000000ff';
const DAY = 86_400_000;

let db: TestDatabase;

async function seed(database: TestDatabase): Promise<void> {
  await database.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await database.query(`INSERT INTO users VALUES ($1, 1000), ($2, 2000)`, [DEFAULT_USER, OTHER_USER]);
  await database.query(
    `INSERT INTO profiles VALUES ($1, 'Ada', 'ada@example.org', 315532800000, 'female', 5), ($2, 'Bob', NULL, NULL, NULL, 6)`,
    [DEFAULT_USER, OTHER_USER],
  );
  await database.query(`INSERT INTO upload_batches VALUES ($1, 5000, 10), ($1, 7000, 32), ($2, 9000, 1)`, [DEFAULT_USER, OTHER_USER]);
  await database.query(`INSERT INTO sample_types (identifier) VALUES ('HKQuantityTypeIdentifierStepCount'), ('HKQuantityTypeIdentifierHeartRate'), ('HKCategoryTypeIdentifierSleepAnalysis')`);
  await database.query(`INSERT INTO sources (name) VALUES ('Watch')`);
  // Default user: 3 step samples (starts 1 h, 2 h, 30 h after 2026-01-01) and 2 step
  // aggregates (2026-01-01, 2026-01-02); 1 heart-rate sample; no sleep. Other user: 1 sleep sample.
  const t0 = Date.UTC(2026, 0, 1);
  const steps = `(SELECT type_id FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierStepCount')`;
  const hr = `(SELECT type_id FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierHeartRate')`;
  const sleep = `(SELECT type_id FROM sample_types WHERE identifier = 'HKCategoryTypeIdentifierSleepAnalysis')`;
  await database.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     ($1, gen_random_uuid(), ${steps}, $2::bigint, $2::bigint + 60000, 100, 1),
     ($1, gen_random_uuid(), ${steps}, $3::bigint, $3::bigint + 60000, 200, 1),
     ($1, gen_random_uuid(), ${steps}, $4::bigint, $4::bigint + 60000, 300, 1),
     ($1, gen_random_uuid(), ${hr}, $2::bigint, $2::bigint, 61, 1),
     ($5, gen_random_uuid(), ${sleep}, $2::bigint, $3::bigint, 3, 1)`,
    [DEFAULT_USER, t0 + 3_600_000, t0 + 7_200_000, t0 + 30 * 3_600_000, OTHER_USER],
  );
  await database.query(`INSERT INTO daily_aggregates (user_id, type_id, day, sum) VALUES ($1, ${steps}, '2026-01-01', 300), ($1, ${steps}, '2026-01-02', 300)`, [DEFAULT_USER]);
  await database.query(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, gen_random_uuid(), 'running', $2::bigint, $2::bigint + 1800000)`, [DEFAULT_USER, t0 + DAY]);
  await database.query(`INSERT INTO activity_summaries (user_id, day, move_kcal) VALUES ($1, '2026-01-03', 400)`, [DEFAULT_USER]);
}

before(async () => {
  db = await createTestDatabase();
  await seed(db);
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
});

describe('single-user server', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: db.url, env: { CATALOG_FRESH_MS: '60000' } });
  });
  after(async () => {
    assert.equal(await server.stop(), 0, 'SIGTERM exits 0');
  });

  test('index describes the API with string fields', async () => {
    const { status, body, headers } = await server.getJson('/', { token: null });
    assert.equal(status, 200);
    assert.match(headers.get('content-type')!, /^application\/json/);
    for (const field of ['name', 'version', 'docs', 'openapi', 'health', 'auth', 'user', 'description']) {
      assert.equal(typeof body[field], 'string', field);
    }
    assert.equal(body.version, 'v1');
    assert.equal(body.docs, '/docs');
    assert.equal(body.openapi, '/openapi.json');
    assert.equal(body.health, '/healthz');
  });

  test('healthz reports the database without a token', async () => {
    const { status, body } = await server.getJson('/healthz', { token: null });
    assert.equal(status, 200);
    assert.deepEqual(body, { ok: true, db: true });
  });

  test('unknown path is a JSON 404; other methods are 405 with Allow: GET', async () => {
    for (const path of ['/nope', '/v1', '/v1/users/', '/v1//users', '/v1/unknown', '/docs/x']) {
      const { status, body } = await server.getJson(path);
      assert.equal(status, 404, path);
      assert.deepEqual(body, { error: 'not found' });
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(server.baseUrl + '/v1/users', { method, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'GET');
      assert.deepEqual(Object.keys(await response.json()), ['error']);
    }
  });

  test('every /v1 route needs the bearer token; 401 carries WWW-Authenticate', async () => {
    for (const token of [null, 'wrong-token-0123456789', '']) {
      const { status, body, headers } = await server.getJson('/v1/users', { token });
      assert.equal(status, 401);
      assert.equal(headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(Object.keys(body), ['error']);
      assert.equal(headers.get('cache-control'), 'no-store');
    }
    const basic = await server.getJson('/v1/users', { token: null, headers: { authorization: `Basic ${TEST_TOKEN}` } });
    assert.equal(basic.status, 401);
    const lower = await server.getJson('/v1/users', { token: null, headers: { authorization: `bearer ${TEST_TOKEN}` } });
    assert.equal(lower.status, 200, 'the scheme name is case-insensitive');
  });

  test('authenticated responses carry Cache-Control: no-store', async () => {
    for (const path of ['/v1/users', '/v1/profile', '/v1/catalog/types', `/v1/profile?user=${STRANGER}`]) {
      const response = await server.get(path);
      assert.equal(response.headers.get('cache-control'), 'no-store', path);
      await response.body?.cancel();
    }
  });

  test('users: only the default user when multi-user is off', async () => {
    const { status, body } = await server.getJson('/v1/users');
    assert.equal(status, 200);
    // Default user: batches at 5000 (10 samples) and 7000 (32 samples) → lastSync 7000, 2 batches, 42 samples.
    assert.deepEqual(body, {
      users: [{ userID: DEFAULT_USER, name: 'Ada', email: 'ada@example.org', createdAt: 1000, lastSync: 7000, batches: 2, uploadedSamples: 42 }],
      default: DEFAULT_USER,
      multiUser: false,
      timeZone: 'UTC',
    });
  });

  test('user selection: 400 for a malformed uuid, 403 for anyone else, 200 for the default in any case', async () => {
    const bad = await server.getJson('/v1/profile?user=not-a-uuid');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /user/);
    const other = await server.getJson(`/v1/profile?user=${OTHER_USER}`);
    assert.equal(other.status, 403);
    assert.deepEqual(other.body, { error: 'multi-user reads are disabled' });
    const same = await server.getJson(`/v1/profile?user=${DEFAULT_USER.toUpperCase()}`);
    assert.equal(same.status, 200);
    assert.equal(same.body.userID, DEFAULT_USER);
  });

  test('profile of the default user', async () => {
    const { status, body } = await server.getJson('/v1/profile');
    assert.equal(status, 200);
    assert.deepEqual(body, { userID: DEFAULT_USER, name: 'Ada', email: 'ada@example.org', dateOfBirth: 315532800000, biologicalSex: 'female' });
  });

  test('catalog counts raw and aggregate rows exactly, with bounds and units', async () => {
    const { status, body } = await server.getJson('/v1/catalog/types');
    assert.equal(status, 200);
    const t0 = Date.UTC(2026, 0, 1);
    const byId = Object.fromEntries(body.types.map((t: { identifier: string }) => [t.identifier, t]));
    // Steps: 3 raw + 2 aggregate rows; earliest = first sample (t0 + 1 h) since it precedes
    // the first aggregate day's midnight only if earlier — t0 (2026-01-01 00:00 UTC) is earlier.
    assert.deepEqual(byId.HKQuantityTypeIdentifierStepCount, {
      identifier: 'HKQuantityTypeIdentifierStepCount', kind: 'quantity', unit: 'count',
      rows: 5, rawRows: 3, aggregateRows: 2, earliest: t0, latest: t0 + 30 * 3_600_000,
    });
    assert.deepEqual(byId.HKQuantityTypeIdentifierHeartRate, {
      identifier: 'HKQuantityTypeIdentifierHeartRate', kind: 'quantity', unit: 'count/min',
      rows: 1, rawRows: 1, aggregateRows: 0, earliest: t0 + 3_600_000, latest: t0 + 3_600_000,
    });
    assert.equal(byId.HKWorkoutTypeIdentifier.kind, 'workout');
    assert.equal(byId.HKWorkoutTypeIdentifier.rawRows, 1);
    assert.equal(byId.HKActivitySummaryTypeIdentifier.kind, 'activitySummary');
    assert.equal(byId.HKActivitySummaryTypeIdentifier.earliest, Date.UTC(2026, 0, 3));
    assert.equal(byId.HKCategoryTypeIdentifierSleepAnalysis, undefined, 'another user\'s type is not listed');
    assert.deepEqual(body.types.map((t: { identifier: string }) => t.identifier), Object.keys(byId).sort());
  });

  test('an unknown user reads as a user with no data (multi-user off: 403 first)', async () => {
    const { status } = await server.getJson(`/v1/catalog/types?user=${STRANGER}`);
    assert.equal(status, 403);
  });

  test('query strings: repeated, malformed and NUL parameters are 400', async () => {
    for (const query of ['user=' + DEFAULT_USER + '&user=' + DEFAULT_USER, 'user=%E0%A4%A', 'user=%FF', 'user=%00', 'user=']) {
      const { status, body } = await server.getJson('/v1/profile?' + query);
      assert.equal(status, 400, query);
      assert.deepEqual(Object.keys(body), ['error']);
    }
  });

  test('names are read up to the length a writer may store; offset up to the largest exact integer; both limits in /openapi.json', async () => {
    // A type or activity type as long as the receiver stores (INGEST.nameChars) is asked like any: unknown here, not too long.
    const longest = 'HKQuantityTypeIdentifier' + 'L'.repeat(INGEST.nameChars - 24);
    const asked = await server.getJson(`/v1/metrics/latest?types=${longest}`);
    assert.equal(asked.status, 400);
    assert.match(asked.body.error, /^unknown type: /);
    const tooLong = await server.getJson(`/v1/metrics/latest?types=${longest}L`);
    assert.deepEqual(tooLong.body, { error: `types must be at most ${INGEST.nameChars} characters` });
    const workouts = await server.getJson(`/v1/workouts?activityType=${'x'.repeat(INGEST.nameChars)}`);
    assert.equal(workouts.status, 200);
    const offset = await server.getJson(`/v1/workouts?offset=${Number.MAX_SAFE_INTEGER + 1}`);
    assert.deepEqual(offset.body, { error: `offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}` });
    const openapi = (await server.getJson('/openapi.json', { token: null })).body;
    const parameter = (path: string, name: string) => openapi.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    assert.equal(parameter('/v1/samples', 'type').maxLength, INGEST.nameChars);
    assert.equal(parameter('/v1/workouts', 'activityType').maxLength, INGEST.nameChars);
    assert.equal(parameter('/v1/metrics/latest', 'types').items.maxLength, INGEST.nameChars);
    assert.equal(parameter('/v1/workouts', 'offset').maximum, Number.MAX_SAFE_INTEGER);
  });

  test('OpenAPI 3.1 document validates and lists exactly the operations, each at its path', async () => {
    const response = await server.get('/openapi.json', { token: null, headers: { 'x-forwarded-host': 'evil.example' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^application\/openapi\+json/);
    const doc = await response.json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.match(doc.openapi, /^3\.1\./);
    assert.equal(doc.info.version, '1.0.0');
    assert.equal(doc.servers[0].url, server.baseUrl, 'Host header, X-Forwarded-Host ignored when untrusted');
    assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', description: 'The static SERVICE_API_TOKEN.' });
    const served = Object.fromEntries(Object.entries(doc.paths).map(([path, item]: [string, any]) => [item.get.operationId, path]));
    assert.deepEqual(served, OPERATIONS, 'exactly the operations of the specification (and the additive ones), each at its path');
    const v1 = Object.entries(OPERATIONS).filter(([, path]) => path.startsWith('/v1/')).map(([id]) => id).sort();
    assert.deepEqual(validPaths(person(1)).map((r) => r.operationId).sort(), v1, 'the walks over every operation cover every /v1 operation');
    const users = doc.paths['/v1/users'].get;
    assert.deepEqual(Object.keys(users.responses).sort(), ['200', '400', '401', '403', '429', '500', '503', '504']);
    assert.ok(users.parameters.some((p: any) => p.name === 'user' && p.schema.format === 'uuid'));
    assert.equal(doc.paths['/v1/profile'].get.responses['404'].content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.deepEqual(doc.paths['/healthz'].get.security, []);
  });

  test('docs page is self-contained HTML naming every route', async () => {
    const response = await server.get('/docs', { token: null });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^text\/html/);
    const html = await response.text();
    for (const path of ['/v1/users', '/v1/profile', '/v1/catalog/types', '/healthz', '/openapi.json']) assert.ok(html.includes(path), path);
    assert.ok(!/(src|href)="(https?:)?\/\//.test(html), 'no external assets');
    assert.ok(html.includes('multi-user reads are disabled'));
  });
});

describe('multi-user server', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true' } });
  });
  after(() => server.stop());

  test('lists every user and reads another user by user=', async () => {
    const { body } = await server.getJson('/v1/users');
    assert.equal(body.multiUser, true);
    // The list is made once for a turn's requests and the answer around it as text: the bytes are JSON.stringify's of the answer, in its order.
    const text = await (await server.get('/v1/users')).text();
    assert.equal(text, JSON.stringify({ users: body.users, default: DEFAULT_USER, multiUser: true, timeZone: body.timeZone }));
    assert.deepEqual(Object.keys(body.users[0]), ['userID', 'name', 'email', 'createdAt', 'lastSync', 'batches', 'uploadedSamples']);
    assert.deepEqual(body.users.map((u: { userID: string }) => u.userID), [DEFAULT_USER, OTHER_USER]);
    assert.deepEqual(body.users[1], { userID: OTHER_USER, name: 'Bob', email: null, createdAt: 2000, lastSync: 9000, batches: 1, uploadedSamples: 1 });
    const profile = await server.getJson(`/v1/profile?user=${OTHER_USER.toUpperCase()}`);
    assert.equal(profile.status, 200);
    assert.equal(profile.body.userID, OTHER_USER);
    const catalog = await server.getJson(`/v1/catalog/types?user=${OTHER_USER}`);
    assert.deepEqual(catalog.body.types.map((t: { identifier: string }) => t.identifier), ['HKCategoryTypeIdentifierSleepAnalysis']);
  });

  test('an unknown user reads as a user with no data', async () => {
    assert.deepEqual((await server.getJson(`/v1/catalog/types?user=${STRANGER}`)).body, { types: [] });
    const profile = await server.getJson(`/v1/profile?user=${STRANGER}`);
    assert.equal(profile.status, 404);
    assert.deepEqual(Object.keys(profile.body), ['error']);
  });
});

describe('a server whose limits are configured documents them', () => {
  let server: TestServer;
  const settings = {
    QUERY_TIMEOUT_MS: '45000',
    EXPORT_TIME_LIMIT_MS: '5400000',
    EXPORT_IDLE_LIMIT_MS: '90000',
    SHUTDOWN_GRACE_MS: '20000',
    CATALOG_FRESH_MS: '420000',
    CATALOG_STALE_MS: '7200000',
    HEALTH_CACHE_MS: '3000',
  };
  before(async () => {
    server = await startServer({ databaseUrl: db.url, env: settings });
  });
  after(async () => {
    await server?.stop();
  });

  test('/openapi.json and /docs show the configured values, not the defaults', async () => {
    const doc = await (await server.get('/openapi.json', { token: null })).json();
    const op = (path: string) => doc.paths[path].get;
    assert.match(op('/v1/export').description, /The 45 seconds query limit does not apply; instead an export may run 1\.5 hours, a client that reads nothing for 1\.5 minutes is dropped, and on shutdown running exports get 20 seconds\./);
    assert.match(op('/v1/catalog/types').description, /fresh for 7 minutes; .* for up to 2 hours while one background refresh/);
    assert.match(op('/healthz').description, /cached for 3 seconds\./);
    assert.equal(op('/v1/users').responses['504'].description, 'A query ran past its 45 seconds limit: query took too long; narrow the range.');
    assert.equal(op('/v1/export').responses['504'], undefined, 'the query limit does not bound the export');
    const html = await (await server.get('/docs', { token: null })).text();
    for (const row of [
      '<td>Database time per request</td><td>45 seconds, then 504</td>',
      '<td>Export duration</td><td>1.5 hours, then the connection is aborted</td>',
      '<td>Export idle client</td><td>dropped after 1.5 minutes without reading</td>',
      '<td>Shutdown grace</td><td>20 seconds</td>',
      '<td>Health database status cache</td><td>3 seconds</td>',
      '<td>Catalog cache</td><td>fresh 7 minutes, then served stale up to 2 hours while one background refresh runs</td>',
    ]) {
      assert.ok(html.includes(row), row);
    }
    for (const fallback of ['30 seconds', '30 minutes', '15 seconds', '5 minutes', '2 seconds']) {
      assert.ok(!new RegExp(`(?<![\\d.])${fallback}`).test(html), `no default ${fallback} left in /docs`);
    }
  });
});

describe('failed-authentication throttle', () => {
  test('burst of 10, then 429 with Retry-After before the token is checked; successes never draw', async () => {
    const server = await startServer({ databaseUrl: db.url });
    try {
      for (let i = 0; i < 20; i++) assert.equal((await server.getJson('/v1/users')).status, 200, 'successes are never throttled');
      // X-Forwarded-For is ignored when proxy headers are not trusted: rotating it does not help.
      // Ten 401s, then 429. On a loaded machine a request may take long enough for
      // the bucket to refill (one token per 6 s), which allows one more 401 per 6 s elapsed.
      const began = Date.now();
      let failures = 0;
      let blocked = await server.getJson('/v1/users', { token: 'wrong-token-000000000', headers: { 'x-forwarded-for': '10.0.0.0' } });
      while (blocked.status === 401 && failures < 100) {
        failures++;
        blocked = await server.getJson('/v1/users', { token: 'wrong-token-000000000', headers: { 'x-forwarded-for': `10.0.0.${failures}` } });
      }
      const refills = Math.floor((Date.now() - began) / 6_000);
      assert.ok(failures >= 10 && failures <= 10 + refills, `${failures} failures before 429 (refills allowed: ${refills})`);
      assert.equal(blocked.status, 429);
      const retryAfter = Number(blocked.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 6, `Retry-After ${retryAfter}`);
      assert.deepEqual(Object.keys(blocked.body), ['error']);
      const validButBlocked = await server.getJson('/v1/users');
      assert.equal(validButBlocked.status, 429, 'checked before the token');
      assert.equal((await server.getJson('/healthz', { token: null })).status, 200, 'unauthenticated routes are not throttled');
    } finally {
      await server.stop();
    }
  });

  test('with trusted proxy headers the key is the last X-Forwarded-For entry', async () => {
    const server = await startServer({ databaseUrl: db.url, env: { TRUST_PROXY_HEADERS: 'true' } });
    try {
      const bad = (xff: string) => server.getJson('/v1/users', { token: 'wrong-token-000000000', headers: { 'x-forwarded-for': xff } });
      // Ten failures from 203.0.113.7 with varying spoofed first entries: same key.
      const began = Date.now();
      let failures = 0;
      while ((await bad(`198.51.100.${failures}, 203.0.113.7`)).status === 401 && failures < 100) failures++;
      assert.ok(failures >= 10 && failures <= 10 + Math.floor((Date.now() - began) / 6_000), `${failures} failures before 429`);
      // Another last entry is another client.
      assert.equal((await bad('203.0.113.7, 203.0.113.8')).status, 401);
    } finally {
      await server.stop();
    }
  });
});

describe('failures', () => {
  test('a failed query is a 500 that says nothing of its cause; the log has the request id', async () => {
    const broken = await createTestDatabase();
    try {
      await broken.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
      const server = await startServer({ databaseUrl: broken.url });
      try {
        await broken.query('DROP TABLE profiles');
        const response = await server.get('/v1/profile');
        assert.equal(response.status, 500);
        assert.deepEqual(await response.json(), { error: 'internal error' });
        const requestId = response.headers.get('x-request-id')!;
        await new Promise((r) => setTimeout(r, 100));
        const logLine = server.output().split('\n').find((line) => line.includes(requestId));
        assert.ok(logLine && logLine.includes('profiles'), 'the log names the cause');
        assert.ok(!server.output().includes(TEST_TOKEN), 'the token is never logged');
      } finally {
        await server.stop();
      }
    } finally {
      await broken.drop();
    }
  });

  test('a query past the time limit is cancelled: 504 with the fixed message', async () => {
    const server = await startServer({ databaseUrl: db.url, env: { QUERY_TIMEOUT_MS: '300' } });
    const pg = (await import('pg')).default;
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE profiles IN ACCESS EXCLUSIVE MODE');
      const { status, body } = await server.getJson('/v1/profile');
      assert.equal(status, 504);
      assert.deepEqual(body, { error: 'query took too long; narrow the range' });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
      await server.stop();
    }
  });

  test('database sessions are read-only', async () => {
    const { createReadOnlyPool } = await import('../src/db/pool.js');
    const pool = createReadOnlyPool({ connectionString: db.url, max: 1, statementTimeoutMs: 1000, connectTimeoutMs: 1000, applicationName: 'test' });
    try {
      await assert.rejects(pool.query(`INSERT INTO settings VALUES ('x', 'y')`), (error: { code?: string }) => error.code === '25006');
    } finally {
      await pool.end();
    }
  });
});

describe('settings refused at start', () => {
  const base = () => ({ DATABASE_URL: db.url, SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: DEFAULT_USER, SERVICE_PORT: '0' });
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['placeholder token', { SERVICE_API_TOKEN: 'change-me' }, /SERVICE_API_TOKEN/],
    ['short token', { SERVICE_API_TOKEN: 'short-token' }, /SERVICE_API_TOKEN.*16/],
    ['empty token', { SERVICE_API_TOKEN: '' }, /SERVICE_API_TOKEN/],
    // A token no request could present: a bearer header carries one word of visible ASCII.
    ['a passphrase with spaces', { SERVICE_API_TOKEN: 'correct horse battery staple' }, /^healthd: SERVICE_API_TOKEN must hold only visible ASCII characters \(no spaces\)/],
    ['a token with a trailing space', { SERVICE_API_TOKEN: 'test-token-0123456789abcdef ' }, /^healthd: SERVICE_API_TOKEN must hold only visible ASCII/],
    ['a non-ASCII token', { SERVICE_API_TOKEN: 'pässwörd-ümlaut-1234' }, /^healthd: SERVICE_API_TOKEN must hold only visible ASCII/],
    ['an upload token with spaces', { SERVICE_UPLOAD_TOKEN: 'upload horse battery staple' }, /^healthd: SERVICE_UPLOAD_TOKEN must hold only visible ASCII/],
    // Named, never quoted (it holds a password).
    ['a malformed DATABASE_URL', { DATABASE_URL: 'postgres://u:secret-pw@127.0.0.1:99999/db' }, /^healthd: DATABASE_URL must be a connection URL such as postgres:\/\/user:password@host:5432\/database(?!.*secret-pw)/],
    ['a DATABASE_URL that is no URL', { DATABASE_URL: 'host=db user=u' }, /^healthd: DATABASE_URL must be a connection URL/],
    ['a malformed INGEST_DATABASE_URL', { INGEST_DATABASE_URL: 'mysql://u:pw@db/x' }, /^healthd: INGEST_DATABASE_URL must be a connection URL/],
    ['no token with DATABASE_URL', { SERVICE_API_TOKEN: undefined }, /SERVICE_API_TOKEN/],
    ['malformed user id', { SERVICE_USER_ID: 'nobody' }, /SERVICE_USER_ID/],
    ['no user id with DATABASE_URL', { SERVICE_USER_ID: undefined }, /SERVICE_USER_ID/],
    ['unknown zone', { SERVICE_TIME_ZONE: 'Mars/Olympus' }, /SERVICE_TIME_ZONE/],
    ['zone disagreeing with the stored one', { SERVICE_TIME_ZONE: 'Europe/Berlin' }, /SERVICE_TIME_ZONE.*UTC/],
    ['bad multi-user flag', { SERVICE_MULTI_USER: 'yes' }, /SERVICE_MULTI_USER/],
    ['bad proxy flag', { TRUST_PROXY_HEADERS: 'maybe' }, /TRUST_PROXY_HEADERS/],
    ['bad port', { SERVICE_PORT: '70000' }, /SERVICE_PORT/],
    ['the receiver on the read API\'s port', { SERVICE_PORT: '18555', SERVICE_INGEST_PORT: '18555' }, /^healthd: SERVICE_INGEST_PORT must differ from SERVICE_PORT/],
    ['bad share-port flag', { SERVICE_SHARE_PORT: 'sometimes' }, /SERVICE_SHARE_PORT/],
    ['shared ports on the embedded database', { SERVICE_SHARE_PORT: 'true', DATABASE_URL: undefined }, /^healthd: SERVICE_SHARE_PORT=true needs DATABASE_URL/],
  ];
  for (const [name, overrides, message] of cases) {
    test(name, async () => {
      const env: Record<string, string | undefined> = { ...base(), ...overrides };
      const { code, output } = await runServerExpectingExit(env);
      assert.notEqual(code, 0);
      const lines = output.trim().split('\n');
      assert.equal(lines.length, 1, output);
      assert.match(lines[0], message);
    });
  }

  test('a port another server listens on is refused in one line, never shared (unless SERVICE_SHARE_PORT)', async () => {
    const other = await startServer({ databaseUrl: db.url });
    try {
      const { code, output } = await runServerExpectingExit({ ...base(), SERVICE_PORT: String(other.port), SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: 'off' });
      assert.equal(code, 1);
      assert.equal(output.trim().split('\n').length, 1, output);
      assert.match(output.trim(), new RegExp(`^healthd: SERVICE_HOST/SERVICE_PORT: could not listen on 127\\.0\\.0\\.1:${other.port} \\(in use`));
      assert.equal((await other.get('/healthz')).status, 200, 'the first server still answers');
    } finally {
      await other.stop();
    }
  });

  test('SERVICE_TIME_ZONE unset: the server follows the zone stored in the database (set, it must agree)', async () => {
    const berlin = await createTestDatabase();
    try {
      await berlin.query(`INSERT INTO settings (key, value) VALUES ('time_zone', 'Europe/Berlin') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`);
      const server = await startServer({ databaseUrl: berlin.url });
      try {
        const users = await server.getJson('/v1/users');
        assert.equal(users.status, 200);
        assert.equal(users.body.timeZone, 'Europe/Berlin');
      } finally {
        await server.stop();
      }
      // The same zone spelt another way (its case, an alias) is that zone, not a disagreement; europe/berlin is served as Europe/Berlin.
      for (const [spelt, served] of [['europe/berlin', 'Europe/Berlin'], ['Europe/Berlin', 'Europe/Berlin']]) {
        const same = await startServer({ databaseUrl: berlin.url, env: { SERVICE_TIME_ZONE: spelt } });
        try {
          assert.equal((await same.getJson('/v1/users')).body.timeZone, served);
        } finally {
          await same.stop();
        }
      }
      await berlin.query(`UPDATE settings SET value = 'US/Eastern' WHERE key = 'time_zone'`);
      const alias = await startServer({ databaseUrl: berlin.url, env: { SERVICE_TIME_ZONE: 'America/New_York' } });
      await alias.stop();
      await berlin.query(`UPDATE settings SET value = 'Europe/Berlin' WHERE key = 'time_zone'`);
      const { code, output } = await runServerExpectingExit({ ...base(), DATABASE_URL: berlin.url, SERVICE_TIME_ZONE: 'UTC' });
      assert.equal(code, 1);
      // No data is stored yet: the zone may still change, and the refusal says how.
      assert.match(
        output.trim(),
        /^healthd: SERVICE_TIME_ZONE is UTC but the stored days are cut in Europe\/Berlin: set SERVICE_TIME_ZONE=Europe\/Berlin \(or leave it unset\), or use another database \(DATABASE_URL\)\. No data is stored yet, so the zone may still change: stop every healthd using this database, run `DELETE FROM settings WHERE key = 'time_zone'` as the schema's owner, and start again with SERVICE_TIME_ZONE=UTC$/,
      );
      // Once data is stored, the zone is fixed: the refusal offers no such way.
      await berlin.query(`INSERT INTO users VALUES ($1, 1)`, [DEFAULT_USER]);
      await berlin.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, 'HKQuantityTypeIdentifierStepCount')`);
      await berlin.query(`INSERT INTO daily_aggregates (user_id, type_id, day, sum) VALUES ($1, 1, '2026-03-08', 1)`, [DEFAULT_USER]);
      const fixed = await runServerExpectingExit({ ...base(), DATABASE_URL: berlin.url, SERVICE_TIME_ZONE: 'UTC' });
      assert.equal(fixed.code, 1);
      assert.match(fixed.output.trim(), /^healthd: SERVICE_TIME_ZONE is UTC but the stored days are cut in Europe\/Berlin: set SERVICE_TIME_ZONE=Europe\/Berlin \(or leave it unset\), or use another database \(DATABASE_URL\)$/);
    } finally {
      await berlin.drop();
    }
  });

  test('a database without the schema', async () => {
    const empty = await createTestDatabase();
    try {
      await empty.query('DROP TABLE settings CASCADE');
      const { code, output } = await runServerExpectingExit({ ...base(), DATABASE_URL: empty.url });
      assert.notEqual(code, 0);
      assert.match(output.trim(), /migrate/);
    } finally {
      await empty.drop();
    }
  });
});
