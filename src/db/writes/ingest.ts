// The sync receiver's SQL (Puls Sync Protocol v1, ../shared/protocol/FACTS.md
// §8). A batch is one transaction. Its samples go straight into `samples` by
// binary COPY, a chunk at a time (src/ingest/sample-copy.ts); a chunk the
// unique index refuses (a uuid stored already) is staged like everything
// else. The other lines are COPYed into staging tables of the session
// (temporary, emptied at commit), then moved into the storage contract's
// tables by one statement per table, each taking its rows in one global
// order — samples, workouts, moods, routes, series, buckets, days, then
// deletions, each sorted by its key (deletions by row position) — so two
// batches holding the same rows wait for each other instead of deadlocking,
// and neither doubles a row.
// Users, zone, type and source names go through setup.ts like every writer's.
import type pg from 'pg';
import { prepared } from '../pool.js';
import { copyFromStdinSql } from './bulk-load.js';
import { SAMPLE_COPY_COLUMNS, SAMPLE_COPY_COLUMNS_DDL } from './sample-copy.js';
import { ENSURE_USERS_SQL } from './setup.js';

/** A staging table: its name and the columns a COPY row carries, in order. */
export interface StagingTable {
  table: string;
  columns: readonly string[];
}

const stage = (table: string, columns: readonly string[]): StagingTable => ({ table, columns });

export const STAGING = {
  samples: stage('ingest_samples', SAMPLE_COPY_COLUMNS),
  workouts: stage('ingest_workouts', [
    'uuid', 'activity_type', 'start_ms', 'end_ms', 'duration_s', 'distance_m', 'energy_kcal', 'source_id', 'statistics', 'events', 'activities', 'metadata',
  ]),
  moods: stage('ingest_state_of_mind', ['uuid', 'logged_at_ms', 'kind', 'valence', 'valence_classification', 'labels', 'associations']),
  deletions: stage('ingest_deletions', ['uuid']),
  routePoints: stage('ingest_route_points', ['seq', 'workout_uuid', 't', 'lat', 'lon', 'alt']),
  seriesPoints: stage('ingest_series_points', ['seq', 'workout_uuid', 'type_id', 't', 'value']),
  aggregates: stage('ingest_aggregates', [
    'seq', 'type_id', 'func', 'interval_value', 'interval_unit', 'device_filter', 'bucket_start_ms', 'bucket_end_ms', 'value',
    'start_context', 'end_context', 'daily_column',
  ]),
  summaries: stage('ingest_summaries', [
    'seq', 'day', 'move_kcal', 'move_goal_kcal', 'exercise_min', 'exercise_goal_min', 'stand_hours', 'stand_goal_hours',
    'move_time_min', 'move_time_goal_min', 'move_mode',
  ]),
} as const;

export type StagingName = keyof typeof STAGING;

/** Made once per session; ON COMMIT DELETE ROWS empties them after each batch (a rollback discards them anyway). */
export const CREATE_STAGING_SQL = `
CREATE TEMP TABLE IF NOT EXISTS ingest_samples (${SAMPLE_COPY_COLUMNS_DDL}) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_workouts (
  uuid uuid, activity_type text, start_ms bigint, end_ms bigint, duration_s double precision, distance_m double precision,
  energy_kcal double precision, source_id integer, statistics jsonb, events jsonb, activities jsonb, metadata jsonb) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_state_of_mind (
  uuid uuid, logged_at_ms bigint, kind text, valence double precision, valence_classification text, labels jsonb, associations jsonb) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_deletions (uuid uuid) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_route_points (
  seq integer, workout_uuid uuid, t bigint, lat double precision, lon double precision, alt double precision) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_series_points (
  seq integer, workout_uuid uuid, type_id smallint, t bigint, value double precision) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_aggregates (
  seq integer, type_id smallint, func text, interval_value integer, interval_unit text, device_filter text, bucket_start_ms bigint,
  bucket_end_ms bigint, value double precision, start_context jsonb, end_context jsonb, daily_column text) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ingest_summaries (
  seq integer, day date, move_kcal double precision, move_goal_kcal double precision, exercise_min double precision,
  exercise_goal_min double precision, stand_hours double precision, stand_goal_hours double precision,
  move_time_min double precision, move_time_goal_min double precision, move_mode smallint) ON COMMIT DELETE ROWS;
`;

export const copyStagingSql = (staging: StagingTable): string => copyFromStdinSql(staging.table, staging.columns, 'text');

/** The privileges the receiver's login must hold (migration 4's writer role); a missing one refuses the start. */
export async function missingWritePrivileges(db: pg.ClientBase | pg.Pool): Promise<string[]> {
  const { rows } = await db.query<{ missing: string }>(
    `SELECT t || ' ' || p AS missing
     FROM (VALUES ('samples', 'INSERT'), ('samples', 'DELETE'), ('workouts', 'INSERT'), ('state_of_mind', 'INSERT'),
                  ('workout_routes', 'UPDATE'), ('workout_streams', 'UPDATE'), ('daily_aggregates', 'UPDATE'),
                  ('activity_summaries', 'UPDATE'), ('profiles', 'UPDATE'), ('aggregate_buckets', 'UPDATE'),
                  ('upload_batches', 'INSERT'), ('upload_type_stats', 'UPDATE'), ('sample_types', 'INSERT'), ('sources', 'INSERT'),
                  ('users', 'INSERT'), ('access_tokens', 'SELECT')) AS need (t, p)
     WHERE NOT has_table_privilege(t, p)`,
  );
  return rows.map((row) => row.missing);
}

// The two statements every batch runs besides its COPYs are prepared once per session (src/db/pool.ts
// `prepared`): parsing and planning them cost PostgreSQL ~0.2 ms a batch (bench/RESULTS.md, sync receiver
// notes: steady sync).
const OPEN_BATCH = prepared(
  `WITH new_user AS (${ENSURE_USERS_SQL}),
        new_profile AS (INSERT INTO profiles (user_id) SELECT unnest($1::uuid[]) ON CONFLICT (user_id) DO NOTHING)
   INSERT INTO upload_batches (user_id, received_at_ms, sample_count, batch_id) SELECT unnest($1::uuid[]), $2, $3, $4
   ON CONFLICT (user_id, batch_id) WHERE batch_id IS NOT NULL DO NOTHING`,
);

/**
 * Opens a batch in one statement (one round trip, where three cost a small
 * batch a tenth of its time): the user made on first sight, with the empty
 * profile the protocol gives a new user, and the batch id recorded in the
 * batch's own transaction. False when the id is stored already (a replay:
 * the caller stores nothing); a second upload of the same id while the first
 * runs waits here for its outcome.
 */
export async function openBatch(client: pg.ClientBase, userId: string, batchId: string, sampleCount: number, nowMs: number): Promise<boolean> {
  const { rowCount } = await client.query(OPEN_BATCH([[userId], nowMs, sampleCount, batchId]));
  return rowCount === 1;
}

const SAMPLE_COLUMNS = SAMPLE_COPY_COLUMNS.join(', ');

/**
 * Staged samples into `samples` in (start, uuid) order, a stored uuid left
 * alone: the path of a chunk whose direct COPY was refused
 * (src/ingest/sample-copy.ts). Every batch moves staged rows in this one
 * order, so two batches staging the same samples wait for each other instead
 * of deadlocking. Answers the samples created per type id.
 */
export async function insertStagedSamples(client: pg.ClientBase): Promise<Map<number, number>> {
  return countsByType(client, `INSERT INTO samples (${SAMPLE_COLUMNS}) SELECT ${SAMPLE_COLUMNS} FROM ingest_samples ORDER BY start_ms, uuid ON CONFLICT DO NOTHING`);
}

/** The same, emptying the staging table (a batch in (start, uuid) order moves each refused chunk at once). */
export async function moveStagedSamples(client: pg.ClientBase): Promise<Map<number, number>> {
  return countsByType(
    client,
    `INSERT INTO samples (${SAMPLE_COLUMNS}) SELECT ${SAMPLE_COLUMNS} FROM moved ORDER BY start_ms, uuid ON CONFLICT DO NOTHING`,
    [],
    'moved AS (DELETE FROM ingest_samples RETURNING *)',
  );
}

/**
 * Runs `writing`, an INSERT or DELETE of samples (after the CTEs `before`, if
 * any), and answers the rows it wrote per type id.
 */
async function countsByType(client: pg.ClientBase, writing: string, values: unknown[] = [], before?: string): Promise<Map<number, number>> {
  const { rows } = await client.query<[number, number]>({
    text: `WITH ${before ? `${before}, ` : ''}written AS (${writing} RETURNING type_id) SELECT type_id, count(*)::int FROM written GROUP BY type_id`,
    values,
    rowMode: 'array',
  });
  return new Map(rows);
}

export async function insertStagedWorkouts(client: pg.ClientBase, userId: string): Promise<number> {
  const { rowCount } = await client.query(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, source_id, statistics, events, activities, metadata)
     SELECT $1, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, source_id, statistics, events, activities, metadata
     FROM ingest_workouts ORDER BY uuid
     ON CONFLICT DO NOTHING`,
    [userId],
  );
  return rowCount ?? 0;
}

export async function insertStagedMoods(client: pg.ClientBase, userId: string): Promise<number> {
  const { rowCount } = await client.query(
    `INSERT INTO state_of_mind (user_id, uuid, logged_at_ms, kind, valence, valence_classification, labels, associations)
     SELECT $1, uuid, logged_at_ms, kind, valence, valence_classification,
            ARRAY(SELECT jsonb_array_elements_text(labels)), ARRAY(SELECT jsonb_array_elements_text(associations))
     FROM ingest_state_of_mind ORDER BY uuid
     ON CONFLICT DO NOTHING`,
    [userId],
  );
  return rowCount ?? 0;
}

/**
 * Merges staged points into stored streams (`workout_routes` or
 * `workout_streams`): a point whose time is stored already is left alone
 * (among repeats in a batch the first wins), and the arrays stay ordered by
 * time. Rows are made first, then locked in key order, then rewritten from
 * what is stored now, so a concurrent batch adding to the same stream waits
 * and loses nothing. A stream whose workout uuid another user holds is left
 * untouched, and none is made for it: keyed by workout uuid alone, it would
 * shut out the owner's own points. Answers the points added.
 */
async function mergeStagedPoints(client: pg.ClientBase, userId: string, table: string, staging: string, key: string, merge: string): Promise<number> {
  await client.query(
    `INSERT INTO ${table} (user_id, ${key}, times_ms, ${table === 'workout_routes' ? 'latitudes, longitudes, altitudes_m' : '"values"'})
     SELECT DISTINCT $1::uuid, ${key}, '{}'::bigint[], ${table === 'workout_routes' ? `'{}'::float8[], '{}'::float8[], '{}'::float8[]` : `'{}'::float8[]`}
     FROM ${staging} s
     WHERE NOT EXISTS (SELECT 1 FROM workouts w WHERE w.uuid = s.workout_uuid AND w.user_id <> $1::uuid)
     ORDER BY ${key}
     ON CONFLICT DO NOTHING`,
    [userId],
  );
  await client.query(`SELECT 1 FROM ${table} WHERE user_id = $1 AND (${key}) IN (SELECT ${key} FROM ${staging}) ORDER BY ${key} FOR UPDATE`, [userId]);
  const { rows } = await client.query<{ added: number }>(merge, [userId]);
  return rows.reduce((sum, row) => sum + row.added, 0);
}

const MERGE_ROUTE_POINTS_SQL = `
  WITH merged AS (
    SELECT r.workout_uuid, coalesce(cardinality(r.times_ms), 0) AS before, m.*
    FROM (SELECT DISTINCT workout_uuid FROM ingest_route_points) s
    JOIN workout_routes r ON r.user_id = $1 AND r.workout_uuid = s.workout_uuid
    CROSS JOIN LATERAL (
      SELECT array_agg(t ORDER BY t) AS times, array_agg(lat ORDER BY t) AS lats, array_agg(lon ORDER BY t) AS lons, array_agg(alt ORDER BY t) AS alts
      FROM (
        SELECT DISTINCT ON (t) t, lat, lon, alt
        FROM (
          SELECT o.t, o.lat, o.lon, o.alt, 0 AS pri, 0 AS seq
          FROM unnest(r.times_ms, r.latitudes, r.longitudes, r.altitudes_m) AS o (t, lat, lon, alt) WHERE o.t IS NOT NULL
          UNION ALL
          SELECT i.t, i.lat, i.lon, i.alt, 1, i.seq FROM ingest_route_points i WHERE i.workout_uuid = s.workout_uuid
        ) both_sides
        ORDER BY t, pri, seq
      ) d
    ) m
  )
  UPDATE workout_routes r SET times_ms = merged.times, latitudes = merged.lats, longitudes = merged.lons, altitudes_m = merged.alts
  FROM merged WHERE r.user_id = $1 AND r.workout_uuid = merged.workout_uuid
  RETURNING (cardinality(r.times_ms) - merged.before)::int AS added`;

const MERGE_SERIES_POINTS_SQL = `
  WITH merged AS (
    SELECT r.workout_uuid, r.type_id, coalesce(cardinality(r.times_ms), 0) AS before, m.*
    FROM (SELECT DISTINCT workout_uuid, type_id FROM ingest_series_points) s
    JOIN workout_streams r ON r.user_id = $1 AND r.workout_uuid = s.workout_uuid AND r.type_id = s.type_id
    CROSS JOIN LATERAL (
      SELECT array_agg(t ORDER BY t) AS times, array_agg(value ORDER BY t) AS vals
      FROM (
        SELECT DISTINCT ON (t) t, value
        FROM (
          SELECT o.t, o.value, 0 AS pri, 0 AS seq FROM unnest(r.times_ms, r."values") AS o (t, value) WHERE o.t IS NOT NULL
          UNION ALL
          SELECT i.t, i.value, 1, i.seq FROM ingest_series_points i WHERE i.workout_uuid = s.workout_uuid AND i.type_id = s.type_id
        ) both_sides
        ORDER BY t, pri, seq
      ) d
    ) m
  )
  UPDATE workout_streams r SET times_ms = merged.times, "values" = merged.vals
  FROM merged WHERE r.user_id = $1 AND r.workout_uuid = merged.workout_uuid AND r.type_id = merged.type_id
  RETURNING (cardinality(r.times_ms) - merged.before)::int AS added`;

export function mergeStagedRoutePoints(client: pg.ClientBase, userId: string): Promise<number> {
  return mergeStagedPoints(client, userId, 'workout_routes', 'ingest_route_points', 'workout_uuid', MERGE_ROUTE_POINTS_SQL);
}

export function mergeStagedSeriesPoints(client: pg.ClientBase, userId: string): Promise<number> {
  return mergeStagedPoints(client, userId, 'workout_streams', 'ingest_series_points', 'workout_uuid, type_id', MERGE_SERIES_POINTS_SQL);
}

/**
 * Upserts the staged buckets on the protocol's key, the last line of a bucket
 * winning; a later line overwrites value (null too), end and contexts.
 * Answers the distinct buckets written.
 */
export async function upsertStagedAggregates(client: pg.ClientBase, userId: string, nowMs: number): Promise<number> {
  const { rowCount } = await client.query(
    `INSERT INTO aggregate_buckets (user_id, type_id, func, interval_value, interval_unit, device_filter, bucket_start_ms, bucket_end_ms,
                                   value, start_context, end_context, updated_at_ms)
     SELECT DISTINCT ON (type_id, func, interval_value, interval_unit, device_filter, bucket_start_ms)
            $1::uuid, type_id, func, interval_value, interval_unit, device_filter, bucket_start_ms, bucket_end_ms, value, start_context, end_context, $2::bigint
     FROM ingest_aggregates
     ORDER BY type_id, func, interval_value, interval_unit, device_filter, bucket_start_ms, seq DESC
     ON CONFLICT (user_id, type_id, func, interval_value, interval_unit, device_filter, bucket_start_ms) DO UPDATE SET
       bucket_end_ms = EXCLUDED.bucket_end_ms, value = EXCLUDED.value, start_context = EXCLUDED.start_context,
       end_context = EXCLUDED.end_context, updated_at_ms = EXCLUDED.updated_at_ms`,
    [userId, nowMs],
  );
  return rowCount ?? 0;
}

/**
 * The staged day buckets that feed `daily_aggregates` (1 day, every device,
 * the column the receiver chose for the type's style) on the local day of
 * their start in `timeZone`: each sets its own column, a null clears it, and
 * a day left with no value goes.
 */
export async function applyStagedDailyBuckets(client: pg.ClientBase, userId: string, timeZone: string): Promise<void> {
  const dayBuckets = `
    day_buckets AS (
      SELECT DISTINCT ON (type_id, daily_column, day) type_id, daily_column, day, value
      FROM (SELECT type_id, daily_column, value, seq, (to_timestamp(bucket_start_ms / 1000.0) AT TIME ZONE $2)::date AS day
            FROM ingest_aggregates WHERE daily_column IS NOT NULL) b
      ORDER BY type_id, daily_column, day, seq DESC
    )`;
  const column = (name: string) =>
    `${name} = CASE WHEN EXISTS (SELECT 1 FROM day_buckets b WHERE b.type_id = d.type_id AND b.day = d.day AND b.daily_column = '${name}')
                  THEN EXCLUDED.${name} ELSE d.${name} END`;
  await client.query(
    `WITH ${dayBuckets}
     INSERT INTO daily_aggregates AS d (user_id, type_id, day, sum, avg, min, max)
     SELECT $1, type_id, day,
            max(value) FILTER (WHERE daily_column = 'sum'), max(value) FILTER (WHERE daily_column = 'avg'),
            max(value) FILTER (WHERE daily_column = 'min'), max(value) FILTER (WHERE daily_column = 'max')
     FROM day_buckets GROUP BY type_id, day ORDER BY type_id, day
     ON CONFLICT (user_id, type_id, day) DO UPDATE SET ${['sum', 'avg', 'min', 'max'].map(column).join(', ')}`,
    [userId, timeZone],
  );
  await client.query(
    `WITH ${dayBuckets}
     DELETE FROM daily_aggregates d USING (SELECT DISTINCT type_id, day FROM day_buckets) b
     WHERE d.user_id = $1 AND d.type_id = b.type_id AND d.day = b.day
       AND d.sum IS NULL AND d.avg IS NULL AND d.min IS NULL AND d.max IS NULL`,
    [userId, timeZone],
  );
}

/** Replaces each staged day's rings (the last line of a day wins). Answers the distinct days written. */
export async function replaceStagedSummaries(client: pg.ClientBase, userId: string): Promise<number> {
  const columns = STAGING.summaries.columns.slice(2).join(', ');
  const { rowCount } = await client.query(
    `INSERT INTO activity_summaries (user_id, day, ${columns})
     SELECT DISTINCT ON (day) $1::uuid, day, ${columns} FROM ingest_summaries ORDER BY day, seq DESC
     ON CONFLICT (user_id, day) DO UPDATE SET ${STAGING.summaries.columns
       .slice(2)
       .map((c) => `${c} = EXCLUDED.${c}`)
       .join(', ')}`,
    [userId],
  );
  return rowCount ?? 0;
}

export interface ProfileSnapshot {
  name: string | null;
  email: string | null;
  dateOfBirthMs: number | null;
  biologicalSex: string | null;
}

/** The profile line replaces the whole stored profile. */
export async function replaceProfile(client: pg.ClientBase, userId: string, profile: ProfileSnapshot, nowMs: number): Promise<void> {
  await client.query(
    `INSERT INTO profiles (user_id, name, email, date_of_birth_ms, biological_sex, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, date_of_birth_ms = EXCLUDED.date_of_birth_ms,
       biological_sex = EXCLUDED.biological_sex, updated_at_ms = EXCLUDED.updated_at_ms`,
    [userId, profile.name, profile.email, profile.dateOfBirthMs, profile.biologicalSex, nowMs],
  );
}

/**
 * The staged tombstones, after every insert of the batch: the user's samples,
 * workouts and moods with those uuids, and a deleted workout's route and
 * streams. Rows are deleted by a TID scan alone, which visits (and locks)
 * them in physical order — the same order in every transaction, whatever the
 * plan that found them, so two batches deleting the same rows cannot
 * deadlock (locking them first with SELECT … FOR UPDATE would need UPDATE,
 * which the writer role does not hold on these tables). The tableoid test
 * keeps a TID from ever naming a row of another partition, should the table
 * be partitioned one day (then nothing is deleted, and the tests say so).
 * Answers the rows removed (samples, workouts and moods), and the samples
 * among them per type id.
 */
export async function deleteStaged(client: pg.ClientBase, userId: string): Promise<{ deleted: number; samplesByType: Map<number, number> }> {
  const doomed = (table: string) =>
    `DELETE FROM ${table}
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE user_id = $1 AND uuid IN (SELECT uuid FROM ingest_deletions)))
       AND tableoid = '${table}'::regclass AND user_id = $1`;
  const samplesByType = await countsByType(client, doomed('samples'), [userId]);
  let deleted = 0;
  for (const n of samplesByType.values()) deleted += n;
  for (const table of ['workouts', 'state_of_mind']) deleted += (await client.query(doomed(table), [userId])).rowCount ?? 0;
  for (const table of ['workout_routes', 'workout_streams']) {
    await client.query(`DELETE FROM ${table} WHERE user_id = $1 AND workout_uuid IN (SELECT uuid FROM ingest_deletions)`, [userId]);
  }
  return { deleted, samplesByType };
}

// One statement for both, a round trip less a batch: the sample counts
// appended ($4 type ids, $5 samples created minus deleted) and the uploads.
const COUNT_TYPE_UPLOADS = prepared(
  `WITH counted AS (
     INSERT INTO sample_counts (user_id, type_id, n) SELECT $1, type_id, n FROM unnest($4::smallint[], $5::bigint[]) AS c (type_id, n)
   )
   INSERT INTO upload_type_stats (user_id, type_id, batches, last_batch_at_ms)
   SELECT $1, type_id, 1, $3 FROM unnest($2::smallint[]) AS t (type_id) ORDER BY type_id
   ON CONFLICT (user_id, type_id) DO UPDATE SET
     batches = upload_type_stats.batches + 1, last_batch_at_ms = greatest(upload_type_stats.last_batch_at_ms, EXCLUDED.last_batch_at_ms)`,
);

/**
 * One more batch for each type its sample lines carried (GET /v1/stats), and
 * the samples the batch created or deleted per type (`samples`: given when
 * the session skipped the counting triggers, src/db/writes/sample-counts.ts).
 */
export async function countTypeUploads(
  client: pg.ClientBase,
  userId: string,
  typeIds: readonly number[],
  nowMs: number,
  samples: ReadonlyMap<number, number> | null,
): Promise<void> {
  const counted = [...(samples ?? [])].filter(([, n]) => n !== 0);
  if (typeIds.length === 0 && counted.length === 0) return;
  await client.query(COUNT_TYPE_UPLOADS([userId, [...typeIds].sort((a, b) => a - b), nowMs, counted.map(([type]) => type), counted.map(([, n]) => n)]));
}
