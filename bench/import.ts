// `node dist/bench/import.js [--records 5000000] [--keep] [--zip path] [--baseline other/dist/src/import/cli.js [--rounds 2]]`
// Generates an Apple Health export.zip of a heavy Apple Watch user (streamed
// to disk through yazl, never held in memory: ~2,400 records a day — heart
// rate with metadata, energy every minute, steps and distance from watch and
// phone overlapping, stand and exercise minutes, sleep stages, HRV with
// beats, audio, SpO2, respiratory rate — a daily run with statistics, events,
// heart rate every 5 s and every tenth with a GPX route, and the day's rings),
// then imports it with the CLI into a fresh embedded cluster configured like
// the default ./data one, and reports records/s end to end and the
// importer's peak RSS. With --keep the export and the cluster directory stay.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import yazl from 'yazl';
import { startEmbeddedDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';

const USER = '0b5e7a1c-2d3f-4a5b-8c6d-7e8f9a0b1c2d';
const ZONE = 'America/New_York';
const MIN = 60_000;
const DAY = 86_400_000;
const Q = 'HKQuantityTypeIdentifier';

const WATCH = `sourceName="Sam’s Apple Watch" sourceVersion="10.3" device="&lt;&lt;HKDevice: 0x283f1c0f0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3&gt;"`;
const PHONE = `sourceName="Sam’s iPhone" sourceVersion="17.3" device="&lt;&lt;HKDevice: 0x281d99900&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.3&gt;"`;

/** `yyyy-MM-dd HH:mm:ss ±hhmm` at a fixed offset (the day's), without luxon per record. */
function formatAt(ms: number, offsetMinutes: number): string {
  const d = new Date(ms + offsetMinutes * MIN);
  const p2 = (n: number) => (n < 10 ? '0' : '') + n;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const off = Math.abs(offsetMinutes);
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${sign}${p2(Math.floor(off / 60))}${p2(off % 60)}`;
}

interface Day {
  startMs: number;
  /** The next day's start: a DST day is 23 or 25 hours long. */
  endMs: number;
  offset: number;
  index: number;
  date: string;
}

/** Deterministic noise in [0, 1). */
function noise(i: number): number {
  const x = Math.sin(i * 12.9898) * 43758.5453;
  return x - Math.floor(x);
}

function quantity(source: string, type: string, unit: string, start: number, end: number, value: string, day: Day, children = ''): string {
  const s = formatAt(start, day.offset);
  const e = formatAt(end, day.offset);
  const open = ` <Record type="${Q}${type}" ${source} unit="${unit}" creationDate="${e}" startDate="${s}" endDate="${e}" value="${value}"`;
  return children ? `${open}>\n${children} </Record>\n` : `${open}/>\n`;
}

const MOTION = '  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>\n';

/** One type's records of one day, each with its start. */
type Series = (day: Day) => Array<[number, string]>;

/** The day's records in start order (sources merged), as the export lists them; none past the day's end. */
function dayText(series: Series, day: Day, counter: { records: number }): string {
  const records = series(day).filter(([start]) => start < day.endMs);
  counter.records += records.length;
  return records
    .sort((a, b) => a[0] - b[0])
    .map(([, text]) => text)
    .join('');
}

const SERIES: Series[] = [
  (day) => {
    const t0 = day.startMs;
    const run = t0 + 7 * 60 * MIN; // 07:00–07:30 local
    let n = day.index * 10_000;
    const records: Array<[number, string]> = [];
    for (let i = 0; i < 288; i++) {
      const at = t0 + i * 5 * MIN + 17_000;
      records.push([at, quantity(WATCH, 'HeartRate', 'count/min', at, at, String(55 + Math.round(noise(n++) * 40)), day, MOTION)]);
    }
    for (let i = 0; i < 360; i++) {
      const at = run + i * 5000;
      records.push([at, quantity(WATCH, 'HeartRate', 'count/min', at, at, String(130 + Math.round(noise(n++) * 40)), day, MOTION)]);
    }
    return records;
  },
  (day) => {
    let n = day.index * 10_000 + 1000;
    return Array.from({ length: 1000 }, (_, i): [number, string] => {
      const at = day.startMs + 7 * 60 * MIN + i * MIN;
      return [at, quantity(WATCH, 'ActiveEnergyBurned', 'Cal', at, at + MIN, (noise(n++) * 3).toFixed(3), day)];
    });
  },
  (day) => {
    let n = day.index * 10_000 + 2000;
    return Array.from({ length: 100 }, (_, i): [number, string] => {
      const at = day.startMs + i * 14 * MIN;
      return [at, quantity(WATCH, 'BasalEnergyBurned', 'Cal', at, at + 14 * MIN, (15 + noise(n++)).toFixed(3), day)];
    });
  },
  ...(['StepCount', 'DistanceWalkingRunning'] as const).map((type): Series => (day) => {
    let n = day.index * 10_000 + (type === 'StepCount' ? 3000 : 4000);
    const value = () => (type === 'StepCount' ? String(Math.round(noise(n++) * 400)) : (noise(n++) * 0.2).toFixed(5));
    const unit = type === 'StepCount' ? 'count' : 'mi';
    const records: Array<[number, string]> = [];
    for (let i = 0; i < 150; i++) {
      const at = day.startMs + 6 * 60 * MIN + i * 6 * MIN;
      records.push([at, quantity(WATCH, type, unit, at, at + 5 * MIN, value(), day)]);
    }
    for (let i = 0; i < 100; i++) {
      const at = day.startMs + 6 * 60 * MIN + i * 9 * MIN + 2 * MIN;
      records.push([at, quantity(PHONE, type, unit, at, at + 7 * MIN, value(), day)]);
    }
    return records;
  }),
  (day) => Array.from({ length: 24 }, (_, i): [number, string] => {
    const at = day.startMs + i * 60 * MIN;
    return [at, quantity(WATCH, 'AppleStandTime', 'min', at, at + 5 * MIN, String(1 + (i % 4)), day)];
  }),
  (day) => Array.from({ length: 30 }, (_, i): [number, string] => {
    const at = day.startMs + 7 * 60 * MIN + i * MIN;
    return [at, quantity(WATCH, 'AppleExerciseTime', 'min', at, at + MIN, '1', day)];
  }),
  (day) => Array.from({ length: 50 }, (_, i): [number, string] => {
    const at = day.startMs + 8 * 60 * MIN + i * 15 * MIN;
    return [at, quantity(WATCH, 'EnvironmentalAudioExposure', 'dBASPL', at, at + 30 * MIN, (55 + noise(day.index * 50 + i) * 20).toFixed(4), day)];
  }),
  (day) => Array.from({ length: 40 }, (_, i): [number, string] => {
    const at = day.startMs + i * 9 * MIN;
    return [at, quantity(WATCH, 'RespiratoryRate', 'count/min', at, at + 4 * MIN, (13 + noise(day.index * 40 + i) * 4).toFixed(1), day)];
  }),
  (day) => Array.from({ length: 10 }, (_, i): [number, string] => {
    const at = day.startMs + i * 30 * MIN;
    return [at, quantity(WATCH, 'OxygenSaturation', '%', at, at, (0.94 + noise(day.index * 10 + i) * 0.05).toFixed(2), day)];
  }),
  (day) => Array.from({ length: 8 }, (_, i): [number, string] => {
    const at = day.startMs + i * 3 * 60 * MIN;
    let beats = '  <HeartRateVariabilityMetadataList>\n';
    for (let b = 0; b < 5; b++) beats += `   <InstantaneousBeatsPerMinute bpm="${60 + b}" time="${b + 1}:00:0${b}.00 AM"/>\n`;
    return [at, quantity(WATCH, 'HeartRateVariabilitySDNN', 'ms', at, at + MIN, (30 + noise(day.index * 8 + i) * 40).toFixed(3), day, beats + '  </HeartRateVariabilityMetadataList>\n')];
  }),
  (day) => {
    const stages = ['AsleepCore', 'AsleepDeep', 'AsleepCore', 'AsleepREM', 'Awake'];
    const night = day.startMs - 60 * MIN; // 23:00 the evening before
    const sleep = (start: number, end: number, value: string) =>
      ` <Record type="HKCategoryTypeIdentifierSleepAnalysis" ${WATCH} creationDate="${formatAt(end, day.offset)}" startDate="${formatAt(start, day.offset)}" endDate="${formatAt(end, day.offset)}" value="HKCategoryValueSleepAnalysis${value}"/>\n`;
    return [
      [night, sleep(night, night + 8 * 60 * MIN, 'InBed')],
      ...Array.from({ length: 19 }, (_, i): [number, string] => [night + 10 * MIN + i * 24 * MIN, sleep(night + 10 * MIN + i * 24 * MIN, night + 34 * MIN + i * 24 * MIN, stages[i % 5])]),
    ];
  },
];

/** Records of a 24-hour day (a 23-hour DST day has a few less). */
const RECORDS_PER_DAY = 288 + 360 + 1000 + 100 + 300 + 200 + 24 + 30 + 50 + 40 + 10 + 8 + 20;

function workout(day: Day, withRoute: boolean): string {
  const start = day.startMs + 7 * 60 * MIN;
  const end = start + 30 * MIN;
  const s = formatAt(start, day.offset);
  const e = formatAt(end, day.offset);
  const stats = `  <WorkoutStatistics type="${Q}ActiveEnergyBurned" startDate="${s}" endDate="${e}" sum="310.5" unit="Cal"/>
  <WorkoutStatistics type="${Q}DistanceWalkingRunning" startDate="${s}" endDate="${e}" sum="3.4" unit="mi"/>
  <WorkoutStatistics type="${Q}HeartRate" startDate="${s}" endDate="${e}" average="150" minimum="128" maximum="170" unit="count/min"/>
`;
  const route = withRoute
    ? `  <WorkoutRoute ${WATCH} creationDate="${e}" startDate="${s}" endDate="${e}">\n   <FileReference path="/workout-routes/${routeName(day)}"/>\n  </WorkoutRoute>\n`
    : '';
  return ` <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" ${WATCH} creationDate="${e}" startDate="${s}" endDate="${e}">
  <MetadataEntry key="HKIndoorWorkout" value="0"/>
  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="${s}" duration="10" durationUnit="min"/>
${stats}${route} </Workout>
`;
}

function routeName(day: Day): string {
  return `route_day${day.index}.gpx`;
}

function routeGpx(day: Day): string {
  const start = day.startMs + 7 * 60 * MIN;
  let points = '';
  for (let i = 0; i < 360; i++) {
    const time = new Date(start + i * 5000).toISOString().replace('.000Z', 'Z');
    points += `   <trkpt lon="${(-73.97 + i * 1e-5).toFixed(6)}" lat="${(40.78 + i * 1e-5).toFixed(6)}"><ele>${(10 + noise(i)).toFixed(2)}</ele><time>${time}</time><extensions><speed>3.1</speed></extensions></trkpt>\n`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">\n <trk>\n  <trkseg>\n${points}  </trkseg>\n </trk>\n</gpx>\n`;
}

function summary(day: Day): string {
  return ` <ActivitySummary dateComponents="${day.date}" activeEnergyBurned="${(400 + noise(day.index) * 300).toFixed(3)}" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>\n`;
}

function daysFor(records: number): Day[] {
  const count = Math.ceil(records / RECORDS_PER_DAY);
  const first = DateTime.fromObject({ year: 2018, month: 1, day: 1 }, { zone: ZONE });
  const days: Day[] = [];
  for (let i = 0; i < count; i++) {
    const local = first.plus({ days: i });
    days.push({ startMs: local.toMillis(), endMs: local.plus({ days: 1 }).toMillis(), offset: local.set({ hour: 12 }).offset, index: i, date: local.toFormat('yyyy-MM-dd') });
  }
  return days;
}

function* exportXml(days: Day[], counter: { records: number }): Generator<string> {
  const last = days[days.length - 1];
  yield `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
]>
<HealthData locale="en_US">
 <ExportDate value="${formatAt(last.startMs + DAY, last.offset)}"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-02-03" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
`;
  // Like the Health app: records grouped by type, each in start order; then workouts, then summaries.
  for (const series of SERIES) {
    for (const day of days) yield dayText(series, day, counter);
  }
  for (const day of days) yield workout(day, day.index % 10 === 0);
  for (const day of days) yield summary(day);
  counter.records += 2 * days.length;
  yield '</HealthData>\n';
}

async function generateZip(path: string, records: number): Promise<{ records: number; xmlBytes: number; seconds: number }> {
  const started = performance.now();
  const days = daysFor(records);
  let xmlBytes = 0;
  const counter = { records: 0 };
  const xml = Readable.from(
    (function* () {
      for (const chunk of exportXml(days, counter)) {
        xmlBytes += Buffer.byteLength(chunk);
        yield chunk;
      }
    })(),
  );
  const zip = new yazl.ZipFile();
  zip.addReadStream(xml, 'apple_health_export/export.xml');
  for (const day of days) if (day.index % 10 === 0) zip.addBuffer(Buffer.from(routeGpx(day)), `apple_health_export/workout-routes/${routeName(day)}`);
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  zip.end();
  await once(out, 'close');
  return { records: counter.records, xmlBytes, seconds: (performance.now() - started) / 1000 };
}

interface ImportRun {
  seconds: number;
  report: string;
  code: number | null;
  /** CPU seconds the cluster's processes spent meanwhile. */
  databaseCpu: number;
}

const TICKS_PER_SECOND = 100;

/** CPU seconds of a process tree's postmaster: its own, its reaped children's, and its live children's. */
function clusterCpuSeconds(dataDir: string): number {
  const stat = (pid: string) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    } catch {
      return null;
    }
  };
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  const postmaster = pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
    } catch {
      return false;
    }
  });
  if (postmaster === undefined) return NaN;
  let ticks = 0;
  for (const pid of pids) {
    const fields = stat(pid);
    if (fields === null) continue;
    // After the comm: [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
    if (pid === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (fields[1] === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * The database's own bulk-load speed for the rows the import wrote: dumped with
 * psql's \copy in binary, the table emptied, then timed loading them back in one
 * COPY with the importer's session settings (no XML, no conversion, one stream).
 */
function databaseCeiling(url: string, file: string): { rows: number; seconds: number } {
  const psql = (...commands: string[]) => {
    const result = spawnSync('/usr/bin/psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', ...commands.flatMap((command) => ['-c', command])], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
    return result.stdout;
  };
  const rows = Number(psql('SELECT count(*) FROM samples').trim().split('\n').find((line) => /^\s*\d+\s*$/.test(line)));
  psql(`\\copy samples TO '${file}' WITH (FORMAT binary)`);
  psql('TRUNCATE samples', 'CHECKPOINT');
  const started = performance.now();
  psql('SET synchronous_commit = off', 'SET session_replication_role = replica', `\\copy samples FROM '${file}' WITH (FORMAT binary)`);
  const seconds = (performance.now() - started) / 1000;
  rmSync(file, { force: true });
  return { rows, seconds };
}

/** What the importer says it read: `1,234,567 elements read`. */
function elementsRead(run: ImportRun): number {
  const match = /([\d,]+) elements read/.exec(run.report);
  return match ? Number(match[1].replace(/,/g, '')) : NaN;
}

const OUR_CLI = join(process.cwd(), 'dist', 'src', 'import', 'cli.js');

function runImport(zipPath: string, databaseUrl: string, dataDir: string, cli = OUR_CLI): Promise<ImportRun> {
  const started = performance.now();
  const cpuBefore = clusterCpuSeconds(dataDir);
  const child = spawn(process.execPath, [cli, '--user', USER, zipPath], {
    env: { ...process.env, DATABASE_URL: databaseUrl, SERVICE_TIME_ZONE: ZONE },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let report = '';
  child.stdout.on('data', (chunk) => (report += chunk));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ seconds: (performance.now() - started) / 1000, report, code, databaseCpu: clusterCpuSeconds(dataDir) - cpuBefore })),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { records: { type: 'string', default: '5000000' }, keep: { type: 'boolean', default: false }, zip: { type: 'string' }, baseline: { type: 'string' }, rounds: { type: 'string', default: '2' } },
  });
  const wanted = Number(values.records);
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'bench-import-'));
  let zipPath = values.zip;
  if (zipPath === undefined) {
    zipPath = join(dir, 'export.zip');
    const generated = await generateZip(zipPath, wanted);
    console.error(
      `bench: generated ${generated.records} records (${(generated.xmlBytes / 1e9).toFixed(2)} GB of XML, ${(statSync(zipPath).size / 1e6).toFixed(0)} MB zipped) in ${generated.seconds.toFixed(1)} s`,
    );
  }
  const dataDir = join(dir, 'db', 'pg');
  const db = await startEmbeddedDatabase({ dir: join(dir, 'db') });
  try {
    await applyMigrations(db.adminUrl);
    const first = await runImport(zipPath, db.adminUrl, dataDir);
    if (first.code !== 0) throw new Error(`import failed with ${first.code}`);
    const again = await runImport(zipPath, db.adminUrl, dataDir);
    const summary = (run: ImportRun) => run.report.split('\n')[0];
    const rate = (run: ImportRun) =>
      `${elementsRead(run)} records: ${run.seconds.toFixed(1)} s wall, ${Math.round(elementsRead(run) / run.seconds)} records/s end to end; PostgreSQL CPU ${run.databaseCpu.toFixed(1)} s`;
    console.log(`bench: first import of ${rate(first)}`);
    console.log(`bench:   ${summary(first)}`);
    console.log(`bench: re-import of the same export (nothing new) of ${rate(again)}`);
    console.log(`bench:   ${summary(again)}`);
    const ceiling = databaseCeiling(db.adminUrl, join(dir, 'samples.copy'));
    console.log(
      `bench: database ceiling (psql \\copy of the same ${ceiling.rows} rows from a binary file into the emptied samples table, same session settings): ${ceiling.seconds.toFixed(1)} s, ${Math.round(ceiling.rows / ceiling.seconds)} rows/s; first import ÷ ceiling ${(elementsRead(first) / first.seconds / (ceiling.rows / ceiling.seconds)).toFixed(2)}`,
    );
    console.log(`bench: load average while running: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (2 cores shared)`);
  } finally {
    await db.stop();
  }
  try {
    if (values.baseline !== undefined) await compareWithBaseline(zipPath, dir, values.baseline, Number(values.rounds));
  } finally {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
    else console.error(`bench: kept ${dir}`);
  }
}

/**
 * `--baseline <another build's dist/src/import/cli.js>`: first imports of the
 * same export by that importer and by this one, alternating round by round,
 * each into a fresh cluster, so both see the same machine.
 */
async function compareWithBaseline(zipPath: string, dir: string, baselineCli: string, rounds: number): Promise<void> {
  const rates: Record<'baseline' | 'ours', number[]> = { baseline: [], ours: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [who, cli] of [['baseline', baselineCli], ['ours', OUR_CLI]] as const) {
      const dbDir = join(dir, `ab-${round}-${who}`);
      const db = await startEmbeddedDatabase({ dir: dbDir });
      try {
        await applyMigrations(db.adminUrl);
        const run = await runImport(zipPath, db.adminUrl, join(dbDir, 'pg'), cli);
        if (run.code !== 0) throw new Error(`${who} import failed with ${run.code}`);
        rates[who].push(elementsRead(run) / run.seconds);
        console.log(`bench: round ${round + 1}, ${who}: ${run.seconds.toFixed(1)} s, ${Math.round(elementsRead(run) / run.seconds)} records/s, PostgreSQL CPU ${run.databaseCpu.toFixed(1)} s`);
      } finally {
        await db.stop();
        rmSync(dbDir, { recursive: true, force: true });
      }
    }
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  console.log(`bench: baseline ${Math.round(median(rates.baseline))} records/s, ours ${Math.round(median(rates.ours))} records/s (medians of ${rounds}): ×${(median(rates.ours) / median(rates.baseline)).toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
