// Issue 3: /v1/samples on a real server and database — raw rows as synced
// (watch and phone both), order and stable paging, labels and units per kind,
// the 31-day cap, refusals and user isolation — and the plans of the samples
// and latest-metric queries on ~50k analysed rows: index scans, never a
// sequential scan of samples.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { LATEST_METRICS_SQL } from '../src/db/queries/metrics.js';
import { SAMPLE_TYPE_ID_SQL } from '../src/db/names.js';
import { samplesSelectSql } from '../src/db/queries/export-copy.js';
import { writtenBody } from '../src/http/reply.js';
import { BINARY_COPY_HEADER } from '../src/db/writes/sample-copy.js';
import type { SamplesPageData } from '../src/db/queries/samples.js';
import { samplesPageBody } from '../src/routes/samples-body.js';
import { INGEST } from '../src/limits.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const HEART = 'HKQuantityTypeIdentifierHeartRate';
const STEPS = 'HKQuantityTypeIdentifierStepCount';
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const BEATS = 'HKDataTypeIdentifierHeartbeatSeries';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 1); // 2026-05-01 00:00Z
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let db: TestDatabase;
let server: TestServer;

async function seed(database: TestDatabase): Promise<void> {
  await database.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  await database.query(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [DEFAULT_USER, OTHER_USER]);
  await database.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (2, $2), (3, $3), (4, $4)`, [HEART, STEPS, SLEEP, BEATS]);
  await database.query(`INSERT INTO sources (source_id, name, device) VALUES (1, 'Watch', 'Watch7,1'), (2, 'Phone', 'iPhone16,1')`);
  await database.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     -- heart rate: watch (uuid 2) and phone (uuid 1) overlap at T0; both are served, uuid 1 first.
     ($1, '${uuid(2)}', 1, $3::bigint, $3::bigint + 60000, 60, 1),
     ($1, '${uuid(1)}', 1, $3::bigint, $3::bigint + 60000, 61, 2),
     ($1, '${uuid(3)}', 1, $3::bigint + 1000, $3::bigint + 2000, 62.5, NULL),
     -- one millisecond before T0, and at T0 + 1 day (outside [T0, T0 + 1 day)).
     ($1, '${uuid(4)}', 1, $3::bigint - 1, $3::bigint, 59, 1),
     ($1, '${uuid(5)}', 1, $3::bigint + ${DAY}, $3::bigint + ${DAY}, 70, 1),
     -- sleep: asleepCore (3) and awake (2).
     ($1, '${uuid(6)}', 3, $3::bigint + 3600000, $3::bigint + 7200000, 3, 1),
     ($1, '${uuid(7)}', 3, $3::bigint + 7200000, $3::bigint + 7500000, 2, 1),
     -- a heartbeat series: no value, detail in metadata.
     ($1, '${uuid(8)}', 4, $3::bigint + 500, $3::bigint + 60500, NULL, 1),
     -- the other user's heart rate inside the range.
     ($2, '${uuid(9)}', 1, $3::bigint + 500, $3::bigint + 600, 150, 1)`,
    [DEFAULT_USER, OTHER_USER, T0],
  );
}

before(async () => {
  db = await createTestDatabase();
  await seed(db);
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

const samples = (query: string) => server.getJson(`/v1/samples?${query}`);

async function expect400(query: string, message?: RegExp): Promise<void> {
  const { status, body } = await samples(query);
  assert.equal(status, 400, `${query} → ${JSON.stringify(body)}`);
  if (message) assert.match(body.error, message);
}

describe('/v1/samples', () => {
  const day = `start=${T0}&end=${T0 + DAY}`;

  test('raw rows in [start, end), by start then uuid, overlapping sources both served', async () => {
    const { status, body, headers } = await samples(`type=${HEART}&${day}`);
    assert.equal(status, 200);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.deepEqual(body, {
      type: HEART,
      kind: 'quantity',
      unit: 'count/min',
      samples: [
        { uuid: uuid(1), start: T0, end: T0 + 60000, value: 61, label: null, source: 'Phone' },
        { uuid: uuid(2), start: T0, end: T0 + 60000, value: 60, label: null, source: 'Watch' },
        { uuid: uuid(3), start: T0 + 1000, end: T0 + 2000, value: 62.5, label: null, source: null },
      ],
      nextOffset: 3, // 0 + 3
    });
  });

  test('paging is stable: limit 2, then the rest', async () => {
    const first = await samples(`type=${HEART}&${day}&limit=2`);
    assert.deepEqual(first.body.samples.map((s: { uuid: string }) => s.uuid), [uuid(1), uuid(2)]);
    assert.equal(first.body.nextOffset, 2); // 0 + 2
    const second = await samples(`type=${HEART}&${day}&limit=2&offset=${first.body.nextOffset}`);
    assert.deepEqual(second.body.samples.map((s: { uuid: string }) => s.uuid), [uuid(3)]);
    assert.equal(second.body.nextOffset, 3); // 2 + 1, fewer than 2: last page
    // Pages of one cut the tie at T0 by uuid: 1, then 2, then 3.
    for (const [offset, expected] of [[0, uuid(1)], [1, uuid(2)], [2, uuid(3)]] as const) {
      const single = await samples(`type=${HEART}&${day}&limit=1&offset=${offset}`);
      assert.deepEqual(single.body.samples.map((s: { uuid: string }) => s.uuid), [expected]);
      assert.equal(single.body.nextOffset, offset + 1);
    }
    const past = await samples(`type=${HEART}&${day}&offset=7`);
    assert.deepEqual(past.body.samples, []);
    assert.equal(past.body.nextOffset, 7);
  });

  test('a page read past the query limit is a 504; the connections go on serving pages', async () => {
    // One pool connection, so the page after the 504 runs on the connection whose COPY was cancelled, or its replacement.
    const limited = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true', QUERY_TIMEOUT_MS: '300', DB_POOL_SIZE: '1' } });
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      const before = await limited.getJson(`/v1/samples?type=${HEART}&${day}`); // the type id is cached now: only the page waits below
      assert.equal(before.status, 200);
      assert.equal(before.body.samples.length, 3);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE samples IN ACCESS EXCLUSIVE MODE');
      const blocked = await limited.getJson(`/v1/samples?type=${HEART}&${day}`);
      assert.equal(blocked.status, 504);
      assert.deepEqual(blocked.body, { error: 'query took too long; narrow the range' });
      await locker.query('ROLLBACK');
      for (let i = 0; i < 3; i++) {
        const after = await limited.getJson(`/v1/samples?type=${HEART}&${day}`);
        assert.equal(after.status, 200);
        assert.deepEqual(after.body, before.body);
      }
    } finally {
      await locker.end();
      await limited.stop();
    }
  });

  test('a limit above 5000 is clamped, not refused', async () => {
    const { status, body } = await samples(`type=${HEART}&${day}&limit=99999`);
    assert.equal(status, 200);
    assert.equal(body.samples.length, 3);
  });

  test('a full page is the exact bytes of its JSON, with its length: long pages, long and non-ASCII source names, many at once', async () => {
    // A page this long is sent in parts through one reused buffer (src/http/reply.ts): a part
    // cut inside a character, a stale byte of the reply before, or a length counted in UTF-16
    // units would show here.
    const third = '00000000-0000-4000-8000-000000000003';
    const long = `${'Ünïcödé '.repeat(5000)}⌚🏃`;
    const sources = new Map<number | null, string | null>([[3, 'Zoë’s Apple Watch ⌚'], [4, long], [null, null]]);
    await db.query(`INSERT INTO users VALUES ($1, 3)`, [third]);
    await db.query(`INSERT INTO sources (source_id, name, device) VALUES (3, $1, 'Watch7,1'), (4, $2, 'iPhone16,1')`, [sources.get(3), long]);
    const sourceOf = (n: number) => (n % 1000 === 999 ? 4 : n % 3 === 0 ? null : 3);
    await db.query(
      `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
       SELECT $1, ('00000000-0000-4000-9000-' || lpad(n::text, 12, '0'))::uuid, 1, $2::bigint + n * 1000, $2::bigint + n * 1000 + 500, 40 + (n % 97) / 4.0,
         CASE WHEN n % 1000 = 999 THEN 4 WHEN n % 3 = 0 THEN NULL ELSE 3 END
       FROM generate_series(1, 6000) n`,
      [third, T0],
    );
    const expected = (limit: number, offset: number): string => {
      const rows = [];
      for (let n = offset + 1; n <= Math.min(6000, offset + limit); n++) {
        const source = sources.get(sourceOf(n)) ?? null;
        rows.push({ uuid: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`, start: T0 + n * 1000, end: T0 + n * 1000 + 500, value: 40 + (n % 97) / 4, label: null, source });
      }
      return JSON.stringify({ type: HEART, kind: 'quantity', unit: 'count/min', samples: rows, nextOffset: offset + rows.length });
    };
    const page = async (limit: number, offset: number) => {
      const response = await server.get(`/v1/samples?type=${HEART}&${day}&user=${third}&limit=${limit}&offset=${offset}`);
      assert.equal(response.status, 200);
      const bytes = Buffer.from(await response.arrayBuffer());
      const want = Buffer.from(expected(limit, offset));
      assert.equal(response.headers.get('content-length'), String(want.length), `limit ${limit} offset ${offset}`);
      assert.ok(bytes.equals(want), `limit ${limit} offset ${offset}: the body is the JSON's bytes`);
      return want.length;
    };
    assert.ok((await page(5000, 0)) > 1_000_000, 'the largest page is over 1 MB');
    await page(3, 0);
    await page(5000, 996);
    const pages: Array<[number, number]> = [];
    for (let i = 0; i < 24; i++) pages.push([[1, 17, 999, 2500, 5000][i % 5], i * 211]);
    await Promise.all(pages.map(([limit, offset]) => page(limit, offset)));
  });

  test('category: value is the enum, label names it, unit is null', async () => {
    const { body } = await samples(`type=${SLEEP}&${day}`);
    assert.deepEqual(body, {
      type: SLEEP,
      kind: 'category',
      unit: null,
      samples: [
        { uuid: uuid(6), start: T0 + 3600000, end: T0 + 7200000, value: 3, label: 'asleepCore', source: 'Watch' },
        { uuid: uuid(7), start: T0 + 7200000, end: T0 + 7500000, value: 2, label: 'awake', source: 'Watch' },
      ],
      nextOffset: 2,
    });
  });

  test('heartbeat series: kind from the registry, null unit and value', async () => {
    const { status, body } = await samples(`type=${BEATS}&${day}`);
    assert.equal(status, 200);
    assert.deepEqual(body, {
      type: BEATS,
      kind: 'heartbeatSeries',
      unit: null,
      samples: [{ uuid: uuid(8), start: T0 + 500, end: T0 + 60500, value: null, label: null, source: 'Watch' }],
      nextOffset: 1,
    });
  });

  test('a known type without rows is an empty array', async () => {
    const { status, body } = await samples(`type=${STEPS}&${day}`);
    assert.equal(status, 200);
    assert.deepEqual(body, { type: STEPS, kind: 'quantity', unit: 'count', samples: [], nextOffset: 0 });
  });

  test('another user\'s rows never appear; user= reads them with multi-user on', async () => {
    const mine = await samples(`type=${HEART}&${day}`);
    assert.ok(!mine.body.samples.some((s: { uuid: string }) => s.uuid === uuid(9)));
    const theirs = await samples(`type=${HEART}&${day}&user=${OTHER_USER}`);
    assert.deepEqual(theirs.body.samples, [{ uuid: uuid(9), start: T0 + 500, end: T0 + 600, value: 150, label: null, source: 'Watch' }]);
  });

  test('exactly 31 days is accepted; one millisecond more is a 400', async () => {
    // [T0 − 1 ms, T0 − 1 ms + 31 days) holds uuid 4 (T0 − 1), 1, 2, 3 and 5 (T0 + 1 day).
    const { status, body } = await samples(`type=${HEART}&start=${T0 - 1}&end=${T0 - 1 + 31 * DAY}`);
    assert.equal(status, 200);
    assert.deepEqual(body.samples.map((s: { uuid: string }) => s.uuid), [uuid(4), uuid(1), uuid(2), uuid(3), uuid(5)]);
    await expect400(`type=${HEART}&start=${T0}&end=${T0 + 31 * DAY + 1}`, /^range must not exceed 31 days \(start and end are epoch milliseconds\)$/);
  });

  test('refusals: types of their own routes, unknown, missing or repeated type, range, limit, offset', async () => {
    for (const own of ['HKWorkoutTypeIdentifier', 'HKActivitySummaryTypeIdentifier', 'HKDataTypeIdentifierStateOfMind']) {
      await expect400(`type=${own}&${day}`, new RegExp(own));
    }
    await expect400(`type=HKQuantityTypeIdentifierFoo&${day}`, /^unknown type: HKQuantityTypeIdentifierFoo \(the types stored for a user are listed at \/v1\/catalog\/types\)$/);
    await expect400(`type=${HEART},${STEPS}&${day}`, /unknown type/);
    await expect400(day, /type/);
    await expect400(`type=${HEART}&type=${STEPS}&${day}`, /type/);
    await expect400(`type=${HEART}&start=${T0}&end=${T0}`, /^end must be after start \(start and end are epoch milliseconds\)$/);
    await expect400(`type=${HEART}&start=${T0}&end=${T0 - 1}`, /^end must be after start \(start and end are epoch milliseconds\)$/);
    await expect400(`type=${HEART}&end=${T0}`, /start/);
    for (const bad of ['0', '-1', '1.5', '1e3', 'abc']) await expect400(`type=${HEART}&${day}&limit=${bad}`, /limit/);
    for (const bad of ['-1', '1.5', '1e3', 'abc']) await expect400(`type=${HEART}&${day}&offset=${bad}`, /offset/);
  });
});

describe('query plans on ~50k analysed rows', () => {
  let plans: TestDatabase;
  let client: pg.Client;

  before(async () => {
    plans = await createTestDatabase();
    await seed(plans);
    // 50 000 more rows: 40 000 heart-rate samples of the default user one minute
    // apart, 5 000 of its step samples, 5 000 heart-rate samples of the other user.
    await plans.query(
      `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
       SELECT CASE WHEN i <= 45000 THEN $1::uuid ELSE $2::uuid END, gen_random_uuid(),
              CASE WHEN i <= 40000 OR i > 45000 THEN 1 ELSE 2 END,
              $3::bigint + i * 60000, $3::bigint + i * 60000 + 30000, 60 + i % 40, 1 + i % 2
       FROM generate_series(1::bigint, 50000::bigint) AS i`,
      [DEFAULT_USER, OTHER_USER, T0],
    );
    await plans.query('ANALYZE');
    client = new pg.Client({ connectionString: plans.url });
    await client.connect();
  });

  after(async () => {
    await client?.end();
    await plans?.drop();
  });

  interface PlanNode {
    'Node Type': string;
    'Relation Name'?: string;
    'Index Name'?: string;
    Plans?: PlanNode[];
  }

  async function planNodes(sql: string, params: unknown[]): Promise<PlanNode[]> {
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const nodes: PlanNode[] = [];
    const walk = (node: PlanNode) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return nodes;
  }

  function assertServedByIndex(nodes: PlanNode[]): void {
    const onSamples = nodes.filter((n) => n['Relation Name'] === 'samples');
    assert.ok(onSamples.length > 0, 'the plan reads samples');
    for (const node of onSamples) assert.notEqual(node['Node Type'], 'Seq Scan', 'no sequential scan of samples');
    assert.ok(nodes.some((n) => n['Index Name'] === 'samples_user_type_start'), 'samples_user_type_start serves the read');
  }

  test('a samples page over a whole month of 40 000 rows is an index range scan', async () => {
    const { rows } = await client.query(SAMPLE_TYPE_ID_SQL, [HEART]);
    assert.deepEqual(rows, [{ type_id: 1 }]);
    assertServedByIndex(await planNodes(samplesSelectSql(DEFAULT_USER, 1, T0, T0 + 31 * DAY, { limit: 5000, offset: 0 }), []));
    assertServedByIndex(await planNodes(samplesSelectSql(DEFAULT_USER, 1, T0, T0 + 31 * DAY, { limit: 1000, offset: 30000 }), []));
  });

  test('the latest metrics are one index probe per type', async () => {
    assertServedByIndex(await planNodes(LATEST_METRICS_SQL, [DEFAULT_USER, [HEART, STEPS, SLEEP]]));
  });
});

describe('a body written as bytes into the kept buffer (writtenBody)', () => {
  test('is exactly what the body wrote, past the buffer it starts with and past what it keeps', () => {
    // Each body writes `length` bytes of a pattern of its own and claims `maxBytes`.
    const sizes: [number, number][] = [
      [1, 1],
      [0, 10],
      [200_000, 200_000],
      [300_000, 600_000], // past the 256 KB it starts with
      [10, 1_000_000],
      [5_000_000, 5_000_000], // past the 4 MB kept: a buffer of its own
      [70_000, 3_000_000],
    ];
    sizes.forEach(([length, maxBytes], n) => {
      const expected = Buffer.alloc(length, `body ${n} `);
      const body = {
        maxBytes,
        writeInto(out: Buffer): number {
          assert.ok(out.length >= maxBytes, `a buffer of ${out.length} bytes for ${maxBytes}`);
          return expected.copy(out, 0);
        },
      };
      const bytes = writtenBody(body);
      assert.ok(Buffer.from(bytes).equals(expected), `body ${n}: ${length} of at most ${maxBytes} bytes`);
    });
  });
});

describe('a samples page body sized before it is written (maxBytes)', () => {
  /** A page's binary COPY: rows of (uuid, start, end, value, source id or null), as samplesPage reads them. */
  function copyPage(sources: readonly (number | null)[]): Buffer {
    const rows = sources.map((source, i) => {
      const row = Buffer.alloc(2 + 20 + 12 * 3 + (source === null ? 4 : 8));
      let o = row.writeInt16BE(5, 0);
      o = row.writeInt32BE(16, o);
      row.fill(i % 256, o, o + 16);
      o += 16;
      for (const instant of [1_767_571_401_793 + i * 1000, 1_767_571_401_793 + i * 1000]) o = row.writeBigInt64BE(BigInt(instant), row.writeInt32BE(8, o));
      o = row.writeDoubleBE(60 + (i % 40), row.writeInt32BE(8, o));
      if (source === null) row.writeInt32BE(-1, o);
      else row.writeInt32BE(source, row.writeInt32BE(4, o));
      return row;
    });
    return Buffer.concat([BINARY_COPY_HEADER, ...rows, Buffer.from([0xff, 0xff])]);
  }

  test("counts each row's own source: a long name on two rows of 1000 does not size them all, and the body still fits", () => {
    // The longest name a writer stores, each character escaped to six bytes: 1,532 bytes of JSON.
    const long = '\u0001'.repeat(INGEST.nameChars);
    const names = new Map([[1, 'Apple Watch'], [2, long]]);
    const rowSources = Array.from({ length: 1000 }, (_, i): number | null => (i === 0 || i === 999 ? 2 : i % 7 === 0 ? null : 1));
    const page: SamplesPageData = {
      data: copyPage(rowSources),
      count: rowSources.length,
      sourceIds: [2, 1, 2],
      sourceRows: [1, rowSources.filter((source) => source === 1).length, 1],
      sources: names,
      release() {},
    };
    const body = samplesPageBody(HEART, page, 0);
    const out = Buffer.alloc(body.maxBytes);
    const length = body.writeInto(out);
    const parsed = JSON.parse(out.toString('utf8', 0, length)) as { samples: { source: string | null }[] };
    assert.deepEqual(parsed.samples.map((sample) => sample.source), rowSources.map((id) => (id === null ? null : names.get(id))));
    // Sized by the longest name on every row, the bound would be about ten times the body.
    assert.ok(body.maxBytes < length * 1.5, `${body.maxBytes} bytes claimed for a body of ${length}`);
  });
});
