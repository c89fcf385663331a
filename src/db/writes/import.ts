// The Apple Health importer's SQL: the bulk sample load's statements
// (src/import/sample-loader.ts runs them), the read-back of samples for daily
// statistics, and the upserts of profile, workouts, routes, rings, workout
// streams, daily buckets and the upload batch. Every write is keyed by
// something deterministic (user, day, content-derived uuid, export date), so
// running an import again, after a crash or with a newer export, converges on
// one copy of everything.
import type pg from 'pg';
import type { DayBucket } from '../../core/daily-aggregation.js';
import { copySampleRowsSql, SAMPLE_COPY_COLUMNS, SAMPLE_COPY_COLUMNS_DDL } from './sample-copy.js';
import type { ActivitySummaryRow, ProfileFields, RoutePoints, WorkoutFields } from './rows.js';

const SAMPLE_COLUMNS = SAMPLE_COPY_COLUMNS.join(', ');

/** Settings of each loading connection: a batch commits without waiting on the WAL flush. */
export const LOADER_SESSION_SQL = [`SET work_mem = '32MB'`, 'SET synchronous_commit = off'];

/** Each loading connection's staging table for batches that may repeat stored rows. */
export const STAGING_TABLE_SQL = `CREATE TEMP TABLE import_samples (${SAMPLE_COPY_COLUMNS_DDL})`;

/** A binary COPY of sample rows into `samples` (direct) or the staging table. */
export function copySamplesSql(direct: boolean): string {
  return copySampleRowsSql(direct ? 'samples' : 'import_samples');
}

/** Moves the staged batch into `samples`, clustered by type and time as the read routes scan it; repeats are skipped. */
export const MERGE_STAGED_SQL = `INSERT INTO samples (${SAMPLE_COLUMNS})
  SELECT ${SAMPLE_COLUMNS} FROM import_samples ORDER BY type_id, start_ms
  ON CONFLICT DO NOTHING`;

export const EMPTY_STAGING_SQL = 'TRUNCATE import_samples';

/** The read-back streams each type in index order: never a sort of millions of rows, never a full-table scan. */
export const READ_BACK_SESSION_SQL = ['SET enable_seqscan = off', 'SET enable_bitmapscan = off'];

/** Whether the user has any sample stored yet (a first import can take faster paths). */
export async function userHasSamples(client: pg.Client, userId: string): Promise<boolean> {
  const { rows } = await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM samples WHERE user_id = $1) AS any', [userId]);
  return rows[0].any;
}

/** Fresh planner statistics once millions of rows have arrived (the read-back and the API plan with them). */
export async function analyzeSamples(client: pg.Client): Promise<void> {
  await client.query('ANALYZE samples');
}

/** Date of birth and sex from the export; a name or e-mail stored by the phone stays. */
export async function upsertProfile(client: pg.Client, userId: string, profile: ProfileFields, updatedAtMs: number): Promise<void> {
  await client.query(
    `INSERT INTO profiles (user_id, date_of_birth_ms, biological_sex, updated_at_ms) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id) DO UPDATE SET
       date_of_birth_ms = COALESCE(EXCLUDED.date_of_birth_ms, profiles.date_of_birth_ms),
       biological_sex = COALESCE(EXCLUDED.biological_sex, profiles.biological_sex),
       updated_at_ms = EXCLUDED.updated_at_ms`,
    [userId, profile.dateOfBirthMs, profile.biologicalSex, updatedAtMs],
  );
}

export interface StoredWorkout {
  row: WorkoutFields;
  sourceId: number;
}

/** The last of each key: one statement may not upsert a row twice (an export can repeat a workout or a day). */
function lastByKey<T>(rows: readonly T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((row) => [key(row), row])).values()];
}

export async function upsertWorkouts(client: pg.Client, userId: string, batch: readonly StoredWorkout[]): Promise<void> {
  const workouts = lastByKey(batch, (w) => w.row.uuid);
  if (workouts.length === 0) return;
  const column = <T>(pick: (w: WorkoutFields) => T) => workouts.map((w) => pick(w.row));
  await client.query(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, source_id, statistics, events, activities, metadata)
     SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::bigint[], $5::bigint[], $6::float8[], $7::float8[], $8::float8[], $9::integer[],
                              $10::jsonb[], $11::jsonb[], $12::jsonb[], $13::jsonb[])
     ON CONFLICT (uuid) DO UPDATE SET
       activity_type = EXCLUDED.activity_type, start_ms = EXCLUDED.start_ms, end_ms = EXCLUDED.end_ms,
       duration_s = EXCLUDED.duration_s, distance_m = EXCLUDED.distance_m, energy_kcal = EXCLUDED.energy_kcal,
       source_id = EXCLUDED.source_id, statistics = EXCLUDED.statistics, events = EXCLUDED.events,
       activities = EXCLUDED.activities, metadata = EXCLUDED.metadata`,
    [
      userId,
      column((w) => w.uuid),
      column((w) => w.activityType),
      column((w) => w.startMs),
      column((w) => w.endMs),
      column((w) => w.durationS),
      column((w) => w.distanceM),
      column((w) => w.energyKcal),
      workouts.map((w) => w.sourceId),
      column((w) => w.statistics),
      column((w) => w.events),
      column((w) => w.activities),
      column((w) => w.metadata),
    ],
  );
}

export async function upsertRoute(client: pg.Client, userId: string, workoutUuid: string, route: RoutePoints): Promise<void> {
  await client.query(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m)
     VALUES ($1, $2, $3::bigint[], $4::float8[], $5::float8[], $6::float8[])
     ON CONFLICT (workout_uuid) DO UPDATE SET
       times_ms = EXCLUDED.times_ms, latitudes = EXCLUDED.latitudes, longitudes = EXCLUDED.longitudes, altitudes_m = EXCLUDED.altitudes_m`,
    [userId, workoutUuid, route.timesMs, route.latitudes, route.longitudes, route.altitudesM],
  );
}

export async function upsertActivitySummaries(client: pg.Client, userId: string, batch: readonly ActivitySummaryRow[]): Promise<void> {
  const days = lastByKey(batch, (d) => d.day);
  if (days.length === 0) return;
  const column = <T>(pick: (d: ActivitySummaryRow) => T) => days.map(pick);
  await client.query(
    `INSERT INTO activity_summaries (user_id, day, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours,
                                     move_time_min, move_time_goal_min, move_mode)
     SELECT $1, * FROM unnest($2::date[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
                              $9::float8[], $10::float8[], $11::smallint[])
     ON CONFLICT (user_id, day) DO UPDATE SET
       move_kcal = EXCLUDED.move_kcal, move_goal_kcal = EXCLUDED.move_goal_kcal, exercise_min = EXCLUDED.exercise_min,
       exercise_goal_min = EXCLUDED.exercise_goal_min, stand_hours = EXCLUDED.stand_hours, stand_goal_hours = EXCLUDED.stand_goal_hours,
       move_time_min = EXCLUDED.move_time_min, move_time_goal_min = EXCLUDED.move_time_goal_min, move_mode = EXCLUDED.move_mode`,
    [
      userId,
      column((d) => d.day),
      column((d) => d.moveKcal),
      column((d) => d.moveGoalKcal),
      column((d) => d.exerciseMin),
      column((d) => d.exerciseGoalMin),
      column((d) => d.standHours),
      column((d) => d.standGoalHours),
      column((d) => d.moveTimeMin),
      column((d) => d.moveTimeGoalMin),
      column((d) => d.moveMode),
    ],
  );
}

/**
 * One stream per workout and type, from the samples that started during the
 * workout. When several sources recorded the type then (a watch and a chest
 * strap), the one with the most samples is taken — on a tie the workout's own
 * source, then the lower source id — so streams never interleave devices.
 */
export async function buildWorkoutStreams(client: pg.Client, userId: string, workoutUuids: readonly string[], typeIds: readonly number[]): Promise<number> {
  if (workoutUuids.length === 0 || typeIds.length === 0) return 0;
  const result = await client.query(
    `WITH workout AS MATERIALIZED (
       SELECT uuid, start_ms, end_ms, source_id FROM workouts WHERE user_id = $1 AND uuid = ANY($2::uuid[])
     ), recorded AS MATERIALIZED (
       -- One index range per workout and type on (user_id, type_id, start_ms); OFFSET 0 keeps
       -- the planner from flattening it into a scan of every sample of the type.
       SELECT w.uuid AS workout_uuid, w.source_id AS workout_source, t.type_id, s.source_id, s.start_ms, s.uuid, s.value
       FROM workout w
       CROSS JOIN unnest($3::smallint[]) AS t (type_id)
       CROSS JOIN LATERAL (
         SELECT s.source_id, s.start_ms, s.uuid, s.value FROM samples s
         WHERE s.user_id = $1 AND s.type_id = t.type_id AND s.start_ms >= w.start_ms AND s.start_ms <= w.end_ms AND s.value IS NOT NULL
         OFFSET 0
       ) s
     ), chosen AS (
       SELECT DISTINCT ON (workout_uuid, type_id) workout_uuid, type_id, source_id
       FROM recorded
       GROUP BY workout_uuid, type_id, source_id, workout_source
       ORDER BY workout_uuid, type_id, count(*) DESC, (source_id IS NOT DISTINCT FROM workout_source) DESC, source_id
     )
     INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
     SELECT $1, r.workout_uuid, r.type_id, array_agg(r.start_ms ORDER BY r.start_ms, r.uuid), array_agg(r.value ORDER BY r.start_ms, r.uuid)
     FROM recorded r
     JOIN chosen c ON c.workout_uuid = r.workout_uuid AND c.type_id = r.type_id AND c.source_id IS NOT DISTINCT FROM r.source_id
     GROUP BY r.workout_uuid, r.type_id
     ON CONFLICT (workout_uuid, type_id) DO UPDATE SET times_ms = EXCLUDED.times_ms, "values" = EXCLUDED."values"`,
    [userId, workoutUuids, typeIds],
  );
  return result.rowCount ?? 0;
}

export async function upsertDailyBuckets(client: pg.Client, userId: string, typeId: number, buckets: readonly DayBucket[]): Promise<void> {
  if (buckets.length === 0) return;
  await client.query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg, min, max)
     SELECT $1, $2, * FROM unnest($3::date[], $4::float8[], $5::float8[], $6::float8[], $7::float8[])
     ON CONFLICT (user_id, type_id, day) DO UPDATE SET sum = EXCLUDED.sum, avg = EXCLUDED.avg, min = EXCLUDED.min, max = EXCLUDED.max`,
    [userId, typeId, buckets.map((b) => b.day), buckets.map((b) => b.sum), buckets.map((b) => b.avg), buckets.map((b) => b.min), buckets.map((b) => b.max)],
  );
}

/**
 * The import's `upload_batches` row, received at the export's own date (its
 * ExportDate; an export without one, at the latest end of its records and
 * workouts): the same export imported again adds no second row; a newer
 * export adds its own.
 */
export async function recordUploadBatch(client: pg.Client, userId: string, exportedAtMs: number, sampleCount: number): Promise<void> {
  await client.query(
    `INSERT INTO upload_batches (user_id, received_at_ms, sample_count)
     SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM upload_batches WHERE user_id = $1 AND received_at_ms = $2)`,
    [userId, exportedAtMs, sampleCount],
  );
}

/** `COPY … TO STDOUT` of one type's samples in start order, for the daily aggregates (ids inlined: COPY takes no parameters). */
export function samplesInStartOrderCopySql(userId: string, typeId: number): string {
  if (!/^[0-9a-f-]{36}$/.test(userId) || !Number.isInteger(typeId)) throw new Error('user id and type id must be validated');
  return `COPY (SELECT start_ms, end_ms, value, source_id FROM samples
    WHERE user_id = '${userId}' AND type_id = ${typeId} AND value IS NOT NULL AND end_ms >= start_ms
    ORDER BY start_ms) TO STDOUT`;
}
