// The requests the bench measures, built from the dataset: which path, which
// token, which status is a success, and whether the route reads the database
// (then its targets are the database ceiling and Fastify; otherwise the HTTP
// ceiling). Ranges end on the dataset's last day.
import { dayAfter, dayStartMs } from '../../src/core/local-days.js';

export interface BenchContext {
  userId: string;
  endDay: string;
  timeZone: string;
  longRideUuid: string;
}

export interface BenchRoute {
  name: string;
  /** The route's path template (as in src/routes/), which keys its database ceiling. */
  route: string;
  path: string;
  auth: 'token' | 'wrong' | 'none';
  expectStatus: number;
  /** Reads the database per request: compared with the database ceiling and Fastify. */
  database: boolean;
}

export const DAILY_TYPES = [
  'HKQuantityTypeIdentifierStepCount',
  'HKQuantityTypeIdentifierActiveEnergyBurned',
  'HKQuantityTypeIdentifierDistanceWalkingRunning',
  'HKQuantityTypeIdentifierRestingHeartRate',
  'HKQuantityTypeIdentifierHeartRateVariabilitySDNN',
];
export const SAMPLES_TYPE = 'HKQuantityTypeIdentifierHeartRate';

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
    { name: '/healthz', route: '/healthz', path: '/healthz', auth: 'none', expectStatus: 200, database: false },
    { name: '401 (wrong token)', route: '/v1/users', path: '/v1/users', auth: 'wrong', expectStatus: 401, database: false },
    { name: '/v1/users', route: '/v1/users', path: '/v1/users', auth: 'token', expectStatus: 200, database: true },
    { name: '/v1/catalog/types (warm)', route: '/v1/catalog/types', path: '/v1/catalog/types', auth: 'token', expectStatus: 200, database: false },
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
  ];
}
