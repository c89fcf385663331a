// What /v1/summary reads, gathered into the SummaryInput the route turns into
// numbers and a page: the last N local days of the daily surfaces (daily
// aggregates of the summary's types, activity rings), the workouts starting in
// them, the newest body readings, and the sleep samples of the nights ending
// in them — one statement (src/db/queries/summary.ts) and, beside it, the
// sleep samples as /v1/sleep/daily reads them (src/reads/sleep.ts).
import { daysSpanMs, lastNDays } from '../core/local-days.js';
import { dailyMetricTypes } from '../core/registry.js';
import { sleepWindow } from '../core/sleep-nights.js';
import { SUMMARY_RANGES, SUMMARY_TYPES, type SummaryInput, type SummaryRange } from '../core/summary.js';
import type { Db } from '../db/pool.js';
import { summaryRead } from '../db/queries/summary.js';
import { readSleepSamples } from '../reads/sleep.js';

const DAILY_TYPES = dailyMetricTypes([SUMMARY_TYPES.steps, SUMMARY_TYPES.activeEnergy, SUMMARY_TYPES.exercise, SUMMARY_TYPES.restingHeartRate, SUMMARY_TYPES.hrvSDNN]);
const DAILY_IDENTIFIERS = DAILY_TYPES.map((type) => type.identifier);
const LATEST_TYPES = [SUMMARY_TYPES.weight, SUMMARY_TYPES.bodyFat];

export async function readSummaryInput(db: Db, userId: string, timeZone: string, range: SummaryRange, generatedAt = Date.now()): Promise<SummaryInput> {
  const days = lastNDays(SUMMARY_RANGES[range], timeZone, generatedAt);
  const firstDay = days[0];
  const lastDay = days[days.length - 1];
  const span = daysSpanMs(firstDay, lastDay, timeZone);
  const window = sleepWindow(span.startMs, span.endMs, timeZone);
  const [read, sleep] = await Promise.all([
    summaryRead(db, { userId, dailyTypes: DAILY_TYPES, firstDay, lastDay, startMs: span.startMs, endMs: span.endMs, latestTypes: LATEST_TYPES }),
    readSleepSamples(db, userId, window),
  ]);
  return {
    userId,
    name: read.name,
    range,
    days,
    timeZone,
    generatedAt,
    daily: read.daily,
    dailyTypes: DAILY_IDENTIFIERS,
    rings: read.rings,
    sleep,
    sleepWindow: window,
    workouts: read.workouts,
    latestBody: read.latestBody,
    lastSync: read.lastSync,
  };
}
