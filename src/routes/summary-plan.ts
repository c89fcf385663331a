// What /v1/summary reads, gathered into the SummaryInput the route turns into
// numbers and a page: the last N local days of the daily surfaces (daily
// aggregates of the summary's types, activity rings), the workouts starting in
// them, the newest body readings, and the sleep samples of the nights ending
// in them — one statement (src/db/queries/summary.ts), then earlier sleep
// samples only when a night may reach further back than its first read.
import { daysSpanMs, lastNDays } from '../core/local-days.js';
import { dailyMetricTypes } from '../core/registry.js';
import { sleepWindow } from '../core/sleep-nights.js';
import { SUMMARY_RANGES, SUMMARY_TYPES, type SummaryInput, type SummaryRange } from '../core/summary.js';
import type { Db } from '../db/pool.js';
import { summaryRead } from '../db/queries/summary.js';
import { extendSleepLookback, firstSleepRead } from '../reads/sleep.js';

const DAILY_TYPES = dailyMetricTypes([SUMMARY_TYPES.steps, SUMMARY_TYPES.activeEnergy, SUMMARY_TYPES.exercise, SUMMARY_TYPES.restingHeartRate, SUMMARY_TYPES.hrvSDNN]);
const DAILY_IDENTIFIERS = DAILY_TYPES.map((type) => type.identifier);
const LATEST_TYPES = [SUMMARY_TYPES.weight, SUMMARY_TYPES.bodyFat];

export async function readSummaryInput(db: Db, userId: string, timeZone: string, range: SummaryRange, generatedAt = Date.now()): Promise<SummaryInput> {
  const days = lastNDays(SUMMARY_RANGES[range], timeZone, generatedAt);
  const firstDay = days[0];
  const lastDay = days[days.length - 1];
  const span = daysSpanMs(firstDay, lastDay, timeZone);
  const window = sleepWindow(span.startMs, span.endMs, timeZone);
  const read = await summaryRead(db, {
    userId, dailyTypes: DAILY_TYPES, firstDay, lastDay, startMs: span.startMs, endMs: span.endMs, latestTypes: LATEST_TYPES, sleep: firstSleepRead(window),
  });
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
    sleep: await extendSleepLookback(db, userId, window, read.sleep),
    sleepWindow: window,
    workouts: read.workouts,
    latestBody: read.latestBody,
    lastSync: read.lastSync,
  };
}
