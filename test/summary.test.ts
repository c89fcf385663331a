// Issue 4: /v1/summary on a real server and database (America/New_York) — the
// Summary numbers of a week worked out by hand from the fixture rows (means,
// minima, maxima, totals and days per stat, the longest sleep session of each
// wake-up day, workouts with ties, newest body readings, coverage), sections
// absent without data, the markdown page (under 60 lines with 90 days of heavy
// data, the same numbers as the JSON), and the range/format refusals.
// Fixture days are counted back from today in the zone: D(0) is the first day
// of the 7-day range, D(6) today.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Summary as SummarySchema } from '../src/schemas/resources.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const ZONE = 'America/New_York';
const SOMEONE = '00000000-0000-4000-8000-000000000002';
const NOBODY = '00000000-0000-4000-8000-000000000003';
const HEAVY = '00000000-0000-4000-8000-000000000004';
const SLEEPER = '00000000-0000-4000-8000-000000000005';
/** Figures that are no value (NaN, ±Infinity: src/core/values.ts) beside real ones, and a long in-bed night beside a nap. */
const ODD = '00000000-0000-4000-8000-000000000006';
/** Workouts whose distances add up to another float in another order, stored against the order of their starts. */
const ADDER = '00000000-0000-4000-8000-000000000007';
const ADDER_DISTANCES = [0.1, 0.2, 0.3];
const Q = 'HKQuantityTypeIdentifier';
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const HOUR = 3_600_000;
const [IN_BED, UNSPECIFIED, CORE, DEEP, REM] = [0, 1, 3, 4, 5];
const [PHONE, WATCH] = [1, 2];
const LAST_SYNC = 1_700_000_500_000; // 2023-11-14T22:21:40Z, 17:21 EST

const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
const timeFormat = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const localToday = () => dayFormat.format(new Date());
/** 'YYYY-MM-DD HH:mm' in the zone. */
const localTime = (ms: number) => timeFormat.format(new Date(ms)).replace(',', '');
/** The calendar day `offset` days after `day`. */
const shift = (day: string, offset: number) => new Date(Date.parse(day + 'T00:00:00Z') + offset * 86_400_000).toISOString().slice(0, 10);
/** 12:00Z on the day: 07:00 EST or 08:00 EDT, inside that local day. */
const morning = (day: string) => Date.parse(day + 'T12:00:00Z');
/** 17:00Z on the day: local noon or 13:00. */
const noon = (day: string) => Date.parse(day + 'T17:00:00Z');

let db: TestDatabase;
let server: TestServer;
let today: string;
const D = (k: number) => shift(today, k - 6);

async function seed(): Promise<void> {
  const q = db.query;
  await q(`INSERT INTO settings VALUES ('time_zone', $1)`, [ZONE]);
  await q(`INSERT INTO users VALUES ($1, 1), ($2, 2), ($3, 3), ($4, 4)`, [DEFAULT_USER, SOMEONE, HEAVY, SLEEPER]);
  await q(`INSERT INTO profiles (user_id, name) VALUES ($1, 'Ada Lovelace'), ($2, $3)`, [DEFAULT_USER, HEAVY, 'Eve\nMallory\u0007']);
  await q(`INSERT INTO upload_batches VALUES ($1, 1700000000000, 10), ($1, ${LAST_SYNC}, 20), ($2, 1800000000000, 5)`, [DEFAULT_USER, HEAVY]);
  const types = ['StepCount', 'ActiveEnergyBurned', 'AppleExerciseTime', 'RestingHeartRate', 'HeartRateVariabilitySDNN', 'BodyMass', 'BodyFatPercentage', 'HeartRate'];
  await q(`INSERT INTO sample_types (identifier) SELECT unnest($1::text[])`, [[...types.map((t) => Q + t), SLEEP]]);
  await q(`INSERT INTO sources (source_id, name) VALUES (${PHONE}, 'iPhone'), (${WATCH}, 'Apple Watch')`);
  const id = (name: string) => `(SELECT type_id FROM sample_types WHERE identifier = '${name.startsWith('HK') ? name : Q + name}')`;

  // Daily aggregates: cumulative types fill sum, discrete ones avg.
  const daily: [string, string, 'sum' | 'avg', number | null][] = [
    ['StepCount', D(-1), 'sum', 99999], ['StepCount', D(0), 'sum', 1000], ['StepCount', D(2), 'sum', 3000], ['StepCount', D(6), 'sum', 5000],
    ['ActiveEnergyBurned', D(1), 'sum', 400], ['ActiveEnergyBurned', D(3), 'sum', 600.5],
    ['AppleExerciseTime', D(4), 'sum', 30],
    ['RestingHeartRate', D(0), 'avg', 60], ['RestingHeartRate', D(1), 'avg', 62], ['RestingHeartRate', D(2), 'avg', 58.5], ['RestingHeartRate', D(3), 'avg', null],
    ['HeartRateVariabilitySDNN', D(6), 'avg', 45.5],
  ];
  for (const [type, day, column, value] of daily) {
    await q(`INSERT INTO daily_aggregates (user_id, type_id, day, ${column}, min) VALUES ($1, ${id(type)}, $2, $3, 50)`, [DEFAULT_USER, day, value]);
  }
  // A step count of someone else's on a day of the range.
  await q(`INSERT INTO daily_aggregates (user_id, type_id, day, sum) VALUES ($1, ${id('StepCount')}, $2, 77777)`, [SOMEONE, D(2)]);

  // Rings: exercise on D1 and D2, stand on D1 and D5; D-1 is before the range.
  await q(
    `INSERT INTO activity_summaries (user_id, day, move_kcal, exercise_min, stand_hours) VALUES
     ($1, $2, 999, 20, 10), ($1, $3, NULL, 40, NULL), ($1, $4, NULL, NULL, 12), ($1, $5, 5, 99, 99),
     ($6, $7, 300, NULL, NULL)`,
    [DEFAULT_USER, D(1), D(2), D(5), D(-1), SOMEONE, D(1)],
  );

  // Sleep. D0: the phone's 360 min from 21:00 or 22:00 on the day before. D2: the watch's 240 + 60 + 120 = 420
  // (the phone only in bed), and a 60 min nap in the afternoon. D3: 380 min. D5: in bed, never asleep. D-1: before the range.
  const sleep: [number, number, number, number][] = [
    [PHONE, UNSPECIFIED, morning(D(0)) - 10 * HOUR, morning(D(0)) - 4 * HOUR],
    [PHONE, IN_BED, morning(D(2)) - 7.5 * HOUR, morning(D(2))],
    [WATCH, CORE, morning(D(2)) - 7 * HOUR, morning(D(2)) - 3 * HOUR],
    [WATCH, DEEP, morning(D(2)) - 3 * HOUR, morning(D(2)) - 2 * HOUR],
    [WATCH, REM, morning(D(2)) - 2 * HOUR, morning(D(2))],
    [WATCH, UNSPECIFIED, morning(D(2)) + 6 * HOUR, morning(D(2)) + 7 * HOUR],
    [PHONE, UNSPECIFIED, morning(D(3)) - 380 * 60_000, morning(D(3))],
    [PHONE, IN_BED, morning(D(5)) - 7 * HOUR, morning(D(5))],
    [WATCH, CORE, morning(D(-1)) - 8 * HOUR, morning(D(-1)) - 2 * HOUR],
  ];
  for (const [source, value, start, end] of sleep) {
    await q(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ($1, gen_random_uuid(), ${id(SLEEP)}, $2, $3, $4, $5)`, [DEFAULT_USER, start, end, value, source]);
  }

  // Workouts at local noon: running ×2, cycling ×2, walking, yoga; one before the range.
  const workouts: [string, string, number | null, number | null][] = [
    ['running', D(1), 1800, 5000], ['running', D(3), 2400, 6000], ['cycling', D(3), 3600, null], ['walking', D(3), null, null],
    ['yoga', D(5), 1200, null], ['cycling', D(6), 600, 10000], ['running', D(-2), 9999, 9999],
  ];
  for (const [type, day, duration, distance] of workouts) {
    await q(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m) VALUES ($1, gen_random_uuid(), $2, $3, $3::bigint + 600000, $4, $5)`, [DEFAULT_USER, type, noon(day), duration, distance]);
  }
  await q(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, gen_random_uuid(), 'swimming', $2, $2::bigint + 600000)`, [SOMEONE, noon(D(2))]);

  // Body: the newest readings are from before the range (weight) and inside it (body fat).
  const body: [string, string, number][] = [['BodyMass', D(-40), 80], ['BodyMass', D(-10), 72.5], ['BodyFatPercentage', D(-5), 0.22], ['BodyFatPercentage', D(3), 0.215]];
  for (const [type, day, value] of body) {
    await q(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ($1, gen_random_uuid(), ${id(type)}, $2, $2, $3, 1)`, [DEFAULT_USER, noon(day), value]);
  }
  // Heart-rate samples are raw: the summary never reads them.
  await q(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value) SELECT $1, gen_random_uuid(), ${id('HeartRate')}, $2::bigint + i * 1000, $2::bigint + i * 1000, 200 FROM generate_series(0, 999) i`, [DEFAULT_USER, noon(D(2))]);

  // A heavy user: 120 days of daily data, a night per day, 300 workouts of 30 types, body readings.
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg)
     SELECT $1, t.type_id, $2::date - d, CASE WHEN t.identifier IN ($3, $4, $5) THEN 5000 + d * 1.25 END, CASE WHEN t.identifier NOT IN ($3, $4, $5) THEN 40 + d % 17 + 0.05 END
     FROM generate_series(0, 119) d CROSS JOIN sample_types t WHERE t.identifier = ANY ($6)`,
    [HEAVY, today, Q + 'StepCount', Q + 'ActiveEnergyBurned', Q + 'AppleExerciseTime', ['StepCount', 'ActiveEnergyBurned', 'AppleExerciseTime', 'RestingHeartRate', 'HeartRateVariabilitySDNN'].map((t) => Q + t)],
  );
  await q(`INSERT INTO activity_summaries (user_id, day, move_kcal, exercise_min, stand_hours) SELECT $1, $2::date - d, 500 + d, 30 + d % 7, 8 + d % 5 FROM generate_series(0, 119) d`, [HEAVY, today]);
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), ${id(SLEEP)}, $2::bigint - d::bigint * 86400000 - (s + 1) * 5400000, $2::bigint - d::bigint * 86400000 - s * 5400000, 3 + s % 3, 1 + s % 2
     FROM generate_series(0, 99) d CROSS JOIN generate_series(0, 4) s`,
    [HEAVY, morning(today)],
  );
  await q(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m)
     SELECT $1, gen_random_uuid(), 'activity' || lpad((i % 30)::text, 2, '0'), $2::bigint - i::bigint * 7 * 3600000, $2::bigint - i::bigint * 7 * 3600000 + 1800000, 1800 + i, CASE WHEN i % 2 = 0 THEN 1000 + i END
     FROM generate_series(0, 299) i`,
    [HEAVY, noon(today)],
  );
  await q(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ($1, gen_random_uuid(), ${id('BodyMass')}, $2, $2, 61.25, 1), ($1, gen_random_uuid(), ${id('BodyFatPercentage')}, $2, $2, 0.1875, 1)`, [HEAVY, noon(D(1))]);
  // One sleep session reaching 78 h back from its end on D0: 2 h of core sleep every 4 h, 20 times (the gaps
  // are shorter than a session's), so its first samples start before the summary's first sleep read does.
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), ${id(SLEEP)}, $2::bigint - k * 4 * 3600000 - 7200000, $2::bigint - k * 4 * 3600000, ${CORE}, ${WATCH}
     FROM generate_series(0, 19) k`,
    [SLEEPER, morning(D(0))],
  );
  // ODD: steps D0 1000, D3 3000, and no value on D4 (NaN) and D5 (Infinity); resting heart rate D0 60, D5 NaN.
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg) VALUES
     ($1, ${id('StepCount')}, $2, 1000, NULL), ($1, ${id('StepCount')}, $3, 3000, NULL), ($1, ${id('StepCount')}, $4, 'NaN', NULL),
     ($1, ${id('StepCount')}, $5, 'Infinity', NULL), ($1, ${id('RestingHeartRate')}, $2, NULL, 60), ($1, ${id('RestingHeartRate')}, $5, NULL, 'NaN')`,
    [ODD, D(0), D(3), D(4), D(5)],
  );
  // Rings: D1 exercise 30 and stand 10; D4 exercise NaN; D5 stand -Infinity.
  await q(`INSERT INTO activity_summaries (user_id, day, exercise_min, stand_hours) VALUES ($1, $2, 30, 10), ($1, $3, 'NaN', NULL), ($1, $4, NULL, '-Infinity')`, [ODD, D(1), D(4), D(5)]);
  // D2: a 10 h session in bed that slept its last hour, then (4 h later, a session of its own) a 2 h nap.
  for (const [value, start, end] of [[IN_BED, morning(D(2)) - 10 * HOUR, morning(D(2))], [CORE, morning(D(2)) - HOUR, morning(D(2))], [CORE, morning(D(2)) + 4 * HOUR, morning(D(2)) + 6 * HOUR]]) {
    await q(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ($1, gen_random_uuid(), ${id(SLEEP)}, $2, $3, $4, ${WATCH})`, [ODD, start, end, value]);
  }
  // D3: a run of 600 s and 1000 m, and one whose duration and distance are no value.
  await q(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m) VALUES
     ($1, gen_random_uuid(), 'running', $2, $2::bigint + 600000, 600, 1000), ($1, gen_random_uuid(), 'running', $2, $2::bigint + 600000, 'NaN', 'Infinity')`,
    [ODD, noon(D(3))],
  );
  // The newest weight is NaN (so there is no weight reading), the newest body fat 0.2.
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     ($1, gen_random_uuid(), ${id('BodyMass')}, $2, $2, 70, 1), ($1, gen_random_uuid(), ${id('BodyMass')}, $3, $3, 'NaN', 1), ($1, gen_random_uuid(), ${id('BodyFatPercentage')}, $4, $4, 0.2, 1)`,
    [ODD, noon(D(-3)), noon(D(-1)), noon(D(1))],
  );
  // ADDER: distances 0.1, 0.2, 0.3 by start (their sum in that order is 0.6000000000000001; from the last, 0.6), stored last first.
  await q(`INSERT INTO users VALUES ($1, 7)`, [ADDER]);
  for (let k = ADDER_DISTANCES.length - 1; k >= 0; k--) {
    await q(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m) VALUES ($1, gen_random_uuid(), 'walking', $2, $2::bigint + 600000, 600, $3)`, [ADDER, noon(D(k + 1)), ADDER_DISTANCES[k]]);
  }
  await q('ANALYZE');
}

before(async () => {
  today = localToday();
  db = await createTestDatabase();
  await seed();
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: ZONE, SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

/** A summary answer of the fixture's day (the test stops if the zone's day changed since seeding). */
async function summary(query: string) {
  const response = await server.get(`/v1/summary?${query}`);
  assert.equal(localToday(), today, 'the local day changed during the test; run it again');
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

const checkSummary = TypeCompiler.Compile(SummarySchema);

/** The header fields of a 7-day summary of a user without a profile name (generatedAt aside). */
const unnamedWeek = (userID: string) => ({ userID, name: null, range: '7d', days: 7, startDate: D(0), endDate: today, timeZone: ZONE });

/** The markdown rounding, written out: half away from zero to one decimal; whole numbers without decimals. */
const shown = (value: number) => String(Math.round(value * 10) / 10);

describe('JSON', () => {
  test('a week of hand-made data: every stat, sleep, workouts, body and coverage', async () => {
    const before = Date.now();
    const { status, type, text } = await summary('format=json');
    assert.equal(status, 200);
    assert.equal(type, 'application/json');
    const body = JSON.parse(text);
    assert.ok(checkSummary.Check(body), JSON.stringify([...checkSummary.Errors(body)].slice(0, 3)));
    assert.ok(body.generatedAt >= before && body.generatedAt <= Date.now());
    assert.deepEqual(body, {
      userID: DEFAULT_USER,
      name: 'Ada Lovelace',
      range: '7d',
      days: 7,
      startDate: D(0),
      endDate: today,
      generatedAt: body.generatedAt,
      timeZone: ZONE,
      activity: {
        // D0 1000, D2 3000, D6 5000 (D-1 is outside).
        steps: { unit: 'count', days: 3, mean: 3000, min: 1000, max: 5000, total: 9000, source: 'daily_aggregates' },
        // D1 400, D3 600.5.
        activeEnergy: { unit: 'kcal', days: 2, mean: 500.25, min: 400, max: 600.5, total: 1000.5, source: 'daily_aggregates' },
        // The rings (D1 20, D2 40) win over the AppleExerciseTime aggregate of D4.
        exercise: { unit: 'min', days: 2, mean: 30, min: 20, max: 40, total: 60, source: 'activity_summaries' },
        // D1 10, D5 12; no total for stand hours.
        stand: { unit: 'hr', days: 2, mean: 11, min: 10, max: 12, source: 'activity_summaries' },
      },
      heart: {
        // D0 60, D1 62, D2 58.5; D3 has no mean.
        restingHeartRate: { unit: 'count/min', days: 3, mean: (60 + 62 + 58.5) / 3, min: 58.5, max: 62, source: 'daily_aggregates' },
        hrvSDNN: { unit: 'ms', days: 1, mean: 45.5, min: 45.5, max: 45.5, source: 'daily_aggregates' },
      },
      // D0 360, D2 420 (not the 60 min nap), D3 380; D5 slept nothing.
      sleep: { nights: 3, meanAsleepMinutes: (360 + 420 + 380) / 3, minAsleepMinutes: 360, maxAsleepMinutes: 420 },
      workouts: {
        count: 6,
        totalMinutes: (1800 + 2400 + 3600 + 1200 + 600) / 60, // 160; the walk has no duration
        totalDistanceM: 5000 + 6000 + 10000,
        // cycling 2 and running 2 (alphabetical), then walking 1 before yoga 1.
        byActivityType: [{ activityType: 'cycling', count: 2 }, { activityType: 'running', count: 2 }, { activityType: 'walking', count: 1 }],
      },
      body: {
        weight: { value: 72.5, unit: 'kg', timestamp: noon(D(-10)) },
        bodyFat: { value: 0.215, unit: '%', timestamp: noon(D(3)) },
      },
      // Steps D0 D2 D6, energy D1 D3, exercise D1 D2, stand D1 D5, heart D0 D1 D2 D6, sleep D0 D2 D3, workouts D1 D3 D5 D6:
      // every day but D4 (only the unused AppleExerciseTime aggregate).
      coverage: { lastSync: LAST_SYNC, daysWithData: 6 },
    });
  });

  test('sections are absent without data; the move ring stands in for missing energy aggregates', async () => {
    const { text } = await summary(`format=json&user=${SOMEONE}`);
    const body = JSON.parse(text);
    assert.ok(checkSummary.Check(body));
    const { generatedAt, ...rest } = body;
    assert.equal(typeof generatedAt, 'number');
    assert.deepEqual(rest, {
      ...unnamedWeek(SOMEONE),
      // The steps of D2 (77777) and the move ring of D1 (300, no energy aggregate).
      activity: {
        steps: { unit: 'count', days: 1, mean: 77777, min: 77777, max: 77777, total: 77777, source: 'daily_aggregates' },
        activeEnergy: { unit: 'kcal', days: 1, mean: 300, min: 300, max: 300, total: 300, source: 'activity_summaries' },
      },
      // No distance recorded: totalDistanceM is absent; no duration: 0 minutes.
      workouts: { count: 1, totalMinutes: 0, byActivityType: [{ activityType: 'swimming', count: 1 }] },
      coverage: { lastSync: null, daysWithData: 2 },
    });
  });

  test('the workouts\' total distance adds them up in the order of their starts, whatever order the rows lie in: the same answer every time', async () => {
    const { status, text } = await summary(`format=json&user=${ADDER}`);
    assert.equal(status, 200);
    assert.notEqual(ADDER_DISTANCES.reduce((a, b) => a + b, 0), [...ADDER_DISTANCES].reverse().reduce((a, b) => a + b, 0), 'the order changes the float sum');
    assert.equal(JSON.parse(text).workouts.totalDistanceM, ADDER_DISTANCES.reduce((a, b) => a + b, 0));
  });

  test('a sleep session that began days before the range counts whole (the sleep read reaches back for it)', async () => {
    const { status, text } = await summary(`format=json&user=${SLEEPER}`);
    assert.equal(status, 200);
    const body = JSON.parse(text);
    assert.deepEqual(body.sleep, { nights: 1, meanAsleepMinutes: 20 * 120, minAsleepMinutes: 20 * 120, maxAsleepMinutes: 20 * 120 });
    assert.deepEqual(body.coverage, { lastSync: null, daysWithData: 1 });
  });

  test('NaN and ±Infinity are no value: left out of every stat, reading and coverage; a day\'s sleep is its longest session', async () => {
    const { status, text } = await summary(`format=json&user=${ODD}`);
    assert.equal(status, 200);
    const { generatedAt, ...rest } = JSON.parse(text);
    assert.equal(typeof generatedAt, 'number');
    assert.ok(checkSummary.Check({ generatedAt, ...rest }));
    assert.deepEqual(rest, {
      ...unnamedWeek(ODD),
      activity: {
        steps: { unit: 'count', days: 2, mean: 2000, min: 1000, max: 3000, total: 4000, source: 'daily_aggregates' },
        exercise: { unit: 'min', days: 1, mean: 30, min: 30, max: 30, total: 30, source: 'activity_summaries' },
        stand: { unit: 'hr', days: 1, mean: 10, min: 10, max: 10, source: 'activity_summaries' },
      },
      heart: { restingHeartRate: { unit: 'count/min', days: 1, mean: 60, min: 60, max: 60, source: 'daily_aggregates' } },
      // The 10 h session's 60 asleep minutes, not the 2 h nap's 120.
      sleep: { nights: 1, meanAsleepMinutes: 60, minAsleepMinutes: 60, maxAsleepMinutes: 60 },
      workouts: { count: 2, totalMinutes: 10, totalDistanceM: 1000, byActivityType: [{ activityType: 'running', count: 2 }] },
      body: { bodyFat: { value: 0.2, unit: '%', timestamp: noon(D(1)) } },
      // D0 (steps, heart), D1 (rings), D2 (sleep), D3 (steps, workouts); not D4 or D5.
      coverage: { lastSync: null, daysWithData: 4 },
    });
    const markdown = (await summary(`user=${ODD}`)).text;
    assert.ok(!/NaN|null|Infinity/.test(markdown), markdown);
    assert.match(markdown, /\b2000\b|2,000/, 'the steps mean');
  });

  test('/v1/metrics/daily and the daily_metrics export leave out a day whose value is NaN or infinite; the samples export writes such a value as null', async () => {
    const span = `start=${Date.parse(D(0) + 'T12:00:00Z') - 86_400_000}&end=${Date.parse(today + 'T12:00:00Z') + 86_400_000}`;
    const daily = await server.getJson(`/v1/metrics/daily?user=${ODD}&types=${Q}StepCount,${Q}RestingHeartRate&${span}`);
    assert.equal(daily.status, 200);
    assert.deepEqual(daily.body.metrics.map((m: { days: unknown }) => m.days), [
      [{ date: D(0), value: 1000 }, { date: D(3), value: 3000 }],
      [{ date: D(0), value: 60 }],
    ]);
    const csv = await (await server.get(`/v1/export?user=${ODD}&format=csv&dataset=daily_metrics&types=${Q}StepCount&${span}`)).text();
    assert.equal(csv, `identifier,unit,date,value\r\n${Q}StepCount,count,${D(0)},1000\r\n${Q}StepCount,count,${D(3)},3000\r\n`);
    const weights = `user=${ODD}&dataset=samples&type=${Q}BodyMass&start=${noon(D(-4))}&end=${noon(D(0))}`;
    const lines = (await (await server.get(`/v1/export?format=csv&${weights}`)).text()).split('\r\n');
    assert.deepEqual(lines.slice(1, -1).map((line) => line.split(',')[5]), ['70', ''], 'the NaN weight as an empty cell');
    const jsonl = (await (await server.get(`/v1/export?format=jsonl&${weights}`)).text()).trimEnd().split('\n').map((line) => JSON.parse(line).value);
    assert.deepEqual(jsonl, [70, null]);
  });

  test('a user with no data: only the header fields and coverage', async () => {
    const { status, text } = await summary(`format=json&range=30d&user=${NOBODY}`);
    assert.equal(status, 200);
    const { generatedAt, ...rest } = JSON.parse(text);
    assert.ok(Number.isInteger(generatedAt));
    assert.deepEqual(rest, { userID: NOBODY, name: null, range: '30d', days: 30, startDate: shift(today, -29), endDate: today, timeZone: ZONE, coverage: { lastSync: null, daysWithData: 0 } });
  });

  test('range and format outside their values are 400s', async () => {
    const cases: [string, string][] = [
      ['range=5d', 'range must be one of 7d, 14d, 30d, 90d'],
      ['range=7', 'range must be one of 7d, 14d, 30d, 90d'],
      ['format=html', 'format must be one of markdown, json'],
      ['format=JSON', 'format must be one of markdown, json'],
      ['range=7d&range=14d', 'range must be given once'],
    ];
    for (const [query, message] of cases) {
      const { status, type, text } = await summary(query);
      assert.equal(status, 400, query);
      assert.equal(type, 'application/json');
      assert.deepEqual(JSON.parse(text), { error: message });
    }
  });
});

describe('markdown', () => {
  test('the default page: header, a section per kind of data, the same numbers rounded, coverage', async () => {
    const { status, type, text } = await summary('');
    assert.equal(status, 200);
    assert.equal(type, 'text/markdown; charset=utf-8');
    const lines = text.split('\n');
    assert.equal(lines.pop(), '');
    assert.ok(lines.length < 60);
    assert.equal(lines[0], '# Health summary for Ada Lovelace');
    assert.match(lines[2], new RegExp(`^Last 7 days: ${D(0)} to ${today}, local days in America/New_York\\. Generated \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\.$`));
    assert.deepEqual(lines.slice(3), [
      '',
      '## Activity',
      '- Steps: 3,000 steps a day on average, 9,000 steps in total (lowest day 1,000 steps, highest day 5,000 steps; 3 days with data, from the phone\'s daily figures)',
      // 500.25 and 1000.5 round half away from zero.
      '- Active energy: 500 kcal a day on average, 1,001 kcal in total (lowest day 400 kcal, highest day 601 kcal; 2 days with data, from the phone\'s daily figures)',
      '- Exercise: 30 min a day on average, 1 h in total (lowest day 20 min, highest day 40 min; 2 days with data, from the activity rings)',
      '- Stand hours: 11 h on average (lowest day 10 h, highest day 12 h; 2 days with data, from the activity rings)',
      '',
      '## Heart',
      // 180.5 / 3 = 60.1666…
      '- Resting heart rate: 60.2 bpm on average (lowest day 58.5 bpm, highest day 62 bpm; 3 days with data, from the phone\'s daily figures)',
      '- Heart rate variability (SDNN): 45.5 ms on average (lowest day 45.5 ms, highest day 45.5 ms; 1 day with data, from the phone\'s daily figures)',
      '',
      '## Sleep',
      // 1160 / 3 = 386.666… minutes
      '- Asleep: 6 h 27 min a night on average (shortest 6 h, longest 7 h; 3 nights, the longest sleep of each wake-up day)',
      '',
      '## Workouts',
      '- 6 workouts, 2 h 40 min in total, 21 km',
      '- Most frequent: cycling (2), running (2), walking (1)',
      '',
      '## Body',
      `- Weight: 72.5 kg (newest reading, ${localTime(noon(D(-10)))})`,
      `- Body fat: 21.5 % (newest reading, ${localTime(noon(D(3)))})`,
      '',
      '## Coverage',
      '- Last sync: 2023-11-14 17:21. 6 of 7 days have data.',
      '- Daily figures are deduplicated across devices (watch and phone are never double-counted) and never summed from raw samples; days without data are left out of averages, not counted as zero.',
    ]);
  });

  test('no data: the user id names the user, only the coverage section', async () => {
    const { text } = await summary(`range=14d&user=${NOBODY}`);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines[0], `# Health summary for ${NOBODY}`);
    assert.ok(lines[2].startsWith(`Last 14 days: ${shift(today, -13)} to ${today}, local days in America/New_York.`));
    assert.deepEqual(lines.filter((line) => line.startsWith('## ')), ['## Coverage']);
    assert.equal(lines[5], '- Last sync: never. 0 of 14 days have data.');
  });

  test('90 days of heavy data: under 60 lines, one-line header, every JSON number shown rounded', async () => {
    const json = JSON.parse((await summary(`format=json&range=90d&user=${HEAVY}`)).text);
    const { text } = await summary(`range=90d&user=${HEAVY}`);
    const lines = text.trimEnd().split('\n');
    assert.ok(lines.length < 60, `${lines.length} lines`);
    assert.equal(lines[0], '# Health summary for Eve Mallory');
    assert.equal(json.days, 90);
    assert.equal(json.activity.steps.days, 90);
    assert.equal(json.sleep.nights, 90);
    assert.equal(json.workouts.byActivityType.length, 3);
    const line = (prefix: string) => {
      const found = lines.find((l) => l.startsWith(prefix));
      assert.ok(found, `a line starting ${prefix}`);
      return found;
    };
    // The page's figures, written out: half away from zero; whole steps and kcal grouped; hours and minutes.
    const grouped = (value: number, decimals: number) => (Math.round(value * 10 ** decimals) / 10 ** decimals).toLocaleString('en-US', { maximumFractionDigits: decimals });
    const hm = (minutes: number) => {
      const m = Math.round(minutes);
      return m < 60 ? `${m} min` : m % 60 === 0 ? `${m / 60} h` : `${Math.floor(m / 60)} h ${m % 60} min`;
    };
    const statShown = (prefix: string, stat: { mean: number; min: number; max: number; total?: number; days: number }, show: (v: number) => string) => {
      const text = line(prefix);
      const average = stat.total === undefined ? `${show(stat.mean)} on average` : `${show(stat.mean)} a day on average, ${show(stat.total)} in total`;
      assert.ok(text.startsWith(`${prefix} ${average} (lowest day ${show(stat.min)}, highest day ${show(stat.max)}; ${stat.days} days with data, from the `), text);
      assert.ok(!/daily_aggregates|activity_summaries/.test(text), 'no table names');
    };
    statShown('- Steps:', json.activity.steps, (v) => `${grouped(v, 0)} steps`);
    statShown('- Active energy:', json.activity.activeEnergy, (v) => `${grouped(v, 0)} kcal`);
    statShown('- Exercise:', json.activity.exercise, hm);
    statShown('- Stand hours:', json.activity.stand, (v) => `${grouped(v, 1)} h`);
    statShown('- Resting heart rate:', json.heart.restingHeartRate, (v) => `${grouped(v, 1)} bpm`);
    statShown('- Heart rate variability (SDNN):', json.heart.hrvSDNN, (v) => `${grouped(v, 1)} ms`);
    const s = json.sleep;
    assert.ok(line('- Asleep:').startsWith(`- Asleep: ${hm(s.meanAsleepMinutes)} a night on average (shortest ${hm(s.minAsleepMinutes)}, longest ${hm(s.maxAsleepMinutes)}; ${s.nights} nights`));
    const w = json.workouts;
    assert.equal(line(`- ${w.count} workouts`), `- ${w.count} workouts, ${hm(w.totalMinutes)} in total, ${grouped(w.totalDistanceM / 1000, 1)} km`);
    assert.equal(line('- Most frequent:'), `- Most frequent: ${w.byActivityType.map((t: { activityType: string; count: number }) => `${t.activityType} (${t.count})`).join(', ')}`);
    assert.equal(line('- Weight:'), `- Weight: ${shown(json.body.weight.value)} kg (newest reading, ${localTime(json.body.weight.timestamp)})`);
    assert.equal(line('- Body fat:'), `- Body fat: ${shown(json.body.bodyFat.value * 100)} % (newest reading, ${localTime(json.body.bodyFat.timestamp)})`);
    assert.equal(line('- Last sync:'), `- Last sync: ${localTime(json.coverage.lastSync)}. ${json.coverage.daysWithData} of 90 days have data.`);
  });
});
