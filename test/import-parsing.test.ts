// The importer's pure parts, with values worked out by hand: export dates,
// name-based ids, devices and source priority, record/workout/ring/profile/
// ECG/GPX conversion, the export.xml reader's shape rules and errors, the
// in-stream daily buckets, COPY text, the report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { convertActivitySummary, type ActivityRow } from '../src/import/activity-rings.js';
import { asciiDigits, calendarDay, durationSeconds, parseDayMs, parseExportDate, parseIsoInstant } from '../src/import/apple-dates.js';
import { NameIds } from '../src/import/name-ids.js';
import { CopyRows } from '../src/import/copy-rows.js';
import { entryName, openArchive, rootElementName } from '../src/import/archive.js';
import { convertEcg } from '../src/import/ecg.js';
import { ImportInputError } from '../src/import/errors.js';
import { HealthDataReader, type HealthDataHandler, type RawRecord, type RawWorkout } from '../src/import/health-data-reader.js';
import { readGpx } from '../src/import/gpx.js';
import { InlineAggregates } from '../src/import/inline-aggregates.js';
import { convertMe } from '../src/import/profile.js';
import { nameHash, uuidFromHash, uuidV5, writeUuidBytes } from '../src/import/record-ids.js';
import { RecordConverter, type SampleRow } from '../src/import/records.js';
import { ImportReport } from '../src/import/report.js';
import { deviceOf, preferredSources, sourcePriority } from '../src/import/sources.js';
import { activityTypeName, convertWorkout, type WorkoutRow } from '../src/import/workouts.js';
import { tmpRoot } from './support/db.js';
import { writeUuidText } from '../src/core/uuid.js';
import { sampleRowMaxBytes, writeSampleRow } from '../src/db/writes/sample-copy.js';

const USER = '5e1f3a2b-8c4d-4e6f-a7b8-9c0d1e2f3a4b';
const Q = 'HKQuantityTypeIdentifier';
const near = (actual: number | null | undefined, expected: number) => assert.ok(actual != null && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

test('export dates: offsets, DST, malformed text', () => {
  assert.equal(parseExportDate('2024-03-10 01:30:00 -0500'), Date.UTC(2024, 2, 10, 6, 30));
  assert.equal(parseExportDate('2024-03-10 03:30:00 -0400'), Date.UTC(2024, 2, 10, 7, 30));
  // Same day prefix, other offset: the cached day must not leak the offset.
  assert.equal(parseExportDate('2024-03-10 03:30:00 +0530'), Date.UTC(2024, 2, 9, 22, 0));
  assert.equal(parseExportDate('2024-02-29 12:00:00 +0000'), Date.UTC(2024, 1, 29, 12));
  for (const bad of ['2023-02-29 12:00:00 +0000', '2024-13-01 00:00:00 +0000', '2024-03-10 24:00:00 +0000', '2024-03-10 01:30:00 0500', '2024-03-10T01:30:00 -0500', '2024-03-10 01:30 -0500', '']) {
    assert.ok(Number.isNaN(parseExportDate(bad)), bad);
  }
  assert.equal(parseDayMs('1990-05-17'), Date.UTC(1990, 4, 17));
  assert.ok(Number.isNaN(parseDayMs('1990-02-30')));
  // Digits of other scripts, as phones set to their languages write some dates: Arabic-Indic, Persian, Devanagari.
  assert.equal(parseDayMs('١٩٩٠-٠٥-١٧'), Date.UTC(1990, 4, 17));
  assert.equal(parseDayMs('۱۹۹۰-۰۵-۱۷'), Date.UTC(1990, 4, 17));
  assert.equal(parseDayMs('१९९०-०५-१७'), Date.UTC(1990, 4, 17));
  assert.ok(Number.isNaN(parseDayMs('١٩٩٠-٠٢-٣٠')));
  assert.equal(calendarDay('٢٠٢٤-٠٣-١٢'), '2024-03-12');
  assert.equal(parseExportDate('٢٠٢٤-٠٣-١٠ ٠١:٣٠:٠٠ -٠٥٠٠'), Date.UTC(2024, 2, 10, 6, 30));
  assert.equal(asciiDigits('a ٠١٢٣٤٥٦٧٨٩ ۰۱۲۳۴۵۶۷۸۹ 0123456789 b'), 'a 0123456789 0123456789 0123456789 b');
  assert.equal(parseIsoInstant('2024-03-10T12:00:00Z'), Date.UTC(2024, 2, 10, 12));
  assert.ok(Number.isNaN(parseIsoInstant('yesterday')));
  assert.equal(durationSeconds('30', 'min'), 1800);
  assert.equal(durationSeconds('1.5', undefined), 90);
  assert.equal(durationSeconds('2', 'fortnights'), null);
});

test('uuid v5 matches RFC 4122 (www.example.com in the DNS namespace), and record ids ignore the offset they were written in', () => {
  assert.equal(uuidV5('www.example.com', Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex')), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
  const converter = new RecordConverter(USER);
  const record = (start: string, end: string): RawRecord => ({
    attrs: { type: `${Q}StepCount`, sourceName: 'Phone', unit: 'count', value: '10', creationDate: end, startDate: start, endDate: end },
    correlation: null,
    metadata: null,
    beats: null,
    line: 1,
  });
  const newYork = converter.convert(record('2024-03-10 10:00:00 -0400', '2024-03-10 10:05:00 -0400')) as SampleRow;
  const berlin = converter.convert(record('2024-03-10 15:00:00 +0100', '2024-03-10 15:05:00 +0100')) as SampleRow;
  assert.match(uuidFromHash(newYork.idHash), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(newYork.idHash, berlin.idHash);
  const otherUser = new RecordConverter('11111111-1111-4111-8111-111111111111').convert(record('2024-03-10 10:00:00 -0400', '2024-03-10 10:05:00 -0400')) as SampleRow;
  assert.notEqual(otherUser.idHash, newYork.idHash);
  // The bytes binary COPY sends are the UUID's: version 5, variant 10.
  const bytes = Buffer.alloc(18);
  writeUuidBytes(nameHash('www.example.com', Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex')), bytes, 1);
  assert.equal(bytes.subarray(1, 17).toString('hex'), '2ed6657de927568b95e12665a8aea6a2');
  assert.equal(bytes[0] + bytes[17], 0);
});

test('devices keep their stable part; priority: named sources, then watch, phone, others', () => {
  assert.equal(deviceOf('<<HKDevice: 0x283f1c0f0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3>'), 'Watch6,1');
  assert.equal(deviceOf('<<HKDevice: 0x1>, name:Polar H10, manufacturer:Polar, model:H10, firmware:5.0>'), 'H10');
  assert.equal(deviceOf('<<HKDevice: 0x1>, name:Scale>'), 'Scale');
  assert.equal(deviceOf(undefined), '');
  const watch = { name: 'Alex’s Apple Watch', device: 'Watch6,1' };
  const phone = { name: 'Alex’s iPhone', device: 'iPhone14,2' };
  const app = { name: 'Pedometer++', device: '' };
  assert.deepEqual([watch, phone, app].map((s) => sourcePriority(s, [])), [0, 1, 2]);
  assert.deepEqual([watch, phone, app].map((s) => sourcePriority(s, preferredSources(['Pedometer++']))), [1, 2, 0]);
  assert.equal(sourcePriority({ name: 'My Apple Watch', device: '' }, []), 0);
});

function raw(type: string, unit: string | undefined, value: string, extra: Partial<RawRecord> = {}): RawRecord {
  return {
    attrs: { type, sourceName: 'S', unit: unit as string, value, startDate: '2024-01-01 10:00:00 +0000', endDate: '2024-01-01 10:01:00 +0000' },
    correlation: null,
    metadata: null,
    beats: null,
    line: 7,
    ...extra,
  };
}

test('records: units to canonical, category names to integers, skip reasons', () => {
  const c = new RecordConverter(USER);
  const value = (r: RawRecord) => (c.convert(r) as SampleRow).value;
  near(value(raw(`${Q}DistanceWalkingRunning`, 'km', '2.5')), 2500);
  near(value(raw(`${Q}DistanceWalkingRunning`, 'mi', '1')), 1609.344);
  near(value(raw(`${Q}BodyMass`, 'lb', '200')), 90.718474);
  near(value(raw(`${Q}BodyTemperature`, 'degF', '212')), 100);
  near(value(raw(`${Q}ActiveEnergyBurned`, 'kJ', '4.184')), 1);
  near(value(raw(`${Q}OxygenSaturation`, '%', '0.96')), 0.96);
  // 5.5 mmol/L of glucose (180.156 g/mol) = 5.5 × 180.156 / 10 mg/dL.
  near(value(raw(`${Q}BloodGlucose`, 'mmol<180.156>/L', '5.5')), 99.0858);
  const sleep = (name: string) => value(raw('HKCategoryTypeIdentifierSleepAnalysis', undefined, `HKCategoryValueSleepAnalysis${name}`));
  assert.deepEqual(['InBed', 'AsleepUnspecified', 'Awake', 'AsleepCore', 'AsleepDeep', 'AsleepREM', 'Asleep'].map(sleep), [0, 1, 2, 3, 4, 5, 1]);
  assert.equal(value(raw('HKCategoryTypeIdentifierMoodChanges', undefined, 'HKCategoryValuePresenceNotPresent')), 1);
  assert.equal(value(raw('HKCategoryTypeIdentifierMoodChanges', undefined, 'HKCategoryValuePresencePresent')), 0);
  assert.equal(value(raw('HKCategoryTypeIdentifierHeadache', undefined, 'HKCategoryValueSeverityModerate')), 3);
  assert.equal(value(raw('HKCategoryTypeIdentifierMindfulSession', undefined, 'HKCategoryValueNotApplicable')), 0);
  assert.equal(value(raw('HKCategoryTypeIdentifierAppleStandHour', undefined, '1')), 1);

  assert.equal(c.convert(raw(`${Q}BodyMass`, 'furlong', '3')), 'unit "furlong" cannot be converted to kg');
  assert.equal(c.convert(raw(`${Q}StepCount`, 'count', 'many')), 'value is not a number');
  assert.equal(c.convert(raw(`${Q}StepCount`, 'count', '')), 'no value');
  assert.equal(c.convert(raw(`${Q}StepCount`, 'count', undefined as unknown as string)), 'no value');
  // Valueless category records are "not applicable" (0).
  assert.equal(value(raw('HKCategoryTypeIdentifierLowHeartRateEvent', undefined, undefined as unknown as string)), 0);
  assert.equal(value(raw('HKCategoryTypeIdentifierMindfulSession', undefined, '')), 0);
  // A type outside the registry: stored with the number and its unit as given.
  const goal = c.convert(raw('HKDataTypeSleepDurationGoal', 'hr', '8')) as SampleRow;
  assert.deepEqual([goal.value, JSON.parse(goal.metadata as string), c.note], [8, { unit: 'hr' }, 'stored, unit as given']);
  const newCategory = c.convert(raw('HKCategoryTypeIdentifierSomethingNew', undefined, 'HKCategoryValueSomethingNewSevere')) as SampleRow;
  assert.deepEqual([newCategory.value, JSON.parse(newCategory.metadata as string)], [null, { value: 'HKCategoryValueSomethingNewSevere' }]);
  assert.equal(c.convert(raw('HKCorrelationTypeIdentifierBloodPressure', undefined, '1')), 'not a HealthKit sample type');
  // A newer spelling of a known unit converts.
  near(value(raw(`${Q}VO2Max`, 'mL/kg·min', '41.5')), 41.5);
  assert.equal(c.convert(raw('HKWorkoutTypeIdentifier', undefined, '1')), 'a workout is not a sample');
  assert.equal(c.convert(raw('HKCategoryTypeIdentifierSleepAnalysis', undefined, 'HKCategoryValueSleepAnalysisDreaming')), 'category value "HKCategoryValueSleepAnalysisDreaming" unknown');
  const backwards = raw(`${Q}StepCount`, 'count', '1');
  backwards.attrs.endDate = '2024-01-01 09:00:00 +0000';
  assert.equal(c.convert(backwards), 'ends before it starts');

  const withBeats = c.convert(raw(`${Q}HeartRateVariabilitySDNN`, 'ms', '40', { metadata: { HKAlgorithmVersion: '2' }, beats: [{ bpm: '61', time: '7:00:01.5 AM' }] })) as SampleRow;
  assert.deepEqual(JSON.parse(withBeats.metadata as string), { HKAlgorithmVersion: '2', instantaneousBeatsPerMinute: [{ bpm: 61, time: '7:00:01.5 AM' }] });
  assert.equal((c.convert(raw(`${Q}StepCount`, 'count', '3')) as SampleRow).metadata, null);
});

function workout(attrs: Record<string, string>, parts: Partial<RawWorkout> = {}): RawWorkout {
  return {
    attrs: { sourceName: 'W', startDate: '2024-01-01 10:00:00 +0000', endDate: '2024-01-01 11:00:00 +0000', ...attrs },
    metadata: null,
    events: [],
    statistics: [],
    routes: [],
    activities: [],
    line: 3,
    ...parts,
  };
}

test('workouts: statistics in canonical units, legacy totals, events, activities, inline routes', () => {
  assert.equal(activityTypeName('HKWorkoutActivityTypeTraditionalStrengthTraining'), 'traditionalStrengthTraining');
  const run = convertWorkout(
    workout(
      { workoutActivityType: 'HKWorkoutActivityTypeRunning', duration: '60', durationUnit: 'min' },
      {
        statistics: [
          { type: `${Q}DistanceWalkingRunning`, sum: '10', unit: 'km' },
          { type: `${Q}ActiveEnergyBurned`, sum: '2092', unit: 'kJ' },
          { type: `${Q}HeartRate`, average: '150', minimum: '100', maximum: '180', unit: 'count/min' },
          { type: 'HKQuantityTypeIdentifierNope', sum: '1', unit: 'm' },
        ],
        events: [{ attrs: { type: 'HKWorkoutEventTypePause', date: '2024-01-01 10:30:00 +0000', duration: '2', durationUnit: 'min' }, metadata: null }],
        activities: [{ attrs: { uuid: 'ABC', startDate: '2024-01-01 10:00:00 +0000', endDate: '2024-01-01 11:00:00 +0000' }, metadata: null, events: [], statistics: [] }],
      },
    ),
    USER,
  ) as WorkoutRow;
  assert.equal(run.activityType, 'running');
  assert.equal(run.durationS, 3600);
  assert.equal(run.distanceM, 10_000);
  near(run.energyKcal, 500);
  assert.deepEqual(JSON.parse(run.statistics)[`${Q}HeartRate`], { min: 100, avg: 150, max: 180 });
  assert.equal(JSON.parse(run.statistics)['HKQuantityTypeIdentifierNope'], undefined);
  const halfHour = Date.UTC(2024, 0, 1, 10, 30);
  assert.deepEqual(JSON.parse(run.events), [{ type: 'pause', start: halfHour, end: halfHour + 120_000 }]);
  assert.deepEqual(JSON.parse(run.activities), [], 'one activity spanning the workout is no multisport segment');

  const ride = convertWorkout(
    workout(
      { workoutActivityType: 'HKWorkoutActivityTypeCycling', totalDistance: '12.5', totalDistanceUnit: 'mi', totalEnergyBurned: '400', totalEnergyBurnedUnit: 'Cal' },
      {
        routes: [
          {
            attrs: {},
            metadata: null,
            files: ['/workout-routes/route_1.gpx'],
            locations: [
              { date: '2024-01-01 10:10:00 +0000', latitude: '1', longitude: '2', altitude: '3' },
              { date: '2024-01-01 10:05:00 +0000', latitude: '4', longitude: '5' },
              { date: 'garbage', latitude: '6', longitude: '7' },
            ],
          },
        ],
      },
    ),
    USER,
  ) as WorkoutRow;
  near(ride.distanceM, 12.5 * 1609.344);
  assert.equal(ride.energyKcal, 400);
  assert.equal(ride.durationS, 3600, 'no duration attribute: the span');
  assert.deepEqual(Object.keys(JSON.parse(ride.statistics)).sort(), [`${Q}ActiveEnergyBurned`, `${Q}DistanceCycling`]);
  assert.deepEqual(ride.routeFiles, ['/workout-routes/route_1.gpx']);
  assert.deepEqual(ride.inlineRoute, {
    timesMs: [Date.UTC(2024, 0, 1, 10, 5), Date.UTC(2024, 0, 1, 10, 10)],
    latitudes: [4, 1],
    longitudes: [5, 2],
    altitudesM: [null, 3],
  });
  assert.equal(convertWorkout(workout({ workoutActivityType: 'X', endDate: '2024-01-01 09:00:00 +0000' }), USER), 'ends before it starts');
});

test('rings: move mode from the goals, units, the older appleMoveMinutes spelling, absent rings null', () => {
  const energy = convertActivitySummary({ dateComponents: '2024-01-01', activeEnergyBurned: '418.4', activeEnergyBurnedGoal: '2092', activeEnergyBurnedUnit: 'kJ', appleMoveTime: '0', appleMoveTimeGoal: '0' }) as ActivityRow;
  assert.equal(energy.moveMode, 1);
  near(energy.moveKcal, 100);
  near(energy.moveGoalKcal, 500);
  assert.equal(energy.moveTimeMin, null);
  assert.equal(energy.exerciseMin, null);
  const moveTime = convertActivitySummary({ dateComponents: '2024-01-02', activeEnergyBurned: '120', activeEnergyBurnedGoal: '0', appleMoveMinutes: '25', appleMoveMinutesGoal: '30' }) as ActivityRow;
  assert.deepEqual([moveTime.moveMode, moveTime.moveTimeMin, moveTime.moveTimeGoalMin, moveTime.moveKcal], [2, 25, 30, 120]);
  assert.equal(convertActivitySummary({ dateComponents: '2024-02-30' }), 'dateComponents is not a day');
});

test('profile from Me: date of birth at UTC midnight, sex, unset values null', () => {
  assert.deepEqual(convertMe({ HKCharacteristicTypeIdentifierDateOfBirth: '1990-05-17', HKCharacteristicTypeIdentifierBiologicalSex: 'HKBiologicalSexMale' }), {
    dateOfBirthMs: Date.UTC(1990, 4, 17),
    biologicalSex: 'male',
  });
  assert.deepEqual(convertMe({ HKCharacteristicTypeIdentifierDateOfBirth: '', HKCharacteristicTypeIdentifierBiologicalSex: 'HKBiologicalSexNotSet' }), {
    dateOfBirthMs: null,
    biologicalSex: null,
  });
});

test('ECG csv: header, locale decimal commas, span from rate and count', () => {
  const csv = ['Name,Someone', 'Date of Birth,"Jan 1, 1990"', 'Recorded Date,2024-05-01 08:00:00 +0200', 'Classification,Atrial Fibrillation', 'Symptoms,', 'Device,"Watch7,1"', 'Sample Rate,512,000 Hertz', 'Lead,Lead I', 'Unit,µV', '', '-265,868', '12,5', '3'].join('\r\n');
  const row = convertEcg(csv, USER) as SampleRow;
  assert.equal(row.startMs, Date.UTC(2024, 4, 1, 6));
  assert.equal(row.endMs - row.startMs, Math.round((3 / 512) * 1000));
  assert.equal(row.device, 'Watch7,1');
  assert.equal(row.sourceName, 'ECG');
  const metadata = JSON.parse(row.metadata as string);
  assert.deepEqual(metadata.voltageMeasurements, [-265.868, 12.5, 3]);
  assert.equal(metadata.classification, 'Atrial Fibrillation');
  assert.equal(metadata.symptoms, null);
  assert.equal(metadata.averageHeartRate, null);
  assert.equal(convertEcg('Name,x\n1\n2\n', USER), 'no Recorded Date line: not an ECG export');
});

test('GPX: points in time order, elevation optional; malformed GPX names its line', async () => {
  const gpx = `<?xml version="1.0"?>\n<gpx><trk><trkseg>
<trkpt lat="1.5" lon="2.5"><ele>10</ele><time>2024-01-01T10:00:02Z</time></trkpt>
<trkpt lat="1" lon="2"><time>2024-01-01T10:00:01Z</time></trkpt>
<trkpt lat="9" lon="9"><ele>1</ele></trkpt>
</trkseg></trk></gpx>`;
  assert.deepEqual(await readGpx('r.gpx', Readable.from([Buffer.from(gpx)])), {
    timesMs: [Date.UTC(2024, 0, 1, 10, 0, 1), Date.UTC(2024, 0, 1, 10, 0, 2)],
    latitudes: [1, 1.5],
    longitudes: [2, 2.5],
    altitudesM: [null, 10],
  });
  await assert.rejects(readGpx('bad.gpx', Readable.from([Buffer.from('<gpx>\n<trk>\n</gpx>')])), (error: Error) => error instanceof ImportInputError && /^bad\.gpx line 3: malformed XML/.test(error.message));
});

function collect(): { handler: HealthDataHandler; records: RawRecord[]; workouts: RawWorkout[]; seen: string[] } {
  const records: RawRecord[] = [];
  const workouts: RawWorkout[] = [];
  const seen: string[] = [];
  return {
    records,
    workouts,
    seen,
    handler: {
      exportVersion: (v) => seen.push(`version ${v}`),
      exportDate: (value) => seen.push(`date ${value}`),
      me: () => seen.push('me'),
      record: (r) => records.push(r),
      correlation: () => seen.push('correlation'),
      workout: (w) => workouts.push(w),
      activitySummary: () => seen.push('summary'),
      other: (name) => seen.push(`other ${name}`),
    },
  };
}

test('export.xml reader: top-level elements, correlation children marked with their correlation, workout children in place', () => {
  const { handler, records, workouts, seen } = collect();
  const reader = new HealthDataReader('export.xml', handler);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 11 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-01-01 00:00:00 +0000"/>
 <Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
 <Record type="A" value="1">
  <MetadataEntry key="k" value="v &amp; wé’"/>
 </Record>
 <Correlation type="C"><Record type="B" value="2"/></Correlation>
 <Workout workoutActivityType="W">
  <WorkoutEvent type="E" date="d"><MetadataEntry key="ek" value="ev"/></WorkoutEvent>
  <WorkoutActivity uuid="u"><WorkoutStatistics type="S1"/><WorkoutEvent type="E2" date="d"/></WorkoutActivity>
  <WorkoutStatistics type="S2"/>
  <WorkoutRoute><FileReference path="/workout-routes/r.gpx"/><Location date="d" latitude="1" longitude="2"/></WorkoutRoute>
 </Workout>
 <ActivitySummary dateComponents="2024-01-01"/>
 <Audiogram type="x"><SensitivityPoint frequencyValue="1"/></Audiogram>
</HealthData>
`;
  // Fed in small pieces of bytes, as a stream arrives (cutting through the é and ’ of the metadata).
  const bytes = Buffer.from(xml);
  for (let i = 0; i < bytes.length; i += 7) reader.write(bytes.subarray(i, i + 7));
  reader.end();
  assert.deepEqual(seen, ['version 11', 'date 2024-01-01 00:00:00 +0000', 'me', 'correlation', 'summary', 'other Audiogram']);
  assert.deepEqual(records.map((r) => [r.attrs.type, r.metadata, r.line, r.correlation]), [
    ['A', { k: 'v & wé’' }, 9, null],
    ['B', null, 12, 'C'],
  ]);
  const [w] = workouts;
  assert.equal(w.events.length, 1);
  assert.deepEqual(w.events[0].metadata, { ek: 'ev' });
  assert.deepEqual(w.activities[0].statistics.map((s) => s.type), ['S1']);
  assert.deepEqual(w.activities[0].events.map((e) => e.attrs.type), ['E2']);
  assert.deepEqual(w.statistics.map((s) => s.type), ['S2']);
  assert.deepEqual(w.routes[0].files, ['/workout-routes/r.gpx']);
  assert.equal(w.routes[0].locations.length, 1);
});

test('export.xml reader: malformed XML and a foreign root name the file and line', () => {
  const broken = new HealthDataReader('export.xml', collect().handler);
  assert.throws(
    () => broken.write(Buffer.from('<HealthData>\n <Record type="A"/>\n <Record type="B"></Workout>\n')),
    (error: Error) => error instanceof ImportInputError && /^export\.xml line 3, column \d+: malformed XML: /.test(error.message),
  );
  const truncated = new HealthDataReader('export.xml', collect().handler);
  truncated.write(Buffer.from('<HealthData>\n <Record type="A"/>\n'));
  assert.throws(() => truncated.end(), (error: Error) => error instanceof ImportInputError && /^export\.xml line 3/.test(error.message));
  assert.throws(() => new HealthDataReader('x.xml', collect().handler).write(Buffer.from('<gpx>')), /x\.xml line 1: the root element is <gpx>/);
});

test('in-stream buckets: by hand, with repeats counted once and a type out of order handed to the read-back', () => {
  const inline = new InlineAggregates('UTC', []);
  const row = (identifier: string, idHash: string, start: number, end: number, value: number, sourceName: string, device: string): SampleRow => ({
    idHash,
    identifier,
    startMs: start,
    endMs: end,
    value,
    sourceName,
    device,
    metadata: null,
  });
  const t0 = Date.UTC(2024, 0, 1, 10);
  const MIN = 60_000;
  // Watch 0–30 min 300 steps (twice: the same record), phone 15–45 min 90 steps (half covered → 45).
  inline.add(row(`${Q}StepCount`, 'a', t0, t0 + 30 * MIN, 300, 'W', 'Watch6,1'));
  inline.add(row(`${Q}StepCount`, 'a', t0, t0 + 30 * MIN, 300, 'W', 'Watch6,1'));
  inline.add(row(`${Q}StepCount`, 'b', t0 + 15 * MIN, t0 + 45 * MIN, 90, 'P', 'iPhone14,2'));
  inline.add(row(`${Q}HeartRate`, 'c', t0 + MIN, t0 + MIN, 60, 'W', 'Watch6,1'));
  inline.add(row(`${Q}HeartRate`, 'd', t0, t0, 80, 'W', 'Watch6,1')); // earlier than the one before
  inline.add(row('HKCategoryTypeIdentifierSleepAnalysis', 'e', t0, t0 + MIN, 3, 'W', 'Watch6,1'));
  assert.deepEqual(inline.drain(true), [{ identifier: `${Q}StepCount`, buckets: [{ day: '2024-01-01', sum: 345, avg: null, min: null, max: null }] }]);
  assert.deepEqual([...inline.outOfOrder], [`${Q}HeartRate`]);
});

/** Reads PostgreSQL's binary COPY rows of `samples` back, by the format's definition (field count, then length-prefixed fields). */
function decodeSampleRows(bytes: Buffer): Array<Array<string | number | null>> {
  const rows: Array<Array<string | number | null>> = [];
  let o = 0;
  while (o < bytes.length) {
    const fields = bytes.readInt16BE(o);
    o += 2;
    const row: Array<string | number | null> = [];
    for (let f = 0; f < fields; f++) {
      const length = bytes.readInt32BE(o);
      o += 4;
      if (length === -1) {
        row.push(null);
        continue;
      }
      const data = bytes.subarray(o, o + length);
      o += length;
      if (f < 2) row.push(data.toString('hex'));
      else if (length === 2) row.push(data.readInt16BE(0));
      else if (f === 5) row.push(data.readDoubleBE(0));
      else if (length === 8) row.push(Number(data.readBigInt64BE(0)));
      else if (f === 6) row.push(data.readInt32BE(0));
      else row.push(`v${data[0]} ${data.subarray(1).toString('utf8')}`);
    }
    rows.push(row);
  }
  return rows;
}

test('COPY rows: binary fields as PostgreSQL reads them, rows waiting on new names resolved before they go', async () => {
  const asked: string[] = [];
  const nameIds = new NameIds(async (identifiers, sources) => {
    asked.push(...identifiers, ...sources.map((s) => `${s.name}/${s.device}`));
    return { types: identifiers.map((identifier) => [identifier, 7]), sources: sources.map((s) => ({ ...s, sourceId: 9 })) };
  });
  const rows = new CopyRows(USER, nameIds);
  const hash1 = 'a'.repeat(40);
  const hash2 = '0123456789abcdef0123456789abcdef01234567';
  // A negative instant and one past 2^32 ms check both halves of the 64-bit integers.
  rows.add({ idHash: hash1, identifier: `${Q}StepCount`, startMs: -1000, endMs: 5_000_000_000, value: 3.25, sourceName: 'S', device: 'D', metadata: '{"path":"C:\\\\x","é":1}' });
  rows.add({ idHash: hash2, identifier: 'HKDataTypeIdentifierElectrocardiogram', startMs: 1_700_000_000_123, endMs: 1_700_000_000_123, value: null, sourceName: 'S', device: 'D', metadata: null });
  assert.equal(rows.hasPending, true);
  const chunk = await rows.take();
  assert.deepEqual(asked, ['HKDataTypeIdentifierElectrocardiogram', `${Q}StepCount`, 'S/D']);
  assert.equal(chunk?.rows, 2);
  const user = USER.replace(/-/g, '');
  assert.deepEqual(decodeSampleRows(chunk!.bytes), [
    // Version nibble 5 at the 13th hex digit, variant 10xx at the 17th: a…a → …5aaa-aaaa…, 0123… → …5def-8123….
    [user, 'aaaaaaaaaaaa5aaaaaaaaaaaaaaaaaaa', 7, -1000, 5_000_000_000, 3.25, 9, 'v1 {"path":"C:\\\\x","é":1}'],
    [user, '0123456789ab5def8123456789abcdef', 7, 1_700_000_000_123, 1_700_000_000_123, null, 9, null],
  ]);
  assert.deepEqual([...rows.typeIds], [7]);
  assert.equal(await rows.take(), null);
});

test("the receiver's COPY rows: a UUID of either case as its 16 bytes, a sample without a source NULL", () => {
  const userIdBytes = Buffer.alloc(16);
  writeUuidText(USER, userIdBytes, 0);
  const bytes = Buffer.alloc(2 * sampleRowMaxBytes('{}'));
  let o = writeSampleRow(bytes, 0, userIdBytes, writeUuidText, '5D2A9C1E-7B3F-4E8A-9C6D-1F0E2B3A4C5D', 3, null, { startMs: 1, endMs: 2, value: 62.5, metadata: null });
  o = writeSampleRow(bytes, o, userIdBytes, writeUuidText, '5d2a9c1e-7b3f-4e8a-9c6d-1f0e2b3a4c5e', 3, 4, { startMs: 1, endMs: 2, value: null, metadata: '{}' });
  const user = USER.replace(/-/g, '');
  assert.deepEqual(decodeSampleRows(bytes.subarray(0, o)), [
    [user, '5d2a9c1e7b3f4e8a9c6d1f0e2b3a4c5d', 3, 1, 2, 62.5, null, null],
    [user, '5d2a9c1e7b3f4e8a9c6d1f0e2b3a4c5e', 3, 1, 2, null, 4, 'v1 {}'],
  ]);
});

test('report: per type, skip reasons counted, first of each kind flagged, snapshots add up', () => {
  const report = new ImportReport();
  report.took('B');
  assert.equal(report.skip('A', 'bad unit'), true);
  assert.equal(report.skip('A', 'bad unit'), false);
  const other = new ImportReport();
  other.took('A', 2);
  other.skip('A', 'bad date');
  report.absorb(other.snapshot());
  assert.deepEqual(report.lines(), [
    'type      records    skipped',
    'A               2          3  (bad unit: 2; bad date: 1)',
    'B               1          0',
  ]);
});

test('iOS 8/9 layout: compact dates, `source`, aggregates as average/min/max, attributes as metadata, numeric enums', () => {
  assert.equal(parseExportDate('20151107171924+0100'), Date.UTC(2015, 10, 7, 16, 19, 24));
  assert.equal(parseExportDate('20151107171924-0130'), Date.UTC(2015, 10, 7, 18, 49, 24));
  for (const bad of ['20151307171924+0100', '20151107251924+0100', '2015110717192+01000']) assert.ok(Number.isNaN(parseExportDate(bad)), bad);
  assert.equal(parseDayMs('19881029'), Date.UTC(1988, 9, 29));
  const c = new RecordConverter(USER);
  const legacy = (attrs: Record<string, string>): RawRecord => ({
    attrs: { source: 'Sleep Cycle', startDate: '20150101230000+0100', endDate: '20150102070000+0100', ...attrs },
    correlation: null,
    metadata: null,
    beats: null,
    line: 4,
  });
  // Heart rate as the night's aggregate in count/s: 1.05 → 63 per minute; min 0.9 → 54, max 1.5 → 90.
  const heart = c.convert(legacy({ type: `${Q}HeartRate`, unit: 'count/s', min: '0.9', max: '1.5', average: '1.05', recordCount: '412' })) as SampleRow;
  near(heart.value, 63);
  assert.equal(heart.sourceName, 'Sleep Cycle');
  assert.equal(heart.startMs, Date.UTC(2015, 0, 1, 22));
  const metadata = JSON.parse(heart.metadata as string);
  near(metadata.minimum, 54);
  near(metadata.maximum, 90);
  assert.equal(metadata.recordCount, 412);
  const sleep = c.convert(legacy({ type: 'HKCategoryTypeIdentifierSleepAnalysis', unit: '', value: '1', sessionId: 'abc', HKWasUserEntered: '1' })) as SampleRow;
  assert.equal(sleep.value, 1);
  assert.deepEqual(JSON.parse(sleep.metadata as string), { sessionId: 'abc', HKWasUserEntered: '1' });
  // A category record without a value is "not applicable" (0): for sleep, in bed.
  assert.equal((c.convert(legacy({ type: 'HKCategoryTypeIdentifierSleepAnalysis', unit: '' })) as SampleRow).value, 0);
  assert.equal((c.convert(legacy({ type: `${Q}StepCount`, unit: 'count', value: '12', recordCount: '1' })) as SampleRow).metadata, null);
  assert.deepEqual(convertMe({ HKCharacteristicTypeIdentifierDateOfBirth: '19881029', HKCharacteristicTypeIdentifierBiologicalSex: '2' }), { dateOfBirthMs: Date.UTC(1988, 9, 29), biologicalSex: 'male' });
  assert.equal(convertMe({ HKCharacteristicTypeIdentifierBiologicalSex: '0' }).biologicalSex, null);
  assert.equal(activityTypeName('37'), 'running');
  assert.equal(activityTypeName('3000'), 'other');
  const run = convertWorkout(workout({ workoutActivityType: '37', source: 'Runtastic', startDate: '20150101100000+0100', endDate: '20150101110000+0100', sourceName: undefined as unknown as string }), USER) as WorkoutRow;
  assert.deepEqual([run.activityType, run.sourceName, run.startMs], ['running', 'Runtastic', Date.UTC(2015, 0, 1, 9)]);
});

test('source names are kept as written, and ranked through no-break spaces, curly apostrophes and bidi marks', () => {
  assert.equal(sourcePriority({ name: 'NJR Apple\u00a0Watch', device: '' }, []), 0);
  assert.equal(sourcePriority({ name: 'Jonathan’s iPhone', device: '' }, []), 1);
  assert.equal(sourcePriority({ name: '\u200fiPhone\u200f الخاص بـ\u0640\u0640أحمد', device: '' }, []), 1);
  assert.equal(sourcePriority({ name: 'Withings', device: '' }, []), 2);
  // A name given to --source-priority matches as a person types it: a plain space, a straight apostrophe, any case.
  const typed = (names: string[]) => preferredSources(names);
  assert.equal(sourcePriority({ name: 'NJR Apple\u00a0Watch', device: '' }, typed(['NJR Apple\u00a0Watch'])), 0);
  assert.equal(sourcePriority({ name: 'NJR Apple\u00a0Watch', device: '' }, typed(['NJR Apple Watch'])), 0);
  assert.equal(sourcePriority({ name: 'Bob’s Tracker', device: '' }, typed(['Strava', "bob's tracker"])), 1);
  assert.equal(sourcePriority({ name: 'Bob’s Tracker', device: '' }, typed(['Bobs Tracker'])), 1 + 2, 'a different name is not a match');
});

test('lenient reading skips a malformed element, counts it with its line, and goes on; strict reading stops there', () => {
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<HealthData locale="de_DE">',
    ' <Record type="A" source="S" value="1"/>',
    ' <Record type="B" source="Withings" Health Mate App Version="2.6" value="2"/>',
    ' <Record type="C" source="S" bad attribute="x">',
    '  <MetadataEntry key="k" value="v"/>',
    ' </Record>',
    ' <Record type="D" source="S" value="4"><MetadataEntry key="k" value="w"/></Record>',
    '</HealthData>',
  ].join('\n');
  for (const step of [xml.length, 1, 5]) {
    const { handler, records } = collect();
    const skipped: Array<[string, string | null, number]> = [];
    handler.malformed = (name, type, line) => skipped.push([name, type, line]);
    const reader = new HealthDataReader('Exportieren.xml', handler, { lenient: true });
    const bytes = Buffer.from(xml);
    for (let i = 0; i < bytes.length; i += step) reader.write(bytes.subarray(i, i + step));
    reader.end();
    assert.deepEqual(records.map((r) => [r.attrs.type, r.metadata, r.line]), [['A', null, 3], ['D', { k: 'w' }, 8]], `step ${step}`);
    assert.deepEqual(skipped, [['Record', 'B', 4], ['Record', 'C', 5]], `step ${step}`);
  }
  assert.throws(
    () => new HealthDataReader('Exportieren.xml', collect().handler).write(Buffer.from(xml)),
    (error: Error) => error instanceof ImportInputError && /^Exportieren\.xml line 4, column \d+: malformed XML: .*--lenient/.test(error.message),
  );
  // What is not a malformed element inside the root still stops a lenient reading.
  assert.throws(() => new HealthDataReader('x.xml', collect().handler, { lenient: true }).write(Buffer.from('<HealthData>\n <Record type="A"></Workout>\n')), /line 2/);
});

test('zip entry names: UTF-8 without the flag (NFC), CP437 otherwise; the main file found by its root element', () => {
  const entry = (raw: Buffer, flag = 0, cp437 = '?') => ({ fileName: cp437, fileNameRaw: raw, generalPurposeBitFlag: flag, extraFields: [] });
  // `exportación.xml` with the ó written as o + U+0301 (NFD), no UTF-8 flag.
  assert.equal(entryName(entry(Buffer.from('exportacio\u0301n.xml'))), 'exportación.xml');
  assert.equal(entryName(entry(Buffer.from('apple_health_export/导出.xml'))), 'apple_health_export/导出.xml');
  // Not UTF-8 (0x82 alone): yauzl's CP437 reading stands.
  assert.equal(entryName(entry(Buffer.from([0x65, 0x82, 0x2e, 0x78, 0x6d, 0x6c]), 0, 'eé.xml')), 'eé.xml');
  assert.equal(entryName(entry(Buffer.from('x'), 0x800, 'de\u0301claré.xml')), 'déclaré.xml');
  assert.equal(rootElementName('<?xml version="1.0"?>\n<!DOCTYPE HealthData [\n<!-- <Record> -->\n<!ATTLIST VisionPrescription\n]>\n<HealthData locale="ar_SA">'), 'HealthData');
  assert.equal(rootElementName('\uFEFF<ClinicalDocument xmlns="urn:hl7-org:v3">'), 'ClinicalDocument');
  assert.equal(rootElementName('<?xml version="1.0"?>\n<!DOCTYPE HealthData ['), null);
});

test('an extracted export: the main file found by its root one folder down, whatever its name, with the files beside it', async () => {
  const dir = mkdtempSync(join(tmpRoot(), 'extracted-'));
  try {
    const inner = join(dir, 'apple_health_export');
    for (const sub of ['workout-routes', 'electrocardiograms']) mkdirSync(join(inner, sub), { recursive: true });
    writeFileSync(join(inner, 'export_cda.xml'), '<?xml version="1.0"?>\n<ClinicalDocument/>\n');
    writeFileSync(join(inner, 'notes.xml'), '<?xml version="1.0"?>\n<notes/>\n');
    writeFileSync(join(inner, 'dati esportati.xml'), '<?xml version="1.0"?>\n<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: 13 -->\n]>\n<HealthData locale="it_IT"/>\n');
    writeFileSync(join(inner, 'workout-routes', 'route_1.gpx'), '<gpx/>');
    writeFileSync(join(inner, 'electrocardiograms', 'ecg_1.csv'), 'Name,x\n');
    for (const path of [dir, inner, join(inner, 'dati esportati.xml')]) {
      const archive = await openArchive(path);
      assert.equal(archive.xml.label, join(inner, 'dati esportati.xml'), path);
      assert.deepEqual([...archive.routes.keys()], ['route_1.gpx']);
      assert.equal(archive.ecgs.length, 1);
      archive.close();
    }
    await assert.rejects(openArchive(join(inner, 'export_cda.xml')), /neither a zip archive nor an Apple Health export XML/);
    await assert.rejects(openArchive(join(inner, 'workout-routes')), /no Apple Health export in this folder/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
