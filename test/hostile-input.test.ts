// Issue 7, hostile input. The operations and their parameter schemas come
// from the live /openapi.json, so every route that exists is fuzzed with
// fast-check: parameter values (number spellings, empties, repeats, huge
// values, percent-encoding edge cases, non-UTF-8 bytes, 10,000 types), SQL
// injection through every string parameter, path traversal, raw request
// lines, long URLs and headers, and the Authorization header. The one oracle:
// a well-formed 4xx `{"error"}` or a correct 2xx, never a 5xx, never a crash,
// nothing of the request in the log. Constant-time token comparison is
// checked on the comparison itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import fc from 'fast-check';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import {
  bearer, DAY, getRequest, IDENTIFIERS, inParallel, person, rawRequest, seedCommon, seedPerson, T0, validPaths, type RawResponse,
} from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './support/server.js';

/**
 * Local days are cut in this zone: east of UTC with DST, so the last instant
 * accepted (9999-12-31T23:59:59.999Z) already falls on a local day of year 10000.
 */
const ZONE = process.env.FUZZ_ZONE ?? 'Pacific/Chatham';
const ME = person(1, { userId: DEFAULT_USER });
const OTHER = person(2);
/** Appears in fuzzed values; must never reach the log. */
const MARKER = 'zqxMARKERqxz';
// endOnFailure: the counterexample is reported as found; shrinking through
// requests that may time out would take minutes.
const FC = { seed: Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000), numRuns: Number(process.env.FUZZ_RUNS ?? 60), endOnFailure: true, includeErrorInReport: true };

interface Param {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  schema: Record<string, any>;
}
interface Operation {
  operationId: string;
  path: string;
  auth: boolean;
  params: Param[];
}

let db: TestDatabase;
let server: TestServer;
let operations: Operation[];
/** A known-good request per operation: path parameters and query pairs. */
const baselines = new Map<string, { path: Record<string, string>; query: [string, string][] }>();

before(async () => {
  db = await createTestDatabase();
  await seedCommon(db.query, ZONE);
  await seedPerson(db.query, ME);
  await seedPerson(db.query, OTHER);
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: ZONE } });
  const doc = await (await fetch(server.baseUrl + '/openapi.json')).json();
  operations = Object.entries(doc.paths as Record<string, { get: any }>).map(([path, item]) => ({
    operationId: item.get.operationId,
    path,
    auth: (item.get.security ?? doc.security).length > 0,
    params: item.get.parameters as Param[],
  }));
  const known = new Map(validPaths(ME).map((r) => [r.operationId, r.path]));
  for (const op of operations) {
    const path: Record<string, string> = {};
    for (const p of op.params.filter((p) => p.in === 'path')) path[p.name] = p.schema.format === 'uuid' ? ME.workoutUuid : 'x';
    const given = known.get(op.operationId);
    const query: [string, string][] = given
      ? [...new URLSearchParams(given.split('?')[1] ?? '')].filter(([name]) => name !== 'x')
      : op.params.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, plainValue(p)]);
    baselines.set(op.operationId, { path, query });
  }
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

/** A value a parameter accepts, for one with no hand-made baseline. */
function plainValue(p: Param): string {
  const s = p.schema;
  if (p.name === 'start') return String(T0);
  if (p.name === 'end') return String(T0 + 7 * DAY);
  if (s.anyOf) return String(s.default ?? s.anyOf[0].const);
  if (s.type === 'integer') return String(s.default ?? s.minimum ?? 1);
  if (s.type === 'array') return IDENTIFIERS[0];
  if (s.format === 'uuid') return DEFAULT_USER;
  return IDENTIFIERS[0];
}

// ---- building requests from bytes -------------------------------------------

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Every byte of `value`'s UTF-8 percent-encoded unless unreserved (a lone surrogate becomes U+FFFD's bytes). */
const pct = (value: string | Uint8Array): string =>
  [...(typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value))]
    .map((b) => (UNRESERVED.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0')))
    .join('');
/**
 * Minimal encoding: only what would break the pair structure or the request
 * line (uWS leaves a request whose target holds a byte up to 0x20 unanswered;
 * the raw-request tests cover those).
 */
const light = (value: string): Buffer => Buffer.from(value.replace(/[%&=#+\u0000-\u0020]/g, (c) => pct(c)), 'utf8');

type Encoded = Buffer;

function requestBytes(op: Operation, pathParams: Record<string, string>, query: Encoded[], headers: Record<string, string> = bearer(TEST_TOKEN)): Buffer {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => pathParams[name] ?? '');
  const q = query.length ? Buffer.concat([Buffer.from('?'), ...query.flatMap((pair, i) => (i ? [Buffer.from('&'), pair] : [pair]))]) : Buffer.alloc(0);
  const head = Object.entries({ Host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return Buffer.concat([Buffer.from(`GET ${path}`), q, Buffer.from(` HTTP/1.1\r\n${head}\r\n`)]);
}

const pair = (name: string, value: string): Encoded => Buffer.from(`${pct(name)}=${pct(value)}`);
const plainPairs = (query: [string, string][]): Encoded[] => query.map(([n, v]) => pair(n, v));

const UWS_FALLBACK_BYTES = 4 * 1024;

async function send(request: Buffer): Promise<RawResponse> {
  const response = request.length > UWS_FALLBACK_BYTES ? await sendLong(request) : await rawRequest(server.port, request, { timeoutMs: 5_000 });
  assert.ok(response, `the server answered ${show(request)}`);
  return response;
}

/**
 * uWS (v20.30) drops, unanswered, a request head over 4 KB that does not
 * arrive in one read — over loopback that happens now and then even below
 * 64 KB. So a long request is retried until it is read whole.
 */
async function sendLong(request: Buffer): Promise<RawResponse | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await rawRequest(server.port, request, { timeoutMs: 5_000 });
    if (response) return response;
  }
  return null;
}

/** Answers seen, by status, so a run shows how much of it reached the handlers. */
const statuses = new Map<number, number>();

/** The oracle every answer must satisfy. */
function wellFormed(op: Operation, response: RawResponse, what: string): void {
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const busyExport = op.operationId === 'exportDataset' && response.status === 503 && response.headers['retry-after'] === '60';
  assert.ok(response.status < 500 || busyExport, `${what}: status ${response.status} ${response.body.subarray(0, 200).toString()}`);
  assert.ok(response.complete, `${what}: the body ended cleanly`);
  const type = response.headers['content-type'] ?? '';
  if (response.status >= 400) {
    assert.match(type, /^application\/json/, what);
    const body = JSON.parse(response.body.toString());
    assert.deepEqual(Object.keys(body), ['error'], what);
    assert.equal(typeof body.error, 'string');
    assert.ok(body.error.length > 0 && body.error.length <= 400, `${what}: message of ${body.error.length} characters`);
  } else if (/^application\/(openapi\+)?json/.test(type)) {
    JSON.parse(response.body.toString());
  } else if (/^application\/x-ndjson/.test(type)) {
    for (const line of response.body.toString().split('\n')) if (line) JSON.parse(line);
  } else {
    assert.match(type, /^(text\/csv|text\/markdown|text\/html|text\/javascript|text\/css|image\/svg\+xml|application\/gpx\+xml)/, what);
  }
}

const show = (request: Buffer) => request.subarray(0, 160).toString('latin1').split('\r\n')[0];

// ---- value arbitraries --------------------------------------------------------

const NUMBER_SPELLINGS = ['1e3', '0x10', '0o7', '0b1', '-0', '+1', '+0', '1.0', '1.5', '.5', '5.', 'NaN', 'Infinity', '-Infinity', ' 1', '1 ', '\t1', '1\n', '01', '00', '1_000', '1,000', '１２', '٣', '१', '9'.repeat(400), '-' + '9'.repeat(30), '253402300800000', '-1', '1n', 'true', 'null', '[1]', '{}', ''];

/** Strings that are hostile anywhere. */
const hostileString = fc.oneof(
  fc.constantFrom(...NUMBER_SPELLINGS),
  fc.constantFrom("' OR '1'='1", "1; DROP TABLE samples; --", "') OR 1=1 --", '" OR ""="', '\\', "\\'", '$1', '$$', "'; SELECT pg_sleep(5); --", '%', '..', '../..', '..\\..', '/etc/passwd', '<script>', '\u202e', '\ufeff', '\ud800', 'a\u0000b', MARKER),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', minLength: 201, maxLength: 3_000 }),
);

function validValue(p: Param): fc.Arbitrary<string> {
  const s = p.schema;
  if (p.name === 'start' || p.name === 'end') {
    return fc.oneof(fc.constantFrom(T0, T0 + DAY, T0 + 7 * DAY, T0 + 400 * DAY).map(String), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map(String));
  }
  if (s.anyOf) return fc.constantFrom(...s.anyOf.map((m: { const: unknown }) => String(m.const)));
  if (s.type === 'integer') {
    return fc.oneof(fc.integer({ min: s.minimum ?? 0, max: s.maximum ?? 1_000_000 }).map(String), fc.constantFrom(String(s.maximum ?? 0), String((s.maximum ?? 0) + 1), '1'));
  }
  if (s.type === 'array') return fc.array(fc.oneof(fc.constantFrom(...IDENTIFIERS), fc.string({ maxLength: 12 })), { minLength: 1, maxLength: 60 }).map((l) => l.join(','));
  if (s.format === 'uuid') return fc.oneof(fc.constantFrom(DEFAULT_USER, OTHER.userId, ME.workoutUuid, OTHER.workoutUuid, ME.workoutUuid.toUpperCase()), fc.uuid());
  return fc.oneof(fc.constantFrom(...IDENTIFIERS, 'running', 'cycling'), fc.string({ maxLength: 20 }));
}

/** One query pair, its value valid or hostile, under one of several encodings. */
function pairArb(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Encoded> {
  return fc.oneof(
    value.map((v) => pair(name, v)),
    value.map((v) => Buffer.concat([Buffer.from(pct(name) + '='), light(v)])),
    fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(`${pct(name)}=${pct(bytes)}`)),
    fc.constantFrom('%', '%0', '%zz', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%FF%FE', '%E2%82', '%00', '%2500', '+', '%2B1', '1%00').map((raw) => Buffer.from(`${pct(name)}=${raw}`)),
    fc.constant(Buffer.from(pct(name))),
  );
}

function queryArb(op: Operation): fc.Arbitrary<Encoded[]> {
  const params = op.params.filter((p) => p.in === 'query');
  const perParam = params.map((p) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant([] as Encoded[]) },
      { weight: 5, arbitrary: pairArb(p.name, validValue(p)).map((e) => [e]) },
      { weight: 3, arbitrary: pairArb(p.name, hostileString).map((e) => [e]) },
      { weight: 1, arbitrary: fc.tuple(pairArb(p.name, validValue(p)), pairArb(p.name, validValue(p))).map(([a, b]) => [a, b]) },
    ),
  );
  const extras = fc.array(
    fc.oneof(
      fc.constantFrom('', '=', '=x', '&', 'types[]=a', 'TYPES=x', `${MARKER}=1`, 'user', '%75ser=' + OTHER.userId).map((s) => Buffer.from(s)),
      fc.tuple(fc.string({ maxLength: 10 }), hostileString).map(([n, v]) => pair(n, v)),
    ),
    { maxLength: 3 },
  );
  return fc.tuple(fc.tuple(...perParam), extras).chain(([chosen, extra]) => fc.shuffledSubarray([...chosen.flat(), ...extra], { minLength: chosen.flat().length + extra.length }));
}

function pathArb(op: Operation): fc.Arbitrary<Record<string, string>> {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  return fc.tuple(...names.map((name) => fc.oneof(validValue(op.params.find((p) => p.name === name)!).map((v) => pct(v)), hostileString.map((v) => pct(v))))).map((values) =>
    Object.fromEntries(names.map((name, i) => [name, values[i]])),
  );
}

// ---- the tests ------------------------------------------------------------------

describe('parameter fuzzing from /openapi.json', () => {
  test('the document lists the routes to fuzz', () => {
    assert.ok(operations.length >= 7, `${operations.length} operations`);
    assert.ok(operations.every((op) => baselines.has(op.operationId)));
  });

  test('every baseline request is a 2xx (so mutations start from a valid request)', async () => {
    for (const op of operations) {
      const base = baselines.get(op.operationId)!;
      const response = await send(requestBytes(op, base.path, plainPairs(base.query)));
      wellFormed(op, response, op.operationId);
      assert.ok(response.status >= 200 && response.status < 300, `${op.operationId}: ${response.status} ${response.body.subarray(0, 200)}`);
    }
  });

  test(`random parameters, values and encodings: a well-formed 4xx or 2xx (seed ${FC.seed})`, async (t) => {
    statuses.clear();
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(pathArb(op), queryArb(op), async (path, query) => {
          const request = requestBytes(op, path, query);
          wellFormed(op, await send(request), `${op.operationId} ${show(request)}`);
        }),
        { ...FC, numRuns: op.params.length ? FC.numRuns : 5 },
      );
    }
    t.diagnostic(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
  });

  test(`only well-formed values, edges included (0, the last instant, clamped limits): a 2xx or a rule's 400 (seed ${FC.seed})`, async (t) => {
    statuses.clear();
    const MAX = 253_402_300_799_999;
    const edge = (p: Param): fc.Arbitrary<string> =>
      p.schema.type === 'integer'
        ? fc.oneof(validValue(p), fc.constantFrom(0, 1, MAX - 1, MAX, p.schema.maximum ?? MAX, Number.MAX_SAFE_INTEGER).map(String))
        : validValue(p);
    for (const op of operations) {
      const params = op.params.filter((p) => p.in === 'query' && p.name !== 'user');
      const base = baselines.get(op.operationId)!;
      if (params.length === 0) continue;
      await fc.assert(
        fc.asyncProperty(fc.tuple(...params.map((p) => fc.option(edge(p), { nil: undefined }))), async (values) => {
          const given = new Map(base.query);
          params.forEach((p, i) => values[i] !== undefined && given.set(p.name, values[i]!));
          const request = requestBytes(op, base.path, plainPairs([...given]));
          const response = await send(request);
          wellFormed(op, response, `${op.operationId} ${show(request)}`);
          assert.ok([200, 400, 404].includes(response.status), `${op.operationId} ${show(request)}: ${response.status}`);
        }),
        FC,
      );
    }
    t.diagnostic(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
  });

  test('an integer parameter spelled any way but plain decimal is a 400 naming it', async () => {
    const spellings = [
      ...NUMBER_SPELLINGS.filter((s) => !/^(0|-?[1-9][0-9]*)$/.test(s)).map((s) => pct(s)),
      '%2B1', '1%20', '%201', '1+', '%31e3', '1%2E0', '%EF%BC%91', // +1, "1 ", " 1", "1 " (+ is a space), 1e3, 1.0, a fullwidth 1
    ];
    for (const op of operations) {
      const base = baselines.get(op.operationId)!;
      for (const p of op.params.filter((p) => p.in === 'query' && p.schema.type === 'integer')) {
        for (const spelling of spellings) {
          const query = [...plainPairs(base.query.filter(([n]) => n !== p.name)), Buffer.from(`${p.name}=${spelling}`)];
          const response = await send(requestBytes(op, base.path, query));
          const what = `${op.operationId} ${p.name}=${spelling}`;
          wellFormed(op, response, what);
          assert.equal(response.status, 400, what);
          assert.match(JSON.parse(response.body.toString()).error, new RegExp(`\\b${p.name}\\b`), what);
        }
      }
    }
  });

  test('a repeated scalar or an empty parameter is a 400 naming it', async () => {
    for (const op of operations) {
      const base = baselines.get(op.operationId)!;
      for (const p of op.params.filter((p) => p.in === 'query')) {
        const given = base.query.find(([n]) => n === p.name)?.[1] ?? plainValue(p);
        const others = plainPairs(base.query.filter(([n]) => n !== p.name));
        // A list may be repeated (types=A&types=B): only scalars are refused so.
        const repeated = p.schema.type === 'array' ? [] : [['repeated', [pair(p.name, given), pair(p.name, given)]] as const];
        for (const [label, pairs] of [
          ...repeated,
          ['empty', [Buffer.from(`${p.name}=`)]],
          ['blank', [pair(p.name, '   ')]],
          ['bare', [Buffer.from(p.name)]],
        ] as const) {
          const response = await send(requestBytes(op, base.path, [...others, ...pairs]));
          const what = `${op.operationId} ${label} ${p.name}`;
          wellFormed(op, response, what);
          assert.equal(response.status, 400, what);
          assert.match(JSON.parse(response.body.toString()).error, new RegExp(`\\b${p.name}\\b`), what);
        }
      }
    }
  });

  test('10,000 types, huge numbers and very long values are refused cleanly', async () => {
    for (const op of operations) {
      const base = baselines.get(op.operationId)!;
      for (const p of op.params.filter((p) => p.in === 'query')) {
        const others = plainPairs(base.query.filter(([n]) => n !== p.name));
        // Raw commas keep 10,000 entries in one loopback segment (64 KB).
        const cases: [string, Buffer, boolean][] = [
          ['a 60 KB value', pair(p.name, 'A'.repeat(60_000)), true],
          ['10,000 distinct identifiers', Buffer.from(`${p.name}=${Array.from({ length: 10_000 }, (_, i) => `X${i}`).join(',')}`), true],
          ['10,000 copies of one identifier', Buffer.from(`${p.name}=${Array(1_500).fill(IDENTIFIERS[0]).join(',')}`), false],
          ['2^64', pair(p.name, '18446744073709551616'), p.schema.type === 'integer' && !p.schema['x-clamp']],
          ['10^400', pair(p.name, '1' + '0'.repeat(400)), p.schema.type === 'integer' && !p.schema['x-clamp']],
        ];
        for (const [label, encoded, refused] of cases) {
          const request = requestBytes(op, base.path, [...others, encoded]);
          const what = `${op.operationId} ${p.name}: ${label}`;
          const response = request.length > UWS_FALLBACK_BYTES ? await sendLong(request) : await send(request);
          if (response === null) {
            // uWS dropped the long head unanswered (README, Known limits): no answer, no crash.
            assert.equal((await server.getJson('/healthz', { token: null })).status, 200, `${what}: the server goes on`);
            continue;
          }
          wellFormed(op, response, what);
          if (refused) assert.equal(response.status, 400, what);
        }
      }
    }
    // Past uWS's limit the connection is closed without an answer (no 414/431 from uWS); the server goes on.
    const base = baselines.get(operations[0].operationId)!;
    const oversized = await rawRequest(server.port, requestBytes(operations[0], base.path, [pair('x', 'A'.repeat(200_000))]), { timeoutMs: 5_000 });
    assert.ok(oversized === null || (oversized.status >= 400 && oversized.status < 500));
    assert.equal((await server.getJson('/healthz', { token: null })).status, 200);
  });
});

describe('SQL injection and path traversal', () => {
  const PAYLOADS = [
    "' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE samples; --", "running' OR 'a'='a", "running'--", '" OR ""="', "1) OR (1=1",
    "'; SELECT pg_sleep(3); --", "' UNION SELECT uuid, user_id::text FROM workouts --", "\\'; DELETE FROM users; --", '$1', '$$; DROP TABLE users; $$',
    "%27%20OR%201%3D1", "'||(SELECT email FROM profiles LIMIT 1)||'", `${OTHER.userId}' OR user_id IS NOT NULL --`, "E'\\x27'", "'::text",
    `HKQuantityTypeIdentifierStepCount' OR '1'='1`, `HKQuantityTypeIdentifierStepCount,'); DROP TABLE samples; --`,
  ];

  async function tableCounts(): Promise<string> {
    const rows = await db.query(
      `SELECT (SELECT count(*) FROM samples) s, (SELECT count(*) FROM workouts) w, (SELECT count(*) FROM users) u, (SELECT count(*) FROM profiles) p, (SELECT count(*) FROM state_of_mind) m, (SELECT count(*) FROM daily_aggregates) d`,
    );
    return JSON.stringify(rows[0]);
  }

  test('through every string parameter: refused or an empty answer; nothing runs, nothing changes, nothing leaks', async () => {
    const before = await tableCounts();
    for (const op of operations) {
      const base = baselines.get(op.operationId)!;
      const strings = op.params.filter((p) => p.schema.type === 'string' || p.schema.type === 'array' || p.schema.anyOf);
      for (const p of strings) {
        for (const payload of PAYLOADS) {
          const path = { ...base.path };
          let query = plainPairs(base.query);
          if (p.in === 'path') path[p.name] = pct(payload);
          else query = [...plainPairs(base.query.filter(([n]) => n !== p.name)), pair(p.name, payload)];
          const t = Date.now();
          const response = await send(requestBytes(op, path, query));
          const what = `${op.operationId} ${p.name}=${payload}`;
          wellFormed(op, response, what);
          // An injected pg_sleep(3) would hold the answer at least 3 s.
          assert.ok(Date.now() - t < 3_000, `${what}: no pg_sleep ran`);
          const text = response.body.toString();
          for (const theirs of [OTHER.email, OTHER.name, OTHER.source, OTHER.workoutUuid]) assert.ok(!text.includes(theirs), `${what}: nothing of another user`);
          if (response.status === 200 && op.operationId === 'listWorkouts' && p.name === 'activityType') {
            assert.deepEqual(JSON.parse(text).workouts, [], `${what}: an exact match finds nothing`);
          }
        }
      }
    }
    assert.equal(await tableCounts(), before, 'every table as it was');
  });

  test('path traversal and non-uuid path segments: 400 or 404, never another resource', async () => {
    const segments = ['..', '.', '%2e%2e', '%2E%2E%2F%2E%2E%2Fusers', '..%2F..%2Fv1%2Fusers', '..%5C..%5Cusers', 'not-a-uuid', `${ME.workoutUuid}x`, `${ME.workoutUuid}%00`,
      `${ME.workoutUuid};drop`, `{${ME.workoutUuid}}`, ME.workoutUuid.replace(/-/g, ''), `%7B${ME.workoutUuid}%7D`, 'A'.repeat(5_000), '%FF', '%C0%AE%C0%AE', '~', '*'];
    for (const op of operations.filter((o) => o.path.includes('{'))) {
      const base = baselines.get(op.operationId)!;
      for (const segment of segments) {
        const path = Object.fromEntries(Object.keys(base.path).map((k) => [k, segment]));
        const response = await send(requestBytes(op, path, plainPairs(base.query)));
        const what = `${op.operationId} ${segment.slice(0, 60)}`;
        wellFormed(op, response, what);
        assert.ok([400, 404].includes(response.status), `${what}: ${response.status}`);
      }
      // Another user's workout by its real uuid: not found for this user.
      const theirs = await send(requestBytes(op, { uuid: OTHER.workoutUuid }, plainPairs(base.query)));
      assert.equal(theirs.status, 404, `${op.operationId}: another user's workout`);
    }
    // A path parameter is percent-decoded as a query value is (RFC 3986: %34 is 4), and U+FFFD sent percent-encoded is valid UTF-8.
    const spelled = ME.workoutUuid.slice(0, -1) + '%' + ME.workoutUuid.charCodeAt(35).toString(16);
    const plain = await send(Buffer.from(getRequest(`/v1/workouts/${ME.workoutUuid}`, bearer(TEST_TOKEN))));
    const encoded = await send(Buffer.from(getRequest(`/v1/workouts/${spelled}`, bearer(TEST_TOKEN))));
    assert.deepEqual([encoded.status, encoded.body.toString()], [200, plain.body.toString()], spelled);
    const replacement = await send(Buffer.from(getRequest('/v1/workouts?activityType=%EF%BF%BD', bearer(TEST_TOKEN))));
    assert.deepEqual([replacement.status, JSON.parse(replacement.body.toString())], [200, { workouts: [], nextOffset: 0 }]);
    const notUtf8 = await send(Buffer.concat([Buffer.from('GET /v1/workouts?activityType='), Buffer.from([0xff, 0xfe]), Buffer.from(` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`)]));
    assert.deepEqual([notUtf8.status, JSON.parse(notUtf8.body.toString())], [400, { error: 'parameter activityType is not valid UTF-8' }]);
    for (const path of ['/v1/workouts/../users', '/v1/../v1/users', '/v1/./users', '/v1/users/..', '//v1/users', '/v1/users/', '/v1/users%2F', '/%2e%2e/etc/passwd', '/docs/../openapi.json', '/v1/%75sers', '/V1/USERS']) {
      const response = await send(Buffer.from(getRequest(path, bearer(TEST_TOKEN))));
      assert.equal(response.status, 404, path);
      assert.deepEqual(JSON.parse(response.body.toString()), { error: 'not found' }, path);
    }
  });
});

describe('raw request lines and headers', () => {
  test('random bytes in the request line, long URLs and headers: an answer under 500 or a closed connection, and the server lives', async () => {
    const lineArb = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Buffer.concat([Buffer.from('GET /v1/'), Buffer.from(bytes), Buffer.from(' HTTP/1.1\r\n')])),
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Buffer.concat([Buffer.from('GET /v1/workouts?activityType='), Buffer.from(bytes), Buffer.from(' HTTP/1.1\r\n')])),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n')])),
      fc.constantFrom('GET * HTTP/1.1\r\n', 'GET http://evil.example/v1/users HTTP/1.1\r\n', 'GET /v1/users HTTP/9.9\r\n', 'GET /v1/users\r\n', 'get /v1/users HTTP/1.1\r\n', 'GET  /v1/users HTTP/1.1\r\n',
        'GET /v1/users?%zz HTTP/1.1\r\n', `GET /v1/workouts?activityType=${'x'.repeat(200_000)} HTTP/1.1\r\n`, `GET /${'a/'.repeat(20_000)} HTTP/1.1\r\n`).map((s) => Buffer.from(s)),
    );
    const headerArb = fc.oneof(
      fc.constant(''),
      fc.constantFrom(`X-Big: ${'b'.repeat(100_000)}\r\n`, Array.from({ length: 300 }, (_, i) => `X-H${i}: v\r\n`).join(''), 'Bad Header\r\n', ' folded\r\n', 'X-Nul: a\u0000b\r\n',
        'Content-Length: 5\r\n', 'Transfer-Encoding: chunked\r\n', 'Content-Length: -1\r\n', 'Content-Length: 1\r\nContent-Length: 2\r\n',
        `X-Forwarded-For: ${'1.2.3.4,'.repeat(5_000)}\r\n`, `Host: ${'h'.repeat(10_000)}\r\n`),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1') + '\r\n'),
    );
    // Most of these are requests uWS cannot parse: it closes them or leaves them
    // unanswered, so they are sent many at once, each given a short wait.
    const cases = fc.sample(fc.tuple(lineArb, headerArb), { seed: FC.seed, numRuns: 200 });
    await inParallel(cases.length, 25, async (i) => {
      const [line, header] = cases[i];
      const request = Buffer.concat([line, Buffer.from(`Host: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n${header}\r\n`)]);
      const response = await rawRequest(server.port, request, { timeoutMs: 500 }).catch(() => null);
      if (response) assert.ok(response.status < 500, `${show(request)}: ${response.status}`);
      if (response && response.status >= 400 && /json/.test(response.headers['content-type'] ?? '')) {
        assert.deepEqual(Object.keys(JSON.parse(response.body.toString())), ['error']);
      }
    });
    assert.equal(server.child.exitCode, null);
    assert.equal((await server.getJson('/healthz', { token: null })).status, 200);
    assert.equal((await server.getJson('/v1/users')).status, 200);
  });
});

describe('authentication', () => {
  test('the token is compared in constant time: over the length of the secret, whatever is presented', async () => {
    const calls: [number, number][] = [];
    const original = crypto.timingSafeEqual;
    crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      calls.push([a.byteLength, b.byteLength]);
      return original(a, b);
    }) as typeof crypto.timingSafeEqual;
    syncBuiltinESMExports();
    try {
      const { bearerToken, makeTokenCheck } = await import(`../src/http/auth.js?spy=${Date.now()}`);
      const check = makeTokenCheck(TEST_TOKEN) as (presented: string | null) => boolean;
      const presented = ['', 'Bearer', 'Bearer ', `Bearer ${TEST_TOKEN}`, `bearer  ${TEST_TOKEN} `, `Bearer ${TEST_TOKEN.slice(0, -1)}`, `Bearer ${TEST_TOKEN}x`, `Bearer x${TEST_TOKEN.slice(1)}`, `Bearer ${'x'.repeat(100_000)}`, `Basic ${TEST_TOKEN}`, `Bearer ${TEST_TOKEN.toUpperCase()}`, `Bearer ${TEST_TOKEN} extra`, `Bearer ${'é'.repeat(Math.floor(TEST_TOKEN.length / 2))}${'x'.repeat(TEST_TOKEN.length % 2)}`];
      const results = presented.map((value) => check(bearerToken(value)));
      assert.deepEqual(results, presented.map((value) => value === `Bearer ${TEST_TOKEN}` || value === `bearer  ${TEST_TOKEN} `));
      assert.equal(calls.length, presented.length, 'every check, match or not, goes through timingSafeEqual');
      const secret = Buffer.byteLength(TEST_TOKEN);
      for (const [a, b] of calls) assert.deepEqual([a, b], [secret, secret], "over the secret's length each time, so the comparison time says nothing else of it");
    } finally {
      crypto.timingSafeEqual = original;
      syncBuiltinESMExports();
    }
  });

  test('fuzzed Authorization headers: 401 or 429, never a 2xx without the exact token, never a 5xx', async () => {
    const near = [TEST_TOKEN.slice(0, -1), TEST_TOKEN + 'x', TEST_TOKEN.toUpperCase(), ` ${TEST_TOKEN}`.repeat(2), TEST_TOKEN.split('').reverse().join(''), `${TEST_TOKEN}\u0000`, `${TEST_TOKEN},${TEST_TOKEN}`];
    const authArb = fc.oneof(
      fc.constantFrom(...near).map((t) => `Bearer ${t}`),
      fc.constantFrom('Bearer', 'Bearer ', 'bearer', 'Token x', `Basic ${Buffer.from('a:' + TEST_TOKEN).toString('base64')}`, `Bearer\t${TEST_TOKEN}x`),
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[\r\n]/g, '')),
    );
    const cases = fc.sample(authArb, { seed: FC.seed, numRuns: 100 });
    await inParallel(cases.length, 20, async (i) => {
      const authorization = cases[i];
      const request = Buffer.concat([Buffer.from('GET /v1/profile HTTP/1.1\r\nHost: x\r\nAuthorization: '), Buffer.from(authorization, 'latin1'), Buffer.from('\r\n\r\n')]);
      const response = await rawRequest(server.port, request, { timeoutMs: 500 }).catch(() => null);
      if (!response) return; // a header uWS refuses to parse
      assert.ok([401, 429].includes(response.status), `${JSON.stringify(authorization)}: ${response.status}`);
      assert.deepEqual(Object.keys(JSON.parse(response.body.toString())), ['error']);
    });
  });
});

describe('the log', () => {
  test('after all of the above: no failures, nothing of the requests, never a token', () => {
    const output = server.output();
    assert.ok(!output.includes(TEST_TOKEN), 'the token');
    assert.ok(!output.includes(TEST_TOKEN.slice(0, 12)), 'any part of the token');
    assert.ok(!/bearer/i.test(output), 'any Authorization header');
    assert.ok(!output.includes(MARKER), 'fuzzed values');
    assert.ok(!output.includes(OTHER.email) && !output.includes(ME.email), 'profile data');
    const errors = output.split('\n').filter((line) => /"level":"error"/.test(line));
    assert.deepEqual(errors, [], 'no request failed');
  });
});
