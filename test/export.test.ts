// Issue 4: /v1/export on a real server and database (America/New_York) — every
// refusal before any byte, the attachment's name and type, CSV quoting and
// the null and list conventions of every dataset on hand-made rows, rows equal
// to what the JSON routes show, whole ranges with no paging, the CSV header
// out before any row is read, the two export slots (503 with Retry-After: 60;
// freed after abort, completion and error) and a cut-off file that never ends
// cleanly (time limit, idle client, shutdown). Expected files are written out
// by hand from the fixture rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import pg from 'pg';
import { csvLine, jsonlLine, plainNumber, type Cell } from '../src/core/export-encoding.js';
import { floatText, integerText, sampleTextEncoder } from '../src/export/sample-encoding.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { bearer, getRequest, rawRequest, waitFor, type RawResponse } from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './support/server.js';

const ZONE = 'America/New_York';
const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const Q = 'HKQuantityTypeIdentifier';
const HEART = `${Q}HeartRate`;
const STEPS = `${Q}StepCount`;
const RHR = `${Q}RestingHeartRate`;
const POWER = `${Q}RunningPower`;
const TEMP = `${Q}BodyTemperature`;
const BULK = `${Q}EnvironmentalAudioExposure`;
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const BULK_ROWS = 150_000;
const BULK_START = Date.UTC(2025, 11, 1);
/** Thirty quantity types: 20 cumulative (daily sum), then 10 discrete (daily mean). */
const DAILY_TYPES = [
  'ActiveEnergyBurned', 'AppleExerciseTime', 'AppleMoveTime', 'AppleStandTime', 'BasalEnergyBurned', 'DietaryCaffeine', 'DietaryCarbohydrates',
  'DietaryEnergyConsumed', 'DietaryFatTotal', 'DietaryFiber', 'DietaryProtein', 'DietarySodium', 'DietarySugar', 'DietaryWater', 'DistanceCycling',
  'DistanceSwimming', 'DistanceWalkingRunning', 'FlightsClimbed', 'SwimmingStrokeCount', 'TimeInDaylight',
  'BloodGlucose', 'BodyMass', 'BodyMassIndex', 'Height', 'LeanBodyMass', 'OxygenSaturation', 'VO2Max', 'WalkingHeartRateAverage', 'WaistCircumference', 'WalkingSpeed',
].map((name) => Q + name);

const at = (iso: string) => Date.parse(iso);
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let db: TestDatabase;
let server: TestServer;

async function seed(): Promise<void> {
  const q = db.query;
  await q(`INSERT INTO settings VALUES ('time_zone', $1)`, [ZONE]);
  await q(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [DEFAULT_USER, OTHER_USER]);
  await q(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (2, $2), (3, $3), (4, $4), (5, $5), (6, $6), (7, $7)`, [HEART, STEPS, RHR, SLEEP, TEMP, BULK, POWER]);
  await q(`INSERT INTO sample_types (type_id, identifier) SELECT 100 + k, identifier FROM unnest($1::text[]) WITH ORDINALITY AS u (identifier, k)`, [DAILY_TYPES]);
  await q(
    `INSERT INTO sources (source_id, name, device) VALUES
     (1, 'Apple Watch', 'Watch7,1'), (2, 'Watch, "Series 9"', ''), (3, '=HYPERLINK("x")', ''), (4, 'Zürich ⌚', ''), (5, '', ''), (6, 'iPhone', '')`,
  );

  // samples: heart rate in [10:00:00Z, 10:01:00Z) on 2026-01-10, and around it.
  const t = at('2026-01-10T10:00:00Z');
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     ($1, '${uuid(2)}', 1, ${t}, ${t + 1000}, 72, 1),
     ($1, '${uuid(1).toUpperCase()}', 1, ${t}, ${t + 1000}, NULL, NULL),
     ($1, '${uuid(3)}', 1, ${t + 5000}, ${t + 6000}, 0.30000000000000004, 2),
     ($1, '${uuid(4)}', 1, ${t + 6000}, ${t + 6000}, 1e21, 3),
     ($1, '${uuid(5)}', 1, ${t + 7000}, ${t + 8000}, 1e-7, 4),
     ($1, '${uuid(6)}', 1, ${t + 8000}, ${t + 9000}, '-0', 5),
     ($1, '${uuid(7)}', 1, ${t - 1}, ${t}, 60, 1),
     ($1, '${uuid(8)}', 1, ${t + 60000}, ${t + 61000}, 61, 1),
     ($2, '${uuid(9)}', 1, ${t + 1000}, ${t + 2000}, 150, 1),
     ($1, '${uuid(10)}', 4, ${t}, ${t + 600000}, 3, 1),
     ($1, '${uuid(11)}', 4, ${t + 600000}, ${t + 900000}, 9, 1),
     ($1, '${uuid(12)}', 5, ${t}, ${t + 1000}, 36.6, 1),
     ($1, '${uuid(13)}', 5, ${t + 1000}, ${t + 2000}, 'NaN', 1)`,
    [DEFAULT_USER, OTHER_USER],
  );
  // Bulk rows for exports that must outlast the socket buffers.
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), 6, $2::bigint + i * 10000, $2::bigint + i * 10000 + 5000, 40 + i % 50, 1 FROM generate_series(0, $3 - 1) AS i`,
    [DEFAULT_USER, BULK_START, BULK_ROWS],
  );

  // daily_metrics: steps 01-04…01-07, resting heart rate 01-05 (mean) and 01-06 (no mean: left out).
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg, min, max) VALUES
     ($1, 2, '2026-01-04', 999, NULL, NULL, NULL), ($1, 2, '2026-01-05', 1234, NULL, NULL, NULL),
     ($1, 2, '2026-01-06', 1e21, NULL, NULL, NULL), ($1, 2, '2026-01-07', 777, NULL, NULL, NULL),
     ($1, 3, '2026-01-05', NULL, 58.25, 50, 70), ($1, 3, '2026-01-06', NULL, NULL, 50, 50),
     ($2, 2, '2026-01-05', 5555, NULL, NULL, NULL)`,
    [DEFAULT_USER, OTHER_USER],
  );
  // daily_metrics, whole range: 30 types × every day from 2024-12-31 to 2026-01-01; value = type index × 1000 + day of 2025.
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg)
     SELECT $1, t.type_id, d::date,
            CASE WHEN k <= 20 THEN k * 1000 + (d::date - '2024-12-31'::date) END,
            CASE WHEN k > 20 THEN k * 1000 + (d::date - '2024-12-31'::date) END
     FROM unnest($2::text[]) WITH ORDINALITY AS ty (identifier, k)
     JOIN sample_types t ON t.identifier = ty.identifier
     CROSS JOIN generate_series('2024-12-31'::date, '2026-01-01'::date, '1 day') AS d`,
    [DEFAULT_USER, DAILY_TYPES],
  );

  // workouts: three by hand in [01-09, 01-12), 250 walks from 2025-06-01 hourly, one of someone else's.
  await q(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal) VALUES
     ($1, '${uuid(21)}', 'running', ${at('2026-01-10T12:00Z')}, ${at('2026-01-10T12:30Z')}, 1800, 5000.5, 300),
     ($1, '${uuid(22)}', 'yoga', ${at('2026-01-11T12:00Z')}, ${at('2026-01-11T13:00Z')}, NULL, NULL, NULL),
     ($1, '${uuid(23)}', 'running', ${at('2026-01-09T12:00Z')}, ${at('2026-01-09T12:20Z')}, 1200.5, 3000, 150.25),
     ($2, '${uuid(24)}', 'running', ${at('2026-01-10T13:00Z')}, ${at('2026-01-10T14:00Z')}, 3600, 1, 1)`,
    [DEFAULT_USER, OTHER_USER],
  );
  await q(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s)
     SELECT $1, gen_random_uuid(), 'walking', $2::bigint + i * ${HOUR}, $2::bigint + i * ${HOUR} + 600000, 600 FROM generate_series(0, 249) AS i`,
    [DEFAULT_USER, at('2025-06-01T00:00Z')],
  );
  await q(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES
     ($1, '${uuid(21)}', '{1,2}', '{47.1,47.2}', '{8.1,8.2}', '{400,401}'),
     ($1, '${uuid(22)}', '{}', '{}', '{}', '{}')`,
    [DEFAULT_USER],
  );
  await q(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values") VALUES
     ($1, '${uuid(21)}', 7, '{1}', '{250}'), ($1, '${uuid(21)}', 1, '{1}', '{150}')`,
    [DEFAULT_USER],
  );

  // sleep: a night waking on 01-20 (watch staged, phone in bed) and one from 21:00 on 01-20 to 04:00 on 01-21.
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T03:00Z')}, ${at('2026-01-20T11:00Z')}, 0, 6),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T03:30Z')}, ${at('2026-01-20T07:30Z')}, 3, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T07:30Z')}, ${at('2026-01-20T08:30Z')}, 4, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T08:30Z')}, ${at('2026-01-20T10:30Z')}, 5, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T10:30Z')}, ${at('2026-01-20T10:40:30Z')}, 2, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-21T02:00Z')}, ${at('2026-01-21T09:00Z')}, 1, 6)`,
    [DEFAULT_USER],
  );

  // activity: 01-20 in active-energy mode; 01-21 in move-time mode with the other rings untracked.
  await q(
    `INSERT INTO activity_summaries VALUES
     ($1, '2026-01-20', 500.5, 600, 30, 30, 10, 12, NULL, NULL, 1),
     ($1, '2026-01-21', NULL, NULL, NULL, NULL, NULL, NULL, 45, 60, 2),
     ($1, '2026-01-22', 1, 1, 1, 1, 1, 1, NULL, NULL, 1)`,
    [DEFAULT_USER],
  );

  // state of mind: 01-20 at 07:00 local, and at 23:30 local (04:30Z on 01-21) with no lists.
  await q(
    `INSERT INTO state_of_mind VALUES
     ($1, '${uuid(31)}', ${at('2026-01-20T12:00Z')}, 'momentaryEmotion', -0.5, 'slightlyUnpleasant', '{Stressed,Anxious}', '{Work}'),
     ($1, '${uuid(32)}', ${at('2026-01-21T04:30Z')}, 'dailyMood', NULL, NULL, NULL, '{}'),
     ($1, '${uuid(33)}', ${at('2026-01-21T05:00Z')}, 'dailyMood', 1, 'veryPleasant', '{Happy}', '{}')`,
    [DEFAULT_USER],
  );
  await q('ANALYZE');
}

before(async () => {
  db = await createTestDatabase();
  await seed();
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: ZONE, SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

const exportPath = (query: string) => `/v1/export?${query}`;

/** The whole response over a raw socket: status, headers, body, and whether it ended cleanly. */
async function fetchRaw(query: string): Promise<RawResponse> {
  const response = await rawRequest(server.port, getRequest(exportPath(query), bearer(TEST_TOKEN)), { timeoutMs: 60_000 });
  assert.ok(response, 'the server answered');
  return response;
}

async function download(query: string): Promise<string> {
  const response = await fetchRaw(query);
  assert.equal(response.status, 200, `${query} → ${response.body.toString()}`);
  assert.equal(response.complete, true, 'the file ends cleanly');
  return response.body.toString('utf8');
}

const jsonl = (text: string): any[] => text.split('\n').slice(0, -1).map((line) => JSON.parse(line));

/** Splits one CSV file into records of cells (null for an unquoted empty cell), per RFC 4180. */
function parseCsv(text: string): (string | null)[][] {
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    let cell: string | null;
    if (text[i] === '"') {
      cell = '';
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        cell += text.slice(i, close);
        if (text[close + 1] === '"') i = close + 2, (cell += '"');
        else {
          i = close + 1;
          break;
        }
      }
    } else {
      const stop = text.slice(i).search(/,|\r\n/);
      const raw = text.slice(i, i + stop);
      cell = raw === '' ? null : raw;
      i += stop;
    }
    record.push(cell);
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else i++;
  }
  return records;
}

const advisoryLocks = async (): Promise<number> =>
  Number((await db.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`))[0].n);

describe('refusals come before any byte of the file', () => {
  const range = `start=${at('2026-01-10T00:00Z')}&end=${at('2026-01-11T00:00Z')}`;
  const cases: [string, string][] = [
    ['', 'format is required'],
    [`format=xml&dataset=samples&type=${HEART}&${range}`, 'format must be one of csv, jsonl'],
    [`format=csv&${range}`, 'dataset is required'],
    [`format=csv&dataset=steps&${range}`, 'dataset must be one of daily_metrics, samples, workouts, sleep, activity, state_of_mind'],
    [`format=csv&dataset=workouts&end=${at('2026-01-11T00:00Z')}`, 'start is required'],
    [`format=csv&dataset=daily_metrics&${range}`, 'types is required for dataset daily_metrics'],
    [`format=csv&dataset=samples&${range}`, 'type is required for dataset samples'],
    [`format=csv&dataset=samples&type=${Q}Foo&${range}`, `unknown type: ${Q}Foo`],
    [`format=jsonl&dataset=daily_metrics&types=${STEPS},${Q}Bar&${range}`, `unknown type: ${Q}Bar`],
    [`format=csv&dataset=samples&type=HKWorkoutTypeIdentifier&${range}`, 'type must be a sample type; HKWorkoutTypeIdentifier has its own route'],
    [`format=csv&dataset=samples&type=${HEART}&start=0&end=${31 * DAY + 1}`, 'range must not exceed 31 days'],
    [`format=csv&dataset=workouts&start=0&end=${366 * DAY + 1}`, 'range must not exceed 366 days'],
    // 366 × 24 h from 23:00 local on 2025-01-01 reaches 23:00 local on 2026-01-02: 367 local days.
    [`format=csv&dataset=sleep&start=${at('2025-01-02T04:00Z')}&end=${at('2025-01-02T04:00Z') + 366 * DAY}`, 'range must not touch more than 366 local days'],
    [`format=csv&dataset=activity&start=${at('2026-01-11T00:00Z')}&end=${at('2026-01-11T00:00Z')}`, 'end must be after start'],
  ];
  for (const [query, message] of cases) {
    test(`${message} (${query || 'no parameters'})`, async () => {
      const response = await fetchRaw(query);
      assert.equal(response.status, 400);
      assert.equal(response.headers['content-type'], 'application/json');
      assert.equal(response.headers['content-disposition'], undefined);
      assert.deepEqual(JSON.parse(response.body.toString()), { error: message });
    });
  }
});

describe('files', () => {
  const t = at('2026-01-10T10:00:00Z');
  const range = `start=${t}&end=${t + 60000}`;

  test('attachment name, content type and chunked transfer', async () => {
    for (const [format, type] of [['csv', 'text/csv'], ['jsonl', 'application/x-ndjson']]) {
      const response = await fetchRaw(`format=${format}&dataset=samples&type=${HEART}&${range}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-type'], type);
      assert.equal(response.headers['content-disposition'], `attachment; filename="service-samples-${t}-${t + 60000}.${format}"`);
      assert.equal(response.headers['transfer-encoding'], 'chunked');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.complete, true);
    }
  });

  test('samples CSV: RFC 4180 quoting, empty cell for null, no exponents, lowercase uuids, formulas kept as recorded', async () => {
    const csv = await download(`format=csv&dataset=samples&type=${HEART}&${range}`);
    assert.equal(
      csv,
      'type,unit,uuid,start,end,value,label,source\r\n' +
        `${HEART},count/min,${uuid(1)},${t},${t + 1000},,,\r\n` +
        `${HEART},count/min,${uuid(2)},${t},${t + 1000},72,,Apple Watch\r\n` +
        `${HEART},count/min,${uuid(3)},${t + 5000},${t + 6000},0.30000000000000004,,"Watch, ""Series 9"""\r\n` +
        `${HEART},count/min,${uuid(4)},${t + 6000},${t + 6000},1000000000000000000000,,"=HYPERLINK(""x"")"\r\n` +
        `${HEART},count/min,${uuid(5)},${t + 7000},${t + 8000},0.0000001,,Zürich ⌚\r\n` +
        `${HEART},count/min,${uuid(6)},${t + 8000},${t + 9000},0,,""\r\n`,
    );
  });

  test('samples JSONL: the same columns as keys, explicit nulls', async () => {
    const text = await download(`format=jsonl&dataset=samples&type=${HEART}&${range}`);
    const lines = text.split('\n');
    assert.equal(lines.pop(), '', 'every line ends with LF');
    assert.equal(lines[0], `{"type":"${HEART}","unit":"count/min","uuid":"${uuid(1)}","start":${t},"end":${t + 1000},"value":null,"label":null,"source":null}`);
    assert.equal(lines[3], `{"type":"${HEART}","unit":"count/min","uuid":"${uuid(4)}","start":${t + 6000},"end":${t + 6000},"value":1000000000000000000000,"label":null,"source":"=HYPERLINK(\\"x\\")"}`);
    assert.deepEqual(JSON.parse(lines[5]), { type: HEART, unit: 'count/min', uuid: uuid(6), start: t + 8000, end: t + 9000, value: 0, label: null, source: '' });
    assert.equal(lines.length, 6);
  });

  test('samples of a category type: no unit, the label names the value (null for an unknown one)', async () => {
    const csv = await download(`format=csv&dataset=samples&type=${SLEEP}&start=${t}&end=${t + HOUR}`);
    assert.equal(
      csv,
      'type,unit,uuid,start,end,value,label,source\r\n' +
        `${SLEEP},,${uuid(10)},${t},${t + 600000},3,asleepCore,Apple Watch\r\n` +
        `${SLEEP},,${uuid(11)},${t + 600000},${t + 900000},9,,Apple Watch\r\n`,
    );
  });

  test('daily_metrics: types in request order, every local day the range touches, days without a value left out', async () => {
    // 23:00 local on 01-05 to one millisecond into 01-06 local: both days, nothing of 01-04 or 01-07.
    const query = `dataset=daily_metrics&types=${RHR},${STEPS},${SLEEP}&start=${at('2026-01-06T04:00Z')}&end=${at('2026-01-06T05:00Z') + 1}`;
    assert.equal(
      await download(`format=csv&${query}`),
      'identifier,unit,date,value\r\n' +
        `${RHR},count/min,2026-01-05,58.25\r\n` +
        `${STEPS},count,2026-01-05,1234\r\n` +
        `${STEPS},count,2026-01-06,1000000000000000000000\r\n`,
    );
    assert.deepEqual(jsonl(await download(`format=jsonl&${query}`)), [
      { identifier: RHR, unit: 'count/min', date: '2026-01-05', value: 58.25 },
      { identifier: STEPS, unit: 'count', date: '2026-01-05', value: 1234 },
      { identifier: STEPS, unit: 'count', date: '2026-01-06', value: 1e21 },
    ]);
  });

  test('daily_metrics returns the whole range: 30 types × 365 days, more than a page of /v1/metrics/daily', async () => {
    const types = [...DAILY_TYPES].reverse();
    const csv = await download(`format=csv&dataset=daily_metrics&types=${types.join(',')}&start=${at('2025-01-01T05:00Z')}&end=${at('2026-01-01T05:00Z')}`);
    const records = parseCsv(csv);
    assert.deepEqual(records[0], ['identifier', 'unit', 'date', 'value']);
    assert.equal(records.length, 1 + 30 * 365); // 10,950 rows
    // The first requested type is WalkingSpeed (k = 30, discrete, m/s): 30 × 1000 + 1 on 2025-01-01.
    assert.deepEqual(records[1], [`${Q}WalkingSpeed`, 'm/s', '2025-01-01', '30001']);
    assert.deepEqual(records[365], [`${Q}WalkingSpeed`, 'm/s', '2025-12-31', '30365']);
    // The last requested type is ActiveEnergyBurned (k = 1, cumulative, kcal): 1000 + 365 on 2025-12-31.
    assert.deepEqual(records[records.length - 1], [`${Q}ActiveEnergyBurned`, 'kcal', '2025-12-31', '1365']);
  });

  test('workouts: newest first, routes and streams, lists in one quoted cell, nulls empty', async () => {
    const query = `dataset=workouts&start=${at('2026-01-09T00:00Z')}&end=${at('2026-01-12T00:00Z')}`;
    assert.equal(
      await download(`format=csv&${query}`),
      'uuid,activityType,start,end,durationS,distanceM,energyKcal,hasRoute,availableMetrics\r\n' +
        `${uuid(22)},yoga,${at('2026-01-11T12:00Z')},${at('2026-01-11T13:00Z')},,,,false,""\r\n` +
        `${uuid(21)},running,${at('2026-01-10T12:00Z')},${at('2026-01-10T12:30Z')},1800,5000.5,300,true,"${HEART},${POWER}"\r\n` +
        `${uuid(23)},running,${at('2026-01-09T12:00Z')},${at('2026-01-09T12:20Z')},1200.5,3000,150.25,false,""\r\n`,
    );
    const rows = jsonl(await download(`format=jsonl&${query}&activityType=running`));
    assert.deepEqual(rows, [
      { uuid: uuid(21), activityType: 'running', start: at('2026-01-10T12:00Z'), end: at('2026-01-10T12:30Z'), durationS: 1800, distanceM: 5000.5, energyKcal: 300, hasRoute: true, availableMetrics: [HEART, POWER] },
      { uuid: uuid(23), activityType: 'running', start: at('2026-01-09T12:00Z'), end: at('2026-01-09T12:20Z'), durationS: 1200.5, distanceM: 3000, energyKcal: 150.25, hasRoute: false, availableMetrics: [] },
    ]);
  });

  test('workouts return the whole range: 250 walks, more than the 200 a page of /v1/workouts holds', async () => {
    const rows = jsonl(await download(`format=jsonl&dataset=workouts&start=${at('2025-06-01T00:00Z')}&end=${at('2025-06-12T00:00Z')}`));
    assert.equal(rows.length, 250);
    assert.equal(rows[0].start, at('2025-06-01T00:00Z') + 249 * HOUR);
    assert.equal(rows[249].start, at('2025-06-01T00:00Z'));
    assert.ok(rows.every((row, i) => row.activityType === 'walking' && (i === 0 || row.start < rows[i - 1].start)));
  });

  test('sleep: nights of the local days touched, a night begun before the range whole, stages flattened', async () => {
    // 01-21 local only (05:00Z to 05:00Z): the night from 21:00 on 01-20 (02:00Z) to 04:00 on 01-21, phone only.
    const oneDay = `dataset=sleep&start=${at('2026-01-21T05:00Z')}&end=${at('2026-01-22T05:00Z')}`;
    assert.equal(
      await download(`format=csv&${oneDay}`),
      'date,start,end,inBedMinutes,asleepMinutes,stages.core,stages.deep,stages.rem,stages.unspecified,stages.awake,sources\r\n' +
        `2026-01-21,${at('2026-01-21T02:00Z')},${at('2026-01-21T09:00Z')},0,420,0,0,0,420,0,1\r\n`,
    );
    // Both nights. 01-20: phone in bed 03:00–11:00 (480); the watch slept core 240, deep 60, rem 120 (420), awake 10.5.
    const rows = jsonl(await download(`format=jsonl&dataset=sleep&start=${at('2026-01-20T05:00Z')}&end=${at('2026-01-21T05:00Z') + 1}`));
    assert.deepEqual(rows[0], {
      date: '2026-01-20', start: at('2026-01-20T03:00Z'), end: at('2026-01-20T11:00Z'), inBedMinutes: 480, asleepMinutes: 420,
      'stages.core': 240, 'stages.deep': 60, 'stages.rem': 120, 'stages.unspecified': 0, 'stages.awake': 10.5, sources: 2,
    });
    assert.equal(rows.length, 2);
  });

  test('activity: one row per recorded day, untracked rings empty', async () => {
    assert.equal(
      await download(`format=csv&dataset=activity&start=${at('2026-01-20T05:00Z')}&end=${at('2026-01-22T05:00Z')}`),
      'date,moveKcal,moveGoalKcal,exerciseMin,exerciseGoalMin,standHours,standGoalHours,moveMode,moveTimeMin,moveTimeGoalMin\r\n' +
        '2026-01-20,500.5,600,30,30,10,12,1,,\r\n' +
        '2026-01-21,,,,,,,2,45,60\r\n',
    );
  });

  test('state_of_mind: local date of each entry, lists comma-joined in CSV and arrays in JSONL', async () => {
    // 07:00 to 08:00 local on 01-20 touches 01-20: both entries of that local day, not the one at 00:00 on 01-21.
    const query = `dataset=state_of_mind&start=${at('2026-01-20T12:00Z')}&end=${at('2026-01-20T13:00Z')}`;
    assert.equal(
      await download(`format=csv&${query}`),
      'uuid,date,timestamp,kind,valence,valenceClassification,labels,associations\r\n' +
        `${uuid(31)},2026-01-20,${at('2026-01-20T12:00Z')},momentaryEmotion,-0.5,slightlyUnpleasant,"Stressed,Anxious","Work"\r\n` +
        `${uuid(32)},2026-01-20,${at('2026-01-21T04:30Z')},dailyMood,,,"",""\r\n`,
    );
    assert.deepEqual(jsonl(await download(`format=jsonl&${query}`))[1], {
      uuid: uuid(32), date: '2026-01-20', timestamp: at('2026-01-21T04:30Z'), kind: 'dailyMood', valence: null, valenceClassification: null, labels: [], associations: [],
    });
  });

  test('every dataset: JSONL rows equal the JSON route for the same range, CSV the same rows', async () => {
    const get = async (path: string) => {
      const { status, body } = await server.getJson(path);
      assert.equal(status, 200, path);
      return body;
    };
    const span = (start: string, end: string) => `start=${at(start)}&end=${at(end)}`;
    const s = span('2026-01-04T00:00Z', '2026-01-23T00:00Z');
    const flattenNight = ({ stages, ...night }: { stages: Record<string, number> }) => ({
      ...night,
      ...Object.fromEntries(Object.entries(stages).map(([k, v]) => [`stages.${k}`, v])),
    });
    const workoutPages = async (query: string) => {
      const all = [];
      for (let offset = 0; ; ) {
        const page = await get(`/v1/workouts?${query}&limit=200&offset=${offset}`);
        all.push(...page.workouts);
        if (page.workouts.length < 200) return all;
        offset = page.nextOffset;
      }
    };
    const samplesJson = async (type: string, query: string) => {
      const page = await get(`/v1/samples?type=${type}&${query}&limit=5000`);
      return page.samples.map((sample: object) => ({ type: page.type, unit: page.unit, ...sample }));
    };
    const bulkRange = `start=${BULK_START}&end=${BULK_START + 4999 * 10000 + 1}`; // the first 5,000 bulk rows
    const cases: [string, Record<string, unknown>[]][] = [
      [`dataset=daily_metrics&types=${STEPS},${RHR}&${s}`, (await get(`/v1/metrics/daily?types=${STEPS},${RHR}&${s}`)).metrics.flatMap(
        (m: { identifier: string; unit: string; days: object[] }) => m.days.map((d) => ({ identifier: m.identifier, unit: m.unit, ...d })),
      )],
      [`dataset=samples&type=${HEART}&${span('2026-01-10T09:00Z', '2026-01-10T11:00Z')}`, await samplesJson(HEART, span('2026-01-10T09:00Z', '2026-01-10T11:00Z'))],
      [`dataset=samples&type=${SLEEP}&${s}`, await samplesJson(SLEEP, s)],
      [`dataset=samples&type=${BULK}&${bulkRange}`, await samplesJson(BULK, bulkRange)],
      [`dataset=workouts&${span('2025-06-01T00:00Z', '2026-01-23T00:00Z')}`, await workoutPages(span('2025-06-01T00:00Z', '2026-01-23T00:00Z'))],
      [`dataset=sleep&${s}`, (await get(`/v1/sleep/daily?${s}`)).nights.map(flattenNight)],
      [`dataset=activity&${s}`, (await get(`/v1/activity/summary?${s}`)).days],
      [`dataset=state_of_mind&${s}`, (await get(`/v1/state-of-mind?${s}`)).entries],
    ];
    for (const [query, expected] of cases) {
      assert.ok(expected.length > 0, `${query} has rows to compare`);
      const rows = jsonl(await download(`format=jsonl&${query}`));
      assert.deepEqual(rows, expected, query);
      const records = parseCsv(await download(`format=csv&${query}`));
      const keys = Object.keys(rows[0]);
      assert.deepEqual(records[0], keys, `${query}: CSV header = JSONL keys`);
      const asCsvCell = (value: unknown) =>
        value === null ? null : Array.isArray(value) ? value.join(',') : typeof value === 'number' ? plainNumber(value) : String(value);
      assert.deepEqual(records.slice(1), rows.map((row) => keys.map((key) => asCsvCell(row[key]))), `${query}: CSV rows`);
    }
  });

  test("another user's rows never appear, and that user's export is their own", async () => {
    const t2 = at('2026-01-10T10:00:00Z');
    const rows = jsonl(await download(`format=jsonl&dataset=samples&type=${HEART}&start=${t2}&end=${t2 + 60000}&user=${OTHER_USER}`));
    assert.deepEqual(rows.map((r: { uuid: string; value: number }) => [r.uuid, r.value]), [[uuid(9), 150]]);
  });
});

/**
 * An export over a raw socket, the bytes kept as they came: uWS sends a
 * chunk's closing CRLF with the next one, so a parser waiting for whole chunks
 * would not show the bytes of a cut-off file. `pauseAtHead` stops reading once
 * the head is in (until `resume`). `clean` is whether the terminating
 * zero-length chunk arrived.
 */
function rawExport(query: string, options: { target?: TestServer; pauseAtHead?: boolean } = {}) {
  const socket = connect((options.target ?? server).port, '127.0.0.1');
  const parts: Buffer[] = [];
  let headArrived!: () => void;
  const headSeen = new Promise<void>((resolve) => (headArrived = resolve));
  const received = () => Buffer.concat(parts).toString('utf8');
  let paused = false;
  const finished = new Promise<{ status: number; body: string; clean: boolean }>((resolve) => {
    socket.on('data', (data: Buffer) => {
      parts.push(data);
      if (!paused && received().includes('\r\n\r\n')) {
        paused = true;
        if (options.pauseAtHead) socket.pause();
        headArrived();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = received();
      const bodyAt = text.indexOf('\r\n\r\n') + 4;
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(bodyAt), clean: text.endsWith('\r\n0\r\n\r\n') });
    });
  });
  socket.write(getRequest(exportPath(query), bearer(TEST_TOKEN)));
  return {
    headSeen,
    finished,
    /** The body bytes so far (chunk framing included). */
    body: () => received().slice(received().indexOf('\r\n\r\n') + 4),
    resume: () => socket.resume(),
    hangUp: () => socket.destroy(),
  };
}

describe('streaming and slots', () => {
  const bulk = (format = 'csv') => `format=${format}&dataset=samples&type=${BULK}&start=${BULK_START}&end=${BULK_START + 30 * DAY}`;
  const small = `format=csv&dataset=samples&type=${HEART}&start=${at('2026-01-10T10:00Z')}&end=${at('2026-01-10T10:01Z')}`;

  test('the CSV header goes out before the first row is read (the rows wait on a table lock)', async () => {
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE samples IN ACCESS EXCLUSIVE MODE');
      const exp = rawExport(small, { pauseAtHead: true });
      await exp.headSeen;
      await waitFor('the header row', async () => exp.body() === '2d\r\ntype,unit,uuid,start,end,value,label,source\r\n');
      await locker.query('ROLLBACK');
      exp.resume();
      const done = await exp.finished;
      assert.equal(done.status, 200);
      assert.equal(done.clean, true);
      assert.equal((done.body.match(/count\/min/g) ?? []).length, 6);
    } finally {
      await locker.end();
    }
    await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
  });

  test('two exports hold the slots: a third gets 503 with Retry-After: 60; slots come back after abort, completion and error', async () => {
    const first = rawExport(bulk(), { pauseAtHead: true });
    const second = rawExport(bulk('jsonl'), { pauseAtHead: true });
    await first.headSeen;
    // JSONL sends its head with the first rows; the bulk rows fill the socket, so the head does arrive.
    await second.headSeen;
    assert.equal(await advisoryLocks(), 2);

    const third = await fetchRaw(small);
    assert.equal(third.status, 503);
    assert.equal(third.headers['retry-after'], '60');
    assert.equal(third.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(third.body.toString()), { error: 'two exports are already running; retry later' });
    // Refusals of the request itself still come first.
    assert.equal((await fetchRaw('format=csv&dataset=samples&start=0&end=1')).status, 400);

    // Client abort frees a slot: a fourth export then runs to its end.
    first.hangUp();
    assert.equal((await first.finished).clean, false);
    await waitFor('one slot back', async () => (await advisoryLocks()) === 1);
    const fourth = await fetchRaw(small);
    assert.equal(fourth.status, 200);
    assert.equal(fourth.complete, true);
    assert.equal(await advisoryLocks(), 1);
    second.hangUp();
    await second.finished;
    await waitFor('both slots back', async () => (await advisoryLocks()) === 0);

    // Completion frees the slot: five exports in a row all run.
    for (let i = 0; i < 5; i++) assert.equal((await fetchRaw(small)).status, 200);
    assert.equal(await advisoryLocks(), 0);

    // An error after the first byte (a NaN value cannot be exported) aborts the file and frees the slot.
    for (let i = 0; i < 3; i++) {
      const failed = await rawExport(`format=csv&dataset=samples&type=${TEMP}&start=${at('2026-01-10T10:00Z')}&end=${at('2026-01-10T11:00Z')}`).finished;
      assert.equal(failed.status, 200);
      assert.equal(failed.clean, false, 'no clean end of file');
      assert.equal(failed.body, '2d\r\ntype,unit,uuid,start,end,value,label,source\r\n');
    }
    await waitFor('slots back after errors', async () => (await advisoryLocks()) === 0);
    const both = await Promise.all([fetchRaw(small), fetchRaw(small)]);
    assert.deepEqual(both.map((r) => r.status), [200, 200]);
  });

  test('a bulk export streams to the end with memory-sized chunks', async () => {
    const text = await download(bulk('csv'));
    const lines = text.split('\r\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, 1 + BULK_ROWS);
    assert.match(lines[1], new RegExp(`^${BULK},dBASPL,[0-9a-f-]{36},${BULK_START},${BULK_START + 5000},40,,Apple Watch$`));
  });
});

describe('limits cut the file instead of ending it', () => {
  const bulk = `format=csv&dataset=samples&type=${BULK}&start=${BULK_START}&end=${BULK_START + 30 * DAY}`;
  const env = (limits: Record<string, string>) => ({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: ZONE, ...limits } });

  /** An export whose client stops reading at the head, then reads again after `pauseMs`. */
  async function stalledExport(target: TestServer, pauseMs: number) {
    const exp = rawExport(bulk, { target, pauseAtHead: true });
    await exp.headSeen;
    setTimeout(exp.resume, pauseMs);
    return exp.finished;
  }

  describe('EXPORT_TIME_LIMIT_MS=300', () => {
    let limited: TestServer;
    before(async () => {
      limited = await startServer(env({ EXPORT_TIME_LIMIT_MS: '300' }));
    });
    after(async () => {
      await limited?.stop();
    });

    test('a slow node:http reader sees the download aborted, never a clean end', async () => {
      const started = Date.now();
      const outcome = await new Promise<string>((resolve) => {
        const request = httpGet(`${limited.baseUrl}${exportPath(bulk)}`, { headers: bearer(TEST_TOKEN) }, (response) => {
          assert.equal(response.statusCode, 200);
          // A chunk, then 50 ms of nothing: far slower than the export.
          response.on('data', () => {
            response.pause();
            setTimeout(() => response.resume(), 50);
          });
          response.on('end', () => resolve(response.complete ? 'clean end' : 'end without completion'));
          response.on('aborted', () => resolve('aborted'));
          response.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        });
        request.on('error', (error: NodeJS.ErrnoException) => resolve(`request ${error.code}`));
      });
      assert.ok(['aborted', 'ECONNRESET'].includes(outcome), outcome);
      assert.ok(Date.now() - started < 10_000);
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    });

    test('a raw client never receives the terminating zero-length chunk', async () => {
      const response = await stalledExport(limited, 1_000);
      assert.equal(response.status, 200);
      assert.equal(response.clean, false);
      assert.ok(response.body.startsWith('2d\r\ntype,unit,uuid,start,end,value,label,source\r\n'));
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    });
  });

  test('EXPORT_IDLE_LIMIT_MS=300: a client that reads nothing is dropped', async () => {
    const idle = await startServer(env({ EXPORT_IDLE_LIMIT_MS: '300' }));
    try {
      const response = await stalledExport(idle, 1_500);
      assert.equal(response.status, 200);
      assert.equal(response.clean, false);
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    } finally {
      await idle.stop();
    }
  });

  test('SHUTDOWN_GRACE_MS=300: a running export gets its grace, then is cut; the process exits 0', async () => {
    const stopping = await startServer(env({ SHUTDOWN_GRACE_MS: '300' }));
    const exp = rawExport(bulk, { target: stopping, pauseAtHead: true });
    await exp.headSeen;
    const signalled = Date.now();
    assert.equal(await stopping.stop('SIGTERM'), 0);
    const took = Date.now() - signalled;
    assert.ok(took >= 250 && took < 5_000, `exited ${took} ms after SIGTERM`);
    exp.resume();
    const response = await exp.finished;
    assert.equal(response.status, 200);
    assert.equal(response.clean, false);
  });
});

describe('samples encoding from PostgreSQL text equals csvLine / jsonlLine of the parsed row', () => {
  test('float8 and int8 text from PostgreSQL', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`SET extra_float_digits = 1`);
      const special = [0, -0, 1e-4, 9.99e-5, 1e-5, 1e-7, 1e14, 1e15 - 1, 1e15, 123456789012345.6, 1e16, 1e21, 1e22, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, -1.5e-10, 2 ** 53 + 2];
      const randoms = fc.sample(fc.double({ noNaN: true, noDefaultInfinity: true }), 20_000);
      const scaled = fc.sample(fc.tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -12, max: 24 })), 20_000).map(([m, e]) => m * 10 ** e);
      const values = [...special, ...randoms, ...scaled];
      const { rows } = await client.query<{ t: string }>({ text: 'SELECT v::text AS t FROM unnest($1::float8[]) AS v', values: [values.map(String)] });
      rows.forEach(({ t }, i) => assert.equal(floatText(t), plainNumber(values[i]), `${values[i]} (PostgreSQL: ${t})`));
      assert.equal(floatText('-0'), plainNumber(-0));
      for (const text of ['NaN', 'Infinity', '-Infinity']) assert.throws(() => floatText(text), RangeError);
      const integers = ['0', '-1', '253402300799999', '999999999999999', '9007199254740993', '-9223372036854775808'];
      for (const text of integers) assert.equal(integerText(text), plainNumber(Number(text)));
    } finally {
      await client.end();
    }
  });

  test('whole rows: random uuids, instants, values and source names, both formats', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const labelled = [0, 1, 2, 3, 4, 5, 9, 3.5].map((value) => ({ uuid: uuid(1), start: 1, end: 2, value, source: 'x' as string | null }));
      const random = fc.sample(
        fc.record({
          uuid: fc.uuid(),
          start: fc.integer({ min: 0, max: 253402300799999 }),
          end: fc.integer({ min: 0, max: 253402300799999 }),
          value: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
          source: fc.option(fc.oneof(fc.string(), fc.constantFrom('', '"', ',', '\r\n', '=1+1', 'a"b,c', 'Zürich ⌚'))),
        }),
        2_000,
      );
      const rows = [...labelled, ...random];
      const { rows: texts } = await client.query<{ v: string | null }>({ text: 'SELECT v::text AS v FROM unnest($1::float8[]) AS v', values: [rows.map((r) => r.value)] });
      const sleepLabels: Record<number, string> = { 0: 'inBed', 1: 'asleepUnspecified', 2: 'awake', 3: 'asleepCore', 4: 'asleepDeep', 5: 'asleepREM' };
      const columns = ['type', 'unit', 'uuid', 'start', 'end', 'value', 'label', 'source'];
      for (const [format, identifier, unit] of [['csv', HEART, 'count/min'], ['jsonl', HEART, 'count/min'], ['csv', SLEEP, null], ['jsonl', SLEEP, null]] as const) {
        const encoder = sampleTextEncoder(format, identifier);
        rows.forEach((row, i) => {
          const label = identifier === SLEEP && row.value !== null ? sleepLabels[row.value] ?? null : null;
          const cells: Cell[] = [identifier, unit, row.uuid.toLowerCase(), row.start, row.end, row.value, label, row.source];
          const expected = format === 'csv' ? csvLine(cells) : jsonlLine(columns, cells);
          assert.equal(encoder.row([row.uuid.toLowerCase(), String(row.start), String(row.end), texts[i].v, row.source]), expected);
        });
      }
    } finally {
      await client.end();
    }
  });
});
