// The database ceiling of each database route: exactly the query functions of
// src/db/queries/ the route calls, with the arguments it passes for the bench's
// request, in the same order (sequential where the route awaits one before the
// next). No HTTP, no shaping beyond pg's own row parsing. The routes of the
// main table (bench/run.ts) and the four of bench/extra-routes.ts.
import type pg from 'pg';
import { daysSpanMs, localDayOf } from '../../src/core/local-days.js';
import { typeInfo } from '../../src/core/registry.js';
import { sleepWindow } from '../../src/core/sleep-nights.js';
import { activityDays } from '../../src/db/queries/activity.js';
import { dailyValues, latestSamples } from '../../src/db/queries/metrics.js';
import { samplesPage } from '../../src/db/queries/samples.js';
import { readSleepSamples } from '../../src/reads/sleep.js';
import { stateOfMindRows } from '../../src/db/queries/state-of-mind.js';
import { listAllUsers } from '../../src/db/queries/users.js';
import { findWorkout, findWorkoutBounds, listWorkouts, workoutStreams } from '../../src/db/queries/workouts.js';
import { summaryInput } from './summary-reads.js';
import { benchRanges, DAILY_TYPES, SAMPLES_TYPE, type BenchContext } from './routes.js';

export type Ceiling = (pool: pg.Pool) => Promise<unknown>;

/** The types bench/extra-routes.ts asks /v1/metrics/latest for. */
export const LATEST_TYPES = [
  'HKQuantityTypeIdentifierHeartRate',
  'HKQuantityTypeIdentifierBodyMass',
  'HKQuantityTypeIdentifierRestingHeartRate',
  'HKQuantityTypeIdentifierStepCount',
  'HKQuantityTypeIdentifierHeartRateVariabilitySDNN',
];

export interface CeilingContext extends BenchContext {
  /** The workout /v1/workouts/{uuid} reads (found through the API at start); without it that route has no ceiling. */
  detailWorkoutUuid?: string;
}

/** Keyed by BenchRoute.path's route (the name of the bench row). */
export function ceilings(ctx: CeilingContext): Record<string, Ceiling> {
  const { ninety, samples } = benchRanges(ctx);
  const user = ctx.userId;
  const dailyTypes = DAILY_TYPES.map((identifier) => {
    const info = typeInfo(identifier);
    return { identifier, cumulative: info?.kind === 'quantity' && info.aggregation === 'cumulative' };
  });
  const window = sleepWindow(ninety.start, ninety.end, ctx.timeZone);
  const firstDay = localDayOf(ninety.start, ctx.timeZone);
  const lastDay = localDayOf(ninety.end - 1, ctx.timeZone);
  const moodSpan = daysSpanMs(firstDay, lastDay, ctx.timeZone);
  const detailUuid = ctx.detailWorkoutUuid;
  return {
    '/v1/users': (pool) => listAllUsers(pool),
    '/v1/metrics/daily': (pool) => dailyValues(pool, user, dailyTypes, firstDay, lastDay, 10_000, 0),
    '/v1/samples': (pool) => samplesPage(pool, user, SAMPLES_TYPE, samples.start, samples.end, 1000, 0),
    '/v1/workouts': (pool) => listWorkouts(pool, user, { limit: 50, offset: 0 }),
    '/v1/workouts/{uuid}/series': async (pool) => {
      const workout = await findWorkoutBounds(pool, user, ctx.longRideUuid);
      return workoutStreams(pool, user, workout!.uuid);
    },
    '/v1/sleep/daily': (pool) => readSleepSamples(pool, user, window),
    // The reads only (column arrays included); the summing is the route's own work.
    '/v1/summary': (pool) => summaryInput(pool, user, ctx.timeZone, '90d'),
    '/v1/metrics/latest': (pool) => latestSamples(pool, user, LATEST_TYPES),
    '/v1/activity/summary': (pool) => activityDays(pool, user, firstDay, lastDay),
    ...(detailUuid ? { '/v1/workouts/{uuid}': (pool: pg.Pool) => findWorkout(pool, user, detailUuid) } : {}),
    '/v1/state-of-mind': (pool) => stateOfMindRows(pool, user, moodSpan.startMs, moodSpan.endMs),
  };
}
