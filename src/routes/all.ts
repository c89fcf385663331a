// The route table, in the order of the specification's endpoint list.
import { catalogRoute } from './catalog.js';
import { docsRoute } from './docs.js';
import { healthRoute } from './healthz.js';
import { indexRoute } from './index-page.js';
import { openApiRoute } from './openapi.js';
import { profileRoute } from './profile.js';
import type { RouteDef } from './route.js';
import { usersRoute } from './users.js';
import { activitySummaryRoute } from './activity.js';
import { dailyMetricsRoute } from './metrics-daily.js';
import { latestMetricsRoute } from './metrics-latest.js';
import { samplesRoute } from './samples.js';
import { stateOfMindRoute } from './state-of-mind.js';
import { workoutsRoute } from './workouts.js';
import { workoutDetailRoute } from './workout-detail.js';
import { workoutSeriesRoute } from './workout-series.js';
import { sleepRoute } from './sleep.js';
import { summaryRoute } from './summary.js';
import { exportRoute } from './export.js';

export function allRoutes(): RouteDef[] {
  return [indexRoute, docsRoute, openApiRoute, healthRoute, usersRoute, profileRoute, catalogRoute, latestMetricsRoute, dailyMetricsRoute, activitySummaryRoute, workoutsRoute, workoutDetailRoute, workoutSeriesRoute, sleepRoute, samplesRoute, stateOfMindRoute, summaryRoute, exportRoute] as unknown as RouteDef[];
}
