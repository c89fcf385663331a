// The demo generator's SQL: the tables and columns its COPY connections fill
// (rows stream in as text, src/demo/copy-writer.ts), replacing its users
// (what an earlier run wrote for the same users goes first), and fresh
// planner statistics afterwards. Zone, users' names and types go through
// setup.ts like every writer's. The importer drops users the same way to
// replace the embedded database's demo with the first real import.
import type pg from 'pg';
import { holdsDataSql, replaceTimeZone } from './setup.js';

/** Per table, the columns the demo's COPY rows carry, in order. */
export const DEMO_COPY_COLUMNS = {
  samples: ['user_id', 'uuid', 'type_id', 'start_ms', 'end_ms', 'value', 'source_id', 'metadata'],
  daily_aggregates: ['user_id', 'type_id', 'day', 'sum', 'avg', 'min', 'max'],
  activity_summaries: [
    'user_id', 'day', 'move_kcal', 'move_goal_kcal', 'exercise_min', 'exercise_goal_min',
    'stand_hours', 'stand_goal_hours', 'move_time_min', 'move_time_goal_min', 'move_mode',
  ],
  workouts: [
    'user_id', 'uuid', 'activity_type', 'start_ms', 'end_ms', 'duration_s', 'distance_m', 'energy_kcal',
    'source_id', 'statistics', 'events', 'activities', 'metadata',
  ],
  workout_streams: ['user_id', 'workout_uuid', 'type_id', 'times_ms', 'values'],
  workout_routes: ['user_id', 'workout_uuid', 'times_ms', 'latitudes', 'longitudes', 'altitudes_m'],
  state_of_mind: ['user_id', 'uuid', 'logged_at_ms', 'kind', 'valence', 'valence_classification', 'labels', 'associations'],
  upload_batches: ['user_id', 'received_at_ms', 'sample_count'],
} as const;

export type DemoTable = keyof typeof DEMO_COPY_COLUMNS;

/** Every per-user table, referencing tables last. */
export const PER_USER_TABLES = [
  'samples',
  'daily_aggregates',
  'activity_summaries',
  'workout_streams',
  'workout_routes',
  'workouts',
  'state_of_mind',
  'upload_batches',
  'profiles',
  'users',
] as const;

export interface DemoUser {
  userId: string;
  createdAtMs: number;
  profile: { name: string; email: string; dateOfBirthMs: number; biologicalSex: string } | null;
}

/** Drops these users and whatever is stored for them. */
export async function dropUsers(client: pg.ClientBase, userIds: readonly string[]): Promise<void> {
  for (const table of PER_USER_TABLES) await client.query(`DELETE FROM ${table} WHERE user_id = ANY($1::uuid[])`, [userIds]);
}

/** Drops whatever is stored for these users, then inserts them and their profiles. */
export async function replaceUsers(client: pg.ClientBase, users: readonly DemoUser[]): Promise<void> {
  const userIds = users.map((u) => u.userId);
  await dropUsers(client, userIds);
  await client.query('INSERT INTO users (user_id, created_at_ms) SELECT * FROM unnest($1::uuid[], $2::bigint[])', [userIds, users.map((u) => u.createdAtMs)]);
  const profiled = users.filter((u) => u.profile !== null);
  await client.query(
    `INSERT INTO profiles (user_id, name, email, date_of_birth_ms, biological_sex, updated_at_ms)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::bigint[])`,
    [
      profiled.map((u) => u.userId),
      profiled.map((u) => u.profile!.name),
      profiled.map((u) => u.profile!.email),
      profiled.map((u) => u.profile!.dateOfBirthMs),
      profiled.map((u) => u.profile!.biologicalSex),
      profiled.map((u) => u.createdAtMs),
    ],
  );
}

/** Fresh planner statistics once millions of rows have arrived. */
export async function analyzeTables(client: pg.ClientBase): Promise<void> {
  await client.query('ANALYZE samples, daily_aggregates, activity_summaries, workouts, workout_streams, workout_routes, state_of_mind, upload_batches');
}

/**
 * Whether the database holds these users (the embedded demo's) and no other
 * user holds data: another user may be there with nothing stored (a phone's
 * first probe of the receiver makes its user and an upload row, no data).
 */
export async function holdsOnlyUsers(client: pg.ClientBase, userIds: readonly string[]): Promise<boolean> {
  const { rows } = await client.query<{ only: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM users WHERE user_id = ANY($1::uuid[]))
        AND NOT EXISTS (SELECT 1 FROM users u WHERE u.user_id <> ALL($1::uuid[]) AND ${holdsDataSql('u.user_id')}) AS only`,
    [userIds],
  );
  return rows[0].only;
}

/**
 * Whether the database holds these users and nothing else, and none of them
 * any data: a demo whose load was cut short (its users commit first, its
 * data after).
 */
export async function holdsOnlyEmptyUsers(client: pg.ClientBase, userIds: readonly string[]): Promise<boolean> {
  const { rows } = await client.query<{ empty: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM users)
        AND NOT EXISTS (SELECT 1 FROM users u WHERE u.user_id <> ALL($1::uuid[]) OR ${holdsDataSql('u.user_id')}) AS empty`,
    [userIds],
  );
  return rows[0].empty;
}

/** Of these users, the first one the database holds; else the first user it saw that holds data; else the first it saw; null when it holds none. */
export async function preferredUser(client: pg.ClientBase, preferred: readonly string[]): Promise<string | null> {
  const { rows } = await client.query<{ user_id: string }>(
    `SELECT u.user_id::text FROM users u
     ORDER BY array_position($1::uuid[], u.user_id) NULLS LAST, ${holdsDataSql('u.user_id')} DESC, u.created_at_ms, u.user_id LIMIT 1`,
    [preferred],
  );
  return rows[0]?.user_id ?? null;
}

/** Whether the database holds any user yet (the embedded start loads the demo into an empty one). */
export async function hasUsers(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM users) AS any');
  return rows[0].any;
}

/**
 * In one transaction: when these users hold all the data there is
 * (holdsOnlyUsers), drops them and stores `timeZone` as the zone that cuts
 * days (nothing is left that another zone cut). True when it did.
 */
export async function replaceOnlyUsers(client: pg.ClientBase, userIds: readonly string[], timeZone: string): Promise<boolean> {
  await client.query('BEGIN');
  try {
    const only = await holdsOnlyUsers(client, userIds);
    if (only) {
      await dropUsers(client, userIds);
      await replaceTimeZone(client, timeZone);
    }
    await client.query('COMMIT');
    return only;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
