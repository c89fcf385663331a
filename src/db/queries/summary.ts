// The summary's own reads: its header (profile name, newest upload) and the
// workouts of the range reduced to what the summary counts. The rest it reads
// with the other routes' queries (src/routes/summary-plan.ts).
import type { Db } from '../pool.js';

export interface SummaryHeader {
  name: string | null;
  lastSync: number | null;
}

/** The profile name (null without a profile) and the newest upload batch (null when none). */
export async function summaryHeader(db: Db, userId: string): Promise<SummaryHeader> {
  const { rows } = await db.query<SummaryHeader>(
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
export async function summaryWorkouts(db: Db, userId: string, startMs: number, endMs: number): Promise<SummaryWorkoutRow[]> {
  const { rows } = await db.query<SummaryWorkoutRow>(
    `SELECT activity_type AS "activityType", start_ms AS start, duration_s AS "durationS", distance_m AS "distanceM"
     FROM workouts
     WHERE user_id = $1 AND start_ms >= $2 AND start_ms < $3`,
    [userId, startMs, endMs],
  );
  return rows;
}
