// Issue 3: /v1/sleep/daily on a real server and database — nights dated by
// their local wake-up day in America/New_York across both 2026 DST changes and
// in Asia/Kolkata, grazing ranges, watch + phone overlap never summed, ties,
// sessions reaching far before or past the range, caps, user isolation.
// Minutes are counted by hand from the sample instants (UTC) in the comments.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const DAY = 86_400_000;
const [IN_BED, UNSPECIFIED, AWAKE, CORE, DEEP, REM] = [0, 1, 2, 3, 4, 5];
const PHONE = 1;
const WATCH = 2;
const OTHER_APP = 3;

const at = (iso: string) => Date.parse(iso);
type Row = [user: string, source: number | null, value: number | null, start: string, end: string];

async function seed(db: TestDatabase, zone: string, rows: Row[]): Promise<void> {
  await db.query(`INSERT INTO settings VALUES ('time_zone', $1)`, [zone]);
  await db.query(`INSERT INTO sample_types (identifier) VALUES ('HKQuantityTypeIdentifierStepCount'), ($1)`, [SLEEP]);
  await db.query(`INSERT INTO sources (source_id, name) VALUES (1, 'iPhone'), (2, 'Apple Watch'), (3, 'Sleep App')`);
  for (const [user, source, value, start, end] of rows) {
    await db.query(
      `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
       VALUES ($1, gen_random_uuid(), (SELECT type_id FROM sample_types WHERE identifier = $2), $3, $4, $5, $6)`,
      [user, SLEEP, at(start), at(end), value, source],
    );
  }
}

const stages = (s: Partial<Record<'core' | 'deep' | 'rem' | 'unspecified' | 'awake', number>>) => ({
  core: 0,
  deep: 0,
  rem: 0,
  unspecified: 0,
  awake: 0,
  ...s,
});

after(async () => {
  await stopOwnCluster();
});

describe('America/New_York', () => {
  const A = DEFAULT_USER;
  // A long session for the lookback: 2-hour in-bed samples every 4 hours from
  // 02-01 00:00Z (k = 0 … 19); the last starts 76 h later, 02-04 04:00Z, ends 06:00Z.
  const chain: Row[] = Array.from({ length: 20 }, (_, k) => {
    const start = at('2026-02-01T00:00Z') + k * 4 * 3_600_000;
    return [A, PHONE, IN_BED, new Date(start).toISOString(), new Date(start + 2 * 3_600_000).toISOString()];
  });
  const rows: Row[] = [
    // N5, 01-15 (EST, UTC−5): a tie on asleep minutes, broken by staged minutes.
    [A, PHONE, UNSPECIFIED, '2026-01-15T04:00Z', '2026-01-15T09:00Z'], // 300 asleep, 0 staged
    [A, WATCH, CORE, '2026-01-15T04:00Z', '2026-01-15T07:20Z'], // 200
    [A, WATCH, REM, '2026-01-15T07:20Z', '2026-01-15T09:00Z'], // 100 → 300 asleep, 300 staged
    [OTHER_USER, PHONE, IN_BED, '2026-01-15T04:00Z', '2026-01-15T09:00Z'], // 300, someone else's
    // N6, 01-20: equal asleep and staged (240 each); the lower source id (watch, 2) wins.
    [A, OTHER_APP, IN_BED, '2026-01-20T04:00Z', '2026-01-20T09:00Z'], // 300
    [A, OTHER_APP, CORE, '2026-01-20T04:30Z', '2026-01-20T08:30Z'], // 240
    [A, WATCH, DEEP, '2026-01-20T04:30Z', '2026-01-20T08:30Z'], // 240
    // N7: the chain above, dated 02-04 (06:00Z is 01:00 EST).
    ...chain,
    // N8: 21:00–23:00 EST on 02-10, then 01:00–05:00 EST on 02-11 (a 2 h gap): one session, dated 02-11.
    [A, WATCH, CORE, '2026-02-11T02:00Z', '2026-02-11T04:00Z'], // 120
    [A, WATCH, CORE, '2026-02-11T06:00Z', '2026-02-11T10:00Z'], // 240
    // N1, 03-08 (spring forward at 02:00 EST = 07:00Z; the day is 03-08 05:00Z – 03-09 04:00Z, 23 h).
    // Phone in bed 23:00 EST → 07:30 EDT: 8 h 30 on the wall clock, 7 h 30 = 450 min real.
    [A, PHONE, IN_BED, '2026-03-08T04:00Z', '2026-03-08T11:30Z'],
    [A, WATCH, CORE, '2026-03-08T04:30Z', '2026-03-08T06:30Z'], // 120
    [A, WATCH, DEEP, '2026-03-08T06:30Z', '2026-03-08T07:30Z'], // 60
    [A, WATCH, AWAKE, '2026-03-08T07:30Z', '2026-03-08T07:40Z'], // 10, not asleep
    [A, WATCH, REM, '2026-03-08T07:40Z', '2026-03-08T09:40Z'], // 120
    [A, WATCH, CORE, '2026-03-08T09:40Z', '2026-03-08T11:00Z'], // 80
    // N2: 23:00 EDT 03-08 → 00:30 EDT 03-09, 90 min: dated 03-09 (a 24 h day from 05:00Z would say 03-08).
    [A, WATCH, CORE, '2026-03-09T03:00Z', '2026-03-09T04:30Z'],
    // N3, 11-01 (fall back at 02:00 EDT = 06:00Z; the day is 11-01 04:00Z – 11-02 05:00Z, 25 h).
    // 23:00 EDT → 07:00 EST: 8 h on the wall clock, 9 h = 540 min real.
    [A, OTHER_APP, UNSPECIFIED, '2026-11-01T03:00Z', '2026-11-01T12:00Z'],
    // N4: 22:30 → 23:30 EST on 11-01, 60 min: still 11-01 (a 24 h day from 04:00Z would say 11-02).
    [A, WATCH, CORE, '2026-11-02T03:30Z', '2026-11-02T04:30Z'],
    // N9, 02-10-2027 (EST): samples without a source are one source, id 0, the lowest; a NULL value counts no minutes.
    [A, WATCH, CORE, '2027-02-10T03:50Z', '2027-02-10T05:50Z'], // 120 staged, first in the session
    [A, null, CORE, '2027-02-10T04:00Z', '2027-02-10T06:00Z'], // 120 staged: a tie the lower id (0) wins
    [A, null, AWAKE, '2027-02-10T06:00Z', '2027-02-10T06:10Z'], // 10: shown, as the chosen source's
    [A, OTHER_APP, null, '2027-02-10T04:30Z', '2027-02-10T05:00Z'], // no value: no in-bed minutes, but a source
  ];

  const N1 = {
    date: '2026-03-08',
    start: at('2026-03-08T04:00Z'),
    end: at('2026-03-08T11:30Z'),
    inBedMinutes: 450, // the phone's; the watch recorded no in-bed
    asleepMinutes: 380, // watch: 120 + 60 + 120 + 80; awake 10 left out
    stages: stages({ core: 200, deep: 60, rem: 120, awake: 10 }),
    sources: 2,
  };
  const N2 = {
    date: '2026-03-09',
    start: at('2026-03-09T03:00Z'),
    end: at('2026-03-09T04:30Z'),
    inBedMinutes: 0,
    asleepMinutes: 90,
    stages: stages({ core: 90 }),
    sources: 1,
  };
  const N3 = {
    date: '2026-11-01',
    start: at('2026-11-01T03:00Z'),
    end: at('2026-11-01T12:00Z'),
    inBedMinutes: 0,
    asleepMinutes: 540,
    stages: stages({ unspecified: 540 }),
    sources: 1,
  };
  const N4 = {
    date: '2026-11-01',
    start: at('2026-11-02T03:30Z'),
    end: at('2026-11-02T04:30Z'),
    inBedMinutes: 0,
    asleepMinutes: 60,
    stages: stages({ core: 60 }),
    sources: 1,
  };
  const N5 = {
    date: '2026-01-15',
    start: at('2026-01-15T04:00Z'),
    end: at('2026-01-15T09:00Z'),
    inBedMinutes: 0, // the other user's 300 in-bed minutes are not here
    asleepMinutes: 300,
    stages: stages({ core: 200, rem: 100 }), // the watch: 300 staged beats the phone's 0
    sources: 2,
  };
  const N6 = {
    date: '2026-01-20',
    start: at('2026-01-20T04:00Z'),
    end: at('2026-01-20T09:00Z'),
    inBedMinutes: 300, // the sleep app's, though its stages lost the tie
    asleepMinutes: 240,
    stages: stages({ deep: 240 }), // the watch (source 2) over the sleep app (source 3)
    sources: 2,
  };
  const N7 = {
    date: '2026-02-04',
    start: at('2026-02-01T00:00Z'),
    end: at('2026-02-04T06:00Z'),
    inBedMinutes: 2400, // 20 samples × 120
    asleepMinutes: 0,
    stages: stages({}),
    sources: 1,
  };
  const N8 = {
    date: '2026-02-11',
    start: at('2026-02-11T02:00Z'),
    end: at('2026-02-11T10:00Z'),
    inBedMinutes: 0,
    asleepMinutes: 360, // 120 + 240
    stages: stages({ core: 360 }),
    sources: 1,
  };

  const N9 = {
    date: '2027-02-10',
    start: at('2027-02-10T03:50Z'),
    end: at('2027-02-10T06:10Z'),
    inBedMinutes: 0,
    asleepMinutes: 120,
    stages: stages({ core: 120, awake: 10 }),
    sources: 3,
  };

  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    db = await createTestDatabase();
    await seed(db, 'America/New_York', rows);
    server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: 'America/New_York', SERVICE_MULTI_USER: 'true' } });
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
  });

  const nights = async (start: number | string, end: number | string, user?: string) => {
    const s = typeof start === 'string' ? at(start) : start;
    const e = typeof end === 'string' ? at(end) : end;
    const { status, body } = await server.getJson(`/v1/sleep/daily?start=${s}&end=${e}${user ? `&user=${user}` : ''}`);
    assert.equal(status, 200, JSON.stringify(body));
    return body.nights;
  };

  test('spring forward: watch stages and phone in-bed, never summed, on the 23-hour day', async () => {
    // Local 03-08 is [05:00Z, 03-09 04:00Z).
    assert.deepEqual(await nights('2026-03-08T05:00Z', '2026-03-09T04:00Z'), [N1]);
    assert.deepEqual(await nights('2026-03-09T04:00Z', '2026-03-10T04:00Z'), [N2]);
    assert.deepEqual(await nights('2026-03-08T05:00Z', '2026-03-10T04:00Z'), [N1, N2]);
  });

  test('a range grazing one minute of a day returns that day\'s night', async () => {
    // 23:59–24:00 EDT on 03-08: the night began the evening before, outside the range.
    assert.deepEqual(await nights('2026-03-09T03:59Z', '2026-03-09T04:00Z'), [N1]);
    // 00:00–00:01 EST on 01-15.
    assert.deepEqual(await nights('2026-01-15T05:00Z', '2026-01-15T05:01Z'), [N5]);
  });

  test('fall back: both sessions ending on the 25-hour day are dated 11-01', async () => {
    assert.deepEqual(await nights('2026-11-01T04:00Z', '2026-11-02T05:00Z'), [N3, N4]);
    // The last minute of the 25-hour day, 23:59 EST.
    assert.deepEqual(await nights('2026-11-02T04:59Z', '2026-11-02T05:00Z'), [N3, N4]);
    assert.deepEqual(await nights('2026-11-02T05:00Z', '2026-11-03T05:00Z'), []);
  });

  test('ties: more staged minutes, then the lower source id', async () => {
    assert.deepEqual(await nights('2026-01-15T05:00Z', '2026-01-16T05:00Z'), [N5]);
    assert.deepEqual(await nights('2026-01-20T05:00Z', '2026-01-21T05:00Z'), [N6]);
  });

  test('samples without a source count as one source of id 0; a sample without a value counts no minutes', async () => {
    assert.deepEqual(await nights('2027-02-10T05:00Z', '2027-02-11T05:00Z'), [N9]);
  });

  test('a session that began days before the range comes back whole', async () => {
    // Local 02-04 is [05:00Z, 02-05 05:00Z); the session began 02-01 00:00Z.
    assert.deepEqual(await nights('2026-02-04T05:00Z', '2026-02-05T05:00Z'), [N7]);
    assert.deepEqual(await nights('2026-02-04T06:00Z', '2026-02-04T06:01Z'), [N7]);
  });

  test('a session that goes on past the range belongs to its own wake-up day', async () => {
    // Local 02-10: the 21:00–23:00 samples lie in it, but the session ends 02-11.
    assert.deepEqual(await nights('2026-02-10T05:00Z', '2026-02-11T05:00Z'), []);
    assert.deepEqual(await nights('2026-02-11T05:00Z', '2026-02-12T05:00Z'), [N8]);
  });

  test('366 days from local midnight: every night, ascending', async () => {
    // 2026-01-01 00:00 EST + 366 × 24 h = 2027-01-02 00:00 EST: 366 local days.
    const start = at('2026-01-01T05:00Z');
    assert.deepEqual(await nights(start, start + 366 * DAY), [N5, N6, N7, N8, N1, N2, N3, N4]);
  });

  test('range rules: end after start, 366 days, 366 local days', async () => {
    const start = at('2026-01-01T05:00Z');
    const refused = async (s: number, e: number) => (await server.getJson(`/v1/sleep/daily?start=${s}&end=${e}`)).body;
    assert.deepEqual(await refused(start, start), { error: 'end must be after start (start and end are epoch milliseconds)' });
    assert.deepEqual(await refused(start, start + 367 * DAY), { error: 'range must not exceed 366 days (start and end are epoch milliseconds)' });
    // Noon EST 2026-01-01 + 366 × 24 h = noon 2027-01-02: 365 days of 2026 + 2 = 367 local days.
    const noon = at('2026-01-01T17:00Z');
    assert.deepEqual(await refused(noon, noon + 366 * DAY), { error: 'range must not touch more than 366 local days (start and end are epoch milliseconds)' });
    assert.equal((await server.getJson('/v1/sleep/daily?start=0')).status, 400);
    assert.equal((await server.getJson('/v1/sleep/daily?end=10')).status, 400);
  });

  test("another user's sleep only with user=", async () => {
    assert.deepEqual(await nights('2026-01-15T05:00Z', '2026-01-16T05:00Z', OTHER_USER), [
      {
        date: '2026-01-15',
        start: at('2026-01-15T04:00Z'),
        end: at('2026-01-15T09:00Z'),
        inBedMinutes: 300,
        asleepMinutes: 0,
        stages: stages({}),
        sources: 1,
      },
    ]);
    assert.deepEqual(await nights('2026-03-08T05:00Z', '2026-03-09T04:00Z', OTHER_USER), []);
  });
});

describe('Asia/Kolkata', () => {
  // 21:00 IST 05-09 → 00:30 IST 05-10 (UTC+5:30): 210 min, dated 05-10 (its UTC end is still 05-09).
  const night = {
    date: '2026-05-10',
    start: at('2026-05-09T15:30Z'),
    end: at('2026-05-09T19:00Z'),
    inBedMinutes: 0,
    asleepMinutes: 210,
    stages: stages({ core: 210 }),
    sources: 1,
  };
  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    db = await createTestDatabase();
    await seed(db, 'Asia/Kolkata', [[DEFAULT_USER, WATCH, CORE, '2026-05-09T15:30Z', '2026-05-09T19:00Z']]);
    server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: 'Asia/Kolkata' } });
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
  });

  const nights = async (start: string, end: string) => (await server.getJson(`/v1/sleep/daily?start=${at(start)}&end=${at(end)}`)).body.nights;

  test('dated by the local wake-up day at +05:30', async () => {
    // Local 05-10 is [05-09 18:30Z, 05-10 18:30Z).
    assert.deepEqual(await nights('2026-05-09T18:30Z', '2026-05-10T18:30Z'), [night]);
    // Its last minute, 23:59 IST.
    assert.deepEqual(await nights('2026-05-10T18:29Z', '2026-05-10T18:30Z'), [night]);
    // Local 05-09 holds most of the session but not its end.
    assert.deepEqual(await nights('2026-05-08T18:30Z', '2026-05-09T18:30Z'), []);
  });
});
