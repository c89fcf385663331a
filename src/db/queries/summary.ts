// Everything /v1/summary reads, as one prepared statement returning one row:
// its header (profile name, newest upload), the daily aggregate values of its
// types (the /v1/metrics/daily page as columns), the three rings it reads of
// each day, the workouts starting in the range, the newest body readings
// (/v1/metrics/latest's statement). Sent apart, these and the sleep samples'
// read cost the route six pool checkouts, six messages each way and six
// transactions: as one, the server spent 0.35–0.9 ms less a summary and read
// 10–50 % more summaries a second (bench/RESULTS.md, issue 12). The sleep
// samples have since left it: their binary COPY (src/db/queries/sleep.ts),
// run beside it, costs both sides less than the same arrays as base64 text
// within it (bench/RESULTS.md, 2026-12-07). Each part is an aggregate, so
// each gives exactly one row. The workouts come in the order of their start
// (and uuid), whatever the plan: the summary adds their distances up as
// floats, whose sum hangs on the order. The body readings' order is not
// needed (looked up by type).
import { DayReader, dayListSql } from '../../core/daily-columns.js';
import type { DailyMetricType } from '../../core/registry.js';
import type { SummaryInput } from '../../core/summary.js';
import { float8ArrayFromSql } from '../binary-arrays.js';
import { prepared, shiftParams, type Db } from '../pool.js';
import { readPrepared } from '../prepared-read.js';
import { DAILY_METRICS_COLUMNS_SQL, LATEST_METRICS_SQL, pageParams } from './metrics.js';
import { newestUploadSql } from './users.js';

/**
 * Parameters: $1 user id; $2–$8 the daily page's (metrics.ts pageParams);
 * $9, $10 the first and last day (rings); $11, $12 the range in epoch ms
 * (workouts); $13, $14 the latest readings' (user id, identifiers).
 */
const SUMMARY_READ = prepared(`
  SELECT (SELECT name FROM profiles WHERE user_id = $1) AS name,
         ${newestUploadSql('$1')} AS "lastSync",
         daily.positions AS "dailyPositions", daily.dates AS "dailyDates", daily."values" AS "dailyValues",
         rings.*, workouts.*, latest.*
  FROM (${shiftParams(DAILY_METRICS_COLUMNS_SQL, 1)}) daily,
       (SELECT ${dayListSql('day', 'ORDER BY day')} AS "ringDates",
               coalesce(array_agg(move_kcal ORDER BY day), '{}') AS "moveKcal",
               coalesce(array_agg(exercise_min ORDER BY day), '{}') AS "exerciseMin",
               coalesce(array_agg(stand_hours ORDER BY day), '{}') AS "standHours"
        FROM activity_summaries
        WHERE user_id = $1 AND day >= $9::date AND day <= $10::date) rings,
       (SELECT coalesce(array_agg(activity_type ORDER BY start_ms, uuid), '{}') AS "workoutTypes",
               coalesce(array_agg(start_ms::float8 ORDER BY start_ms, uuid), '{}') AS "workoutStarts",
               coalesce(array_agg(duration_s ORDER BY start_ms, uuid), '{}') AS "workoutDurations",
               coalesce(array_agg(distance_m ORDER BY start_ms, uuid), '{}') AS "workoutDistances"
        FROM workouts
        WHERE user_id = $1 AND start_ms >= $11 AND start_ms < $12) workouts,
       (SELECT coalesce(array_agg(newest.identifier), '{}') AS "latestTypes",
               coalesce(array_agg(newest.value), '{}') AS "latestValues",
               coalesce(array_agg(newest.timestamp::float8), '{}') AS "latestTimes"
        FROM (${shiftParams(LATEST_METRICS_SQL, 12)}) newest) latest`);

interface SummaryReadRow {
  name: string | null;
  lastSync: number | null;
  dailyPositions: string;
  dailyDates: string;
  dailyValues: string;
  ringDates: string;
  moveKcal: (number | null)[];
  exerciseMin: (number | null)[];
  standHours: (number | null)[];
  workoutTypes: string[];
  workoutStarts: number[];
  workoutDurations: (number | null)[];
  workoutDistances: (number | null)[];
  latestTypes: string[];
  latestValues: (number | null)[];
  latestTimes: number[];
}

export interface SummaryReadRequest {
  userId: string;
  dailyTypes: readonly DailyMetricType[];
  firstDay: string;
  lastDay: string;
  /** Workouts starting in [startMs, endMs). */
  startMs: number;
  endMs: number;
  latestTypes: readonly string[];
}

/** What the statement reads, in the summary's own shapes; daily's positions index request.dailyTypes. */
export type SummaryRead = Pick<SummaryInput, 'name' | 'lastSync' | 'daily' | 'rings' | 'workouts' | 'latestBody'>;

export async function summaryRead(db: Db, request: SummaryReadRequest): Promise<SummaryRead> {
  const { userId } = request;
  const rows = await readPrepared<SummaryReadRow>(
    db,
    SUMMARY_READ([
      userId,
      ...pageParams({ userId, types: request.dailyTypes, firstDay: request.firstDay, lastDay: request.lastDay, limit: null, offset: 0 }),
      request.firstDay, request.lastDay,
      request.startMs, request.endMs,
      userId, request.latestTypes,
    ]),
  );
  const row = rows[0];
  const ringDays = new DayReader(row.ringDates);
  return {
    name: row.name,
    lastSync: row.lastSync,
    daily: { positions: float8ArrayFromSql(row.dailyPositions), dates: row.dailyDates, values: float8ArrayFromSql(row.dailyValues) },
    rings: row.moveKcal.map((moveKcal, i) => ({ date: ringDays.next(), moveKcal, exerciseMin: row.exerciseMin[i], standHours: row.standHours[i] })),
    workouts: row.workoutTypes.map((activityType, i) => ({ activityType, start: row.workoutStarts[i], durationS: row.workoutDurations[i], distanceM: row.workoutDistances[i] })),
    latestBody: row.latestTypes.map((identifier, i) => ({ identifier, value: row.latestValues[i], timestamp: row.latestTimes[i] })),
  };
}
