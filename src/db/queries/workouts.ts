// Workouts of one user: the newest-first page, one workout's detail, and its
// recorded streams as float8 arrays. The page walks the (user_id, start_ms
// DESC, uuid) index; a workout's route and streams are found by their primary
// keys (workout_uuid), so each page costs at most limit + offset index rows.
import { jsonNumber } from '../../core/json-text.js';
import { UUID_TEXT_LENGTH, uuidAt } from '../../core/uuid-text.js';
import { prepared, type Db, type PreparedStatement } from '../pool.js';
import { readPrepared } from '../prepared-read.js';
import { foldedRead, foldedRow, perResult } from '../fold.js';
import { float8ArrayFromSql, float8ArraySql } from '../binary-arrays.js';
import { typeLists, typeListsJson } from '../names.js';
import type { WorkoutDetailT, WorkoutSummaryT } from '../../schemas/resources.js';

// Summary fields of `w`, in WorkoutSummary's order. hasRoute is the route
// row's has_points (the storage contract's rule, kept by PostgreSQL: migration
// 5); the route test is a scalar subquery, not EXISTS: the planner may turn an
// EXISTS into a hash over every user's routes instead of one primary-key probe
// a row. The streams come as type ids, named and sorted from the per-pool cache
// (`typeLists`; the page's lists as JSON, `typeListsJson`): a join to
// sample_types costs PostgreSQL a hash of it per workout.
const WORKOUT_SUMMARY_COLUMNS = `
  w.uuid::text AS uuid, w.activity_type AS "activityType", w.start_ms AS start, w.end_ms AS "end",
  w.duration_s AS "durationS", w.distance_m AS "distanceM", w.energy_kcal AS "energyKcal",
  coalesce((SELECT r.has_points FROM workout_routes r WHERE r.workout_uuid = w.uuid AND r.user_id = w.user_id), false) AS "hasRoute",
  ARRAY(SELECT s.type_id FROM workout_streams s WHERE s.workout_uuid = w.uuid AND s.user_id = w.user_id) AS "availableMetrics"`;

/** A WorkoutSummary as a row of values, in its fields' order. */
export type WorkoutSummaryRow = [
  uuid: string,
  activityType: string,
  start: number,
  end: number,
  durationS: number | null,
  distanceM: number | null,
  energyKcal: number | null,
  hasRoute: boolean,
  availableMetrics: string[],
];

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

// One prepared statement per combination of filters given: each has a plan
// of its own (the activity type's index with one, the start index without).
const PAGE_STATEMENTS = new Map<string, (values: unknown[]) => PreparedStatement>();

/** The page's filters as SQL over $1…, their values (the user's first, limit and offset last) and types, and its shape. */
function pageFilter(userId: string, filter: WorkoutFilter) {
  const values: unknown[] = [userId];
  const types = ['uuid'];
  const where = ['w.user_id = $1'];
  const add = (condition: string, value: unknown, type: string) => {
    where.push(condition.replace('?', `$${values.push(value)}`));
    types.push(type);
  };
  if (filter.start !== undefined) add('w.start_ms >= ?', filter.start, 'bigint');
  if (filter.end !== undefined) add('w.start_ms < ?', filter.end, 'bigint');
  if (filter.activityType !== undefined) add('w.activity_type = ?', filter.activityType, 'text');
  const n = values.length;
  const page = (uuid: string) =>
    `SELECT ${uuid}${WORKOUT_SUMMARY_COLUMNS} FROM workouts w WHERE ${where.join(' AND ')} ORDER BY w.start_ms DESC, w.uuid LIMIT $${n + 1} OFFSET $${n + 2}`;
  const shape = `${filter.start !== undefined}:${filter.end !== undefined}:${filter.activityType !== undefined}`;
  return { page, values: [...values, filter.limit, filter.offset], types: [...types, 'bigint', 'bigint'], shape };
}

/** The page's statement and its values. */
function pageQuery(userId: string, filter: WorkoutFilter): PreparedStatement {
  const { page, values, shape } = pageFilter(userId, filter);
  let statement = PAGE_STATEMENTS.get(shape);
  if (!statement) PAGE_STATEMENTS.set(shape, (statement = prepared(page(''))));
  return statement(values);
}

// The page as one row of columns (PAGE_COLUMNS), one reader per shape: the
// requests of a turn fold into one statement (src/db/fold.ts).
const PAGE_COLUMN_READS = new Map<string, (db: Db, params: readonly unknown[]) => Promise<string[]>>();

function pageColumns(db: Db, userId: string, filter: WorkoutFilter): Promise<string[]> {
  const { page, values, types, shape } = pageFilter(userId, filter);
  let read = PAGE_COLUMN_READS.get(shape);
  if (!read) PAGE_COLUMN_READS.set(shape, (read = foldedRow<string[]>(PAGE_COLUMNS(page('w.uuid AS u, ')), types, 'array')));
  return read(db, values);
}

/** One page of a user's workouts, newest first (start_ms DESC, then uuid), as rows of values. */
async function workoutRows(db: Db, userId: string, filter: WorkoutFilter): Promise<WorkoutSummaryRow[]> {
  const rows = await readPrepared<WorkoutSummaryRow>(db, pageQuery(userId, filter), 'array');
  // The page holds the streams' type ids until they are named here.
  const metrics = await typeLists(db, rows.map((row) => row[8] as unknown as number[]));
  rows.forEach((row, i) => (row[8] = metrics[i]));
  return rows;
}

/** One page of a user's workouts, newest first, as objects. */
export async function listWorkouts(db: Db, userId: string, filter: WorkoutFilter): Promise<WorkoutSummaryT[]> {
  return (await workoutRows(db, userId, filter)).map(([uuid, activityType, start, end, durationS, distanceM, energyKcal, hasRoute, availableMetrics]) => ({
    uuid, activityType, start, end, durationS, distanceM, energyKcal, hasRoute, availableMetrics,
  }));
}

// The page as one row of columns, each in the page's order (the subquery's,
// so PostgreSQL sorts nothing again): the uuids' texts run together, the
// activity types as a JSON array, the numbers as binary float8 arrays (NULL
// read as NaN: JSON null; the ms are exact below 2^53), hasRoute as a string
// of t and f, and each workout's stream type ids as a list, the lists joined
// by ';'. Reading 50 rows of nine fields cost the main thread
// 0.26–0.38 ms; this row 0.08–0.14 ms, for 0.01–0.04 ms more of PostgreSQL
// (bench/RESULTS.md, issue 12).
const IN_PAGE_ORDER = 'ORDER BY p.start DESC, p.u';
const pageFloats = (column: string) => float8ArraySql(`coalesce(array_agg(p.${column}::float8 ${IN_PAGE_ORDER}), '{}')`);
/** The page's one row of columns, from its rows `page` (with the uuid as uuid `u`). */
const PAGE_COLUMNS = (page: string) => `
  SELECT coalesce(string_agg(p.u::text, '' ${IN_PAGE_ORDER}), ''),
         coalesce(json_agg(p."activityType" ${IN_PAGE_ORDER})::text, '[]'),
         ${['start', '"end"', '"durationS"', '"distanceM"', '"energyKcal"'].map(pageFloats).join(', ')},
         coalesce(string_agg(CASE WHEN p."hasRoute" THEN 't' ELSE 'f' END, '' ${IN_PAGE_ORDER}), ''),
         coalesce(string_agg(array_to_string(p."availableMetrics", ','), ';' ${IN_PAGE_ORDER}), '')
  FROM (${page}) p`;

/** /v1/workouts' body: the bytes JSON.stringify({ workouts: listWorkouts(…), nextOffset }) gives, built as text from one row of columns. */
export async function workoutsPageBody(db: Db, userId: string, filter: WorkoutFilter): Promise<string> {
  const [uuids, activityTypes, starts, ends, durations, distances, energies, hasRoute, streams] = await pageColumns(db, userId, filter);
  const count = uuids.length / UUID_TEXT_LENGTH;
  const types = JSON.parse(activityTypes) as string[];
  const [start, end, durationS, distanceM, energyKcal] = [starts, ends, durations, distances, energies].map(float8ArrayFromSql);
  const metrics = await typeListsJson(db, count === 0 ? [] : streams.split(';'));
  let body = '{"workouts":[';
  for (let i = 0; i < count; i++) {
    body +=
      (i === 0 ? '{"uuid":"' : ',{"uuid":"') +
      uuidAt(uuids, i) +
      '","activityType":' + JSON.stringify(types[i]) +
      ',"start":' + jsonNumber(start[i]) +
      ',"end":' + jsonNumber(end[i]) +
      ',"durationS":' + jsonNumber(durationS[i]) +
      ',"distanceM":' + jsonNumber(distanceM[i]) +
      ',"energyKcal":' + jsonNumber(energyKcal[i]) +
      (hasRoute.charCodeAt(i) === 116 /* t */ ? ',"hasRoute":true,"availableMetrics":' : ',"hasRoute":false,"availableMetrics":') +
      metrics[i] +
      '}';
  }
  return body + '],"nextOffset":' + (filter.offset + count) + '}';
}

interface DetailRow extends Omit<WorkoutSummaryT, 'availableMetrics'> {
  availableMetrics: number[];
  statistics: WorkoutDetailT['statisticsDetail'] | null;
  events: WorkoutDetailT['events'] | null;
  activities: WorkoutDetailT['activities'] | null;
}

// The detail requests of a turn fold into one statement (src/db/fold.ts). Each
// asked workout is looked up in a LATERAL subquery that is kept whole (OFFSET
// 0): its plan, planned once for any parameters (GENERIC_PLANS in
// src/db/pool.ts), probes the primary key for each, where a join's may hash
// the whole table (it did on the bench's 257 workouts).
const WORKOUT_DETAILS = prepared(
  `SELECT found.* FROM unnest($1::uuid[], $2::uuid[]) AS asked (user_id, uuid)
   CROSS JOIN LATERAL (
     SELECT ${WORKOUT_SUMMARY_COLUMNS}, w.statistics, w.events, w.activities, w.user_id::text AS owner
     FROM workouts w WHERE w.uuid = asked.uuid AND w.user_id = asked.user_id OFFSET 0) found`,
);

interface DetailKey {
  userId: string;
  uuid: string;
}

const workoutDetails = foldedRead<DetailKey, DetailRow | undefined>(async (db, keys) => {
  const rows = await readPrepared<DetailRow & { owner: string }>(db, WORKOUT_DETAILS([keys.map((k) => k.userId), keys.map((k) => k.uuid)]));
  const found = new Map<string, DetailRow>(rows.map((row) => [`${row.owner} ${row.uuid}`, row]));
  return keys.map((k) => found.get(`${k.userId} ${k.uuid}`));
});

/** What a detail row's requests share besides the row: its answer's bytes, once made (perResult). */
const detailBodies = perResult((_: DetailRow): { body?: Buffer } => ({}));

/**
 * One workout of the user (uuid lowercase) as its answer's bytes, JSON.stringify's of the
 * WorkoutDetail; undefined when missing or someone else's. The requests of a turn for one
 * workout share its row (src/db/fold.ts), and so the bytes, made and encoded once.
 */
export async function workoutDetailBody(db: Db, userId: string, uuid: string): Promise<Buffer | undefined> {
  const row = await workoutDetails(db, `${userId} ${uuid}`, { userId, uuid });
  if (row === undefined) return undefined;
  const shared = detailBodies(row);
  if (shared.body !== undefined) return shared.body;
  const [availableMetrics] = await typeLists(db, [row.availableMetrics]);
  // Each member named, in WorkoutDetail's order: rest and spread copies take V8's slow path (bench/RESULTS.md, 2026-12-07).
  // A jsonb null arrives as null too; absent detail reads as empty.
  const detail: WorkoutDetailT = {
    uuid: row.uuid, activityType: row.activityType, start: row.start, end: row.end, durationS: row.durationS, distanceM: row.distanceM,
    energyKcal: row.energyKcal, hasRoute: row.hasRoute, availableMetrics,
    statisticsDetail: row.statistics ?? {}, events: row.events ?? [], activities: row.activities ?? [],
  };
  return (shared.body ??= Buffer.from(JSON.stringify(detail)));
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
  // Arrays come in PostgreSQL's binary form (as base64) and are decoded into Float64Arrays directly.
  const { rows } = await db.query<{ identifier: string; times: string; values: string }>(
    `SELECT t.identifier, ${float8ArraySql(`s.times_ms::float8[]`)} AS times, ${float8ArraySql(`s."values"::float8[]`)} AS "values"
     FROM workout_streams s JOIN sample_types t ON t.type_id = s.type_id
     WHERE s.workout_uuid = $2 AND s.user_id = $1 AND ($3::text[] IS NULL OR t.identifier = ANY ($3))
     ORDER BY t.identifier COLLATE "C"`,
    [userId, uuid, identifiers ?? null],
  );
  return rows.map((row) => ({ identifier: row.identifier, times: float8ArrayFromSql(row.times), values: float8ArrayFromSql(row.values) }));
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
  // One primary-key probe each; the arrays come in binary form (as base64), decoded straight into Float64Arrays.
  const { rows } = await db.query<WorkoutBounds & { activityType: string; times: string | null; latitudes: string | null; longitudes: string | null; altitudes: string | null }>(
    `SELECT w.uuid::text AS uuid, w.start_ms AS start, w.end_ms AS "end", w.activity_type AS "activityType",
            ${float8ArraySql(`r.times_ms::float8[]`)} AS times, ${float8ArraySql(`r.latitudes`)} AS latitudes,
            ${float8ArraySql(`r.longitudes`)} AS longitudes, ${float8ArraySql(`r.altitudes_m`)} AS altitudes
     FROM workouts w LEFT JOIN workout_routes r ON r.workout_uuid = w.uuid AND r.user_id = w.user_id
     WHERE w.uuid = $2 AND w.user_id = $1`,
    [userId, uuid],
  );
  if (rows.length === 0) return undefined;
  const { times, latitudes, longitudes, altitudes, ...workout } = rows[0];
  const decode = (text: string | null) => (text ? float8ArrayFromSql(text) : new Float64Array(0));
  return { ...workout, times: decode(times), latitudes: decode(latitudes), longitudes: decode(longitudes), altitudes: decode(altitudes) };
}
