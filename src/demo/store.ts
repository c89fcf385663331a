// The demo's SQL: everything but the bulk rows (which stream in through COPY).
// One transaction checks the stored time zone, registers sample types and
// sources, drops what an earlier run wrote for the same users, and inserts the
// users and their profiles.
import pg from 'pg';
import type { Persona } from './persona.js';
import type { SourceKey } from './samples.js';

const SOURCES: Readonly<Record<SourceKey, { name: string; device: string }>> = {
  watch: { name: 'Apple Watch', device: 'Watch7,3' },
  phone: { name: 'iPhone', device: 'iPhone15,2' },
  oura: { name: 'Oura', device: '' },
};

const PER_USER_TABLES = [
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
];

export interface Catalog {
  typeIds: Map<string, number>;
  sourceIds: Record<SourceKey, number>;
}

export interface UserRow {
  persona: Persona;
  createdAtMs: number;
  withProfile: boolean;
}

export async function prepareDatabase(connectionString: string, timeZone: string, identifiers: readonly string[], users: readonly UserRow[]): Promise<Catalog> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`INSERT INTO settings (key, value) VALUES ('time_zone', $1) ON CONFLICT (key) DO NOTHING`, [timeZone]);
    const stored = (await client.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'time_zone'`)).rows[0].value;
    if (stored !== timeZone) {
      throw new Error(`the database's days are cut in ${stored}, not ${timeZone}: generate the demo for ${stored} or use another database`);
    }

    await client.query('INSERT INTO sample_types (identifier) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (identifier) DO NOTHING', [identifiers]);
    const types = await client.query<{ type_id: number; identifier: string }>(
      'SELECT type_id, identifier FROM sample_types WHERE identifier = ANY($1::text[])',
      [identifiers],
    );

    const keys = Object.keys(SOURCES) as SourceKey[];
    const names = keys.map((k) => SOURCES[k].name);
    const devices = keys.map((k) => SOURCES[k].device);
    await client.query('INSERT INTO sources (name, device) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (name, device) DO NOTHING', [names, devices]);
    const sources = await client.query<{ source_id: number; name: string; device: string }>(
      'SELECT source_id, name, device FROM sources WHERE (name, device) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
      [names, devices],
    );
    const sourceIds = Object.fromEntries(
      keys.map((k) => [k, sources.rows.find((r) => r.name === SOURCES[k].name && r.device === SOURCES[k].device)?.source_id as number]),
    ) as Record<SourceKey, number>;

    const userIds = users.map((u) => u.persona.userId);
    for (const table of PER_USER_TABLES) await client.query(`DELETE FROM ${table} WHERE user_id = ANY($1::uuid[])`, [userIds]);
    await client.query('INSERT INTO users (user_id, created_at_ms) SELECT * FROM unnest($1::uuid[], $2::bigint[])', [
      userIds,
      users.map((u) => u.createdAtMs),
    ]);
    const profiled = users.filter((u) => u.withProfile);
    await client.query(
      `INSERT INTO profiles (user_id, name, email, date_of_birth_ms, biological_sex, updated_at_ms)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::bigint[])`,
      [
        profiled.map((u) => u.persona.userId),
        profiled.map((u) => u.persona.name),
        profiled.map((u) => u.persona.email),
        profiled.map((u) => u.persona.dateOfBirthMs),
        profiled.map((u) => u.persona.biologicalSex),
        profiled.map((u) => u.createdAtMs),
      ],
    );
    await client.query('COMMIT');
    return { typeIds: new Map(types.rows.map((r) => [r.identifier, r.type_id])), sourceIds };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** Fresh planner statistics once millions of rows have arrived. */
export async function analyzeTables(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('ANALYZE samples, daily_aggregates, activity_summaries, workouts, workout_streams, workout_routes, state_of_mind, upload_batches');
  } finally {
    await client.end();
  }
}
