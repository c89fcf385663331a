// Workouts of one user: the newest-first page, one workout's detail, and its
// recorded streams as float8 arrays. The page walks the (user_id, start_ms
// DESC, uuid) index; a workout's route and streams are found by their primary
// keys (workout_uuid), so each page costs at most limit + offset index rows.
import { prepared, type Db } from '../pool.js';
import { float8ArrayFromBinary } from '../binary-arrays.js';
import type { WorkoutDetailT, WorkoutSummaryT } from '../../schemas/resources.js';

// Summary fields of `w`. A route counts when any of its arrays holds a point;
// availableMetrics are the identifiers of the workout's streams, sorted. The
// route test is a scalar subquery, not EXISTS: the planner may turn an EXISTS
// into a hash over every user's routes instead of one primary-key probe a row.
/** The WorkoutSummary columns of a row of `workouts w`. */
const WORKOUT_SUMMARY_COLUMNS = `
  w.uuid::text AS uuid, w.activity_type AS "activityType", w.start_ms AS start, w.end_ms AS "end",
  w.duration_s AS "durationS", w.distance_m AS "distanceM", w.energy_kcal AS "energyKcal",
  coalesce((
    SELECT greatest(cardinality(r.times_ms), cardinality(r.latitudes), cardinality(r.longitudes)) > 0
    FROM workout_routes r WHERE r.workout_uuid = w.uuid AND r.user_id = w.user_id
  ), false) AS "hasRoute",
  ARRAY(
    SELECT t.identifier FROM workout_streams s JOIN sample_types t ON t.type_id = s.type_id
    WHERE s.workout_uuid = w.uuid AND s.user_id = w.user_id
    ORDER BY t.identifier COLLATE "C"
  ) AS "availableMetrics"`;

export interface WorkoutFilter {
  /** Workouts starting at or after, epoch ms. */
  start?: number;
  /** Workouts starting before, epoch ms. */
  end?: number;
  activityType?: string;
  /** null: every workout (the export). */
  limit: number | null;
  offset: number;
}

/** One page of a user's workouts, newest first (start_ms DESC, then uuid). */
export async function listWorkouts(db: Db, userId: string, filter: WorkoutFilter): Promise<WorkoutSummaryT[]> {
  const { rows } = await db.query<WorkoutSummaryT>(
    `SELECT ${WORKOUT_SUMMARY_COLUMNS}
     FROM workouts w
     WHERE w.user_id = $1
       AND ($2::bigint IS NULL OR w.start_ms >= $2)
       AND ($3::bigint IS NULL OR w.start_ms < $3)
       AND ($4::text IS NULL OR w.activity_type = $4)
     ORDER BY w.start_ms DESC, w.uuid
     LIMIT $5 OFFSET $6`,
    [userId, filter.start ?? null, filter.end ?? null, filter.activityType ?? null, filter.limit, filter.offset],
  );
  return rows;
}

interface DetailRow extends WorkoutSummaryT {
  statistics: WorkoutDetailT['statisticsDetail'] | null;
  events: WorkoutDetailT['events'] | null;
  activities: WorkoutDetailT['activities'] | null;
}

const WORKOUT_DETAIL = prepared(
  `SELECT ${WORKOUT_SUMMARY_COLUMNS}, w.statistics, w.events, w.activities
   FROM workouts w
   WHERE w.uuid = $2 AND w.user_id = $1`,
);

/** One workout of the user (uuid lowercase), or undefined when missing or someone else's. */
export async function findWorkout(db: Db, userId: string, uuid: string): Promise<WorkoutDetailT | undefined> {
  const { rows } = await db.query<DetailRow>(WORKOUT_DETAIL([userId, uuid]));
  if (rows.length === 0) return undefined;
  // A jsonb null arrives as null too; absent detail reads as empty.
  const { statistics, events, activities, ...summary } = rows[0];
  return { ...summary, statisticsDetail: statistics ?? {}, events: events ?? [], activities: activities ?? [] };
}

export interface WorkoutBounds {
  uuid: string;
  start: number;
  end: number;
}

/** The workout's bounds, or undefined when missing or someone else's. */
export async function findWorkoutBounds(db: Db, userId: string, uuid: string): Promise<WorkoutBounds | undefined> {
  const { rows } = await db.query<WorkoutBounds>(
    `SELECT uuid::text AS uuid, start_ms AS start, end_ms AS "end" FROM workouts WHERE uuid = $2 AND user_id = $1`,
    [userId, uuid],
  );
  return rows[0];
}

export interface StreamRow {
  identifier: string;
  /** Epoch ms, read as float8 (exact below 2^53). */
  times: Float64Array;
  values: Float64Array;
}

/**
 * The workout's streams ordered by identifier; only `identifiers` when given
 * (those not recorded are simply absent).
 */
export async function workoutStreams(
  db: Db,
  userId: string,
  uuid: string,
  identifiers?: readonly string[],
): Promise<StreamRow[]> {
  // Arrays come in PostgreSQL's binary form and are decoded into Float64Arrays directly.
  const { rows } = await db.query<{ identifier: string; times: Buffer; values: Buffer }>(
    `SELECT t.identifier, array_send(s.times_ms::float8[]) AS times, array_send(s."values"::float8[]) AS "values"
     FROM workout_streams s JOIN sample_types t ON t.type_id = s.type_id
     WHERE s.workout_uuid = $2 AND s.user_id = $1 AND ($3::text[] IS NULL OR t.identifier = ANY ($3))
     ORDER BY t.identifier COLLATE "C"`,
    [userId, uuid, identifiers ?? null],
  );
  return rows.map((row) => ({ identifier: row.identifier, times: float8ArrayFromBinary(row.times), values: float8ArrayFromBinary(row.values) }));
}

export interface RouteWorkout extends WorkoutBounds {
  activityType: string;
  /** The stored route arrays (each empty when the workout has no route row); NULL elements read as NaN. */
  times: Float64Array;
  latitudes: Float64Array;
  longitudes: Float64Array;
  altitudes: Float64Array;
}

/** The workout's bounds and route arrays, or undefined when the workout is missing or someone else's. */
export async function findWorkoutRoute(db: Db, userId: string, uuid: string): Promise<RouteWorkout | undefined> {
  // One primary-key probe each; the arrays come in binary form, decoded straight into Float64Arrays.
  const { rows } = await db.query<WorkoutBounds & { activityType: string; times: Buffer | null; latitudes: Buffer | null; longitudes: Buffer | null; altitudes: Buffer | null }>(
    `SELECT w.uuid::text AS uuid, w.start_ms AS start, w.end_ms AS "end", w.activity_type AS "activityType",
            array_send(r.times_ms::float8[]) AS times, array_send(r.latitudes) AS latitudes,
            array_send(r.longitudes) AS longitudes, array_send(r.altitudes_m) AS altitudes
     FROM workouts w LEFT JOIN workout_routes r ON r.workout_uuid = w.uuid AND r.user_id = w.user_id
     WHERE w.uuid = $2 AND w.user_id = $1`,
    [userId, uuid],
  );
  if (rows.length === 0) return undefined;
  const { times, latitudes, longitudes, altitudes, ...workout } = rows[0];
  const decode = (bytes: Buffer | null) => (bytes ? float8ArrayFromBinary(bytes) : new Float64Array(0));
  return { ...workout, times: decode(times), latitudes: decode(latitudes), longitudes: decode(longitudes), altitudes: decode(altitudes) };
}
