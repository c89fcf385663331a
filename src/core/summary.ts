// /v1/summary's numbers: the last N local days as the Summary object (the
// markdown page is rendered from it by summary-markdown.ts). Pure: the route's
// planner reads the daily surfaces, the route runs these functions.
//
// Rules (api.md "Summary", behavior rule 6):
// - Every figure comes from the daily surfaces, never raw samples: daily
//   aggregates (already deduplicated across devices), activity rings, sleep
//   nights, workouts; body readings are the newest raw sample, whenever taken.
// - A SummaryStat reduces one daily series over the days that have a value:
//   days, mean, min, max, and total for cumulative series (steps, energy,
//   exercise minutes). Discrete series (resting heart rate, HRV) reduce the
//   day's mean. Days without a value are left out, never counted as zero.
// - Steps: StepCount aggregates. Active energy: ActiveEnergyBurned aggregates,
//   else the move ring. Exercise: the exercise ring, else AppleExerciseTime
//   aggregates. Stand: the stand ring (hours). `source` names the table.
// - Sleep: per wake-up day the asleep minutes of its longest session (end −
//   start; of two as long, the one with more sleep), of the sessions that
//   recorded sleep: a day with none is left out.
// - NaN and ±Infinity are no value (src/core/values.ts): a ring, a workout's
//   duration or distance, a body reading holding one counts as a null.
// - Workouts starting in the range: count, minutes (sum of durations), distance
//   (absent when none recorded one), the three most frequent activity types
//   (ties alphabetical).
// - A section (and a member of a section) is present only when it has data;
//   coverage is always there: newest upload and the days on which at least one
//   reported figure has a value (body readings are not per day).
// - The numbers are exact (no rounding here).
import { SUMMARY } from '../limits.js';
import type { SummaryT } from '../schemas/resources.js';
import { DayReader, type DailyValueColumns } from './daily-columns.js';
import { localDayOf } from './local-days.js';
import { unitOf } from './registry.js';
import { isValue } from './values.js';
import { assembleSleepNights, nightsInWindow, type SleepColumns, type SleepWindow } from './sleep-nights.js';

export const SUMMARY_RANGES = { '7d': 7, '14d': 14, '30d': 30, '90d': 90 } as const;
export type SummaryRange = keyof typeof SUMMARY_RANGES;

export const SUMMARY_TYPES = {
  steps: 'HKQuantityTypeIdentifierStepCount',
  activeEnergy: 'HKQuantityTypeIdentifierActiveEnergyBurned',
  exercise: 'HKQuantityTypeIdentifierAppleExerciseTime',
  restingHeartRate: 'HKQuantityTypeIdentifierRestingHeartRate',
  hrvSDNN: 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN',
  weight: 'HKQuantityTypeIdentifierBodyMass',
  bodyFat: 'HKQuantityTypeIdentifierBodyFatPercentage',
} as const;

export const DAILY_TABLE = 'daily_aggregates';
export const RINGS_TABLE = 'activity_summaries';

export type Summary = SummaryT & { coverage: NonNullable<SummaryT['coverage']> };
export type SummaryStat = NonNullable<NonNullable<SummaryT['activity']>['steps']>;
export type SummaryReading = NonNullable<NonNullable<SummaryT['body']>['weight']>;

export interface SummaryInput {
  userId: string;
  name: string | null;
  range: SummaryRange;
  /** The range's local days, ascending; the last is today. */
  days: readonly string[];
  timeZone: string;
  generatedAt: number;
  /**
   * Daily aggregate values with a value (day's sum or mean) of the SUMMARY_TYPES quantity series, as
   * columns: position p is dailyTypes[p - 1].
   */
  daily: DailyValueColumns;
  dailyTypes: readonly string[];
  /** Activity rings of the range's days. */
  rings: readonly { date: string; moveKcal: number | null; exerciseMin: number | null; standHours: number | null }[];
  sleep: SleepColumns;
  /** Nights ending in it belong to the range. */
  sleepWindow: SleepWindow;
  /** Workouts starting in the range. */
  workouts: readonly { activityType: string; start: number; durationS: number | null; distanceM: number | null }[];
  /** Newest raw sample of body mass and body fat percentage. */
  latestBody: readonly { identifier: string; value: number | null; timestamp: number }[];
  lastSync: number | null;
}

interface DayValue {
  date: string;
  value: number;
}

function stat(series: readonly DayValue[], unit: string, source: string, cumulative: boolean): SummaryStat | undefined {
  if (series.length === 0) return undefined;
  let total = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const { value } of series) {
    total += value;
    min = Math.min(min, value);
    max = Math.max(max, value);
  }
  return { unit, days: series.length, mean: total / series.length, min, max, ...(cumulative ? { total } : {}), source };
}

/** Drops undefined members; undefined when none is left. */
function section<T extends object>(members: T): T | undefined {
  const present = Object.fromEntries(Object.entries(members).filter(([, v]) => v !== undefined)) as T;
  return Object.keys(present).length > 0 ? present : undefined;
}

export function buildSummary(input: SummaryInput): Summary {
  const covered = new Set<string>();
  const use = (series: DayValue[]) => {
    for (const { date } of series) covered.add(date);
    return series;
  };

  const dailySeries = new Map<string, DayValue[]>();
  const { positions, values } = input.daily;
  const dates = new DayReader(input.daily.dates);
  for (let i = 0; i < positions.length; i++) {
    const identifier = input.dailyTypes[positions[i] - 1];
    const series = dailySeries.get(identifier) ?? [];
    series.push({ date: dates.next(), value: values[i] });
    dailySeries.set(identifier, series);
  }
  const daily = (identifier: string) => dailySeries.get(identifier) ?? [];
  const ring = (member: 'moveKcal' | 'exerciseMin' | 'standHours') =>
    input.rings.flatMap((day) => {
      const value = day[member];
      return isValue(value) ? [{ date: day.date, value }] : [];
    });
  const dailyStat = (identifier: string, cumulative: boolean) => stat(use(daily(identifier)), unitOf(identifier) ?? '', DAILY_TABLE, cumulative);
  const firstOf = (...candidates: (() => SummaryStat | undefined)[]) => {
    for (const candidate of candidates) {
      const found = candidate();
      if (found) return found;
    }
    return undefined;
  };

  const activity = section({
    steps: dailyStat(SUMMARY_TYPES.steps, true),
    activeEnergy: firstOf(
      () => dailyStat(SUMMARY_TYPES.activeEnergy, true),
      () => stat(use(ring('moveKcal')), 'kcal', RINGS_TABLE, true),
    ),
    exercise: firstOf(
      () => stat(use(ring('exerciseMin')), 'min', RINGS_TABLE, true),
      () => dailyStat(SUMMARY_TYPES.exercise, true),
    ),
    stand: stat(use(ring('standHours')), 'hr', RINGS_TABLE, false),
  });
  const heart = section({
    restingHeartRate: dailyStat(SUMMARY_TYPES.restingHeartRate, false),
    hrvSDNN: dailyStat(SUMMARY_TYPES.hrvSDNN, false),
  });

  const sleepByDay = longestSleepPerDay(input);
  const sleepStat = stat(use(sleepByDay), 'min', 'sleep', false);
  const sleep = sleepStat && {
    nights: sleepStat.days,
    meanAsleepMinutes: sleepStat.mean,
    minAsleepMinutes: sleepStat.min,
    maxAsleepMinutes: sleepStat.max,
  };

  for (const workout of input.workouts) covered.add(localDayOf(workout.start, input.timeZone));
  const workouts = input.workouts.length === 0 ? undefined : summarizeWorkouts(input.workouts);

  const reading = (identifier: string): SummaryReading | undefined => {
    const row = input.latestBody.find((r) => r.identifier === identifier && isValue(r.value));
    return row && { value: row.value as number, unit: unitOf(identifier) ?? '', timestamp: row.timestamp };
  };
  const body = section({ weight: reading(SUMMARY_TYPES.weight), bodyFat: reading(SUMMARY_TYPES.bodyFat) });

  return {
    userID: input.userId,
    name: input.name,
    range: input.range,
    days: input.days.length,
    startDate: input.days[0],
    endDate: input.days[input.days.length - 1],
    generatedAt: input.generatedAt,
    timeZone: input.timeZone,
    ...(activity && { activity }),
    ...(heart && { heart }),
    ...(sleep && { sleep }),
    ...(workouts && { workouts }),
    ...(body && { body }),
    coverage: { lastSync: input.lastSync, daysWithData: input.days.filter((day) => covered.has(day)).length },
  };
}

/** Asleep minutes of the longest session that recorded sleep of each wake-up day in the window, ascending by day. */
function longestSleepPerDay(input: SummaryInput): DayValue[] {
  const longest = new Map<string, { span: number; asleep: number }>();
  for (const night of nightsInWindow(assembleSleepNights(input.sleep, input.timeZone), input.sleepWindow)) {
    if (!(night.asleepMinutes > 0)) continue;
    const span = night.end - night.start;
    const held = longest.get(night.date);
    if (!held || span > held.span || (span === held.span && night.asleepMinutes > held.asleep)) longest.set(night.date, { span, asleep: night.asleepMinutes });
  }
  return [...longest].map(([date, { asleep }]) => ({ date, value: asleep }));
}

function summarizeWorkouts(rows: SummaryInput['workouts']): NonNullable<Summary['workouts']> {
  let seconds = 0;
  let distance = 0;
  let hasDistance = false;
  const counts = new Map<string, number>();
  for (const row of rows) {
    if (isValue(row.durationS)) seconds += row.durationS;
    if (isValue(row.distanceM)) {
      distance += row.distanceM;
      hasDistance = true;
    }
    counts.set(row.activityType, (counts.get(row.activityType) ?? 0) + 1);
  }
  const byActivityType = [...counts]
    .map(([activityType, count]) => ({ activityType, count }))
    .sort((a, b) => b.count - a.count || (a.activityType < b.activityType ? -1 : a.activityType > b.activityType ? 1 : 0))
    .slice(0, SUMMARY.topActivityTypes);
  return { count: rows.length, totalMinutes: seconds / 60, ...(hasDistance ? { totalDistanceM: distance } : {}), byActivityType };
}
