// SQL of /v1/export: the export-slot advisory locks, and one cursor per
// dataset (pg-query-stream on the export's own connection, rows as arrays).
// Each cursor reads what the dataset's JSON route reads, in its order, walking
// the same index; daily metrics reuse the route's own SQL with no limit. The
// samples cursor, the one that runs to millions of rows, hands over
// PostgreSQL's text of every column (src/export/sample-encoding.ts turns it
// into cells without parsing).
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import { SLEEP_ANALYSIS } from '../../core/registry.js';
import { DAILY_METRICS_SQL, type DailyRequestType } from './metrics.js';
import { SAMPLE_TYPE_ID_SQL } from './samples.js';
import { SLEEP_SAMPLES_SQL } from './sleep.js';
import { WORKOUT_SUMMARY_COLUMNS } from './workouts.js';

/** First key of the export-slot advisory locks (ASCII "heal"); the second is the slot number. */
export const EXPORT_LOCK_KEY = 0x6865616c;

/** Rows per cursor fetch; the stream fetches the next batch while one is being written. */
const BATCH_ROWS = 2000;

/** Every column as the text PostgreSQL sent. */
const RAW_TEXT = { getTypeParser: () => (text: string) => text };

export type RowCursor = QueryStream;

function cursor(client: pg.ClientBase, text: string, values: unknown[], rawText = false): RowCursor {
  return client.query(new QueryStream(text, values, { rowMode: 'array', batchSize: BATCH_ROWS, ...(rawText ? { types: RAW_TEXT } : {}) }));
}

/**
 * Claims slot 1, else slot 2, as a session advisory lock held until unlocked
 * or the session ends; null when both are taken by any server process. The
 * session also gets shortest round-trip float text (extra_float_digits > 0),
 * which the samples encoding relies on whatever the server's default.
 */
export async function claimExportSlot(client: pg.ClientBase): Promise<number | null> {
  const { rows } = await client.query<{ slot: number | null }>(
    `SELECT set_config('extra_float_digits', '1', false) AS float_digits,
            CASE WHEN pg_try_advisory_lock($1, 1) THEN 1 WHEN pg_try_advisory_lock($1, 2) THEN 2 END AS slot`,
    [EXPORT_LOCK_KEY],
  );
  return rows[0].slot;
}

export async function releaseExportSlot(client: pg.ClientBase, slot: number): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [EXPORT_LOCK_KEY, slot]);
}

/** Rows [identifier, date, value]: the /v1/metrics/daily rows of the whole range. */
export function dailyMetricsCursor(client: pg.ClientBase, userId: string, types: readonly DailyRequestType[], firstDay: string, lastDay: string): RowCursor {
  return cursor(client, DAILY_METRICS_SQL, [userId, types.map((t) => t.identifier), types.map((t) => t.cumulative), firstDay, lastDay, null, 0]);
}

/** The type id of an identifier, or null when no writer has stored the type. */
export async function sampleTypeId(client: pg.ClientBase, identifier: string): Promise<number | null> {
  const { rows } = await client.query<{ type_id: number }>(SAMPLE_TYPE_ID_SQL, [identifier]);
  return rows[0]?.type_id ?? null;
}

/**
 * The /v1/samples rows of a whole range, by start then uuid, walking samples
 * (user_id, type_id, start_ms, uuid); the source name is a primary-key probe
 * per row. $1 user id, $2 type id, $3 start (inclusive), $4 end (exclusive).
 */
export const SAMPLES_EXPORT_SQL = `SELECT s.uuid, s.start_ms, s.end_ms, s.value, (SELECT src.name FROM sources src WHERE src.source_id = s.source_id) AS source
  FROM samples s
  WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
  ORDER BY s.start_ms, s.uuid`;

/** Rows [uuid, start, end, value, source] of SAMPLES_EXPORT_SQL, as PostgreSQL text. */
export function samplesTextCursor(client: pg.ClientBase, userId: string, typeId: number, start: number, end: number): RowCursor {
  return cursor(client, SAMPLES_EXPORT_SQL, [userId, typeId, start, end], true);
}

/**
 * Rows [uuid, activityType, start, end, durationS, distanceM, energyKcal,
 * hasRoute, availableMetrics], newest first, as /v1/workouts shows them.
 */
export function workoutsCursor(client: pg.ClientBase, userId: string, start: number, end: number, activityType: string | null): RowCursor {
  return cursor(
    client,
    `SELECT ${WORKOUT_SUMMARY_COLUMNS}
     FROM workouts w
     WHERE w.user_id = $1 AND w.start_ms >= $2 AND w.start_ms < $3 AND ($4::text IS NULL OR w.activity_type = $4)
     ORDER BY w.start_ms DESC, w.uuid`,
    [userId, start, end, activityType],
  );
}

/** Rows [startMs, endMs, value, sourceId] of sleep analysis starting in [fromMs, toMs), by start then uuid. */
export function sleepSamplesCursor(client: pg.ClientBase, userId: string, fromMs: number, toMs: number): RowCursor {
  return cursor(client, SLEEP_SAMPLES_SQL, [userId, SLEEP_ANALYSIS, fromMs, toMs]);
}

/** Rows [date, moveKcal, …, moveTimeGoalMin] in the order of the activity columns, ascending by day. */
export function activityCursor(client: pg.ClientBase, userId: string, firstDay: string, lastDay: string): RowCursor {
  return cursor(
    client,
    `SELECT day::text, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours,
            move_mode::int, move_time_min, move_time_goal_min
     FROM activity_summaries
     WHERE user_id = $1 AND day >= $2::date AND day <= $3::date
     ORDER BY day`,
    [userId, firstDay, lastDay],
  );
}

/** Rows [uuid, timestamp, kind, valence, valenceClassification, labels, associations], oldest first. */
export function stateOfMindCursor(client: pg.ClientBase, userId: string, fromMs: number, toMs: number): RowCursor {
  return cursor(
    client,
    `SELECT uuid::text, logged_at_ms, kind, valence, valence_classification,
            coalesce(labels, '{}'), coalesce(associations, '{}')
     FROM state_of_mind
     WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3
     ORDER BY logged_at_ms, uuid`,
    [userId, fromMs, toMs],
  );
}
