// What /v1/summary reads, gathered into the SummaryInput its worker turns into
// numbers and a page: the last N local days of the daily surfaces (daily
// aggregates of the summary's types, activity rings), the workouts starting in
// them, the newest body readings, and the sleep samples of the nights ending
// in them — read concurrently, with the other routes' queries where they
// serve. Also the bench's summary reader, so both read the same.
import { daysSpanMs, lastNDays } from '../core/local-days.js';
import { dailyMetricTypes } from '../core/registry.js';
import { sleepWindow } from '../core/sleep-nights.js';
import { SUMMARY_RANGES, SUMMARY_TYPES, type SummaryInput, type SummaryRange } from '../core/summary.js';
import type { Db } from '../db/pool.js';
import { activityDays } from '../db/queries/activity.js';
import { dailyValues, latestSamples } from '../db/queries/metrics.js';
import { summaryHeader, summaryWorkouts } from '../db/queries/summary.js';
import { readSleepSamples } from '../reads/sleep.js';

const DAILY_TYPES = dailyMetricTypes([SUMMARY_TYPES.steps, SUMMARY_TYPES.activeEnergy, SUMMARY_TYPES.exercise, SUMMARY_TYPES.restingHeartRate, SUMMARY_TYPES.hrvSDNN]);

export async function readSummaryInput(pool: Db, userId: string, timeZone: string, range: SummaryRange, generatedAt = Date.now()): Promise<SummaryInput> {
  const days = lastNDays(SUMMARY_RANGES[range], timeZone, generatedAt);
  const firstDay = days[0];
  const lastDay = days[days.length - 1];
  const span = daysSpanMs(firstDay, lastDay, timeZone);
  const window = sleepWindow(span.startMs, span.endMs, timeZone);
  const [header, daily, rings, workouts, latestBody, sleep] = await Promise.all([
    summaryHeader(pool, userId),
    dailyValues(pool, userId, DAILY_TYPES, firstDay, lastDay, null, 0),
    activityDays(pool, userId, firstDay, lastDay),
    summaryWorkouts(pool, userId, span.startMs, span.endMs),
    latestSamples(pool, userId, [SUMMARY_TYPES.weight, SUMMARY_TYPES.bodyFat]),
    readSleepSamples(pool, userId, window),
  ]);
  return {
    userId,
    name: header.name,
    range,
    days,
    timeZone,
    generatedAt,
    daily,
    rings,
    sleep,
    sleepWindow: window,
    workouts,
    latestBody,
    lastSync: header.lastSync,
  };
}
