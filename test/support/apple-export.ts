// Builds small Apple Health exports for the importer's tests: export.xml with
// every element the importer reads (Me, Records in units needing conversion,
// overlapping watch/phone/app steps, sleep stages and the legacy Asleep value,
// a blood-pressure Correlation, workouts in the iOS 16 and the older style
// with statistics, events, activities, a GPX FileReference and inline
// Locations, activity summaries in both move modes, a clinical record), a GPX
// route and an ECG csv, zipped like the Health app does (yazl). Instants are
// written with explicit offsets so the hand-worked numbers in the tests can be
// checked by eye; `zone` re-renders them in another offset, as a phone that
// travelled would.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { DateTime } from 'luxon';
import yazl from 'yazl';

export interface Source {
  name: string;
  version?: string;
  /** The HKDevice description as export.xml writes it (unescaped). */
  device?: string;
}

export const WATCH: Source = {
  name: 'Alex’s Apple Watch',
  version: '10.3',
  device: '<<HKDevice: 0x283f1c0f0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3>',
};
/** The same watch as another record's device object: only the address differs. */
export const WATCH_AGAIN: Source = { ...WATCH, device: (WATCH.device as string).replace('0x283f1c0f0', '0x2810aa3c0') };
export const PHONE: Source = {
  name: 'Alex’s iPhone',
  version: '17.3',
  device: '<<HKDevice: 0x281d99900>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.3>',
};
export const STRAP: Source = {
  name: 'Polar Beat',
  version: '3.5',
  device: '<<HKDevice: 0x281d1acb0>, name:Polar H10, manufacturer:Polar Electro Oy, model:H10, firmware:5.0.0>',
};
export const APP: Source = { name: 'Pedometer++', version: '5.1' };

export const Q = 'HKQuantityTypeIdentifier';
export const C = 'HKCategoryTypeIdentifier';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `2024-03-10T01:00:00-05:00` → `2024-03-10 01:00:00 -0500`, in the export's zone. */
export function exportDate(iso: string, zone: string): string {
  const at = DateTime.fromISO(iso, { setZone: true });
  if (!at.isValid) throw new Error(`bad instant in a fixture: ${iso}`);
  return at.setZone(zone).toFormat('yyyy-MM-dd HH:mm:ss ZZZ');
}

function attributes(pairs: Record<string, string | undefined>): string {
  return Object.entries(pairs)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}="${escape(value as string)}"`)
    .join('');
}

function sourceAttributes(source: Source): Record<string, string | undefined> {
  return { sourceName: source.name, sourceVersion: source.version, device: source.device };
}

export interface RecordSpec {
  type: string;
  source: Source;
  start: string;
  end?: string;
  unit?: string;
  value?: string;
  metadata?: Record<string, string>;
  beats?: Array<{ bpm: number; time: string }>;
}

export function record(spec: RecordSpec, zone: string, indent = ' '): string {
  const end = spec.end ?? spec.start;
  const attrs = attributes({
    type: spec.type,
    ...sourceAttributes(spec.source),
    unit: spec.unit,
    creationDate: exportDate(end, zone),
    startDate: exportDate(spec.start, zone),
    endDate: exportDate(end, zone),
    value: spec.value,
  });
  const children: string[] = [];
  for (const [key, value] of Object.entries(spec.metadata ?? {})) children.push(`${indent}  <MetadataEntry${attributes({ key, value })}/>`);
  if (spec.beats) {
    children.push(`${indent}  <HeartRateVariabilityMetadataList>`);
    for (const beat of spec.beats) children.push(`${indent}   <InstantaneousBeatsPerMinute bpm="${beat.bpm}" time="${beat.time}"/>`);
    children.push(`${indent}  </HeartRateVariabilityMetadataList>`);
  }
  return children.length === 0 ? `${indent}<Record${attrs}/>` : `${indent}<Record${attrs}>\n${children.join('\n')}\n${indent}</Record>`;
}

const DTD = (version: number) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: ${version} -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
]>`;

export interface ExportOptions {
  /** The zone the phone was in when exporting: every date is written in its offset. */
  zone?: string;
  version?: number;
  /** When the export was made; null writes no ExportDate element (some real exports have none). */
  exportedAt?: string | null;
  /** The Me element's birth date as written (a phone set to Arabic writes Arabic-Indic digits). */
  dateOfBirth?: string;
  /** More top-level elements (XML), appended after the fixture's own. */
  extra?: string[];
}

export const EXPORTED_AT = '2024-11-05T12:00:00-05:00';
export const RUN_START = '2024-03-10T08:00:00-04:00';
export const RIDE_START = '2024-11-03T01:10:00-04:00';
export const ECG_RECORDED = '2024-03-12T09:15:00-04:00';
export const GPX_NAME = 'route_2024-03-10_8.00am.gpx';
/** The record whose unit no registry knows: skipped, counted, the import goes on. */
export const BAD_UNIT_MARK = 'parsec';

/** Every record of the fixture, in export order. */
export function fixtureRecords(zone: string): string[] {
  const r = (spec: RecordSpec) => record(spec, zone);
  return [
    // Steps on the spring-forward day (23 h) in New York. Watch 01:00–01:30 EST 600 and
    // 03:30–04:00 EDT 300; phone 01:15–01:45 EST 400 (half covered by the watch);
    // app 03:30–04:00 EDT 500 (all covered); phone 23:50 EDT–00:10 120 (starts on the 10th).
    r({ type: `${Q}StepCount`, source: WATCH, unit: 'count', start: '2024-03-10T01:00:00-05:00', end: '2024-03-10T01:30:00-05:00', value: '600' }),
    // Exports can repeat a record verbatim: it is stored, and counted, once.
    r({ type: `${Q}StepCount`, source: WATCH, unit: 'count', start: '2024-03-10T01:00:00-05:00', end: '2024-03-10T01:30:00-05:00', value: '600' }),
    r({ type: `${Q}StepCount`, source: PHONE, unit: 'count', start: '2024-03-10T01:15:00-05:00', end: '2024-03-10T01:45:00-05:00', value: '400' }),
    r({ type: `${Q}StepCount`, source: WATCH_AGAIN, unit: 'count', start: '2024-03-10T03:30:00-04:00', end: '2024-03-10T04:00:00-04:00', value: '300' }),
    r({ type: `${Q}StepCount`, source: APP, unit: 'count', start: '2024-03-10T03:30:00-04:00', end: '2024-03-10T04:00:00-04:00', value: '500' }),
    r({ type: `${Q}StepCount`, source: PHONE, unit: 'count', start: '2024-03-10T23:50:00-04:00', end: '2024-03-11T00:10:00-04:00', value: '120' }),
    // Fall-back day (25 h): 01:30 happens twice, both counted.
    r({ type: `${Q}StepCount`, source: PHONE, unit: 'count', start: '2024-11-03T01:30:00-04:00', end: '2024-11-03T01:45:00-04:00', value: '50' }),
    r({ type: `${Q}StepCount`, source: PHONE, unit: 'count', start: '2024-11-03T01:30:00-05:00', end: '2024-11-03T01:45:00-05:00', value: '70' }),
    // Units needing conversion.
    r({ type: `${Q}DistanceWalkingRunning`, source: PHONE, unit: 'km', start: '2024-03-10T10:00:00-04:00', end: '2024-03-10T10:10:00-04:00', value: '1.5' }),
    r({ type: `${Q}DistanceWalkingRunning`, source: PHONE, unit: 'mi', start: '2024-03-10T10:20:00-04:00', end: '2024-03-10T10:30:00-04:00', value: '0.5' }),
    r({ type: `${Q}DistanceWalkingRunning`, source: PHONE, unit: 'ft', start: '2024-03-10T10:40:00-04:00', end: '2024-03-10T10:41:00-04:00', value: '100' }),
    r({ type: `${Q}ActiveEnergyBurned`, source: WATCH, unit: 'kJ', start: '2024-03-10T12:00:00-04:00', end: '2024-03-10T12:05:00-04:00', value: '41.84' }),
    r({ type: `${Q}ActiveEnergyBurned`, source: WATCH, unit: 'Cal', start: '2024-03-10T12:05:00-04:00', end: '2024-03-10T12:10:00-04:00', value: '5' }),
    r({ type: `${Q}BodyMass`, source: PHONE, unit: 'lb', start: '2024-03-10T07:00:00-04:00', value: '150' }),
    r({ type: `${Q}BodyMass`, source: PHONE, unit: 'kg', start: '2024-03-10T19:00:00-04:00', value: '68' }),
    r({ type: `${Q}BodyMass`, source: PHONE, unit: 'st', start: '2024-03-11T07:00:00-04:00', value: '11' }),
    r({ type: `${Q}BodyMass`, source: PHONE, unit: 'g', start: '2024-03-12T07:00:00-04:00', value: '70000' }),
    r({ type: `${Q}BodyMass`, source: PHONE, unit: BAD_UNIT_MARK, start: '2024-03-13T07:00:00-04:00', value: '2' }),
    r({ type: `${Q}Height`, source: PHONE, unit: 'cm', start: '2024-03-10T07:00:00-04:00', value: '180' }),
    r({ type: `${Q}BodyTemperature`, source: PHONE, unit: 'degF', start: '2024-03-10T07:05:00-04:00', value: '98.6' }),
    r({ type: `${Q}OxygenSaturation`, source: WATCH, unit: '%', start: '2024-03-10T03:00:00-04:00', value: '0.97' }),
    r({ type: `${Q}HeartRateVariabilitySDNN`, source: WATCH, unit: 'ms', start: '2024-03-10T06:00:00-04:00', end: '2024-03-10T06:01:00-04:00', value: '45.5', beats: [{ bpm: 58, time: '6:00:05.12 AM' }, { bpm: 61, time: '6:00:06.10 AM' }] }),
    r({ type: 'HKDataTypeSleepDurationGoal', source: PHONE, unit: 'hr', start: '2024-03-10T07:00:00-04:00', value: '8' }),
    // Heart rate, power and speed during the run (08:00–08:30 EDT): the watch 4 times, a chest strap twice.
    ...[0, 10, 20, 30].map((minute, i) =>
      r({ type: `${Q}HeartRate`, source: WATCH, unit: 'count/min', start: `2024-03-10T08:${String(minute).padStart(2, '0')}:00-04:00`, value: String(120 + 10 * i), metadata: { HKMetadataKeyHeartRateMotionContext: '2' } }),
    ),
    ...[5, 15].map((minute) =>
      r({ type: `${Q}HeartRate`, source: STRAP, unit: 'count/min', start: `2024-03-10T08:${String(minute).padStart(2, '0')}:00-04:00`, value: '200' }),
    ),
    r({ type: `${Q}HeartRate`, source: WATCH, unit: 'count/min', start: '2024-03-10T09:00:00-04:00', value: '70' }),
    r({ type: `${Q}RunningPower`, source: WATCH, unit: 'W', start: '2024-03-10T08:00:00-04:00', value: '250' }),
    r({ type: `${Q}RunningPower`, source: WATCH, unit: 'W', start: '2024-03-10T08:15:00-04:00', value: '270' }),
    r({ type: `${Q}RunningSpeed`, source: WATCH, unit: 'km/hr', start: '2024-03-10T08:10:00-04:00', value: '10.8' }),
    // The night into the spring-forward day: the watch's stages, the phone's legacy Asleep.
    ...[
      ['InBed', '2024-03-09T23:00:00-05:00', '2024-03-10T07:00:00-04:00'],
      ['AsleepCore', '2024-03-09T23:10:00-05:00', '2024-03-10T01:30:00-05:00'],
      ['AsleepDeep', '2024-03-10T01:30:00-05:00', '2024-03-10T03:30:00-04:00'],
      ['AsleepREM', '2024-03-10T03:30:00-04:00', '2024-03-10T05:00:00-04:00'],
      ['Awake', '2024-03-10T05:00:00-04:00', '2024-03-10T05:10:00-04:00'],
      ['AsleepCore', '2024-03-10T05:10:00-04:00', '2024-03-10T06:50:00-04:00'],
    ].map(([stage, start, end]) => r({ type: `${C}SleepAnalysis`, source: WATCH, start, end, value: `HKCategoryValueSleepAnalysis${stage}`, metadata: { HKTimeZone: 'America/New_York' } })),
    r({ type: `${C}SleepAnalysis`, source: PHONE, start: '2024-03-09T23:30:00-05:00', end: '2024-03-10T06:30:00-04:00', value: 'HKCategoryValueSleepAnalysisAsleep' }),
    r({ type: `${C}AppleStandHour`, source: WATCH, start: '2024-03-10T09:00:00-04:00', end: '2024-03-10T10:00:00-04:00', value: 'HKCategoryValueAppleStandHourStood' }),
    r({ type: `${C}MindfulSession`, source: WATCH, start: '2024-03-10T21:00:00-04:00', end: '2024-03-10T21:05:00-04:00', value: 'HKCategoryValueNotApplicable' }),
    // Blood pressure: the two records at top level, and again inside the correlation.
    r({ type: `${Q}BloodPressureSystolic`, source: PHONE, unit: 'mmHg', start: '2024-03-10T07:10:00-04:00', value: '118' }),
    r({ type: `${Q}BloodPressureDiastolic`, source: PHONE, unit: 'mmHg', start: '2024-03-10T07:10:00-04:00', value: '76' }),
  ];
}

function fixtureElements(zone: string): string[] {
  const d = (iso: string) => exportDate(iso, zone);
  const run = RUN_START;
  const runEnd = '2024-03-10T08:30:00-04:00';
  const rideEnd = '2024-11-03T01:50:00-05:00';
  return [
    ` <Correlation type="HKCorrelationTypeIdentifierBloodPressure"${attributes(sourceAttributes(PHONE))} creationDate="${d('2024-03-10T07:10:00-04:00')}" startDate="${d('2024-03-10T07:10:00-04:00')}" endDate="${d('2024-03-10T07:10:00-04:00')}">
  <MetadataEntry key="HKWasUserEntered" value="1"/>
${record({ type: `${Q}BloodPressureSystolic`, source: PHONE, unit: 'mmHg', start: '2024-03-10T07:10:00-04:00', value: '118' }, zone, '  ')}
${record({ type: `${Q}BloodPressureDiastolic`, source: PHONE, unit: 'mmHg', start: '2024-03-10T07:10:00-04:00', value: '76' }, zone, '  ')}
 </Correlation>`,
    // iOS 16 style: statistics, events, one activity repeating the workout, a GPX FileReference.
    ` <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min"${attributes(sourceAttributes(WATCH))} creationDate="${d(runEnd)}" startDate="${d(run)}" endDate="${d(runEnd)}">
  <MetadataEntry key="HKIndoorWorkout" value="0"/>
  <MetadataEntry key="HKTimeZone" value="America/New_York"/>
  <WorkoutEvent type="HKWorkoutEventTypePause" date="${d('2024-03-10T08:12:00-04:00')}" duration="1" durationUnit="min"/>
  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="${d(run)}" duration="10" durationUnit="min">
   <MetadataEntry key="HKSegmentIndex" value="1"/>
  </WorkoutEvent>
  <WorkoutActivity uuid="6A0F3C8E-7D1B-4E0A-9B3C-2F1D4E5A6B7C" startDate="${d(run)}" endDate="${d(runEnd)}" duration="30" durationUnit="min">
   <WorkoutStatistics type="${Q}HeartRate" startDate="${d(run)}" endDate="${d(runEnd)}" average="135" minimum="120" maximum="150" unit="count/min"/>
  </WorkoutActivity>
  <WorkoutStatistics type="${Q}DistanceWalkingRunning" startDate="${d(run)}" endDate="${d(runEnd)}" sum="3.10686" unit="mi"/>
  <WorkoutStatistics type="${Q}ActiveEnergyBurned" startDate="${d(run)}" endDate="${d(runEnd)}" sum="300" unit="Cal"/>
  <WorkoutStatistics type="${Q}HeartRate" startDate="${d(run)}" endDate="${d(runEnd)}" average="135" minimum="120" maximum="150" unit="count/min"/>
  <WorkoutRoute${attributes(sourceAttributes(WATCH))} creationDate="${d(runEnd)}" startDate="${d(run)}" endDate="${d(runEnd)}">
   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
   <FileReference path="/workout-routes/${GPX_NAME}"/>
  </WorkoutRoute>
 </Workout>`,
    // Pre-iOS 16 style, across the fall-back hour: totals as attributes, inline Locations.
    ` <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="100" durationUnit="min" totalDistance="20" totalDistanceUnit="km" totalEnergyBurned="500" totalEnergyBurnedUnit="kJ"${attributes(sourceAttributes(PHONE))} creationDate="${d(rideEnd)}" startDate="${d(RIDE_START)}" endDate="${d(rideEnd)}">
  <WorkoutRoute${attributes(sourceAttributes(PHONE))} creationDate="${d(rideEnd)}" startDate="${d(RIDE_START)}" endDate="${d(rideEnd)}">
   <Location date="${d('2024-11-03T01:10:00-04:00')}" latitude="40.7800" longitude="-73.9700" altitude="30" horizontalAccuracy="5" verticalAccuracy="3" course="90" speed="5"/>
   <Location date="${d('2024-11-03T01:30:00-05:00')}" latitude="40.7900" longitude="-73.9600" altitude="35" horizontalAccuracy="5" verticalAccuracy="3" course="90" speed="5"/>
   <Location date="${d('2024-11-03T01:30:00-04:00')}" latitude="40.7850" longitude="-73.9650" altitude="32" horizontalAccuracy="5" verticalAccuracy="3" course="90" speed="5"/>
  </WorkoutRoute>
 </Workout>`,
    // A multisport workout: two activities of their own.
    ` <Workout workoutActivityType="HKWorkoutActivityTypeSwimBikeRun" duration="90" durationUnit="min"${attributes(sourceAttributes(WATCH))} creationDate="${d('2024-03-12T08:30:00-04:00')}" startDate="${d('2024-03-12T07:00:00-04:00')}" endDate="${d('2024-03-12T08:30:00-04:00')}">
  <WorkoutActivity uuid="11111111-2222-4333-8444-555555555555" startDate="${d('2024-03-12T07:00:00-04:00')}" endDate="${d('2024-03-12T07:30:00-04:00')}" duration="30" durationUnit="min">
   <MetadataEntry key="HKSwimmingLocationType" value="1"/>
   <WorkoutStatistics type="${Q}DistanceSwimming" startDate="${d('2024-03-12T07:00:00-04:00')}" endDate="${d('2024-03-12T07:30:00-04:00')}" sum="1000" unit="m"/>
  </WorkoutActivity>
  <WorkoutActivity uuid="11111111-2222-4333-8444-666666666666" startDate="${d('2024-03-12T07:35:00-04:00')}" endDate="${d('2024-03-12T08:30:00-04:00')}" duration="55" durationUnit="min">
   <WorkoutEvent type="HKWorkoutEventTypeLap" date="${d('2024-03-12T08:00:00-04:00')}" duration="0" durationUnit="min"/>
   <WorkoutStatistics type="${Q}DistanceCycling" startDate="${d('2024-03-12T07:35:00-04:00')}" endDate="${d('2024-03-12T08:30:00-04:00')}" sum="20" unit="km"/>
  </WorkoutActivity>
  <WorkoutStatistics type="${Q}DistanceSwimming" startDate="${d('2024-03-12T07:00:00-04:00')}" endDate="${d('2024-03-12T08:30:00-04:00')}" sum="1000" unit="m"/>
  <WorkoutStatistics type="${Q}DistanceCycling" startDate="${d('2024-03-12T07:00:00-04:00')}" endDate="${d('2024-03-12T08:30:00-04:00')}" sum="20" unit="km"/>
 </Workout>`,
    ` <ActivitySummary dateComponents="2024-03-10" activeEnergyBurned="450" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="10" appleStandHoursGoal="12"/>`,
    ` <ActivitySummary dateComponents="2024-03-11" activeEnergyBurned="836.8" activeEnergyBurnedGoal="0" activeEnergyBurnedUnit="kJ" appleMoveTime="45" appleMoveTimeGoal="60" appleExerciseTime="20" appleExerciseTimeGoal="30" appleStandHours="8" appleStandHoursGoal="12"/>`,
    ` <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="abc" sourceName="Clinic" sourceURL="https://clinic.example/fhir" fhirVersion="4.0.1" receivedDate="${d('2024-03-10T12:00:00-04:00')}" resourceFilePath="/clinical-records/abc.json"/>`,
  ];
}

/** The fixture's export.xml, dates written in `zone` (New York by default). */
export function appleExportXml(options: ExportOptions = {}): string {
  const zone = options.zone ?? 'America/New_York';
  return [
    DTD(options.version ?? 14),
    '<HealthData locale="en_US">',
    ...(options.exportedAt === null ? [] : [` <ExportDate value="${exportDate(options.exportedAt ?? EXPORTED_AT, zone)}"/>`]),
    ` <Me HKCharacteristicTypeIdentifierDateOfBirth="${options.dateOfBirth ?? '1990-05-17'}" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>`,
    ...fixtureRecords(zone),
    ...fixtureElements(zone),
    ...(options.extra ?? []),
    '</HealthData>',
    '',
  ].join('\n');
}

/** The run's route: three points a minute apart, the middle one without elevation. */
export function routeGpx(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
 <metadata>
  <time>2024-03-10T12:30:00Z</time>
 </metadata>
 <trk>
  <name>Route 2024-03-10 8:00am</name>
  <trkseg>
   <trkpt lon="-73.968285" lat="40.785091"><ele>12.5</ele><time>2024-03-10T12:00:00Z</time><extensions><speed>2.9</speed><course>10.1</course><hAcc>3.2</hAcc><vAcc>2.1</vAcc></extensions></trkpt>
   <trkpt lon="-73.967000" lat="40.786000"><time>2024-03-10T12:01:00Z</time><extensions><speed>3.0</speed></extensions></trkpt>
   <trkpt lon="-73.966000" lat="40.787000"><ele>14.0</ele><time>2024-03-10T12:02:00Z</time></trkpt>
  </trkseg>
 </trk>
</gpx>
`;
}

/** A two-second recording at 512 Hz: 1024 voltages. */
export function ecgCsv(zone = 'America/New_York'): string {
  const lines = [
    'Name,Alex Example',
    'Date of Birth,"May 17, 1990"',
    `Recorded Date,${exportDate(ECG_RECORDED, zone)}`,
    'Classification,Sinus Rhythm',
    'Symptoms,',
    'Software Version,2',
    'Device,"Watch6,1"',
    'Sample Rate,512 hertz',
    'Average Heart Rate,72 BPM',
    '',
    'Lead,Lead I',
    'Unit,µV',
    '',
  ];
  for (let i = 0; i < 1024; i++) lines.push((Math.sin(i / 20) * 100).toFixed(3));
  return lines.join('\n') + '\n';
}

/** Writes a zip of the given files, deflated as the Health app does. */
export async function writeZip(path: string, files: Record<string, string | Buffer>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  zip.end();
  await once(out, 'close');
}

/** The fixture as export.zip: export.xml, the GPX route, the ECG. */
export async function writeAppleExportZip(path: string, options: ExportOptions & { xml?: string } = {}): Promise<string> {
  const xml = options.xml ?? appleExportXml(options);
  await writeZip(path, {
    'apple_health_export/export.xml': xml,
    'apple_health_export/export_cda.xml': '<?xml version="1.0"?><ClinicalDocument/>',
    [`apple_health_export/workout-routes/${GPX_NAME}`]: routeGpx(),
    'apple_health_export/electrocardiograms/ecg_2024-03-12.csv': ecgCsv(options.zone),
  });
  return xml;
}
