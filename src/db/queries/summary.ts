// Reads of /v1/summary that no other route makes: the header (profile name,
// newest upload) and the workouts of the range reduced to what the summary
// counts. Also where sleep reading must start so a night ending in a window
// comes back whole — shared by the summary and the sleep export.
import type pg from 'pg';
import { SLEEP_SESSION_GAP_MS, splitSleepSessions, type SleepSample } from '../../core/sleep-nights.js';
import { LONGEST_SAMPLE_MS } from '../../routes/sleep.js';
import { sleepSamples } from './sleep.js';

const INITIAL_LOOKBACK_MS = 48 * 3_600_000;

export interface SummaryHeader {
  name: string | null;
  lastSync: number | null;
}

/** The profile name (null without a profile) and the newest upload batch (null when none). */
export async function summaryHeader(pool: pg.Pool, userId: string): Promise<SummaryHeader> {
  const { rows } = await pool.query<SummaryHeader>(
    `SELECT (SELECT name FROM profiles WHERE user_id = $1) AS name,
            (SELECT max(received_at_ms) FROM upload_batches WHERE user_id = $1) AS "lastSync"`,
    [userId],
  );
  return rows[0];
}

export interface SummaryWorkoutRow {
  activityType: string;
  start: number;
  durationS: number | null;
  distanceM: number | null;
}

/** Workouts starting in [startMs, endMs), by the (user_id, start_ms DESC, uuid) index. */
export async function summaryWorkouts(pool: pg.Pool, userId: string, startMs: number, endMs: number): Promise<SummaryWorkoutRow[]> {
  const { rows } = await pool.query<SummaryWorkoutRow>(
    `SELECT activity_type AS "activityType", start_ms AS start, duration_s AS "durationS", distance_m AS "distanceM"
     FROM workouts
     WHERE user_id = $1 AND start_ms >= $2 AND start_ms < $3`,
    [userId, startMs, endMs],
  );
  return rows;
}

/**
 * The instant from which sleep samples must be read so that every night
 * ending at or after `windowStartMs` is assembled from all its samples, as
 * /v1/sleep/daily decides it: look back 48 h, doubling while the first
 * session that reaches the window starts within LONGEST_SAMPLE_MS + the
 * session gap of the lookback's edge. Only samples before the window are
 * read: a session formed from them reaches the window when it ends in it, or
 * when it is the last one and a sample within the gap of its end could still
 * extend it. Counting that last session in when nothing does extend it only
 * looks back further, which changes no night ending in the window: an earlier
 * sample ends too long before it to join.
 */
export async function sleepReadStart(pool: pg.Pool, userId: string, windowStartMs: number): Promise<number> {
  let from = windowStartMs - INITIAL_LOOKBACK_MS;
  let samples: SleepSample[] = await sleepSamples(pool, userId, from, windowStartMs);
  for (;;) {
    const reaching = splitSleepSessions(samples).find((session, i, sessions) => {
      const latestEnd = session.reduce((latest, sample) => Math.max(latest, sample.endMs), -Infinity);
      return latestEnd >= windowStartMs || (i === sessions.length - 1 && latestEnd + SLEEP_SESSION_GAP_MS >= windowStartMs);
    });
    if (!reaching || reaching[0].startMs - from > LONGEST_SAMPLE_MS + SLEEP_SESSION_GAP_MS) return from;
    const earlier = windowStartMs - 2 * (windowStartMs - from);
    samples = (await sleepSamples(pool, userId, earlier, from)).concat(samples);
    from = earlier;
  }
}
