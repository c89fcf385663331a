// What the tools that look at one route at a time share (bench/profile.ts,
// bench/machine-profile.ts, bench/cpu-ab.ts, bench/floor.ts): the bench dataset, opened or
// made; healthd's settings on it; and the bench's routes, the workout
// detail's uuid found through the API of a healthd started for that.
import { fileURLToPath } from 'node:url';
import { DATASET, openDataset, type Dataset } from './dataset.js';
import { benchRoutes, nameMatches, ordinaryWorkout, type BenchContext, type BenchRoute } from './routes.js';
import { startHealthd, type SystemSettings } from './systems.js';

const DATA_DIR = fileURLToPath(new URL('../../../bench/data/demo', import.meta.url));

export interface RouteTools {
  dataset: Dataset;
  settings: SystemSettings;
  ctx: BenchContext;
  /** The bench's routes whose names match one of `fragments` (all of them for none). */
  routes(fragments: readonly string[]): BenchRoute[];
}

export async function openRouteTools(): Promise<RouteTools> {
  const dataset = await openDataset(DATA_DIR, DATASET, (line) => process.stderr.write(line + '\n'));
  const ctx: BenchContext = { userId: dataset.userIds[0], endDay: dataset.endDay, timeZone: DATASET.timeZone, longRideUuid: dataset.longRideUuid };
  const settings: SystemSettings = { databaseUrl: dataset.db.adminUrl, userId: ctx.userId, timeZone: ctx.timeZone, poolSize: 10, workerThreads: 2 };
  try {
    const finder = await startHealthd(settings, 1);
    ctx.detailWorkoutUuid = await ordinaryWorkout(finder.baseUrl, ctx.longRideUuid).finally(() => finder.stop());
  } catch (error) {
    await dataset.db.stop();
    throw error;
  }
  return {
    dataset,
    settings,
    ctx,
    routes: (fragments) => benchRoutes(ctx).filter((r) => fragments.length === 0 || fragments.some((f) => nameMatches(r.name, f))),
  };
}
