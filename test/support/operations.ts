// The read API's operations, written down once for the tests: the
// specification's endpoint list (api.md Endpoints), with any additive route
// added here. test/foundation.test.ts asserts the served document holds
// exactly these, and that validPaths (support/faults.ts) names a request for
// every /v1 one — so the checks that walk every operation cannot miss one.
export const OPERATIONS: Readonly<Record<string, string>> = {
  getIndex: '/',
  getDocs: '/docs',
  getOpenAPI: '/openapi.json',
  getHealth: '/healthz',
  listUsers: '/v1/users',
  getProfile: '/v1/profile',
  listCatalogTypes: '/v1/catalog/types',
  getLatestMetrics: '/v1/metrics/latest',
  getDailyMetrics: '/v1/metrics/daily',
  getActivitySummary: '/v1/activity/summary',
  listWorkouts: '/v1/workouts',
  getWorkout: '/v1/workouts/{uuid}',
  getWorkoutSeries: '/v1/workouts/{uuid}/series',
  getWorkoutRoute: '/v1/workouts/{uuid}/route',
  getSleepNights: '/v1/sleep/daily',
  getSamples: '/v1/samples',
  getStateOfMind: '/v1/state-of-mind',
  getSummary: '/v1/summary',
  exportDataset: '/v1/export',
  // The built-in viewer's static files (issue 16).
  getApp: '/app',
  getAppScript: '/app/app.js',
  getAppStyles: '/app/app.css',
  getAppIcon: '/app/icon.svg',
};
