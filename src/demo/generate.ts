// Deterministic demo data for the API's tests, benches and `npm start`: a few
// believable people with watch, phone and ring-app data, written through the
// storage contract. Rows are generated a user-day at a time and streamed into
// COPY (one connection per table), so tens of millions of samples pass
// through flat memory; daily aggregates come from the rows just written.
import { performance } from 'node:perf_hooks';
import { DateTime } from 'luxon';
import { dayAfter, dayStartMs, isValidZone, localDayOf } from '../core/local-days.js';
import { typeInfo } from '../core/registry.js';
import { planWalks, movementSamples } from './activity.js';
import { uploadBatches } from './batches.js';
import { CopyWriter, copyJson, copyNumber, copyNumberArray, copyTextArray } from './copy-writer.js';
import { demoDay, MINUTE, randomFor, round, type Interval } from './day.js';
import { SampleUuids } from './ids.js';
import { ACTIVE_ENERGY, SAMPLE_TYPES, STREAM_ONLY_TYPES } from './identifiers.js';
import { moodEntries } from './mind.js';
import { persona, type Persona } from './persona.js';
import { planRings, type RingsPlan } from './rings.js';
import { UserSamples, type AggregateRow, type SourceKey } from './samples.js';
import { asleepDuring, planNap, planNight, sleepSamples } from './sleep.js';
import { analyzeTables, prepareDatabase, type DemoIds } from './store.js';
import { DEMO_COPY_COLUMNS, type DemoTable } from '../db/writes/demo.js';
import { otherVitals, writeHeartRate } from './vitals.js';
import { planWorkouts, type PlannedWorkout } from './workouts.js';

export { demoUserId } from './ids.js';

export interface DemoOptions {
  users: number;
  days: number;
  seed: number;
  timeZone: string;
  /**
   * The instant the data ends, epoch ms: no sample, workout, mood entry or
   * upload batch after it, so lastSync is never ahead of it. Default: now (the
   * data ends at the moment it is generated); give one for reproducible data.
   */
  endAt?: number;
  /** 'YYYY-MM-DD': end with the whole of this local day instead (fixed datasets for tests and benches); ignored with endAt. */
  endDay?: string;
  /** 'heavy': heart rate every 2 s awake (about a million samples per user-month), for benches. */
  scale?: 'normal' | 'heavy';
  log?: (line: string) => void;
}

export interface DemoResult {
  userIds: string[];
  samples: number;
  seconds: number;
}

/** COPY connections into `samples`: PostgreSQL's index upkeep dominates, and two backends use both cores. */
const SAMPLE_CONNECTIONS = 2;

type Writers = Record<Exclude<DemoTable, 'samples'>, CopyWriter>;

/** Where rows go: the `samples` connections (a user-day each, in turn) and one per other table. */
interface Outputs {
  samples: CopyWriter[];
  tables: Writers;
  ids: DemoIds;
}

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export async function generateDemo(connectionString: string, options: DemoOptions): Promise<DemoResult> {
  const started = performance.now();
  const { users, days, seed, timeZone } = options;
  const log = options.log ?? (() => {});
  if (!Number.isInteger(users) || users < 1) throw new Error(`users must be a positive integer, got ${users}`);
  if (!Number.isInteger(days) || days < 1) throw new Error(`days must be a positive integer, got ${days}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  if (!isValidZone(timeZone)) throw new Error(`unknown time zone: ${timeZone}`);
  if (options.endAt !== undefined && !Number.isSafeInteger(options.endAt)) throw new Error(`endAt must be an instant in epoch ms, got ${options.endAt}`);
  const endDay = options.endAt !== undefined ? localDayOf(options.endAt, timeZone) : (options.endDay ?? localDayOf(Date.now(), timeZone));
  if (!DAY_PATTERN.test(endDay) || !DateTime.fromISO(endDay, { zone: 'UTC' }).isValid) throw new Error(`endDay must be a YYYY-MM-DD day, got ${endDay}`);
  const endAt = options.endAt ?? (options.endDay !== undefined ? dayStartMs(dayAfter(endDay), timeZone) : Date.now());
  const identifiers = [...SAMPLE_TYPES, ...STREAM_ONLY_TYPES];
  for (const identifier of identifiers) {
    if (typeInfo(identifier) === undefined) throw new Error(`the type registry does not know ${identifier}`);
  }

  const dayList = daysEndingWith(endDay, days);
  const personas = Array.from({ length: users }, (_, index) => persona(seed, index));
  const firstNightMs = planNight(demoDay(seed, personas[0], timeZone, dayList[0], false)).bedMs;
  const ids = await prepareDatabase(
    connectionString,
    timeZone,
    identifiers,
    personas.map((p) => ({ persona: p, createdAtMs: firstNightMs - (2 + p.index) * 86_400_000, withProfile: !(users >= 3 && p.index === 2) })),
  );
  log(`demo: ${users} user(s) × ${days} day(s) ending ${new Date(endAt).toISOString()} (${endDay} in ${timeZone}), seed ${seed}${options.scale === 'heavy' ? ', heavy' : ''}`);

  const out: Outputs = { samples: [], tables: {} as Writers, ids };
  const everyWriter = () => [...out.samples, ...Object.values(out.tables)];
  const samplesSoFar = () => out.samples.reduce((sum, w) => sum + w.rows, 0);
  try {
    for (let n = 0; n < SAMPLE_CONNECTIONS; n++) out.samples.push(await CopyWriter.open(connectionString, 'samples', true));
    for (const table of Object.keys(DEMO_COPY_COLUMNS) as DemoTable[]) {
      if (table !== 'samples') out.tables[table] = await CopyWriter.open(connectionString, table);
    }
    for (const p of personas) {
      await generateUser(out, p, dayList, options, endAt);
      log(`demo: user ${p.index + 1}/${users} ${p.userId} done, ${samplesSoFar()} samples so far`);
    }
    await Promise.all(everyWriter().map((w) => w.end()));
  } catch (error) {
    await Promise.all(everyWriter().map((w) => w.abort()));
    throw error;
  }
  await analyzeTables(connectionString, personas.map((p) => p.userId));
  return { userIds: personas.map((p) => p.userId), samples: samplesSoFar(), seconds: (performance.now() - started) / 1000 };
}

function daysEndingWith(endDay: string, count: number): string[] {
  const first = DateTime.fromISO(endDay, { zone: 'UTC' }).minus({ days: count - 1 }).toISODate() as string;
  const list = [first];
  while (list.length < count) list.push(dayAfter(list[list.length - 1]));
  return list;
}

async function generateUser(out: Outputs, p: Persona, dayList: string[], options: DemoOptions, endAt: number): Promise<void> {
  const { seed, timeZone: zone } = options;
  const { tables, ids } = out;
  const heavy = options.scale === 'heavy';
  const sourceFields = Object.fromEntries(Object.entries(ids.sourceIds).map(([k, id]) => [k, `\t${id}`])) as Record<SourceKey, string>;
  const sink = new UserSamples(p.userId, ids.typeIds, sourceFields, zone, endAt);
  const happened = (interval: { endMs: number }) => interval.endMs <= endAt;
  const rings = new Map<string, RingsPlan>();
  const userField = p.userId + '\t';

  const writeAggregates = (rows: AggregateRow[]) => {
    for (const { typeId, bucket, identifier } of rows) {
      const { day, sum, avg, min, max } = bucket;
      tables.daily_aggregates.add(`${userField}${typeId}\t${day}\t${copyNumber(sum)}\t${copyNumber(avg)}\t${copyNumber(min)}\t${copyNumber(max)}\n`);
      const plan = rings.get(day);
      if (identifier === ACTIVE_ENERGY && plan !== undefined) {
        writeRings(tables, userField, plan, round(sum ?? 0, 1));
        rings.delete(day);
      }
    }
  };

  for (const [n, label] of dayList.entries()) {
    const day = demoDay(seed, p, zone, label, heavy);
    const lastNight = planNight(day);
    const tonight = planNight(demoDay(seed, p, zone, dayAfter(label), heavy));
    const nap = planNap(day);
    const awake: Interval = { startMs: lastNight.wakeMs, endMs: tonight.bedMs };
    // The watch charges while the person gets ready: only the phone counts then.
    const charging = randomFor(day, 'charging');
    const offMs = awake.startMs + Math.round(charging.between(10, 20) * MINUTE);
    const watchOff: Interval = { startMs: offMs, endMs: offMs + Math.round(charging.between(25, 45) * MINUTE) };
    const workouts = planWorkouts(day, awake, nap ? [watchOff, nap] : [watchOff]);
    const walks = planWalks(day, awake, nap ? [...workouts, nap] : workouts);

    sink.beginDay(new SampleUuids(`samples/${seed}/${p.index}/${label}`), out.samples[n % out.samples.length]);
    sink.addAll([
      ...sleepSamples(lastNight, nap),
      ...movementSamples(day, awake, walks, watchOff, workouts),
      ...otherVitals(day, { startMs: lastNight.asleepMs, endMs: lastNight.wakeMs }, tonight.asleepMs, watchOff),
    ]);
    writeHeartRate(day, sink, asleepDuring(lastNight, tonight, nap), walks, watchOff, workouts);

    for (const workout of workouts.filter(happened)) writeWorkout(tables, userField, ids, workout);
    for (const entry of moodEntries(day).filter((e) => e.loggedAtMs <= endAt)) {
      tables.state_of_mind.add(
        `${userField}${entry.uuid}\t${entry.loggedAtMs}\t${entry.kind}\t${entry.valence}\t${entry.classification}\t${copyTextArray(entry.labels)}\t${copyTextArray(entry.associations)}\n`,
      );
    }
    for (const batch of uploadBatches(day, sink.dayRows, endAt)) {
      tables.upload_batches.add(`${userField}${batch.receivedAtMs}\t${batch.sampleCount}\n`);
    }
    // The rings of the last day count what happened before the end instant.
    const awakeSoFar = { startMs: awake.startMs, endMs: Math.max(awake.startMs, Math.min(awake.endMs, endAt)) };
    rings.set(label, planRings(day, awakeSoFar, walks.filter(happened), workouts.filter(happened)));
    writeAggregates(sink.drain());
    for (const writer of [...out.samples, ...Object.values(tables)]) await writer.flush();
  }
  writeAggregates(sink.finish());
  for (const plan of rings.values()) writeRings(tables, userField, plan, null);
}

function writeWorkout(tables: Writers, userField: string, ids: DemoIds, w: PlannedWorkout): void {
  tables.workouts.add(
    [
      userField + w.uuid,
      w.activityType,
      w.startMs,
      w.endMs,
      w.durationS,
      copyNumber(w.distanceM),
      w.energyKcal,
      ids.sourceIds[w.source],
      copyJson(w.statistics),
      copyJson(w.events),
      copyJson(w.activities),
      copyJson(w.metadata),
    ].join('\t') + '\n',
  );
  const times = copyNumberArray(w.timesMs);
  for (const stream of w.streams) {
    tables.workout_streams.add(`${userField}${w.uuid}\t${ids.typeIds.get(stream.identifier)}\t${times}\t${copyNumberArray(stream.values)}\n`);
  }
  if (w.route) {
    const { latitudes, longitudes, altitudesM } = w.route;
    tables.workout_routes.add(
      `${userField}${w.uuid}\t${times}\t${copyNumberArray(latitudes)}\t${copyNumberArray(longitudes)}\t${copyNumberArray(altitudesM)}\n`,
    );
  }
}

function writeRings(tables: Writers, userField: string, plan: RingsPlan, moveKcal: number | null): void {
  tables.activity_summaries.add(
    [
      userField + plan.day,
      copyNumber(moveKcal),
      copyNumber(plan.moveGoalKcal),
      plan.exerciseMin,
      plan.exerciseGoalMin,
      plan.standHours,
      plan.standGoalHours,
      copyNumber(plan.moveTimeMin),
      copyNumber(plan.moveTimeGoalMin),
      plan.moveMode,
    ].join('\t') + '\n',
  );
}
