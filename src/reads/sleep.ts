// Sleep nights of a range, and the samples a window's nights are assembled
// from, for every reader of nights (/v1/sleep/daily, the summary, the sleep
// export): the samples up to
// the window's read limit, and far enough back that the first night ending in
// the window is whole. The usual case is one query — the window together with
// a 48 h lookback; earlier samples are read (doubling the lookback) only while
// core's rule says a session may reach further back.
import {
  assembleSleepNights, concatSleepColumns, INITIAL_SLEEP_LOOKBACK_MS, lookbackReachesFurther, nightsInWindow, sleepWindow,
  type SleepColumns, type SleepNight, type SleepWindow,
} from '../core/sleep-nights.js';
import type { Db } from '../db/pool.js';
import { sleepSampleColumns } from '../db/queries/sleep.js';

export async function readSleepSamples(db: Db, userId: string, window: SleepWindow): Promise<SleepColumns> {
  const { fromMs, toMs } = firstSleepRead(window);
  return extendSleepLookback(db, userId, window, await sleepSampleColumns(db, userId, fromMs, toMs));
}

/** The first read of a window: samples starting in [fromMs, window.readUntilMs). */
export function firstSleepRead(window: SleepWindow): { fromMs: number; toMs: number } {
  return { fromMs: window.startMs - INITIAL_SLEEP_LOOKBACK_MS, toMs: window.readUntilMs };
}

/** The first read's samples (firstSleepRead), with earlier ones prepended while a session may reach further back. */
export async function extendSleepLookback(db: Db, userId: string, window: SleepWindow, firstRead: SleepColumns): Promise<SleepColumns> {
  let fromMs = firstSleepRead(window).fromMs;
  let columns = firstRead;
  while (lookbackReachesFurther(columns, fromMs, window.startMs)) {
    const earlier = window.startMs - 2 * (window.startMs - fromMs);
    columns = concatSleepColumns(await sleepSampleColumns(db, userId, earlier, fromMs), columns);
    fromMs = earlier;
  }
  return columns;
}

/** The nights of the local days [start, end) touches, as /v1/sleep/daily and the sleep export show them. */
export async function readSleepNights(db: Db, userId: string, start: number, end: number, zone: string): Promise<SleepNight[]> {
  const window = sleepWindow(start, end, zone);
  return nightsInWindow(assembleSleepNights(await readSleepSamples(db, userId, window), zone), window);
}
