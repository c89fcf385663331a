// The requests the bench measures, built from the dataset: which path, which
// token, which status is a success, and whether the route reads the database
// (then its targets are the database ceiling and Fastify; otherwise the HTTP
// ceiling). Ranges end on the dataset's last day.
import { dayAfter, dayStartMs } from '../../src/core/local-days.js';
import { BENCH_TOKEN } from './systems.js';

export interface BenchContext {
  userId: string;
  endDay: string;
  timeZone: string;
  longRideUuid: string;
  /** A workout other than the long ride, for /v1/workouts/{uuid} (found through the API at start); without it that row is left out. */
  detailWorkoutUuid?: string;
}

export interface BenchRoute {
  name: string;
  /** The route's path template (as in src/routes/), which keys its database ceiling. */
  route: string;
  path: string;
  auth: 'token' | 'wrong' | 'none';
  expectStatus: number;
  /** Reads the database per request: compared with the bare-pool baseline and Fastify. */
  database: boolean;
  /** Without a database: the least share of the hello-world's rate the route should reach. */
  httpTarget?: number;
}

export const DAILY_TYPES = [
  'HKQuantityTypeIdentifierStepCount',
  'HKQuantityTypeIdentifierActiveEnergyBurned',
  'HKQuantityTypeIdentifierDistanceWalkingRunning',
  'HKQuantityTypeIdentifierRestingHeartRate',
  'HKQuantityTypeIdentifierHeartRateVariabilitySDNN',
];
export const SAMPLES_TYPE = 'HKQuantityTypeIdentifierHeartRate';
/** The types /v1/metrics/latest is asked for. */
export const LATEST_TYPES = [
  'HKQuantityTypeIdentifierHeartRate',
  'HKQuantityTypeIdentifierBodyMass',
  'HKQuantityTypeIdentifierRestingHeartRate',
  'HKQuantityTypeIdentifierStepCount',
  'HKQuantityTypeIdentifierHeartRateVariabilitySDNN',
];

function dayBefore(day: string, n: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - n);
  return date.toISOString().slice(0, 10);
}

/** The instants and days each ranged request uses. */
export function benchRanges(ctx: BenchContext) {
  const ninetyFirstDay = dayBefore(ctx.endDay, 89);
  const ninety = { start: dayStartMs(ninetyFirstDay, ctx.timeZone), end: dayStartMs(dayAfter(ctx.endDay), ctx.timeZone), firstDay: ninetyFirstDay, lastDay: ctx.endDay };
  // A week back: heart rate every few seconds, so the first 1000 fill the page.
  const samples = { start: dayStartMs(dayBefore(ctx.endDay, 7), ctx.timeZone), end: dayStartMs(dayBefore(ctx.endDay, 6), ctx.timeZone) };
  return { ninety, samples };
}

export function benchRoutes(ctx: BenchContext): BenchRoute[] {
  const { ninety, samples } = benchRanges(ctx);
  return [
    { name: '/healthz', route: '/healthz', path: '/healthz', auth: 'none', expectStatus: 200, database: false, httpTarget: 0.9 },
    { name: '401 (wrong token)', route: '/v1/users', path: '/v1/users', auth: 'wrong', expectStatus: 401, database: false, httpTarget: 0.8 },
    { name: '/v1/users', route: '/v1/users', path: '/v1/users', auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/profile', route: '/v1/profile', path: '/v1/profile', auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/catalog/types (warm)', route: '/v1/catalog/types', path: '/v1/catalog/types', auth: 'token', expectStatus: 200, database: false, httpTarget: 0.7 },
    {
      name: '/v1/metrics/daily (5 types × 90 d)',
      route: '/v1/metrics/daily',
      path: `/v1/metrics/daily?types=${DAILY_TYPES.join(',')}&start=${ninety.start}&end=${ninety.end}`,
      auth: 'token', expectStatus: 200, database: true,
    },
    {
      name: '/v1/samples (page of 1000)',
      route: '/v1/samples',
      path: `/v1/samples?type=${SAMPLES_TYPE}&start=${samples.start}&end=${samples.end}`,
      auth: 'token', expectStatus: 200, database: true,
    },
    { name: '/v1/workouts', route: '/v1/workouts', path: '/v1/workouts', auth: 'token', expectStatus: 200, database: true },
    {
      name: '/v1/workouts/{uuid}/series (4 × 3 h → 500)',
      route: '/v1/workouts/{uuid}/series',
      path: `/v1/workouts/${ctx.longRideUuid}/series`,
      auth: 'token', expectStatus: 200, database: true,
    },
    { name: '/v1/sleep/daily (90 d)', route: '/v1/sleep/daily', path: `/v1/sleep/daily?start=${ninety.start}&end=${ninety.end}`, auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/summary (90d, json)', route: '/v1/summary', path: '/v1/summary?range=90d&format=json', auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/state-of-mind (90 d)', route: '/v1/state-of-mind', path: `/v1/state-of-mind?start=${ninety.start}&end=${ninety.end}`, auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/metrics/latest (5 types)', route: '/v1/metrics/latest', path: `/v1/metrics/latest?types=${LATEST_TYPES.join(',')}`, auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/activity/summary (90 d)', route: '/v1/activity/summary', path: `/v1/activity/summary?start=${ninety.start}&end=${ninety.end}`, auth: 'token', expectStatus: 200, database: true },
    ...(ctx.detailWorkoutUuid
      ? [{ name: '/v1/workouts/{uuid}', route: '/v1/workouts/{uuid}', path: `/v1/workouts/${ctx.detailWorkoutUuid}`, auth: 'token', expectStatus: 200, database: true } satisfies BenchRoute]
      : []),
  ];
}

/** A route's headers as the bench sends them: the bench's token, a wrong one (the 401 row), or none. */
export function routeHeaders(route: BenchRoute): Record<string, string> {
  if (route.auth === 'none') return {};
  return { authorization: `Bearer ${route.auth === 'token' ? BENCH_TOKEN : 'not-the-token-0000000000'}` };
}

/** A load on `route` of the server at `baseUrl` (an HttpLoadJob but for its length), each 401 request from an address of its own. */
export const routeLoad = (baseUrl: string, route: BenchRoute, connections: number) => ({
  url: baseUrl + route.path,
  connections,
  headers: routeHeaders(route),
  expectStatus: route.expectStatus,
  uniqueForwardedFor: route.auth === 'wrong',
});

/** A workout of the bench user other than the long ride, for /v1/workouts/{uuid}, asked of healthd at `baseUrl`. */
export async function ordinaryWorkout(baseUrl: string, longRideUuid: string): Promise<string | undefined> {
  const response = await fetch(`${baseUrl}/v1/workouts?limit=5`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  const { workouts } = (await response.json()) as { workouts: { uuid: string }[] };
  return workouts.map((w) => w.uuid).find((uuid) => uuid.toLowerCase() !== longRideUuid.toLowerCase());
}

/** Whether a route's name matches a command line's fragment: a part of it, or all of it when the fragment ends in `$`. */
export const nameMatches = (name: string, fragment: string): boolean => (fragment.endsWith('$') ? name === fragment.slice(0, -1) : name.includes(fragment));
