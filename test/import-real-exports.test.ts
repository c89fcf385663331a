// Exports that real iPhones wrote (../shared/real-exports/, see its INDEX.md:
// published by their owners; never copied into this repository, never
// printed beyond what a check needs), imported with the CLI, each into a
// database of its own whose zone is the fixed offset the file's dates carry.
// Per file: nothing well-formed is refused; every <Record> is accounted for
// in the report, stored or skipped for a reason a person would accept; a few
// figures match what was counted from the XML by hand (the expected numbers
// below, with how each was computed); importing it again adds nothing.
//
// How the figures were computed (once, outside the repository):
// - records: the number of `<Record` start tags in the main XML file, those
//   nested in a Correlation included;
// - a day's steps: the sum of `value` over the StepCount records whose
//   startDate falls on that day (the date as written, in the file's offset),
//   records identical in every attribute counted once, on a day when all of
//   them come from one source (same sourceName and device hardware), so no
//   overlap rule applies — the daily bucket must equal it;
// - a workout: its `duration` attribute (minutes) and its distance
//   (`totalDistance`, or its Distance WorkoutStatistics `sum`) in metres;
// - a route: the number of `<trkpt` elements of its GPX file;
// - an ECG: the `Classification` line and the count of voltage lines of each
//   CSV (512 Hz).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourcePriority } from '../src/import/sources.js';
import { createTestDatabase, stopOwnCluster, tmpRoot, type TestDatabase } from './support/db.js';
import { importCli, reportLines, type CliRun, type ReportLine } from './support/import-cli.js';
import { startServer } from './support/server.js';

const REAL = join(process.cwd(), '..', 'shared', 'real-exports');
const present = existsSync(join(REAL, 'INDEX.md'));
const skip = present ? false : `${REAL} is not there (shared/ sits beside the checkout)`;
const USER = '7d3c9a51-2b8e-4f60-9a1d-c4e5f6a7b8c9';
const MIN = 60;

/** What the report may say of a record, a route or a correlation it did not store as is. */
const ACCEPTED_REASONS = new Set([
  "a Correlation's copy of a record stored from top level",
  'a top-level copy of a record stored from its Correlation',
  'repeats an identical record: stored once',
  'a Correlation is not stored itself: its records are',
  'stored, unit as given',
  'not imported: the storage has no table for it',
  'GPX file no workout refers to',
  'the GPX file it names is not in the export',
]);

interface RealExport {
  file: string;
  /** The fixed offset every date of the file carries, as a zone. */
  zone: string;
  records: number;
  lenient?: boolean;
  /** Reasons only this file may give, beyond ACCEPTED_REASONS. */
  alsoAccepted?: string[];
  /** [local day, steps] of a single-source day. */
  steps?: [string, number];
  /** A workout: its local start day, activity, duration (s) and distance (m). */
  workout?: { day: string; activity: string; durationS: number; distanceM: number };
  workouts?: number;
  /** The main file, as the report labels it. */
  label?: string;
  /** Import once only (the large one). */
  once?: boolean;
  more?: (ctx: Context) => Promise<void>;
}

interface Context {
  db: TestDatabase;
  run: CliRun;
  report: Map<string, ReportLine>;
  env: Record<string, string>;
}

const isRecordLine = (what: string) => /^HK(Quantity|Category)TypeIdentifier|^HKDataType(?!IdentifierElectrocardiogram)|^<Record>$/.test(what);

async function stored(db: TestDatabase, identifier: string): Promise<Array<{ value: number | null; metadata: Record<string, unknown> | null }>> {
  return db.query(`SELECT s.value, s.metadata FROM samples s JOIN sample_types t USING (type_id) WHERE s.user_id = $1 AND t.identifier = $2 ORDER BY s.start_ms`, [USER, identifier]);
}

async function sources(db: TestDatabase): Promise<Array<{ name: string; device: string }>> {
  return db.query(
    `SELECT DISTINCT src.name, src.device FROM sources src WHERE src.source_id IN (SELECT source_id FROM samples WHERE user_id = $1 UNION SELECT source_id FROM workouts WHERE user_id = $1)`,
    [USER],
  );
}

const EXPORTS: RealExport[] = [
  {
    file: 'es-2016-iphone-exportacion.zip',
    zone: 'Etc/GMT-1',
    records: 3823,
    steps: ['2016-01-15', 11573],
    // The NFD name of the zip entry, read as UTF-8 and made NFC.
    label: 'es-2016-iphone-exportacion.zip:exportación.xml',
  },
  { file: 'en-2019-iphone-ios12.zip', zone: 'Etc/GMT+4', records: 3352, steps: ['2019-05-19', 23232],
    more: async ({ db }) => {
      // The mindful session written without a value: "not applicable", 0.
      assert.deepEqual((await stored(db, 'HKCategoryTypeIdentifierMindfulSession')).map((s) => s.value), [0]);
    },
  },
  { file: 'en-2018-iphone-ios11.zip', zone: 'Etc/GMT+4', records: 26_070, steps: ['2016-07-16', 9945] },
  {
    file: 'en-2017-25-sources-export.xml',
    zone: 'Etc/GMT-2',
    records: 11_101,
    steps: ['2017-09-03', 13023],
    workout: { day: '2017-06-25', activity: 'running', durationS: 0, distanceM: 5000 },
    workouts: 61,
    more: async ({ db, report }) => {
      // The 34 Food correlations' 162 records all stand at top level too: counted as copies, stored once.
      let copies = 0;
      for (const line of report.values()) copies += line.reasons.get("a Correlation's copy of a record stored from top level") ?? 0;
      assert.equal(copies, 162);
      assert.equal(report.get('HKCorrelationTypeIdentifierFood')?.skipped, 34);
      // Three pairs of foods alike in every attribute but their HKFoodType metadata: two records each, both stored
      // (none taken for an identical repeat), and their Correlation copies still found as copies (above).
      for (const type of ['DietaryEnergyConsumed', 'DietaryFatTotal', 'DietaryProtein']) {
        assert.equal(report.get(`HKQuantityTypeIdentifier${type}`)?.reasons.get('repeats an identical record: stored once'), undefined, type);
      }
      // 34 workouts say totalDistance="0" and 4 totalEnergyBurned="0", as exports before iOS 16 write for none recorded: null, not 0.
      const [zeros] = await db.query<{ distance: string; energy: string; noDistance: string }>(
        `SELECT count(*) FILTER (WHERE distance_m = 0) AS distance, count(*) FILTER (WHERE energy_kcal = 0) AS energy,
                count(*) FILTER (WHERE distance_m IS NULL) AS "noDistance" FROM workouts WHERE user_id = $1`,
        [USER],
      );
      assert.deepEqual([Number(zeros.distance), Number(zeros.energy)], [0, 0]);
      assert.ok(Number(zeros.noDistance) >= 34, zeros.noDistance);
      // A name with a curly apostrophe, kept as written, ranked as the phone it is.
      const phones = (await sources(db)).filter((s) => /’s iPhone$/.test(s.name));
      assert.ok(phones.length > 0);
      for (const phone of phones) assert.equal(sourcePriority(phone, []), 1, phone.device);
    },
  },
  {
    file: 'en_DE-2015-legacy-ios9-export.xml',
    zone: 'Etc/GMT-1',
    records: 3067,
    steps: ['2015-09-13', 4639],
    more: async ({ db }) => {
      // Heart rate as the iOS 9 export wrote it: an average per record in count/s, stored per minute.
      const heart = await stored(db, 'HKQuantityTypeIdentifierHeartRate');
      assert.equal(heart.length, 89);
      assert.ok(heart.every((h) => h.value !== null && h.value > 20 && h.value < 250 && typeof h.metadata?.minimum === 'number'));
      // Numeric sleep values (1: asleep).
      assert.deepEqual([...new Set((await stored(db, 'HKCategoryTypeIdentifierSleepAnalysis')).map((s) => s.value))], [1]);
    },
  },
  {
    file: 'en-2016-watch-excerpt.xml',
    zone: 'Etc/GMT-1',
    records: 15,
    steps: ['2014-09-13', 2517],
    workout: { day: '2016-04-02', activity: 'other', durationS: 31.73680251737436 * MIN, distanceM: 0 },
    workouts: 1,
    more: async ({ db }) => {
      // That project's own CSVs of the file (a check we did not write): as many rows per type, and the same day total.
      const expected = (name: string) => readFileSync(join(REAL, 'en-2016-watch-excerpt.expected', name), 'utf8').trim().split('\n').slice(1);
      assert.equal((await stored(db, 'HKQuantityTypeIdentifierStepCount')).length, expected('StepCount.csv').length);
      assert.equal((await stored(db, 'HKQuantityTypeIdentifierDistanceWalkingRunning')).length, expected('DistanceWalkingRunning.csv').length);
      const csvSteps = expected('StepCount.csv').reduce((sum, row) => sum + Number(row.slice(row.lastIndexOf(',') + 1)), 0);
      assert.equal(csvSteps, 2517);
      assert.equal(Number((await db.query('SELECT count(*) AS n FROM activity_summaries WHERE user_id = $1', [USER]))[0].n), expected('ActivitySummary.csv').length);
      // The workout's source: the watch's name with its no-break space, byte for byte as the file has it, ranked as a watch.
      const xml = readFileSync(join(REAL, 'en-2016-watch-excerpt.xml'), 'utf8');
      const watchName = /<Workout [^>]*sourceName="([^"]*)"/.exec(xml)![1];
      assert.ok(watchName.includes('\u00a0'));
      const [workoutSource] = await db.query<{ name: string; device: string }>('SELECT src.name, src.device FROM workouts w JOIN sources src USING (source_id) WHERE w.user_id = $1', [USER]);
      assert.ok(workoutSource.name === watchName, 'the workout source named byte for byte as written');
      assert.equal(sourcePriority(workoutSource, []), 0);
    },
  },
  {
    file: 'en-2021-ios15-watch-excerpt.zip',
    zone: 'Etc/GMT-2',
    records: 8038,
    steps: ['2021-12-01', 11374],
    more: async ({ db, env }) => {
      // Valueless heart-rate events: "not applicable", 0.
      assert.deepEqual([...new Set((await stored(db, 'HKCategoryTypeIdentifierLowHeartRateEvent')).map((s) => s.value))], [0]);
      assert.equal((await stored(db, 'HKCategoryTypeIdentifierLowHeartRateEvent')).length, 236);
      assert.equal((await stored(db, 'HKCategoryTypeIdentifierHighHeartRateEvent')).length, 1);
      // A type outside the catalog: stored with its unit as given, and listed by the catalog.
      const goals = await stored(db, 'HKDataTypeSleepDurationGoal');
      assert.equal(goals.length, 3);
      assert.ok(goals.every((g) => g.metadata?.unit === 'hr'));
      const server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: env.SERVICE_TIME_ZONE, SERVICE_USER_ID: USER } });
      try {
        const catalog = await server.getJson<{ types: Array<{ identifier: string; kind: string; rawRows: number }> }>('/v1/catalog/types');
        assert.equal(catalog.status, 200);
        const goal = catalog.body.types.find((t) => t.identifier === 'HKDataTypeSleepDurationGoal');
        assert.deepEqual(goal && [goal.kind, goal.rawRows], ['quantity', 3]);
      } finally {
        await server.stop();
      }
    },
  },
  { file: 'it-2021-ios15-watch-excerpt-renamed.zip', zone: 'Etc/GMT-2', records: 8038, steps: ['2021-12-01', 11374], label: 'it-2021-ios15-watch-excerpt-renamed.zip:apple_health_export/dati esportati.xml' },
  { file: 'zh-2021-ios15-watch-excerpt-renamed.zip', zone: 'Etc/GMT-2', records: 8038, steps: ['2021-12-01', 11374], label: 'zh-2021-ios15-watch-excerpt-renamed.zip:apple_health_export/导出.xml' },
  {
    file: 'en-2022-ios16-watch-workout-gpx.zip',
    zone: 'Etc/GMT+8',
    records: 1,
    // 1.402 mi from the workout's DistanceWalkingRunning statistic.
    workout: { day: '2020-02-24', activity: 'walking', durationS: 34.18067507346471 * MIN, distanceM: 1.402 * 1609.344 },
    workouts: 1,
    more: async ({ db, report }) => {
      // Its GPX route, 644 points; the __MACOSX companions are no routes.
      const [route] = await db.query<{ n: number }>('SELECT cardinality(times_ms) AS n FROM workout_routes WHERE user_id = $1', [USER]);
      assert.equal(route.n, 644);
      assert.deepEqual([report.get('workout route')?.records, report.get('workout route')?.skipped], [1, 0]);
      assert.equal(Number((await db.query('SELECT count(*) AS n FROM activity_summaries WHERE user_id = $1', [USER]))[0].n), 10);
    },
  },
  {
    file: 'en-2025-v14-curated-excerpt.xml',
    zone: 'Etc/GMT-1',
    records: 28,
    steps: ['2023-11-20', 690],
    workout: { day: '2020-05-27', activity: 'walking', durationS: 88.23378186623255 * MIN, distanceM: 5234 },
    workouts: 2,
    more: async ({ db }) => {
      // VO2 max in `mL/kg·min`, a spelling the old table did not have: converted (same unit), a plausible value.
      const vo2 = await stored(db, 'HKQuantityTypeIdentifierVO2Max');
      assert.equal(vo2.length, 1);
      assert.ok(vo2[0].value !== null && vo2[0].value > 10 && vo2[0].value < 90);
      // Blood pressure stands only inside its Correlation: stored, once each.
      assert.equal((await stored(db, 'HKQuantityTypeIdentifierBloodPressureSystolic')).length, 1);
      assert.equal((await stored(db, 'HKQuantityTypeIdentifierBloodPressureDiastolic')).length, 1);
    },
  },
  {
    file: 'fr-2021-iphone-garmin-ios14.zip',
    zone: 'Etc/GMT-1',
    records: 67_409,
    steps: ['2017-12-31', 14737],
    workout: { day: '2020-10-24', activity: 'running', durationS: 21.39970092773438 * MIN, distanceM: 3408.97998046875 },
    workouts: 60,
    // The 44 MB export_cda.xml beside it is not the export.
    label: 'fr-2021-iphone-garmin-ios14.zip:apple_health_export/export.xml',
  },
  {
    file: 'de-2015-legacy-ios8-not-well-formed.xml',
    zone: 'Etc/GMT-2',
    records: 2819,
    lenient: true,
    // 1,320 records carry vendor metadata as attributes with spaces in their names; 6 Nike Fuel records have no value.
    alsoAccepted: ['malformed XML, skipped (--lenient)', 'no value'],
    steps: ['2015-09-11', 5080.0002],
    more: async ({ run, report }) => {
      assert.match(run.stdout, /^XML read leniently \(--lenient\): 1,320 malformed elements skipped, at lines 5, 6, 7,/m);
      let malformed = 0;
      for (const line of report.values()) malformed += line.reasons.get('malformed XML, skipped (--lenient)') ?? 0;
      assert.equal(malformed, 1320);
    },
  },
  {
    file: 'ar-2023-iphone-ios16.zip',
    zone: 'Etc/GMT-3',
    records: 184_033,
    steps: ['2021-01-12', 10799],
    label: 'ar-2023-iphone-ios16.zip:apple_health_export/تصدير.xml',
    once: true,
    more: async ({ db }) => {
      // Source names in Arabic with tatweel, kept as written, ranked as the iPhones they are.
      const names = await sources(db);
      assert.ok(names.some((s) => s.name.includes('\u0640') && s.name.includes('iPhone')));
      for (const source of names) if (source.name.includes('iPhone')) assert.equal(sourcePriority(source, []), 1, source.device);
      assert.ok(names.every((s) => !s.name.includes('\uFFFD')));
    },
  },
];

const databases: TestDatabase[] = [];
after(async () => {
  for (const db of databases) await db.drop();
  await stopOwnCluster();
});

async function tableCounts(db: TestDatabase): Promise<number[]> {
  const tables = ['samples', 'workouts', 'workout_routes', 'activity_summaries', 'daily_aggregates'];
  return Promise.all(tables.map(async (table) => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE user_id = $1`, [USER]))[0].n)));
}

for (const spec of EXPORTS) {
  test(`real export ${spec.file}`, { skip, timeout: 180_000 }, async () => {
    const db = await createTestDatabase();
    databases.push(db);
    const env = { DATABASE_URL: db.url, SERVICE_TIME_ZONE: spec.zone };
    const args = ['--user', USER, ...(spec.lenient ? ['--lenient'] : []), join(REAL, spec.file)];
    const run = await importCli(args, env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, spec.lenient ? /^XML read leniently/m : /^XML read strictly/m);
    if (spec.label) assert.match(run.stdout + run.stderr, new RegExp(spec.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const report = reportLines(run.stdout);

    // Every <Record> accounted for: stored, or skipped for an accepted reason.
    let taken = 0;
    let accounted = 0;
    for (const line of report.values()) {
      for (const reason of line.reasons.keys()) {
        assert.ok(ACCEPTED_REASONS.has(reason) || spec.alsoAccepted?.includes(reason), `${line.what}: ${reason}`);
      }
      if (!isRecordLine(line.what)) continue;
      taken += line.records;
      accounted += line.records + line.skipped;
    }
    assert.equal(accounted, spec.records, 'records stored + skipped');
    assert.equal(Number((await db.query('SELECT count(*) AS n FROM samples WHERE user_id = $1', [USER]))[0].n), taken, 'records stored');

    if (spec.steps) {
      const [day, total] = spec.steps;
      const rows = await db.query<{ sum: number }>(
        `SELECT a.sum FROM daily_aggregates a JOIN sample_types t USING (type_id) WHERE a.user_id = $1 AND t.identifier = 'HKQuantityTypeIdentifierStepCount' AND a.day = $2`,
        [USER, day],
      );
      assert.equal(rows.length, 1, `a step bucket on ${day}`);
      assert.ok(Math.abs(rows[0].sum - total) < 1e-6, `steps on ${day}: ${rows[0].sum} ≠ ${total}`);
    }
    if (spec.workouts !== undefined) {
      assert.equal(Number((await db.query('SELECT count(*) AS n FROM workouts WHERE user_id = $1', [USER]))[0].n), spec.workouts);
    }
    if (spec.workout) {
      const { day, activity, durationS, distanceM } = spec.workout;
      const rows = await db.query<{ duration_s: number; distance_m: number | null }>(
        `SELECT duration_s, distance_m FROM workouts WHERE user_id = $1 AND activity_type = $2
           AND to_char(to_timestamp(start_ms / 1000.0) AT TIME ZONE $3, 'YYYY-MM-DD') = $4`,
        [USER, activity, spec.zone, day],
      );
      assert.ok(
        rows.some((w) => Math.abs(w.duration_s - durationS) < 1e-6 && Math.abs((w.distance_m ?? 0) - distanceM) < 1e-6),
        `a ${activity} on ${day} of ${durationS} s and ${distanceM} m`,
      );
    }
    await spec.more?.({ db, run, report, env });

    if (spec.once) {
      // The large one is imported once: its identical repeats were caught in the stream, nothing doubled.
      assert.match(run.stdout, /samples written \(([\d,]+) new\)/);
      const [, written, fresh] = /([\d,]+) samples written \(([\d,]+) new\)/.exec(run.stdout)!;
      assert.equal(written, fresh);
      return;
    }
    const before = await tableCounts(db);
    const again = await importCli(args, env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /samples written \(0 new\)/);
    assert.deepEqual(await tableCounts(db), before, 're-import adds nothing');
  });
}

test('the not-well-formed German export stops at line 5 without --lenient, naming the way on', { skip }, async () => {
  const db = await createTestDatabase();
  databases.push(db);
  const run = await importCli(['--user', USER, join(REAL, 'de-2015-legacy-ios8-not-well-formed.xml')], { DATABASE_URL: db.url, SERVICE_TIME_ZONE: 'Etc/GMT-2' });
  assert.equal(run.code, 1);
  const lines = run.stderr.trim().split('\n');
  assert.match(lines[lines.length - 1], /de-2015-legacy-ios8-not-well-formed\.xml line 5, column \d+: malformed XML: .*--lenient/);
});

test('Apple Watch ECG recordings beside an export: classification and span of each', { skip }, async () => {
  const db = await createTestDatabase();
  databases.push(db);
  // A folder as the Health app extracts: a main XML (ours, empty) and the three real CSVs linked (not copied) under electrocardiograms/.
  const dir = mkdtempSync(join(tmpRoot(), 'real-ecg-'));
  try {
    mkdirSync(join(dir, 'electrocardiograms'));
    writeFileSync(join(dir, 'export.xml'), '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n <ExportDate value="2023-03-05 10:00:00 -0500"/>\n</HealthData>\n');
    const csvs = readdirSync(join(REAL, 'ecg-2023-watch6')).filter((name) => name.endsWith('.csv')).sort();
    for (const name of csvs) symlinkSync(join(REAL, 'ecg-2023-watch6', name), join(dir, 'electrocardiograms', name));
    const run = await importCli(['--user', USER, dir], { DATABASE_URL: db.url, SERVICE_TIME_ZONE: 'UTC' });
    assert.equal(run.code, 0, run.stderr);
    const ecgs = await db.query<{ span: string; metadata: { classification: string; numberOfVoltageMeasurements: number; samplingFrequencyHz: number } }>(
      `SELECT s.end_ms - s.start_ms AS span, s.metadata FROM samples s JOIN sample_types t USING (type_id)
       WHERE s.user_id = $1 AND t.identifier = 'HKDataTypeIdentifierElectrocardiogram' ORDER BY s.metadata->>'classification'`,
      [USER],
    );
    // Classified Inconclusive, Poor Recording, Sinus Rhythm; 15,360, 14,864 and 15,360 voltages at 512 Hz.
    assert.deepEqual(
      ecgs.map((e) => [e.metadata.classification, e.metadata.numberOfVoltageMeasurements, e.metadata.samplingFrequencyHz, Number(e.span)]),
      [
        ['Inconclusive', 15_360, 512, 30_000],
        ['Poor Recording', 14_864, 512, Math.round((14_864 / 512) * 1000)],
        ['Sinus Rhythm', 15_360, 512, 30_000],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
