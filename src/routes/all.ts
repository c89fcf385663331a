// The read API's route table, in the order of the specification's endpoint
// list. The docs and OpenAPI routes describe the table they are part of.
import { activitySummaryRoute } from './activity.js';
import { appRoutes } from './app.js';
import { catalogRoute } from './catalog.js';
import { docsRoute } from './docs.js';
import { exportRoute } from './export.js';
import { healthRoute } from './healthz.js';
import { indexRoute } from './index-page.js';
import { dailyMetricsRoute } from './metrics-daily.js';
import { latestMetricsRoute } from './metrics-latest.js';
import { openApiRoute } from './openapi.js';
import { profileRoute } from './profile.js';
import type { Route } from './route.js';
import { samplesRoute } from './samples.js';
import { sleepRoute } from './sleep.js';
import { stateOfMindRoute } from './state-of-mind.js';
import { summaryRoute } from './summary.js';
import { usersRoute } from './users.js';
import { workoutDetailRoute } from './workout-detail.js';
import { workoutRouteRoute } from './workout-route.js';
import { workoutSeriesRoute } from './workout-series.js';
import { workoutsRoute } from './workouts.js';

export function allRoutes(): Route[] {
  const table: Route[] = [];
  const documented = () => table;
  table.push(
    indexRoute, docsRoute(documented), openApiRoute(documented), healthRoute, usersRoute, profileRoute, catalogRoute,
    latestMetricsRoute, dailyMetricsRoute, activitySummaryRoute, workoutsRoute, workoutDetailRoute, workoutSeriesRoute,
    workoutRouteRoute, sleepRoute, samplesRoute, stateOfMindRoute, summaryRoute, exportRoute,
    ...appRoutes,
  );
  return table;
}
