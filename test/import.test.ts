// `npm run import` end to end: the CLI imports generated export.zip files into
// a throwaway database, and the stored rows and the API's answers match
// numbers worked out by hand from the fixture (test/support/apple-export.ts).
// Also: re-imports converge, bad input is refused naming file and line, a
// crash mid-way followed by a re-run ends with exactly one complete import.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, countMismatches, stopOwnCluster, tmpRoot, type TestDatabase } from './support/db.js';
import pg from 'pg';
import { MIGRATION_LOCK } from '../src/db/migrate.js';
import { waitFor } from './support/faults.js';
import { importCli } from './support/import-cli.js';
import { startServer } from './support/server.js';
import {
  appleExportXml,
  BAD_UNIT_MARK,
  PHONE,
  Q,
  record,
  writeAppleExportZip,
  writeZip,
} from './support/apple-export.js';

const USER = '5e1f3a2b-8c4d-4e6f-a7b8-9c0d1e2f3a4b';
const ZONE = 'America/New_York';
const MIN = 60_000;
const utc = (iso: string) => Date.parse(iso);

let db: TestDatabase;
let dir: string;
let zipPath: string;
let xml: string;
const env = () => ({ DATABASE_URL: db.url, SERVICE_TIME_ZONE: ZONE });

before(async () => {
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpRoot(), 'import-test-'));
  zipPath = join(dir, 'export.zip');
  xml = await writeAppleExportZip(zipPath);
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
  rmSync(dir, { recursive: true, force: true });
});

async function count(table: string, where = 'user_id = $1'): Promise<number> {
  const rows = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, [USER]);
  return Number(rows[0].n);
}

async function buckets(identifier: string): Promise<Array<{ day: string; sum: number | null; avg: number | null; min: number | null; max: number | null }>> {
  return db.query(
    `SELECT a.day::text AS day, a.sum, a.avg, a.min, a.max FROM daily_aggregates a JOIN sample_types t USING (type_id)
     WHERE a.user_id = $1 AND t.identifier = $2 ORDER BY a.day`,
    [USER, identifier],
  );
}

async function values(identifier: string): Promise<number[]> {
  const rows = await db.query<{ value: number }>(
    `SELECT s.value FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 AND t.identifier = $2 ORDER BY s.start_ms, s.value`,
    [USER, identifier],
  );
  return rows.map((r) => r.value);
}

function near(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);
}

/**
 * Everything one import of the fixture stores, counted in the fixture by type: steps 7
 * (the repeated record once), distance 3, energy 2, body mass 4, height, temperature,
 * SpO2, HRV 1 each, heart rate 7, power 2, speed 1, sleep 7, stand 1, mindful 1,
 * blood pressure 2, the sleep-duration goal (a type outside the registry) 1, the ECG 1.
 */
const FIXTURE_SAMPLES = 7 + 3 + 2 + 4 + 1 + 1 + 1 + 1 + 7 + 2 + 1 + 7 + 1 + 1 + 2 + 1 + 1;
/** Samples written by an import: the identical repeat of a step record is counted in the report, not written twice. */
const FIXTURE_RECORDS = FIXTURE_SAMPLES;

test('the export is imported: samples in canonical units, one copy of each correlation record', async () => {
  const run = await importCli(['--user', USER, zipPath], env());
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`${FIXTURE_RECORDS} samples written \\(${FIXTURE_SAMPLES} new\\)`));
  assert.equal(await count('samples'), FIXTURE_SAMPLES);
  assert.equal(await count('users'), 1);
  assert.deepEqual(await db.query(`SELECT value FROM settings WHERE key = 'time_zone'`), [{ value: ZONE }]);

  // km 1.5, mi 0.5, ft 100 → m.
  const distances = await values(`${Q}DistanceWalkingRunning`);
  near(distances[0], 1500, 'km');
  near(distances[1], 804.672, 'mi');
  near(distances[2], 30.48, 'ft');
  // kJ 41.84 → 10 kcal, Cal 5 → 5 kcal.
  const energy = await values(`${Q}ActiveEnergyBurned`);
  near(energy[0], 10, 'kJ');
  near(energy[1], 5, 'Cal');
  // lb 150, kg 68, st 11, g 70000 → kg (the parsec one is skipped).
  const mass = await values(`${Q}BodyMass`);
  assert.equal(mass.length, 4);
  near(mass[0], 150 * 0.45359237, 'lb');
  near(mass[1], 68, 'kg');
  near(mass[2], 11 * 6.35029318, 'st');
  near(mass[3], 70, 'g');
  near((await values(`${Q}Height`))[0], 1.8, 'cm');
  near((await values(`${Q}BodyTemperature`))[0], 37, 'degF');
  near((await values(`${Q}OxygenSaturation`))[0], 0.97, '% as a fraction');
  near((await values(`${Q}RunningSpeed`))[0], 3, 'km/hr');

  // Sleep: InBed 0, Core 3, Deep 4, REM 5, Awake 2, Core 3 from the watch; the legacy Asleep → 1.
  const sleep = await db.query<{ value: number; name: string }>(
    `SELECT s.value, src.name FROM samples s JOIN sample_types t USING (type_id) JOIN sources src USING (source_id)
     WHERE s.user_id = $1 AND t.identifier = 'HKCategoryTypeIdentifierSleepAnalysis' ORDER BY s.start_ms, s.value`,
    [USER],
  );
  assert.deepEqual(
    sleep.map((s) => `${s.name === PHONE.name ? 'phone' : 'watch'} ${s.value}`),
    ['watch 0', 'watch 3', 'phone 1', 'watch 4', 'watch 5', 'watch 2', 'watch 3'],
  );
  assert.deepEqual(await values('HKCategoryTypeIdentifierAppleStandHour'), [0]);
  assert.deepEqual(await values('HKCategoryTypeIdentifierMindfulSession'), [0]);

  // The blood pressure correlation's records, once each.
  assert.deepEqual(await values(`${Q}BloodPressureSystolic`), [118]);
  assert.deepEqual(await values(`${Q}BloodPressureDiastolic`), [76]);

  // Metadata entries, and the HRV record's beats.
  const [hr] = await db.query<{ metadata: Record<string, string> }>(
    `SELECT s.metadata FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 AND t.identifier = $2 ORDER BY s.start_ms LIMIT 1`,
    [USER, `${Q}HeartRate`],
  );
  assert.deepEqual(hr.metadata, { HKMetadataKeyHeartRateMotionContext: '2' });
  const [hrv] = await db.query<{ metadata: { instantaneousBeatsPerMinute: Array<{ bpm: number }> } }>(
    `SELECT s.metadata FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 AND t.identifier = $2`,
    [USER, `${Q}HeartRateVariabilitySDNN`],
  );
  assert.deepEqual(hrv.metadata.instantaneousBeatsPerMinute.map((b) => b.bpm), [58, 61]);

  // The watch wrote through two HKDevice objects: still one source.
  assert.deepEqual(await db.query(`SELECT name, device FROM sources WHERE name LIKE 'Alex%' ORDER BY name`), [
    { name: 'Alex’s Apple Watch', device: 'Watch6,1' },
    { name: 'Alex’s iPhone', device: 'iPhone14,2' },
  ]);

  // The report names the skipped unit and counts it; the warning names file and line.
  const badLine = xml.split('\n').findIndex((line) => line.includes(`unit="${BAD_UNIT_MARK}"`)) + 1;
  assert.match(run.stderr, new RegExp(`export\\.xml line ${badLine}: HKQuantityTypeIdentifierBodyMass skipped: unit "${BAD_UNIT_MARK}" cannot be converted to kg`));
  assert.match(run.stdout, /HKQuantityTypeIdentifierBodyMass\s+4\s+1\s+\(unit "parsec" cannot be converted to kg: 1\)/);
  assert.match(run.stdout, /HKQuantityTypeIdentifierStepCount\s+7\s+1\s+\(repeats an identical record: stored once: 1\)/);
  // Outside the registry: stored, its unit kept beside the number.
  assert.match(run.stdout, /HKDataTypeSleepDurationGoal\s+1\s+0\s+\(stored, unit as given: 1\)/);
  assert.deepEqual(
    await db.query(`SELECT s.value, s.metadata FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 AND t.identifier = 'HKDataTypeSleepDurationGoal'`, [USER]),
    [{ value: 8, metadata: { unit: 'hr' } }],
  );
  // The correlation's records are copies of top-level ones: counted as such, stored once.
  assert.match(run.stdout, /HKQuantityTypeIdentifierBloodPressureSystolic\s+1\s+1\s+\(a Correlation's copy of a record stored from top level: 1\)/);
  assert.match(run.stdout, /^XML read strictly/m);
});

test('daily aggregates: per New York day, overlaps deduplicated watch → phone → app, DST days', async () => {
  // 2024-03-10 is 23 h long. Watch 600 + watch 300; the phone's 400 over 01:15–01:45 is half
  // covered by the watch's 01:00–01:30 → 200; the app's 500 lies under the watch → 0; the
  // phone's 120 starting 23:50 belongs to the 10th. 2024-11-03 (25 h): 01:30 twice, 50 + 70.
  assert.deepEqual(
    (await buckets(`${Q}StepCount`)).map((b) => [b.day, b.sum]),
    [
      ['2024-03-10', 600 + 300 + 200 + 0 + 120],
      ['2024-11-03', 50 + 70],
    ],
  );
  const [distance] = await buckets(`${Q}DistanceWalkingRunning`);
  near(distance.sum, 1500 + 804.672 + 30.48, 'distance sum');
  near((await buckets(`${Q}ActiveEnergyBurned`))[0].sum, 15, 'energy sum');
  // Discrete: the day's mean, min and max; no sum.
  const mass = await buckets(`${Q}BodyMass`);
  assert.deepEqual(mass.map((b) => b.day), ['2024-03-10', '2024-03-11', '2024-03-12']);
  near(mass[0].avg, (150 * 0.45359237 + 68) / 2, 'mass mean');
  near(mass[0].min, 68, 'mass min');
  near(mass[0].max, 150 * 0.45359237, 'mass max');
  assert.equal(mass[0].sum, null);
  // Heart rate on the 10th: watch 120, 130, 140, 150, 70 and the strap's 200 twice.
  const [heart] = await buckets(`${Q}HeartRate`);
  near(heart.avg, (120 + 130 + 140 + 150 + 70 + 200 + 200) / 7, 'heart rate mean');
  assert.equal(heart.min, 70);
  assert.equal(heart.max, 200);
});

test('workouts, their routes and streams; activity rings; profile; ECG; the upload batch', async () => {
  const workouts = await db.query<{
    uuid: string;
    activity_type: string;
    start_ms: string;
    end_ms: string;
    duration_s: number;
    distance_m: number | null;
    energy_kcal: number | null;
    statistics: Record<string, Record<string, number>>;
    events: Array<Record<string, unknown>>;
    activities: Array<Record<string, unknown>>;
    metadata: Record<string, string> | null;
  }>(`SELECT * FROM workouts WHERE user_id = $1 ORDER BY start_ms`, [USER]);
  assert.deepEqual(workouts.map((w) => w.activity_type), ['running', 'swimBikeRun', 'cycling']);
  const [run, multisport, ride] = workouts;

  // The run: 08:00–08:30 EDT = 12:00–12:30 UTC; 3.10686 mi; 300 Cal.
  assert.equal(Number(run.start_ms), utc('2024-03-10T12:00:00Z'));
  assert.equal(Number(run.end_ms), utc('2024-03-10T12:30:00Z'));
  assert.equal(run.duration_s, 1800);
  near(run.distance_m, 3.10686 * 1609.344, 'run distance');
  assert.equal(run.energy_kcal, 300);
  assert.deepEqual(run.statistics[`${Q}HeartRate`], { avg: 135, min: 120, max: 150 });
  assert.deepEqual(run.events, [
    { type: 'pause', start: utc('2024-03-10T12:12:00Z'), end: utc('2024-03-10T12:13:00Z') },
    { type: 'segment', start: utc('2024-03-10T12:00:00Z'), end: utc('2024-03-10T12:10:00Z'), metadata: { HKSegmentIndex: '1' } },
  ]);
  assert.deepEqual(run.activities, [], 'a single activity repeating the workout is no multisport segment');
  assert.deepEqual(run.metadata, { HKIndoorWorkout: '0', HKTimeZone: 'America/New_York' });

  // Multisport: two activities, distance swim 1000 m + ride 20 km.
  assert.equal(multisport.distance_m, 21_000);
  assert.equal(multisport.activities.length, 2);
  assert.equal(multisport.activities[1].start, utc('2024-03-12T11:35:00Z'));

  // The pre-iOS 16 ride across the fall-back hour: 01:10 EDT – 01:50 EST = 05:10–06:50 UTC.
  assert.equal(Number(ride.start_ms), utc('2024-11-03T05:10:00Z'));
  assert.equal(Number(ride.end_ms), utc('2024-11-03T06:50:00Z'));
  assert.equal(ride.duration_s, 6000);
  assert.equal(ride.distance_m, 20_000);
  near(ride.energy_kcal, 500 / 4.184, 'kJ → kcal');
  assert.deepEqual(ride.statistics[`${Q}DistanceCycling`], { sum: 20_000 });

  // Routes: the run's from its GPX file, the ride's inline (sorted by time across the repeated hour).
  const routes = await db.query<{ workout_uuid: string; times_ms: string[]; latitudes: number[]; altitudes_m: Array<number | null> }>(
    `SELECT workout_uuid, times_ms, latitudes, altitudes_m FROM workout_routes WHERE user_id = $1`,
    [USER],
  );
  const runRoute = routes.find((r) => r.workout_uuid === run.uuid);
  const rideRoute = routes.find((r) => r.workout_uuid === ride.uuid);
  assert.deepEqual(runRoute?.times_ms.map(Number), [utc('2024-03-10T12:00:00Z'), utc('2024-03-10T12:01:00Z'), utc('2024-03-10T12:02:00Z')]);
  assert.deepEqual(runRoute?.altitudes_m, [12.5, null, 14]);
  assert.deepEqual(rideRoute?.times_ms.map(Number), [utc('2024-11-03T05:10:00Z'), utc('2024-11-03T05:30:00Z'), utc('2024-11-03T06:30:00Z')]);
  assert.deepEqual(rideRoute?.latitudes, [40.78, 40.785, 40.79]);
  assert.equal(routes.length, 2);

  // Streams of the run: the watch's 4 heart rates (the strap's 2 lose), power, speed.
  const streams = await db.query<{ identifier: string; times_ms: string[]; values: number[] }>(
    `SELECT t.identifier, s.times_ms, s."values" FROM workout_streams s JOIN sample_types t USING (type_id) WHERE s.workout_uuid = $1 ORDER BY 1`,
    [run.uuid],
  );
  assert.deepEqual(
    streams.map((s) => [s.identifier, s.times_ms.map((t) => (Number(t) - utc('2024-03-10T12:00:00Z')) / MIN), s.values.map((v) => Math.round(v * 1000) / 1000)]),
    [
      [`${Q}HeartRate`, [0, 10, 20, 30], [120, 130, 140, 150]],
      [`${Q}RunningPower`, [0, 15], [250, 270]],
      [`${Q}RunningSpeed`, [10], [3]],
    ],
  );

  // Rings: the 10th in active-energy mode; the 11th in move-time mode (836.8 kJ = 200 kcal).
  const rings = await db.query(`SELECT day::text AS day, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours,
    move_time_min, move_time_goal_min, move_mode FROM activity_summaries WHERE user_id = $1 ORDER BY day`, [USER]);
  assert.deepEqual(rings[0], {
    day: '2024-03-10', move_kcal: 450, move_goal_kcal: 500, exercise_min: 35, exercise_goal_min: 30,
    stand_hours: 10, stand_goal_hours: 12, move_time_min: null, move_time_goal_min: null, move_mode: 1,
  });
  near(rings[1].move_kcal, 200, 'kJ ring');
  assert.equal(rings[1].move_mode, 2);
  assert.equal(rings[1].move_time_min, 45);
  assert.equal(rings[1].move_time_goal_min, 60);

  assert.deepEqual(await db.query(`SELECT date_of_birth_ms, biological_sex FROM profiles WHERE user_id = $1`, [USER]), [
    { date_of_birth_ms: String(Date.UTC(1990, 4, 17)), biological_sex: 'female' },
  ]);

  // The ECG: 1024 voltages at 512 Hz = 2 s from 09:15 EDT.
  const [ecg] = await db.query<{ start_ms: string; end_ms: string; value: number | null; metadata: Record<string, unknown>; name: string }>(
    `SELECT s.start_ms, s.end_ms, s.value, s.metadata, src.name FROM samples s JOIN sample_types t USING (type_id) JOIN sources src USING (source_id)
     WHERE s.user_id = $1 AND t.identifier = 'HKDataTypeIdentifierElectrocardiogram'`,
    [USER],
  );
  assert.equal(Number(ecg.start_ms), utc('2024-03-12T13:15:00Z'));
  assert.equal(Number(ecg.end_ms) - Number(ecg.start_ms), 2000);
  assert.equal(ecg.value, null);
  assert.equal(ecg.name, 'ECG');
  assert.equal(ecg.metadata.classification, 'Sinus Rhythm');
  assert.equal(ecg.metadata.samplingFrequencyHz, 512);
  assert.equal(ecg.metadata.averageHeartRate, 72);
  assert.equal(ecg.metadata.numberOfVoltageMeasurements, 1024);

  // One batch, received at the export's date (2024-11-05 12:00 EST).
  assert.deepEqual(await db.query(`SELECT received_at_ms, sample_count FROM upload_batches WHERE user_id = $1`, [USER]), [
    { received_at_ms: String(utc('2024-11-05T17:00:00Z')), sample_count: String(FIXTURE_RECORDS) },
  ]);
});

test('the API serves the imported data', async () => {
  const server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: ZONE, SERVICE_USER_ID: USER } });
  try {
    const march = `start=${utc('2024-03-01T05:00:00Z')}&end=${utc('2024-04-01T04:00:00Z')}`;
    const daily = await server.getJson(`/v1/metrics/daily?types=${Q}StepCount,${Q}BodyMass&start=${utc('2024-03-01T05:00:00Z')}&end=${utc('2024-12-01T05:00:00Z')}`);
    assert.equal(daily.status, 200, JSON.stringify(daily.body));
    assert.deepEqual(daily.body.metrics[0].days, [
      { date: '2024-03-10', value: 1220 },
      { date: '2024-11-03', value: 120 },
    ]);
    assert.deepEqual(daily.body.metrics[1].days.map((d: { date: string }) => d.date), ['2024-03-10', '2024-03-11', '2024-03-12']);

    const rings = await server.getJson(`/v1/activity/summary?${march}`);
    assert.equal(rings.status, 200);
    assert.deepEqual(rings.body.days.map((d: { date: string; moveMode: number }) => [d.date, d.moveMode]), [['2024-03-10', 1], ['2024-03-11', 2]]);

    const profile = await server.getJson('/v1/profile');
    assert.equal(profile.status, 200);
    assert.equal(profile.body.dateOfBirth, Date.UTC(1990, 4, 17));
    assert.equal(profile.body.biologicalSex, 'female');

    const users = await server.getJson('/v1/users');
    assert.equal(users.body.users[0].batches, 1);
    assert.equal(users.body.users[0].lastSync, utc('2024-11-05T17:00:00Z'));
    assert.equal(users.body.users[0].uploadedSamples, FIXTURE_RECORDS);

    const sleep = await server.getJson(`/v1/samples?type=HKCategoryTypeIdentifierSleepAnalysis&${march}`);
    assert.equal(sleep.status, 200);
    assert.deepEqual(
      sleep.body.samples.map((s: { label: string }) => s.label),
      ['inBed', 'asleepCore', 'asleepUnspecified', 'asleepDeep', 'asleepREM', 'awake', 'asleepCore'],
    );

    // The watch's sleep (core 140 + deep 60 + REM 90 + core 100 min) beats the phone's 360 min;
    // in bed 23:00 EST – 07:00 EDT is 7 h on the night the clocks spring forward.
    const nights = await server.getJson(`/v1/sleep/daily?${march}`);
    assert.equal(nights.status, 200, JSON.stringify(nights.body));
    assert.equal(nights.body.nights.length, 1);
    assert.equal(nights.body.nights[0].date, '2024-03-10');
    assert.equal(nights.body.nights[0].asleepMinutes, 140 + 60 + 90 + 100);
    assert.equal(nights.body.nights[0].inBedMinutes, 420);
    assert.deepEqual(nights.body.nights[0].stages, { core: 240, deep: 60, rem: 90, unspecified: 0, awake: 10 });

    const workouts = await server.getJson(`/v1/workouts?start=${utc('2024-03-01T05:00:00Z')}&end=${utc('2024-12-01T05:00:00Z')}`);
    assert.equal(workouts.status, 200, JSON.stringify(workouts.body));
    const listed = workouts.body.workouts as Array<{ uuid: string; activityType: string; distanceM: number; hasRoute: boolean; availableMetrics: string[] }>;
    assert.deepEqual(listed.map((w) => [w.activityType, w.distanceM, w.hasRoute]), [['cycling', 20_000, true], ['swimBikeRun', 21_000, false], ['running', listed[2].distanceM, true]]);
    near(listed[2].distanceM, 3.10686 * 1609.344, 'listed run distance');
    assert.deepEqual([...listed[2].availableMetrics].sort(), [`${Q}HeartRate`, `${Q}RunningPower`, `${Q}RunningSpeed`]);
    const detail = await server.getJson(`/v1/workouts/${listed[2].uuid}`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    assert.deepEqual(detail.body.statisticsDetail[`${Q}ActiveEnergyBurned`], { sum: 300 });
    assert.equal(detail.body.events[0].type, 'pause');
    const series = await server.getJson(`/v1/workouts/${listed[2].uuid}/series`);
    assert.equal(series.status, 200, JSON.stringify(series.body));
    const heart = series.body.series.find((s: { type: string }) => s.type === `${Q}HeartRate`);
    assert.deepEqual(heart.points, [0, 10, 20, 30].map((m, i) => [utc('2024-03-10T12:00:00Z') + m * MIN, 120 + 10 * i]));
  } finally {
    await server.stop();
  }
});

test('importing the same export again changes nothing', async () => {
  const before = await Promise.all(['samples', 'workouts', 'workout_routes', 'workout_streams', 'activity_summaries', 'daily_aggregates', 'upload_batches'].map((t) => count(t)));
  const run = await importCli(['--user', USER, zipPath], env());
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`${FIXTURE_RECORDS} samples written \\(0 new\\)`));
  const again = await Promise.all(['samples', 'workouts', 'workout_routes', 'workout_streams', 'activity_summaries', 'daily_aggregates', 'upload_batches'].map((t) => count(t)));
  assert.deepEqual(again, before);
  assert.deepEqual(await countMismatches(db), [], 'the counts the catalog and /v1/users read are what is stored');
});

test('a newer export, written after travelling to Berlin, adds only what is new', async () => {
  const newer = join(dir, 'newer.zip');
  const zone = 'Europe/Berlin';
  await writeAppleExportZip(newer, {
    zone,
    exportedAt: '2024-11-10T12:00:00-05:00',
    extra: [
      record({ type: `${Q}StepCount`, source: PHONE, unit: 'count', start: '2024-11-04T08:00:00-05:00', end: '2024-11-04T08:10:00-05:00', value: '100' }, zone),
      record({ type: `${Q}StepCount`, source: PHONE, unit: 'count', start: '2024-11-04T12:00:00-05:00', end: '2024-11-04T12:10:00-05:00', value: '200' }, zone),
    ],
  });
  assert.ok(readFileSync(newer).length > 0);
  const run = await importCli([newer], { ...env(), SERVICE_USER_ID: USER });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await count('samples'), FIXTURE_SAMPLES + 2);
  assert.deepEqual(await countMismatches(db), []);
  assert.equal(await count('workouts'), 3);
  assert.equal(await count('workout_routes'), 2);
  assert.deepEqual((await buckets(`${Q}StepCount`)).map((b) => [b.day, b.sum]), [
    ['2024-03-10', 1220],
    ['2024-11-03', 120],
    ['2024-11-04', 300],
  ]);
  assert.deepEqual((await db.query(`SELECT received_at_ms FROM upload_batches WHERE user_id = $1 ORDER BY 1`, [USER])).map((r) => Number(r.received_at_ms)), [
    utc('2024-11-05T17:00:00Z'),
    utc('2024-11-10T17:00:00Z'),
  ]);
});

test('a SERVICE_TIME_ZONE that disagrees with the stored zone is refused before anything is written', async () => {
  const samples = await count('samples');
  const run = await importCli(['--user', USER, zipPath], { DATABASE_URL: db.url, SERVICE_TIME_ZONE: 'UTC' });
  assert.equal(run.code, 2);
  assert.match(run.stderr.trim(), /^import: SERVICE_TIME_ZONE is UTC but the stored days are cut in America\/New_York/);
  assert.equal(run.stderr.trim().split('\n').length, 1);
  assert.equal(await count('samples'), samples);
});

test('a truncated zip is refused naming the file', async () => {
  const truncated = join(dir, 'truncated.zip');
  const whole = readFileSync(zipPath);
  writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
  const run = await importCli(['--user', USER, truncated], env());
  assert.equal(run.code, 1);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /^import: .*truncated\.zip: not a zip archive, or a truncated or damaged one/);
});

test('a zip whose export.xml is damaged inside is refused naming the file and the line reached', async () => {
  const damaged = join(dir, 'damaged.zip');
  await writeZip(damaged, { 'apple_health_export/export.xml': appleExportXml() });
  const bytes = readFileSync(damaged);
  // The entry's compressed data starts after its 30-byte local header and name; zero a stretch in its middle.
  const dataStart = 30 + 'apple_health_export/export.xml'.length;
  const centralDirectory = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  const middle = Math.floor((dataStart + centralDirectory) / 2);
  bytes.fill(0, middle, middle + 64);
  writeFileSync(damaged, bytes);
  const run = await importCli(['--user', USER, damaged], env());
  assert.equal(run.code, 1);
  const stderr = run.stderr.trim().split('\n');
  assert.match(stderr[stderr.length - 1], /^import: .*damaged\.zip:apple_health_export\/export\.xml line \d+(, column \d+)?: (cannot be read to the end|malformed XML)/);
});

test('malformed XML is refused naming the file and line', async () => {
  const broken = join(dir, 'broken.zip');
  const lines = appleExportXml().split('\n');
  const at = lines.findIndex((line) => line.includes('<Workout ')) + 1; // 1-based line of the first workout
  lines[at - 1] = lines[at - 1].replace('<Workout ', '<Workout workoutActivityType="x" ').replace(/>$/, ' oops>');
  await writeZip(broken, { 'apple_health_export/export.xml': lines.join('\n') });
  const run = await importCli(['--user', USER, broken], env());
  assert.equal(run.code, 1);
  const stderr = run.stderr.trim().split('\n');
  assert.match(stderr[stderr.length - 1], new RegExp(`^import: .*broken\\.zip:apple_health_export/export\\.xml line ${at}, column \\d+: malformed XML: `));
});

test('records alike in every attribute but their metadata are two records: both stored, and again once on a re-import', async () => {
  const other = '5e1f3a2b-8c4d-4e6f-a7b8-00000000000b';
  const beat = (context: string) =>
    record({ type: `${Q}HeartRate`, source: PHONE, start: '2024-06-01T10:00:00-04:00', unit: 'count/min', value: '72', metadata: { HKMetadataKeyHeartRateMotionContext: context } }, ZONE);
  // At rest, in motion, and an identical repeat of the one in motion.
  const path = join(dir, 'metadata-apart.zip');
  await writeZip(path, { 'apple_health_export/export.xml': appleExportXml({ extra: [beat('1'), beat('2'), beat('2')] }) });
  const stored = async () =>
    db.query<{ context: string }>(
      `SELECT s.metadata->>'HKMetadataKeyHeartRateMotionContext' AS context FROM samples s JOIN sample_types t USING (type_id)
       WHERE s.user_id = $1 AND t.identifier = $2 AND s.start_ms = $3 ORDER BY 1`,
      [other, `${Q}HeartRate`, utc('2024-06-01T14:00:00Z')],
    );
  const first = await importCli(['--user', other, path], env());
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual((await stored()).map((r) => r.context), ['1', '2']);
  assert.match(first.stdout, /HKQuantityTypeIdentifierHeartRate\s+\d+\s+1\s+\(repeats an identical record: stored once: 1\)/);
  const again = await importCli(['--user', other, path], env());
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /samples written \(0 new\)/);
  assert.deepEqual((await stored()).map((r) => r.context), ['1', '2']);
});

test('a first import that stops before storing anything leaves no time zone behind: the next may choose another', async () => {
  const fresh = await createTestDatabase();
  try {
    const broken = join(dir, 'broken-first.zip');
    await writeZip(broken, { 'apple_health_export/export.xml': appleExportXml().replace('<Record ', '<Record oops ') });
    const failed = await importCli(['--user', USER, broken], { DATABASE_URL: fresh.url, SERVICE_TIME_ZONE: 'UTC' });
    assert.equal(failed.code, 1, failed.stderr);
    assert.deepEqual(await fresh.query(`SELECT value FROM settings WHERE key = 'time_zone'`), []);
    const run = await importCli(['--user', USER, zipPath], { DATABASE_URL: fresh.url, SERVICE_TIME_ZONE: ZONE });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await fresh.query(`SELECT value FROM settings WHERE key = 'time_zone'`), [{ value: ZONE }]);
  } finally {
    await fresh.drop();
  }
});

test('an export.xml saved again in another encoding than UTF-8 is refused, saying which and how to convert it', async () => {
  const latin1 = join(dir, 'latin1.xml');
  writeFileSync(latin1, Buffer.from(appleExportXml().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1'));
  const declared = await importCli(['--user', USER, latin1], env());
  assert.equal(declared.code, 1);
  assert.match(declared.stderr.trim(), /latin1\.xml is encoded in ISO-8859-1; Apple Health writes export\.xml in UTF-8, the only encoding read: convert it first \(iconv -f ISO-8859-1 -t UTF-8\)$/);
  const utf16 = join(dir, 'utf16.zip');
  await writeZip(utf16, { 'apple_health_export/export.xml': Buffer.from('\ufeff' + appleExportXml(), 'utf16le') });
  const wide = await importCli(['--user', USER, utf16], env());
  assert.equal(wide.code, 1);
  assert.match(wide.stderr.trim(), /export\.xml is encoded in UTF-16; Apple Health writes export\.xml in UTF-8/);
});

test('--source-priority names match as typed (case, a straight apostrophe for a curly one); a name no source has is said, not silently ignored', async () => {
  const typedDb = await createTestDatabase();
  try {
    const start = '2023-06-01T14:00:00Z';
    const end = '2023-06-01T14:30:00Z';
    const steps = (name: string, value: string) => record({ type: `${Q}StepCount`, source: { name }, unit: 'count', start, end, value }, ZONE);
    const file = join(dir, 'typed.xml');
    writeFileSync(file, appleExportXml({ extra: [steps('Bob’s Tracker', '1000'), steps('Strava', '800')] }));
    const run = await importCli(['--user', USER, '--source-priority', "bob's tracker,Stravaa", file], { DATABASE_URL: typedDb.url, SERVICE_TIME_ZONE: ZONE });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /--source-priority: no source is named "Stravaa"/);
    assert.doesNotMatch(run.stderr, /no source is named "bob's tracker"/);
    const [day] = await typedDb.query<{ sum: number }>(
      `SELECT d.sum FROM daily_aggregates d JOIN sample_types t USING (type_id) WHERE d.user_id = $1 AND t.identifier = $2 AND d.day = '2023-06-01'`,
      [USER, `${Q}StepCount`],
    );
    assert.equal(day.sum, 1000, 'the named tracker alone counts where the two overlap');
  } finally {
    await typedDb.drop();
  }
});

test('a file cut short stops there, read leniently or not, without advising --lenient (it would stop at the same place)', async () => {
  const cut = join(dir, 'cut.xml');
  const whole = appleExportXml();
  writeFileSync(cut, whole.slice(0, whole.indexOf('<Workout ') + 20));
  for (const args of [['--lenient'], []]) {
    const run = await importCli(['--user', USER, ...args, cut], env());
    assert.equal(run.code, 1);
    assert.match(run.stderr.trim(), /cut\.xml line \d+, column \d+: malformed XML: the document ends inside a tag/);
    assert.doesNotMatch(run.stderr, /--lenient/, args.join());
  }
});

test('a stop signal that comes before the file is read (the migrations waiting on another) stops the import then, nothing stored', async () => {
  const early = await createTestDatabase();
  const holder = new pg.Client({ connectionString: early.url });
  await holder.connect();
  try {
    // The import waits on the migrations' lock, held here, while the signal comes; then it may go on.
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    let stop: (signal?: NodeJS.Signals) => void = () => {};
    // Batches of 1000 committed as they go: an import that did not stop would leave samples behind.
    const run = importCli(['--user', USER, await bigExport()], { DATABASE_URL: early.url, SERVICE_TIME_ZONE: ZONE, HEALTHD_IMPORT_BATCH_ROWS: '1000' }, (kill) => (stop = kill));
    const waiting = `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = ${MIGRATION_LOCK}`;
    await waitFor('the import waiting on the migrations', async () => (await early.query<{ n: string }>(waiting))[0].n !== '0', 20_000);
    stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    const { code, stderr } = await run;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /interrupted/);
    assert.deepEqual(await early.query('SELECT count(*)::int AS n FROM samples'), [{ n: 0 }]);
  } finally {
    await holder.end();
    await early.drop();
  }
});

/** The fixture plus 20,000 app step samples of 10 steps, one a minute from 2023-01-01 05:00 UTC (midnight EST); written once. */
let bigZip: Promise<string> | null = null;
function bigExport(): Promise<string> {
  bigZip ??= (async () => {
    const filler: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const start = new Date(utc('2023-01-01T05:00:00Z') + i * MIN).toISOString().replace('.000Z', 'Z');
      filler.push(record({ type: `${Q}StepCount`, source: { name: 'Filler' }, unit: 'count', start, end: start, value: '10' }, ZONE));
    }
    const big = join(dir, 'big.zip');
    await writeAppleExportZip(big, { extra: filler });
    return big;
  })();
  return bigZip;
}

/** Runs the import of the big export into `target` in batches of 1000 and stops it with `signal` (or `signal()`) once 3000 samples are in. */
async function stoppedImport(target: TestDatabase, signal: NodeJS.Signals | (() => Promise<unknown>)) {
  let stop: (signal?: NodeJS.Signals) => void = () => {};
  let exited = false;
  const run = importCli(['--user', USER, await bigExport()], { DATABASE_URL: target.url, SERVICE_TIME_ZONE: ZONE, HEALTHD_IMPORT_BATCH_ROWS: '1000' }, (k) => (stop = k));
  void run.then(() => (exited = true));
  let stored = 0;
  while (stored < 3000 && !exited) {
    stored = Number((await target.query<{ n: string }>('SELECT count(*) AS n FROM samples'))[0].n);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (typeof signal === 'function') await signal();
  else stop(signal);
  return run;
}

test('a database that goes away mid-import (its sessions ended) stops the import in one line, not a crash', async () => {
  const goneDb = await createTestDatabase();
  try {
    const run = await stoppedImport(goneDb, () => goneDb.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()'));
    assert.equal(run.code, 1, run.stderr);
    assert.doesNotMatch(run.stderr, /Unhandled 'error' event|node:events|^\s+at /m);
    assert.match(run.stderr, /^import: /m);
  } finally {
    await goneDb.drop();
  }
});

test('stopped by SIGTERM mid-way, an import leaves what it stored counted for the catalog', async () => {
  const stoppedDb = await createTestDatabase();
  try {
    const run = await stoppedImport(stoppedDb, 'SIGTERM');
    assert.notEqual(run.code, 0, `stopped, not finished: ${run.stderr}`);
    const stored = Number((await stoppedDb.query<{ n: string }>('SELECT count(*) AS n FROM samples'))[0].n);
    assert.ok(stored >= 3000 && stored < FIXTURE_SAMPLES + 20_000, `a partial import (${stored} samples)`);
    assert.deepEqual(await countMismatches(stoppedDb), []);
    assert.deepEqual(await stoppedDb.query('SELECT * FROM stale_sample_counts'), [], 'recounted, so no longer marked stale');
  } finally {
    await stoppedDb.drop();
  }
});

test('a crash mid-way, then a re-run, ends with exactly one complete import', async () => {
  const crashDb = await createTestDatabase();
  try {
    const crashEnv = { DATABASE_URL: crashDb.url, SERVICE_TIME_ZONE: ZONE, HEALTHD_IMPORT_BATCH_ROWS: '1000' };
    // Kill it (SIGKILL: no cleanup at all) as soon as some batches are in.
    const first = await stoppedImport(crashDb, 'SIGKILL');
    assert.equal(first.code, null, `killed mid-way, not finished: ${first.stderr}`);
    const partial = Number((await crashDb.query<{ n: string }>('SELECT count(*) AS n FROM samples'))[0].n);
    assert.ok(partial < FIXTURE_SAMPLES + 20_000, `a partial import (${partial} samples)`);
    assert.equal(Number((await crashDb.query<{ n: string }>('SELECT count(*) AS n FROM upload_batches'))[0].n), 0);
    // Killed before it recounted: its user stays marked stale, and the catalog counts that user's samples itself.
    const OWN_TABLES = ['HKWorkoutTypeIdentifier', 'HKDataTypeIdentifierStateOfMind', 'HKActivitySummaryTypeIdentifier'];
    assert.deepEqual((await crashDb.query<{ user_id: string }>('SELECT user_id FROM stale_sample_counts')).map((row) => row.user_id), [USER]);
    const reader = await startServer({ databaseUrl: crashDb.url, env: { SERVICE_TIME_ZONE: ZONE, SERVICE_USER_ID: USER } });
    try {
      const catalog = await reader.getJson('/v1/catalog/types');
      assert.equal(catalog.status, 200);
      const counted = (catalog.body.types as { identifier: string; rawRows: number }[]).filter((t) => !OWN_TABLES.includes(t.identifier) && t.rawRows > 0).map((t) => `${t.identifier} ${t.rawRows}`).sort();
      const stored = await crashDb.query<{ k: string }>(
        `SELECT t.identifier || ' ' || count(*) AS k FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 GROUP BY t.identifier`,
        [USER],
      );
      assert.ok(counted.length > 0);
      assert.deepEqual(counted, stored.map((row) => row.k).sort(), 'the catalog shows the samples the killed import stored');
    } finally {
      await reader.stop();
    }

    const run = await importCli(['--user', USER, await bigExport()], crashEnv);
    assert.equal(run.code, 0, run.stderr);
    const [{ n }] = await crashDb.query<{ n: string }>('SELECT count(*) AS n FROM samples WHERE user_id = $1', [USER]);
    assert.equal(Number(n), FIXTURE_SAMPLES + 20_000);
    assert.deepEqual(await countMismatches(crashDb), [], 'the re-run counts the samples the killed run stored too');
    assert.deepEqual(await crashDb.query('SELECT * FROM stale_sample_counts'), [], 'and clears the mark');
    // 20,000 minutes from local midnight of 2023-01-01: 13 full days of 1440 and 1280 minutes on the 14th.
    const filled = await crashDb.query<{ day: string; sum: number }>(
      `SELECT a.day::text AS day, a.sum FROM daily_aggregates a JOIN sample_types t USING (type_id)
       WHERE a.user_id = $1 AND t.identifier = $2 AND a.day < '2024-01-01' ORDER BY a.day`,
      [USER, `${Q}StepCount`],
    );
    assert.equal(filled.length, 14);
    assert.ok(filled.slice(0, 13).every((d) => d.sum === 14_400));
    assert.deepEqual(filled[13], { day: '2023-01-14', sum: 12_800 });
    assert.equal(Number((await crashDb.query<{ n: string }>('SELECT count(*) AS n FROM upload_batches'))[0].n), 1);
    assert.equal(Number((await crashDb.query<{ n: string }>('SELECT count(*) AS n FROM workouts'))[0].n), 3);
  } finally {
    await crashDb.drop();
  }
});


test('a phone set to Arabic: the birth date and a ring day in Arabic-Indic digits are read; an export without ExportDate imported twice is one batch', async () => {
  const OTHER = '5e1f3a2b-8c4d-4e6f-a7b8-9c0d1e2f3a4c';
  const arabic = join(dir, 'arabic.zip');
  await writeAppleExportZip(arabic, {
    exportedAt: null,
    dateOfBirth: '١٩٨٠-٠١-٠٢',
    extra: [
      ` <ActivitySummary dateComponents="٢٠٢٤-٠٣-١٢" activeEnergyBurned="300" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleExerciseTime="10" appleExerciseTimeGoal="30" appleStandHours="6" appleStandHoursGoal="12"/>`,
    ],
  });
  for (let run = 0; run < 2; run++) {
    const imported = await importCli(['--user', OTHER, arabic], env());
    assert.equal(imported.code, 0, imported.stderr);
  }
  const [profile] = await db.query('SELECT date_of_birth_ms FROM profiles WHERE user_id = $1', [OTHER]);
  assert.equal(Number(profile.date_of_birth_ms), Date.UTC(1980, 0, 2));
  const days = await db.query(`SELECT day::text AS day FROM activity_summaries WHERE user_id = $1 ORDER BY day`, [OTHER]);
  assert.deepEqual(days.map((d) => d.day), ['2024-03-10', '2024-03-11', '2024-03-12']);
  // No ExportDate: the batch is dated by the export's newest record or workout, the same on every import of it.
  const batches = await db.query('SELECT received_at_ms, sample_count FROM upload_batches WHERE user_id = $1', [OTHER]);
  const [newest] = await db.query(`SELECT greatest((SELECT max(end_ms) FROM samples WHERE user_id = $1), (SELECT max(end_ms) FROM workouts WHERE user_id = $1)) AS ms`, [OTHER]);
  assert.deepEqual(batches.map((b) => [Number(b.received_at_ms), Number(b.sample_count)]), [[Number(newest.ms), FIXTURE_SAMPLES]]);
});
