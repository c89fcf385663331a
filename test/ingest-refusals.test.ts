// Issue 13, negative cases: every malformed upload gets its status and a body
// that says what is wrong (the line number and field where there is one), and
// nothing of it is stored — not a sample, not a batch row, not a user.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createGzip, gzipSync } from 'node:zlib';
import { INGEST } from '../src/limits.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { rawExchange, waitFor } from './support/faults.js';
import { batch, getIngest, heartRate, postBatch, SYNC_USER, UPLOAD_TOKEN, type PostOptions } from './support/ingest.js';
import { startServer, TEST_TOKEN, type TestServer } from './support/server.js';

const FIXED_VERSION_BODY = '{"error":"unsupported protocol version","supportedVersions":[1]}';
const T = 1718000000000;
const ONE: Record<string, unknown> & { uuid: string } = heartRate('AAAAAAAA-0000-4000-8000-000000000001', T, 60);

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  server = await startServer({ databaseUrl: db.url, receiver: true, env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN } });
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

async function refused(body: string | Buffer, status: number, message: RegExp | string, options: PostOptions = {}): Promise<void> {
  const answer = await postBatch(server.ingestUrl, body, options);
  assert.equal(answer.status, status, answer.text);
  if (typeof message === 'string') assert.equal(answer.text, message);
  else assert.match(answer.body.error, message);
}

const ingestPort = () => Number(new URL(server.ingestUrl).port);

/** One batch posted by hand with `extraHeaders`, the connection closed after its answer. */
function rawPost(extraHeaders: string[], body: string): Promise<string> {
  const head = [`POST /v1/batches HTTP/1.1`, 'Host: x', `Authorization: Bearer ${UPLOAD_TOKEN}`, 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`, ...extraHeaders];
  return rawExchange(ingestPort(), [head.join('\r\n') + '\r\n\r\n' + body]);
}

describe('tokens and headers', () => {
  test('a missing, wrong or read token is 401 with WWW-Authenticate', async () => {
    for (const token of [null, 'wrong-token-0123456789', TEST_TOKEN]) {
      const answer = await postBatch(server.ingestUrl, batch({ samples: [ONE] }), { token });
      assert.equal(answer.status, 401);
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(answer.body, { error: 'missing or invalid bearer token' });
    }
  });

  test('an unsupported X-Puls-Protocol is the fixed 400, before the body is read', async () => {
    for (const version of ['2', '0', '1.5', 'one']) {
      await refused(batch({ samples: [ONE] }), 400, FIXED_VERSION_BODY, { headers: { 'x-puls-protocol': version } });
    }
    // Not even a body: the header alone decides.
    await refused('', 400, FIXED_VERSION_BODY, { headers: { 'x-puls-protocol': '2' } });
  });

  test('an unsupported or non-integer schemaVersion is the fixed 400, checked before any other header field', async () => {
    for (const schemaVersion of [2, 1.5, '1', true]) {
      await refused(batch({ samples: [ONE] }, { schemaVersion, batchID: 'not-a-uuid' }), 400, FIXED_VERSION_BODY);
    }
  });

  test('a malformed X-User-ID or X-Wake-ID is 400', async () => {
    await refused(batch({ samples: [ONE] }), 400, /^X-User-ID must be a uuid$/, { headers: { 'x-user-id': 'ada' } });
    await refused(batch({ samples: [ONE] }), 400, /^X-Wake-ID must be a uuid$/, { headers: { 'x-wake-id': '1234' } });
  });

  test('an X-User-ID sent empty, or twice, is 400: it never writes into the default user', async () => {
    const body = batch({ samples: [ONE] });
    assert.match(await rawPost(['X-User-ID: '], body), /^HTTP\/1\.1 400 [^]*"X-User-ID must be a uuid"/);
    const other = 'cccccccc-0000-4000-8000-00000000000a';
    assert.match(await rawPost([`X-User-ID: ${other}`, 'X-User-ID: junk'], body), /^HTTP\/1\.1 400 [^]*"X-User-ID must be given once"/);
    assert.match(await rawPost([`X-User-ID: ${other}`, `X-User-ID: ${other}`], body), /^HTTP\/1\.1 400 [^]*"X-User-ID must be given once"/);
  });

  test('HTTP framing: Content-Length given twice closes the connection unanswered, nothing behind it served; a HEAD answer has no body', async () => {
    const smuggled = await rawExchange(ingestPort(), [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 38\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]);
    assert.equal(smuggled, '', 'no answer, and none for the request smuggled behind it');
    const head = await rawExchange(ingestPort(), ['HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    assert.match(head, /^HTTP\/1\.1 405 [^]*?\r\n\r\nHTTP\/1\.1 200 [^]*\{"ok":true\}$/, 'the next answer follows the HEAD answer\'s head at once');
  });

  test('a 413 has a well-formed status line (a reason after the code)', async () => {
    const reply = await rawPost([], batch({ samples: [] }, { sampleCount: 100_001 }));
    assert.match(reply, /^HTTP\/1\.1 413 Content Too Large\r\n/);
  });

  test('an unsupported Content-Encoding is 400', async () => {
    await refused(batch({ samples: [ONE] }), 400, /Content-Encoding "br" is not supported/, { headers: { 'content-encoding': 'br' } });
  });

  test('wrong method and unknown path', async () => {
    const get = await getIngest(server.ingestUrl, '/v1/batches');
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const unknown = await getIngest(server.ingestUrl, '/v1/nope');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { error: 'not found' });
  });
});

describe('bodies', () => {
  test('garbage: not gzip, not JSON, not an object', async () => {
    await refused(Buffer.from('this is not gzip at all'), 400, /^body is not valid gzip/, { headers: { 'content-encoding': 'gzip' } });
    await refused('hello\n', 400, /^line 1: not valid JSON/);
    // JSON.parse quotes the line around the fault; the answer does not pass a person's data back.
    const leaky = batch({}, { profileCount: 1 }) + '{"profile":{"name":"Jane Q Patient","email":jane.q@example.org}}\n';
    await refused(leaky, 400, '{"error":"line 2: not valid JSON (Unexpected token \'j\')"}');
    await refused('[1,2]\n', 400, /^line 1: the header must be a JSON object$/);
    await refused('', 400, /the body is empty/);
  });

  test('a phone that drops off mid-upload: nothing stored, logged as gone (info), not as a failure', async () => {
    const head = batch({}, { sampleCount: 2 }) + JSON.stringify(ONE) + '\n';
    const socket = connect(ingestPort(), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`POST /v1/batches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${UPLOAD_TOKEN}\r\nContent-Length: 100000\r\n\r\n${head}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await waitFor('the hang-up logged', async () => server.output().includes('batch abandoned: the client went away'), 5_000);
    assert.doesNotMatch(server.output(), /"batch failed"/);
  });

  test('a line that is not UTF-8 is 400 naming it among many lines (blank lines counted); an earlier bad line is named first', async () => {
    const samples = Array.from({ length: 300 }, (_, i) => heartRate(`AAAAAAAA-0000-4000-8000-${String(i + 100).padStart(12, '0')}`, T + i * 1000, 60));
    const lines = batch({ samples }).split('\n');
    lines.splice(2, 0, '   ');
    const bytes = (bad: Map<number, Buffer>) => Buffer.concat(lines.map((line, i) => Buffer.concat([bad.get(i + 1) ?? Buffer.from(line), Buffer.from('\n')])));
    const latin1 = Buffer.from(lines[199], 'latin1');
    latin1[latin1.length - 3] = 0xe9;
    for (const plain of [false, true]) {
      const headers: Record<string, string> = plain ? {} : { 'content-encoding': 'gzip' };
      const body = (bad: Map<number, Buffer>) => (plain ? bytes(bad) : gzipSync(bytes(bad)));
      await refused(body(new Map([[200, latin1]])), 400, /^line 200: is not valid UTF-8$/, { headers });
      await refused(body(new Map([[200, latin1], [5, Buffer.from('{"uuid":')]])), 400, /^line 5: not valid JSON/, { headers });
    }
  });

  test('truncated gzip is 400', async () => {
    const whole = gzipSync(batch({ samples: [ONE] }));
    await refused(whole.subarray(0, whole.length - 6), 400, /not valid gzip/, { headers: { 'content-encoding': 'gzip' } });
  });

  test('identity bodies are read as they are', async () => {
    await refused(batch({ samples: [ONE] }, { sampleCount: 2 }), 400, /the body ended after 1 of 2 declared sample lines/, { plain: true, headers: { 'content-encoding': 'identity' } });
  });

  test('fewer lines than declared, more lines than declared', async () => {
    await refused(batch({ samples: [ONE] }, { sampleCount: 2, deletionCount: 1 }), 400, /^the body ended after 1 of 2 declared sample lines \(and 1 more lines declared after them\)$/);
    await refused(batch({ samples: [ONE, ONE] }, { sampleCount: 1 }), 400, /^line 3: more lines than the header declared$/);
  });

  test('a line of the wrong type in its slot, an unknown wrapper, a wrapper with company', async () => {
    await refused(batch({ deletions: [{ uuid: ONE.uuid, type: 'x' }] }, { sampleCount: 1, deletionCount: 0 }), 400, /^line 2: expected a sample line but found a deletion line/);
    const lines = batch({ samples: [ONE] }).split('\n');
    lines[1] = JSON.stringify({ heartbeatSeriesChunk: { workoutUUID: 'x' } });
    await refused(lines.join('\n'), 400, /^line 2: unknown line type "heartbeatSeriesChunk"$/);
    // A key that does not read as a wrapper's name could be anything a person wrote: it is not named back.
    lines[1] = JSON.stringify({ 'diagnosis: jane@example.org': {} });
    await refused(lines.join('\n'), 400, '{"error":"line 2: unknown line type"}');
    lines[1] = JSON.stringify({ deleted: { uuid: ONE.uuid, type: 'x' }, extra: 1 });
    await refused(lines.join('\n'), 400, /^line 2: a deletion line \(\{"deleted":…\}\) must hold only its "deleted" key$/);
    await refused(batch({}, { profileCount: 1 }) + '{"profile":null}\n', 400, /^line 2: profile must be an object$/);
  });

  test('line checks name the line and the field', async () => {
    const bad: Array<[object, RegExp]> = [
      [{ ...ONE, start: undefined }, /^line 2: start is required$/],
      [{ ...ONE, start: 0 }, /^line 2: start must be an epoch-ms timestamp from 0001-01-01 to 9999-12-31 \(0 counts as absent\)$/],
      [{ ...ONE, start: 253402300800000 }, /^line 2: start must be an epoch-ms timestamp from 0001-01-01 to 9999-12-31 \(0 counts as absent\)$/],
      [{ ...ONE, end: 1e20 }, /^line 2: end must be an epoch-ms timestamp/],
      [{ ...ONE, uuid: 'nope' }, /^line 2: uuid must be a uuid/],
      [{ ...ONE, kind: 'activitySummary' }, /^line 2: kind must be one of quantity, category/],
      [{ ...ONE, kind: 'category' }, /^line 2: category is required$/],
      [{ ...ONE, kind: 'category', category: 40000 }, /^line 2: category is required for a category sample/],
      [{ ...ONE, kind: 'workout', workout: { activityType: 'running' } }, /^line 2: workout.duration is required$/],
      [{ ...ONE, kind: 'heartbeatSeries', heartbeats: [[0.5, false, 1]] }, /^line 2: heartbeats/],
      [{ ...ONE, metadata: { nested: { no: 1 } } }, /^line 2: metadata/],
      // Names the store indexes: past INGEST.nameChars they would not fit an index entry, a 503 on every retry.
      [{ ...ONE, type: 'HKQuantityTypeIdentifier' + 'x'.repeat(4000) }, new RegExp(`^line 2: type must be a non-empty string of at most ${INGEST.nameChars} characters$`)],
      [{ ...ONE, sourceName: 'x'.repeat(INGEST.nameChars + 1) }, new RegExp(`^line 2: sourceName must be a string of at most ${INGEST.nameChars} characters, or null$`)],
      [{ ...ONE, device: 'x'.repeat(4000) }, new RegExp(`^line 2: device must be a string of at most ${INGEST.nameChars} characters, or null$`)],
      [{ ...ONE, kind: 'workout', workout: { activityType: 'x'.repeat(4000), duration: 1 } }, /^line 2: workout.activityType must be a non-empty string of at most/],
    ];
    for (const [line, message] of bad) await refused(batch({ samples: [line] }), 400, message);
    await refused(batch({ summaries: [{ date: T, moveMode: 2 }] }), 400, /^line 2: activitySummary.moveMode must be 0, 1 or null$/);
    await refused(batch({ summaries: [{ date: T, localDate: '2024-02-30' }] }), 400, /^line 2: activitySummary.localDate must be a calendar date/);
    await refused(batch({ summaries: [{ date: T, localDate: '0000-01-01' }] }), 400, /^line 2: activitySummary.localDate must be a calendar date \(YYYY-MM-DD\) from 0001-01-01 to 9999-12-31$/);
    // A legacy date shifted by its offset past the last storable day.
    const context = { timeZoneID: 'Pacific/Kiritimati', utcOffsetSeconds: 86_400, source: 'device', confidence: 'high' };
    await refused(batch({ summaries: [{ date: 253402300799999, temporalContext: context }] }), 400, /^line 2: activitySummary.date must fall on a day from 0001-01-01 to 9999-12-31$/);
    const bucket = { type: 'HKQuantityTypeIdentifierStepCount', func: 'sum', intervalUnit: 'day', deviceFilter: 'all', bucketStart: T, bucketEnd: T + 1, value: 1 };
    await refused(batch({ aggregates: [{ ...bucket, intervalValue: 3e9 }] }), 400, new RegExp(`^line 2: aggregate.intervalValue must be an integer from 1 to ${INGEST.intervalValueMax}$`));
    await refused(batch({ aggregates: [{ ...bucket, intervalValue: 1, type: 'x'.repeat(300) }] }), 400, /^line 2: aggregate.type must be a non-empty string of at most/);
    await refused(batch({ aggregates: [{ type: 'HKQuantityTypeIdentifierStepCount', func: 'median', intervalValue: 1, intervalUnit: 'day', deviceFilter: 'all', bucketStart: T, bucketEnd: T + 1, value: 1 }] }), 400, /^line 2: aggregate.func must be one of/);
    await refused(batch({ aggregates: [{ type: 'HKQuantityTypeIdentifierStepCount', func: 'sum', intervalValue: 1, intervalUnit: 'day', deviceFilter: 'all', bucketStart: T, bucketEnd: T, value: 1 }] }), 400, /^line 2: aggregate.bucketEnd must be after aggregate.bucketStart$/);
    await refused(batch({ routes: [{ workoutUUID: ONE.uuid, points: [{ t: T, lat: 1 }] }] }), 400, /^line 2: route.points\[0\].lon is required$/);
    await refused(batch({ samples: [ONE] }, { batchID: undefined }), 400, /^line 1: header.batchID is required$/);
    await refused(batch({ samples: [ONE] }, { sampleCount: -1 }), 400, /^line 1: header.sampleCount must be an integer ≥ 0 or null$/);
    await refused(batch({}, { profileCount: 2 }), 400, /^line 1: header.profileCount must be 0, 1 or null$/);
  });

  test('a refusal early in a large body is answered at once, while the rest is still coming', async () => {
    const rest = Array.from({ length: 40_000 }, (_, i) => JSON.stringify(heartRate(`BBBBBBBB-0000-4000-8000-${String(i).padStart(12, '0')}`, T + i, 60))).join('\n');
    const body = batch({}, { sampleCount: 40_001 }) + JSON.stringify({ ...ONE, kind: 'nope' }) + '\n' + rest + '\n';
    assert.ok(body.length > 8_000_000);
    await refused(body, 400, /^line 2: kind must be one of/, { plain: true });
  });

  test('after an early refusal the connection reads the rest of a body up to the linger limit and serves the next request; past it, it closes', async () => {
    const refusedBody = (bytes: number) => {
      const head = batch({}, { sampleCount: 2 }) + JSON.stringify({ ...ONE, kind: 'nope' }) + '\n';
      return Buffer.concat([Buffer.from(head), Buffer.alloc(bytes - head.length, 0x20)]);
    };
    const exchange = (body: Buffer, declared = body.length) =>
      rawExchange(ingestPort(), [
        `POST /v1/batches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${UPLOAD_TOKEN}\r\nContent-Type: application/x-ndjson\r\nX-Puls-Protocol: 1\r\nContent-Length: ${declared}\r\n\r\n`,
        body,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ]);
    const lingered = await exchange(refusedBody(INGEST.lingerBytes));
    assert.match(lingered, /^HTTP\/1\.1 400 [^]*line 2: kind must be one of[^]*HTTP\/1\.1 200 /, 'the refusal, then the next request\'s answer');
    assert.doesNotMatch(lingered.split('HTTP/1.1 200')[0], /connection: close/i);
    const cut = await exchange(refusedBody(64 * 1024), INGEST.lingerBytes + 1);
    assert.match(cut, /^HTTP\/1\.1 400 [^]*connection: close/i);
    assert.doesNotMatch(cut, /HTTP\/1\.1 200 /, 'past the linger limit nothing more is read');
  });

  test('over the limits: 413', async () => {
    await refused(batch({ samples: [] }, { sampleCount: 100_001 }), 413, /at most 100000/);
    await refused(batch({ samples: [] }, { sampleCount: 100_000, deletionCount: 100_000, routeCount: 1 }), 413, /at most 200000/);
    const longLine = JSON.stringify({ ...ONE, metadata: { note: 'x'.repeat(4 * 1024 * 1024) } });
    await refused(batch({}, { sampleCount: 1 }) + longLine + '\n', 413, /^line 2 exceeds 4 MiB$/);
    // Points past a line's limit are a limit too (README: 413 past them), as the batch's are.
    const points = (n: number) => Array.from({ length: n }, (_, i) => ({ t: T + i * 1000, lat: 1, lon: 2, value: 3 }));
    const over = INGEST.pointsPerLine + 1;
    await refused(batch({ routes: [{ workoutUUID: ONE.uuid, points: points(over) }] }), 413, `{"error":"line 2: route.points holds more than ${INGEST.pointsPerLine} points"}`);
    await refused(batch({ series: [{ workoutUUID: ONE.uuid, type: 'HKQuantityTypeIdentifierHeartRate', unit: 'count/min', points: points(over) }] }), 413, `{"error":"line 2: series.points holds more than ${INGEST.pointsPerLine} points"}`);
  });

  test('a body over 128 MiB once inflated is 413, found while inflating', async () => {
    // A header, then 130 blank lines of 1 MiB spaces: about 130 KiB of gzip.
    const gzip = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => parts.push(chunk));
    const done = new Promise((resolve) => gzip.on('end', resolve));
    gzip.write(batch({}));
    const spaces = Buffer.alloc(1024 * 1024, 0x20);
    spaces[spaces.length - 1] = 0x0a;
    for (let i = 0; i < 130; i++) gzip.write(spaces);
    gzip.end();
    await done;
    const bomb = Buffer.concat(parts);
    assert.ok(bomb.length < 1024 * 1024);
    await refused(bomb, 413, /^body exceeds 128 MiB once decompressed$/, { headers: { 'content-encoding': 'gzip' } });
  });
});

describe('after every refusal', () => {
  test('nothing was stored', async () => {
    const [counts] = await db.query(
      `SELECT (SELECT count(*) FROM samples)::int AS samples, (SELECT count(*) FROM upload_batches)::int AS batches,
              (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM aggregate_buckets)::int AS buckets,
              (SELECT count(*) FROM activity_summaries)::int AS days, (SELECT count(*) FROM workout_routes)::int AS routes`,
    );
    assert.deepEqual(counts, { samples: 0, batches: 0, users: 0, buckets: 0, days: 0, routes: 0 });
    // And the receiver still works.
    const answer = await postBatch(server.ingestUrl, batch({ samples: [ONE] }));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.accepted, 1);
    const [user] = await db.query('SELECT user_id::text AS id FROM users');
    assert.equal(user.id, SYNC_USER);
  });
});

// After the refusals' check: this one stores a batch.
describe('uploads that stall after their header line', () => {
  test('hold no database session: more of them than the pool has sessions, and another phone\'s batch is still stored', async () => {
    const small = await startServer({ databaseUrl: db.url, receiver: true, env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN, INGEST_DB_POOL_SIZE: '2', DB_CONNECT_TIMEOUT_MS: '1000' } });
    const stalled: Socket[] = [];
    try {
      const port = Number(new URL(small.ingestUrl).port);
      const header = batch({ samples: [ONE] }).split('\n')[0] + '\n';
      for (let i = 0; i < 4; i++) {
        const socket = connect(port, '127.0.0.1');
        await once(socket, 'connect');
        socket.on('error', () => {});
        // Its header line, then nothing of the rest it announced.
        socket.write(`POST /v1/batches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${UPLOAD_TOKEN}\r\nContent-Length: 100000\r\n\r\n${header}`);
        stalled.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = { ...ONE, uuid: 'AAAAAAAA-0000-4000-8000-0000000000F1' };
      const answer = await postBatch(small.ingestUrl, batch({ samples: [other] }), { headers: { 'x-user-id': '5ea4d000-0000-4000-8000-0000000000f1' } });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.accepted, 1);
    } finally {
      for (const socket of stalled) socket.destroy();
      await small.stop();
    }
  });
});
