// Validated protocol lines as rows: a sample's own columns (sample-copy.ts
// adds its ids), the other kinds as staging rows (src/db/writes/ingest.ts
// STAGING column order). Instants are rounded to whole milliseconds (the
// storage contract's bigint epoch ms); uuids are stored lowercase (a sample's
// as its 16 bytes); quantity values are
// put in the type's canonical unit when the line names another convertible
// unit; a special kind's detail goes into `metadata` beside the sample's own
// metadata keys, as the importer stores an ECG.
import { typeInfo } from '../core/registry.js';
import { convertToCanonical } from '../core/units.js';
import { INGEST } from '../limits.js';
import type { Cell } from './staging.js';
import type { ActivitySummaryLine, AggregateLine, ProfileLine, SampleLine } from './lines.js';
import type { ProfileSnapshot } from '../db/writes/ingest.js';
import type { SampleRowValues } from '../db/writes/sample-copy.js';

export const ms = (value: number): number => Math.round(value);
const msOrNull = (value: number | null | undefined): number | null => (value === null || value === undefined ? null : Math.round(value));
const orNull = <T>(value: T | null | undefined): T | null => (value === undefined ? null : value);
const json = (value: unknown): string => JSON.stringify(value);

/** Sets an own member of a parsed line's object, even one named __proto__ (assigned, it would set the prototype). */
export function setMember(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A free-form object the store keeps as given (a workout event or activity, a
 * time context), without members nested past INGEST.freeFormDepth levels:
 * those are unknown fields, which the protocol has a receiver ignore.
 */
function freeForm<T>(value: T, depth = 1): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => keptMember(item, depth)).filter((item) => item !== undefined) as T;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const kept = keptMember(member, depth);
    if (kept !== undefined) setMember(out, key, kept);
  }
  return out as T;
}

const keptMember = (member: unknown, depth: number): unknown =>
  typeof member !== 'object' || member === null ? member : depth < INGEST.freeFormDepth ? freeForm(member, depth + 1) : undefined;

function sampleValue(line: SampleLine): number | null {
  if (line.kind === 'category') return line.category ?? null;
  if (line.kind !== 'quantity' || line.value === null || line.value === undefined) return null;
  if (!line.unit) return line.value;
  return convertToCanonical(line.type, line.value, line.unit) ?? line.value;
}

function sampleMetadata(line: SampleLine): string | null {
  const own = line.metadata ?? {};
  switch (line.kind) {
    case 'heartbeatSeries':
      return json({ ...own, heartbeats: line.heartbeats });
    case 'ecg': {
      const ecg = line.ecg!;
      return json({
        ...own,
        classification: ecg.classification,
        averageHeartRateBpm: orNull(ecg.averageHeartRateBpm),
        samplingFrequencyHz: orNull(ecg.samplingFrequencyHz),
        symptomsStatus: ecg.symptomsStatus,
        voltagesUV: ecg.voltagesUV,
      });
    }
    case 'medicationDose': {
      const dose = line.medicationDose!;
      return json({
        ...own,
        medication: orNull(dose.medication),
        status: dose.status,
        scheduledAt: msOrNull(dose.scheduledAt),
        scheduledAtContext: freeForm(orNull(dose.scheduledAtContext)),
        doseQuantity: orNull(dose.doseQuantity),
        doseUnit: orNull(dose.doseUnit),
      });
    }
    default:
      return line.metadata ? json(line.metadata) : null;
  }
}

const endOf = (line: { start: number; end?: number | null }): number => ms(line.end ? line.end : line.start);

/** A `samples` row's own columns (sample-copy.ts adds the ids): quantity, category, heartbeat series, ECG, medication dose. */
export function sampleRowValues(line: SampleLine): SampleRowValues {
  return { startMs: ms(line.start), endMs: endOf(line), value: sampleValue(line), metadata: sampleMetadata(line) };
}

type Stat = { min?: number | null; avg?: number | null; max?: number | null; sum?: number | null };

/** statisticsDetail without its nulls; from the flat statistics (a sum for cumulative types, a mean otherwise) when only those came. */
function workoutStatistics(detail: Record<string, Stat> | null | undefined, flat: Record<string, number> | null | undefined): Record<string, Stat> {
  const out: Record<string, Stat> = {};
  if (detail) {
    for (const [type, stat] of Object.entries(detail)) {
      const kept: Stat = {};
      for (const key of ['min', 'avg', 'max', 'sum'] as const) if (typeof stat[key] === 'number') kept[key] = stat[key];
      out[type] = kept;
    }
    return out;
  }
  for (const [type, value] of Object.entries(flat ?? {})) {
    const info = typeInfo(type);
    out[type] = info?.kind === 'quantity' && info.aggregation === 'cumulative' ? { sum: value } : { avg: value };
  }
  return out;
}

const timed = <T extends { start: number; end?: number | null }>(item: T): T => ({ ...freeForm(item), start: ms(item.start), end: msOrNull(item.end) });

/** A `workouts` staging row. */
export function workoutCells(line: SampleLine, sourceId: number | null): Cell[] {
  const w = line.workout!;
  return [
    line.uuid.toLowerCase(),
    w.activityType,
    ms(line.start),
    endOf(line),
    w.duration,
    orNull(w.totalDistanceMeters),
    orNull(w.totalEnergyKcal),
    sourceId,
    json(workoutStatistics(w.statisticsDetail, w.statistics)),
    json((w.events ?? []).map(timed)),
    json((w.activities ?? []).map(timed)),
    line.metadata ? json(line.metadata) : null,
  ];
}

/** A `state_of_mind` staging row. */
export function moodCells(line: SampleLine): Cell[] {
  const mood = line.stateOfMind!;
  return [line.uuid.toLowerCase(), ms(line.start), mood.kind, mood.valence, mood.valenceClassification, json(mood.labels), json(mood.associations)];
}

const DISCRETE_COLUMNS: Readonly<Record<string, string>> = { average: 'avg', min: 'min', max: 'max' };
const ANY_COLUMNS: Readonly<Record<string, string>> = { sum: 'sum', ...DISCRETE_COLUMNS };

/**
 * The `daily_aggregates` column a bucket feeds, or null: only 1-day buckets
 * over every device, and of those the sum of a cumulative type or the
 * mean, minimum or maximum of a discrete one (a quantity type we do not
 * know yet feeds the column its function names).
 */
export function dailyColumn(line: AggregateLine): string | null {
  if (line.intervalUnit !== 'day' || line.intervalValue !== 1 || line.deviceFilter !== 'all') return null;
  const info = typeInfo(line.type);
  if (info === undefined) return line.type.startsWith('HKQuantityTypeIdentifier') ? (ANY_COLUMNS[line.func] ?? null) : null;
  if (info.kind !== 'quantity') return null;
  if (info.aggregation === 'cumulative') return line.func === 'sum' ? 'sum' : null;
  return DISCRETE_COLUMNS[line.func] ?? null;
}

export function aggregateCells(seq: number, line: AggregateLine, typeId: number): Cell[] {
  return [
    seq,
    typeId,
    line.func,
    line.intervalValue,
    line.intervalUnit,
    line.deviceFilter,
    ms(line.bucketStart),
    ms(line.bucketEnd),
    orNull(line.value),
    line.bucketStartContext ? json(freeForm(line.bucketStartContext)) : null,
    line.bucketEndContext ? json(freeForm(line.bucketEndContext)) : null,
    dailyColumn(line),
  ];
}

const DAY_MS = 86_400_000;

/** Whether `day` is a real calendar date, YYYY-MM-DD from 0001-01-01 to 9999-12-31 (PostgreSQL's date has no year 0). */
export function isCalendarDate(day: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(day) || day < '0001-01-01') return false;
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === day;
}

/**
 * The day a summary line names: its localDate, else (older senders) the
 * calendar date of `date` shifted by its context's UTC offset, else the UTC
 * date of `date`.
 */
export function summaryDay(line: ActivitySummaryLine): string {
  if (line.localDate) return line.localDate;
  const offsetMs = (line.temporalContext?.utcOffsetSeconds ?? 0) * 1000;
  const at = Math.floor(line.date + offsetMs);
  return new Date(Math.floor(at / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** Move ring mode: the protocol's 0 (kcal) / 1 (minutes) as the API's 1 / 2. */
const moveMode = (mode: 0 | 1 | null | undefined): number | null => (mode === 0 ? 1 : mode === 1 ? 2 : null);

/** An `activity_summaries` staging row for `day` (summaryDay): the whole day, an omitted ring null. */
export function summaryCells(seq: number, day: string, line: ActivitySummaryLine): Cell[] {
  return [
    seq,
    day,
    orNull(line.moveKcal),
    orNull(line.moveGoalKcal),
    orNull(line.exerciseMin),
    orNull(line.exerciseGoalMin),
    orNull(line.standHours),
    orNull(line.standGoalHours),
    orNull(line.moveTimeMin),
    orNull(line.moveTimeGoalMin),
    moveMode(line.moveMode),
  ];
}

export function profileSnapshot(line: ProfileLine): ProfileSnapshot {
  return { name: orNull(line.name), email: orNull(line.email), dateOfBirthMs: msOrNull(line.dateOfBirth), biologicalSex: orNull(line.biologicalSex) };
}
