// Reads of /v1/summary: the header (profile name, newest upload), the
// workouts of the range reduced to what the summary counts, and the whole
// SummaryInput gathered from those and the other routes' queries.
import type pg from 'pg';
import { daysSpanMs, lastNDays } from '../../core/local-days.js';
import { typeInfo } from '../../core/registry.js';
import { SLEEP_SESSION_GAP_MS } from '../../core/sleep-nights.js';
import { SUMMARY_RANGES, SUMMARY_TYPES, type SummaryInput, type SummaryRange } from '../../core/summary.js';
import { activityDays } from './activity.js';
import { dailyValues, latestSamples, type DailyRequestType } from './metrics.js';
import { sleepSamplesReaching } from './sleep.js';

const DAILY_TYPES: DailyRequestType[] = [SUMMARY_TYPES.steps, SUMMARY_TYPES.activeEnergy, SUMMARY_TYPES.exercise, SUMMARY_TYPES.restingHeartRate, SUMMARY_TYPES.hrvSDNN].map(
  (identifier) => {
    const info = typeInfo(identifier);
    return { identifier, cumulative: info?.kind === 'quantity' && info.aggregation === 'cumulative' };
  },
);
const MAX_DAILY_ROWS = DAILY_TYPES.length * Math.max(...Object.values(SUMMARY_RANGES));

export interface SummaryHeader {
  name: string | null;
  lastSync: number | null;
}

/** The profile name (null without a profile) and the newest upload batch (null when none). */
export async function summaryHeader(pool: pg.Pool, userId: string): Promise<SummaryHeader> {
  const { rows } = await pool.query<SummaryHeader>(
    `SELECT (SELECT name FROM profiles WHERE user_id = $1) AS name,
            (SELECT max(received_at_ms) FROM upload_batches WHERE user_id = $1) AS "lastSync"`,
    [userId],
  );
  return rows[0];
}

export interface SummaryWorkoutRow {
  activityType: string;
  start: number;
  durationS: number | null;
  distanceM: number | null;
}

/** Workouts starting in [startMs, endMs), by the (user_id, start_ms DESC, uuid) index. */
export async function summaryWorkouts(pool: pg.Pool, userId: string, startMs: number, endMs: number): Promise<SummaryWorkoutRow[]> {
  const { rows } = await pool.query<SummaryWorkoutRow>(
    `SELECT activity_type AS "activityType", start_ms AS start, duration_s AS "durationS", distance_m AS "distanceM"
     FROM workouts
     WHERE user_id = $1 AND start_ms >= $2 AND start_ms < $3`,
    [userId, startMs, endMs],
  );
  return rows;
}

/**
 * Everything /v1/summary reads, concurrently, as the SummaryInput the worker
 * turns into numbers and a page: the daily surfaces of the last N local days,
 * workouts, newest body readings and the sleep samples (as typed arrays).
 */
export async function readSummaryInput(pool: pg.Pool, userId: string, timeZone: string, range: SummaryRange, generatedAt = Date.now()): Promise<SummaryInput> {
  const days = lastNDays(SUMMARY_RANGES[range], timeZone, generatedAt);
  const firstDay = days[0];
  const lastDay = days[days.length - 1];
  const window = daysSpanMs(firstDay, lastDay, timeZone);
  const [header, daily, rings, workouts, latestBody, sleep] = await Promise.all([
    summaryHeader(pool, userId),
    dailyValues(pool, userId, DAILY_TYPES, firstDay, lastDay, MAX_DAILY_ROWS, 0),
    activityDays(pool, userId, firstDay, lastDay),
    summaryWorkouts(pool, userId, window.startMs, window.endMs),
    latestSamples(pool, userId, [SUMMARY_TYPES.weight, SUMMARY_TYPES.bodyFat]),
    sleepSamplesReaching(pool, userId, window.startMs, window.endMs + SLEEP_SESSION_GAP_MS),
  ]);
  const column = (pick: (s: (typeof sleep)[number]) => number | null) => Float64Array.from(sleep, (s) => pick(s) ?? NaN);
  return {
    userId,
    name: header.name,
    range,
    days,
    timeZone,
    generatedAt,
    daily,
    rings,
    sleep: { startMs: column((s) => s.startMs), endMs: column((s) => s.endMs), value: column((s) => s.value), sourceId: column((s) => s.sourceId) },
    sleepWindow: window,
    workouts,
    latestBody,
    lastSync: header.lastSync,
  };
}
