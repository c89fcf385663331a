// The reads of /v1/summary for the baselines: the same query functions with
// the same arguments, concurrently, as src/routes/summary.ts issues them, and
// the SummaryInput they make. The database ceiling stops after the reads; the
// Fastify baseline builds the Summary from the input inline.
import type pg from 'pg';
import { daysSpanMs, lastNDays } from '../../src/core/local-days.js';
import { typeInfo } from '../../src/core/registry.js';
import { SLEEP_SESSION_GAP_MS } from '../../src/core/sleep-nights.js';
import { SUMMARY_RANGES, SUMMARY_TYPES, type SummaryInput, type SummaryRange } from '../../src/core/summary.js';
import { activityDays } from '../../src/db/queries/activity.js';
import { dailyValues, latestSamples } from '../../src/db/queries/metrics.js';
import { sleepReadStart, sleepSamples } from '../../src/db/queries/sleep.js';
import { summaryHeader, summaryWorkouts } from '../../src/db/queries/summary.js';

const DAILY_TYPES = [SUMMARY_TYPES.steps, SUMMARY_TYPES.activeEnergy, SUMMARY_TYPES.exercise, SUMMARY_TYPES.restingHeartRate, SUMMARY_TYPES.hrvSDNN].map((identifier) => {
  const info = typeInfo(identifier);
  return { identifier, cumulative: info?.kind === 'quantity' && info.aggregation === 'cumulative' };
});
const MAX_DAILY_ROWS = DAILY_TYPES.length * Math.max(...Object.values(SUMMARY_RANGES));

export async function summaryInput(pool: pg.Pool, userId: string, timeZone: string, range: SummaryRange): Promise<SummaryInput> {
  const generatedAt = Date.now();
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
    sleepReadStart(pool, userId, window.startMs).then((from) => sleepSamples(pool, userId, from, window.endMs + SLEEP_SESSION_GAP_MS)),
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
