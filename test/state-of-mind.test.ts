// Issue 3: /v1/state-of-mind on real servers and databases in America/New_York
// (both 2026 DST changes) and Asia/Kolkata (+05:30): whole local days for any
// range that touches them, oldest first, `date` as the entry's local day, the
// 366-day and 366-local-day caps, [] for missing lists, refusals and user
// isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const DAY = 86_400_000;
const MIN = 60_000;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Entry {
  uuid: string;
  date: string;
  timestamp: number;
  kind: string;
  valence: number | null;
  valenceClassification: string | null;
  labels: string[];
  associations: string[];
}

const entry = (n: number, date: string, timestamp: number, extra: Partial<Entry> = {}): Entry => ({
  uuid: uuid(n),
  date,
  timestamp,
  kind: 'momentaryEmotion',
  valence: 0.5,
  valenceClassification: 'slightlyPleasant',
  labels: ['calm'],
  associations: ['work'],
  ...extra,
});

async function insertEntries(database: TestDatabase, userId: string, entries: Entry[]): Promise<void> {
  for (const e of entries) {
    await database.query(
      `INSERT INTO state_of_mind (user_id, uuid, logged_at_ms, kind, valence, valence_classification, labels, associations)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [userId, e.uuid, e.timestamp, e.kind, e.valence, e.valenceClassification, e.labels, e.associations],
    );
  }
}

async function serve(zone: string): Promise<{ db: TestDatabase; server: TestServer }> {
  const db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', $1)`, [zone]);
  await db.query(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [DEFAULT_USER, OTHER_USER]);
  const server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: zone, SERVICE_MULTI_USER: 'true' } });
  return { db, server };
}

after(() => stopOwnCluster());

describe('America/New_York', () => {
  let db: TestDatabase;
  let server: TestServer;
  // Local midnights (EST = UTC−5, EDT = UTC−4):
  const mar8 = Date.UTC(2026, 2, 8, 5); //  2026-03-08 00:00 EST (a 23-hour day)
  const mar9 = Date.UTC(2026, 2, 9, 4); //  2026-03-09 00:00 EDT
  const nov1 = Date.UTC(2026, 10, 1, 4); // 2026-11-01 00:00 EDT (a 25-hour day)
  const nov2 = Date.UTC(2026, 10, 2, 5); // 2026-11-02 00:00 EST

  const e1 = entry(1, '2026-03-07', mar8 - 1); //                 23:59:59.999 EST on the 7th
  const e2 = entry(2, '2026-03-08', mar8, { labels: null as unknown as string[], associations: null as unknown as string[] });
  const e3 = entry(3, '2026-03-08', mar8 + 12 * 3_600_000, { kind: 'dailyMood', valence: null, valenceClassification: null });
  const e4 = entry(4, '2026-03-08', mar8 + 12 * 3_600_000, { valence: -0.8, valenceClassification: 'veryUnpleasant' }); // same instant as e3
  // 23:59:59.999 EDT on the 8th; its lists hold NULL elements, left out of the answer's arrays of strings.
  const e5 = entry(5, '2026-03-08', mar9 - 1, { labels: ['calm', null, 'tired'] as string[], associations: [null] as unknown as string[] });
  const e6 = entry(6, '2026-03-09', mar9); //                     00:00 EDT on the 9th
  const e7 = entry(7, '2026-11-01', nov1); //                     00:00 EDT on the 1st
  const e8 = entry(8, '2026-11-01', nov1 + 24 * 3_600_000 + 30 * MIN); // 23:30 EST, still the 1st
  const e9 = entry(9, '2026-11-02', nov2); //                     00:00 EST on the 2nd
  const theirs = entry(10, '2026-03-08', mar8 + 6 * 3_600_000, { valence: 1, valenceClassification: 'veryPleasant' });

  before(async () => {
    ({ db, server } = await serve('America/New_York'));
    // Inserted out of order: the answer is ordered by timestamp, then uuid.
    await insertEntries(db, DEFAULT_USER, [e9, e5, e4, e3, e2, e1, e6, e8, e7]);
    await insertEntries(db, OTHER_USER, [theirs]);
  });

  after(async () => {
    await server?.stop();
    await db?.drop();
  });

  const mind = (query: string) => server.getJson(`/v1/state-of-mind?${query}`);
  // e2 was stored with NULL lists; the answer carries [].
  const e2Out = { ...e2, labels: [], associations: [] };
  const e5Out = { ...e5, labels: ['calm', 'tired'], associations: [] };

  test('one minute of the 23-hour 8 March returns the whole day, oldest first, ties by uuid', async () => {
    // 12:00–12:01Z is 08:00–08:01 EDT on the 8th.
    const { status, body, headers } = await mind(`start=${Date.UTC(2026, 2, 8, 12)}&end=${Date.UTC(2026, 2, 8, 12, 1)}`);
    assert.equal(status, 200);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.deepEqual(body, { entries: [e2Out, e3, e4, e5Out] });
  });

  test('grazing one minute on each side of a midnight returns both whole days', async () => {
    // 23:59 EDT on the 8th → 00:01 EDT on the 9th: all of the 8th and the 9th (e2–e6), not e1 (the 7th).
    const { body } = await mind(`start=${mar9 - MIN}&end=${mar9 + MIN}`);
    assert.deepEqual(body.entries, [e2Out, e3, e4, e5Out, e6]);
  });

  test('the 25-hour 1 November: 00:00 EDT to 00:00 EST is one day; 23:30 EST belongs to it', async () => {
    const { body } = await mind(`start=${nov1}&end=${nov2}`);
    assert.deepEqual(body.entries, [e7, e8]);
    // One millisecond past 00:00 EST reaches the 2nd.
    const more = await mind(`start=${nov1}&end=${nov2 + 1}`);
    assert.deepEqual(more.body.entries, [e7, e8, e9]);
  });

  test('another user\'s entries never appear; user= reads them with multi-user on', async () => {
    const mine = await mind(`start=${mar8}&end=${mar9}`);
    assert.ok(!mine.body.entries.some((e: Entry) => e.uuid === theirs.uuid));
    const other = await mind(`start=${mar8}&end=${mar9}&user=${OTHER_USER}`);
    assert.deepEqual(other.body, { entries: [theirs] });
  });

  test('the export writes the lists as the route answers them, NULL elements left out', async () => {
    const range = `dataset=state_of_mind&start=${mar9 - MIN}&end=${mar9 - 1}`;
    const jsonl = await (await server.get(`/v1/export?format=jsonl&${range}`)).text();
    const fifth = jsonl.trimEnd().split('\n').map((line) => JSON.parse(line)).find((row) => row.uuid === e5.uuid);
    assert.deepEqual([fifth.labels, fifth.associations], [['calm', 'tired'], []]);
    const csv = await (await server.get(`/v1/export?format=csv&${range}`)).text();
    assert.ok(csv.includes(`${e5.uuid},2026-03-08,${e5.timestamp},momentaryEmotion,0.5,slightlyPleasant,"calm,tired",""\r\n`), csv);
  });

  test('no entries is an empty array', async () => {
    const { status, body } = await mind(`start=${Date.UTC(2026, 5, 1)}&end=${Date.UTC(2026, 5, 2)}`);
    assert.equal(status, 200);
    assert.deepEqual(body, { entries: [] });
  });

  test('caps: 366 days from local midnight is fine; more time or a 367th local day is a 400', async () => {
    // 2026-01-01 00:00 EST = 05:00Z; + 366 × 24 h = 2027-01-02 00:00 EST: local days 2026-01-01 … 2027-01-01 = 365 + 1 = 366.
    const jan1 = Date.UTC(2026, 0, 1, 5);
    const ok = await mind(`start=${jan1}&end=${jan1 + 366 * DAY}`);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.entries, [e1, e2Out, e3, e4, e5Out, e6, e7, e8, e9]);
    const longer = await mind(`start=${jan1}&end=${jan1 + 366 * DAY + 1}`);
    assert.equal(longer.status, 400);
    assert.equal(longer.body.error, 'range must not exceed 366 days (start and end are epoch milliseconds)');
    // From noon: the same 366 × 24 h ends at noon on 2027-01-02, touching 2026-01-01 … 2027-01-02 = 367 local days.
    const noon = jan1 + 12 * 3_600_000;
    const touching = await mind(`start=${noon}&end=${noon + 366 * DAY}`);
    assert.equal(touching.status, 400);
    assert.equal(touching.body.error, 'range must not touch more than 366 local days (start and end are epoch milliseconds)');
  });

  test('refusals: end not after start, missing bounds', async () => {
    for (const [query, message] of [
      [`start=${mar9}&end=${mar9}`, /^end must be after start \(start and end are epoch milliseconds\)$/],
      [`start=${mar9}&end=${mar8}`, /^end must be after start \(start and end are epoch milliseconds\)$/],
      [`start=${mar9}`, /end/],
      [`end=${mar9}`, /start/],
      [`start=abc&end=${mar9}`, /start/],
    ] as const) {
      const { status, body } = await mind(query);
      assert.equal(status, 400, query);
      assert.match(body.error, message);
    }
  });
});

describe('Asia/Kolkata', () => {
  let db: TestDatabase;
  let server: TestServer;
  // 2026-01-15 00:00 IST = 2026-01-14 18:30Z; 2026-01-16 00:00 IST = 2026-01-15 18:30Z.
  const jan15 = Date.UTC(2026, 0, 14, 18, 30);
  const jan16 = Date.UTC(2026, 0, 15, 18, 30);
  const k1 = entry(21, '2026-01-14', jan15 - 1); // 23:59:59.999 IST on the 14th (18:29:59.999Z)
  const k2 = entry(22, '2026-01-15', jan15); //     00:00 IST on the 15th, still the 14th in UTC
  const k3 = entry(23, '2026-01-15', jan16 - 1); // 23:59:59.999 IST on the 15th
  const k4 = entry(24, '2026-01-16', jan16); //     00:00 IST on the 16th, still the 15th in UTC

  before(async () => {
    ({ db, server } = await serve('Asia/Kolkata'));
    await insertEntries(db, DEFAULT_USER, [k4, k3, k2, k1]);
  });

  after(async () => {
    await server?.stop();
    await db?.drop();
  });

  test('the last minute of 15 January returns that whole local day', async () => {
    // 23:59–24:00 IST on the 15th.
    const { status, body } = await server.getJson(`/v1/state-of-mind?start=${jan16 - MIN}&end=${jan16}`);
    assert.equal(status, 200);
    assert.deepEqual(body, { entries: [k2, k3] });
  });

  test('the UTC day 2026-01-15 touches local 15th and 16th', async () => {
    // 00:00Z = 05:30 IST on the 15th; 24:00Z = 05:30 IST on the 16th.
    const { body } = await server.getJson(`/v1/state-of-mind?start=${Date.UTC(2026, 0, 15)}&end=${Date.UTC(2026, 0, 16)}`);
    assert.deepEqual(body, { entries: [k2, k3, k4] });
  });
});
