// What every writer (the Apple Health importer, the demo generator, the sync
// receiver) does before its rows: claim the time zone that cuts the stored
// days, make sure its users exist, and register the type identifiers and
// source names its rows refer to by small ids (storage contract:
// `sample_types`, `sources`). Registration is INSERT … ON CONFLICT DO NOTHING
// and then a read-back, so rows another writer made are reused, never doubled.
import type pg from 'pg';

type Queryable = pg.ClientBase | pg.Pool;

/**
 * Stores `timeZone` as the zone that cuts days when none is stored yet, and
 * answers the zone the database holds afterwards: the caller refuses to go on
 * when it is another one.
 */
export async function claimTimeZone(db: Queryable, timeZone: string): Promise<string> {
  await db.query(`INSERT INTO settings (key, value) VALUES ('time_zone', $1) ON CONFLICT (key) DO NOTHING`, [timeZone]);
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'time_zone'`);
  return rows[0].value;
}

/** The tables of a user's data (a user with none holds nothing a zone cut into days; an upload's bookkeeping aside). */
export const DATA_TABLES = ['samples', 'workouts', 'state_of_mind', 'daily_aggregates', 'activity_summaries', 'aggregate_buckets'] as const;

/** SQL true when any user holds rows in any of DATA_TABLES (one row read a table). */
const ANY_DATA_SQL = `(${DATA_TABLES.map((table) => `EXISTS (SELECT 1 FROM ${table})`).join(' OR ')})`;

/** SQL true when user `column` holds rows in any of DATA_TABLES (one index probe a table). */
export const holdsDataSql = (column: string): string => `(${DATA_TABLES.map((table) => `EXISTS (SELECT 1 FROM ${table} d WHERE d.user_id = ${column})`).join(' OR ')})`;

/**
 * The refusal of a SERVICE_TIME_ZONE other than the stored one, with the ways
 * out (`embedded`: the database is the embedded one of a data directory).
 * Read from `db`: whether any data is stored yet, for the way out a zone
 * stored before any data has (a server started without SERVICE_TIME_ZONE
 * stores UTC).
 */
export async function zoneMismatch(db: Queryable, configured: string, stored: string, embedded: boolean): Promise<string> {
  const elsewhere = embedded ? 'another data directory (HEALTHD_DATA_DIR) or your own PostgreSQL (DATABASE_URL)' : 'another database (DATABASE_URL)';
  const refusal = `SERVICE_TIME_ZONE is ${configured} but the stored days are cut in ${stored}: set SERVICE_TIME_ZONE=${stored} (or leave it unset), or use ${elsewhere}`;
  const { rows } = await db.query<{ holds: boolean }>(`SELECT ${ANY_DATA_SQL} AS holds`);
  if (rows[0].holds) return refusal;
  return `${refusal}. No data is stored yet, so the zone may still change: stop every healthd using this database, run \`DELETE FROM settings WHERE key = 'time_zone'\` as the schema's owner, and start again with SERVICE_TIME_ZONE=${configured}`;
}

/**
 * Forgets `timeZone` as the zone that cuts days while the database holds no
 * data cut in days by it: a first import that failed before storing anything
 * so leaves the choice to the next try. Answers whether it did.
 */
export async function releaseUnusedTimeZone(db: Queryable, timeZone: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM settings WHERE key = 'time_zone' AND value = $1 AND NOT ${ANY_DATA_SQL}`,
    [timeZone],
  );
  return rowCount === 1;
}

/** Stores `timeZone` as the zone that cuts days, whatever was stored: only for a database whose days are all gone (the embedded demo replaced). */
export async function replaceTimeZone(db: Queryable, timeZone: string): Promise<void> {
  await db.query(`INSERT INTO settings (key, value) VALUES ('time_zone', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [timeZone]);
}

/** The zone that cut the stored days, or null when the data carries none yet. */
export async function storedTimeZone(db: Queryable): Promise<string | null> {
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'time_zone'`);
  return rows[0]?.value ?? null;
}

/** Creates the users ($1, uuid[]) not seen before, first seen at $2 (epoch ms): a statement other writers' statements embed. */
export const ENSURE_USERS_SQL = 'INSERT INTO users (user_id, created_at_ms) SELECT unnest($1::uuid[]), $2 ON CONFLICT (user_id) DO NOTHING';

/** Creates the users not seen before, first seen at `nowMs`. */
export async function ensureUsers(db: Queryable, userIds: readonly string[], nowMs: number): Promise<void> {
  await db.query(ENSURE_USERS_SQL, [userIds, nowMs]);
}

export interface SourceName {
  name: string;
  device: string;
}

export interface SourceId extends SourceName {
  sourceId: number;
}

/** Every type identifier and source stored, with their ids. */
export async function storedNames(db: Queryable): Promise<{ types: Array<[identifier: string, typeId: number]>; sources: SourceId[] }> {
  const types = await db.query<{ type_id: number; identifier: string }>('SELECT type_id, identifier FROM sample_types');
  const sources = await db.query<{ source_id: number; name: string; device: string }>('SELECT source_id, name, device FROM sources');
  return {
    types: types.rows.map((row) => [row.identifier, row.type_id]),
    sources: sources.rows.map((row) => ({ name: row.name, device: row.device, sourceId: row.source_id })),
  };
}

/**
 * Registers the identifiers (new ones get an id) and answers the id of each.
 * Only the names not stored yet are inserted: `ON CONFLICT DO NOTHING` alone
 * takes an id from the sequence for every name it skips, and type ids are
 * smallints (32,767 of them).
 */
export async function registerTypes(db: Queryable, identifiers: readonly string[]): Promise<Map<string, number>> {
  if (identifiers.length === 0) return new Map();
  // Sorted inserts take the index's locks in one order: concurrent writers cannot deadlock.
  await db.query(
    `INSERT INTO sample_types (identifier)
     SELECT i FROM unnest($1::text[]) AS i WHERE NOT EXISTS (SELECT 1 FROM sample_types t WHERE t.identifier = i) ORDER BY 1
     ON CONFLICT (identifier) DO NOTHING`,
    [identifiers],
  );
  const { rows } = await db.query<{ type_id: number; identifier: string }>('SELECT type_id, identifier FROM sample_types WHERE identifier = ANY($1::text[])', [identifiers]);
  return new Map(rows.map((row) => [row.identifier, row.type_id]));
}

/**
 * A type identifier the registry does not know, registered only while the
 * table holds fewer than `heldMax` types: whoever holds an upload token cannot
 * use the smallint ids up with made-up identifiers (the receiver then drops
 * such lines, as the protocol allows). Its id, or null when there is no room.
 */
export async function registerUnknownType(pool: pg.Pool, identifier: string, heldMax: number): Promise<number | null> {
  const { rows } = await pool.query<{ type_id: number }>('SELECT type_id FROM sample_types WHERE identifier = $1', [identifier]);
  if (rows.length > 0) return rows[0].type_id;
  // Counted and inserted under one lock, so that batches registering at once cannot pass the limit together.
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('healthd.sample_types.held'))`);
    await client.query(
      `INSERT INTO sample_types (identifier)
       SELECT $1::text WHERE NOT EXISTS (SELECT 1 FROM sample_types WHERE identifier = $1) AND (SELECT count(*) FROM sample_types) < $2
       ON CONFLICT (identifier) DO NOTHING`,
      [identifier, heldMax],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  const { rows: after } = await pool.query<{ type_id: number }>('SELECT type_id FROM sample_types WHERE identifier = $1', [identifier]);
  return after[0]?.type_id ?? null;
}

/** Registers the sources (new ones get an id) and answers each with its id. */
export async function registerSources(db: Queryable, sources: readonly SourceName[]): Promise<SourceId[]> {
  if (sources.length === 0) return [];
  const names = sources.map((source) => source.name);
  const devices = sources.map((source) => source.device);
  await db.query(
    `INSERT INTO sources (name, device)
     SELECT * FROM unnest($1::text[], $2::text[]) AS wanted (name, device)
     WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.name = wanted.name AND s.device = wanted.device) ORDER BY 1, 2
     ON CONFLICT (name, device) DO NOTHING`,
    [names, devices],
  );
  const { rows } = await db.query<{ source_id: number; name: string; device: string }>(
    'SELECT s.source_id, s.name, s.device FROM sources s JOIN unnest($1::text[], $2::text[]) AS wanted (name, device) USING (name, device)',
    [names, devices],
  );
  return rows.map((row) => ({ name: row.name, device: row.device, sourceId: row.source_id }));
}
