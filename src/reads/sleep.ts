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

/**
 * The samples of a window's nights: those starting in [window.startMs − the
 * initial lookback, window.readUntilMs), with earlier ones prepended while a
 * session may reach further back.
 */
export async function readSleepSamples(db: Db, userId: string, window: SleepWindow): Promise<SleepColumns> {
  let fromMs = window.startMs - INITIAL_SLEEP_LOOKBACK_MS;
  let columns = await sleepSampleColumns(db, userId, fromMs, window.readUntilMs);
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
