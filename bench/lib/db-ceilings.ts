// The database ceiling of each database route: exactly the query functions of
// src/db/queries/ the route calls, with the arguments it passes for the bench's
// request, in the same order (sequential where the route awaits one before the
// next). No HTTP, no shaping beyond pg's own row parsing.
import type pg from 'pg';
import { localDayOf } from '../../src/core/local-days.js';
import { typeInfo } from '../../src/core/registry.js';
import { SLEEP_SESSION_GAP_MS } from '../../src/core/sleep-nights.js';
import { dailyValues } from '../../src/db/queries/metrics.js';
import { samplesPage } from '../../src/db/queries/samples.js';
import { sleepSamples } from '../../src/db/queries/sleep.js';
import { listAllUsers } from '../../src/db/queries/users.js';
import { findWorkoutBounds, listWorkouts, workoutStreams } from '../../src/db/queries/workouts.js';
import { summaryInput } from './summary-reads.js';
import { benchRanges, DAILY_TYPES, SAMPLES_TYPE, type BenchContext } from './routes.js';

export type Ceiling = (pool: pg.Pool) => Promise<unknown>;

/** Keyed by BenchRoute.path's route (the name of the bench row). */
export function ceilings(ctx: BenchContext): Record<string, Ceiling> {
  const { ninety, samples } = benchRanges(ctx);
  const user = ctx.userId;
  const dailyTypes = DAILY_TYPES.map((identifier) => {
    const info = typeInfo(identifier);
    return { identifier, cumulative: info?.kind === 'quantity' && info.aggregation === 'cumulative' };
  });
  const sleepFrom = ninety.start - 48 * 3_600_000;
  const sleepUntil = ninety.end + SLEEP_SESSION_GAP_MS;
  return {
    '/v1/users': (pool) => listAllUsers(pool),
    '/v1/metrics/daily': (pool) =>
      dailyValues(pool, user, dailyTypes, localDayOf(ninety.start, ctx.timeZone), localDayOf(ninety.end - 1, ctx.timeZone), 10_000, 0),
    '/v1/samples': (pool) => samplesPage(pool, user, SAMPLES_TYPE, samples.start, samples.end, 1000, 0),
    '/v1/workouts': (pool) => listWorkouts(pool, user, { limit: 50, offset: 0 }),
    '/v1/workouts/{uuid}/series': async (pool) => {
      const workout = await findWorkoutBounds(pool, user, ctx.longRideUuid);
      return workoutStreams(pool, user, workout!.uuid);
    },
    '/v1/sleep/daily': (pool) => sleepSamples(pool, user, sleepFrom, sleepUntil),
    // The reads only (column arrays included); the summing is the route's own work.
    '/v1/summary': (pool) => summaryInput(pool, user, ctx.timeZone, '90d'),
  };
}
