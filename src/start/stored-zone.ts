// The zone the stored days were cut in must be the configured one: checked by
// `npm start` and `npm run mcp` before they serve anything. Where
// SERVICE_TIME_ZONE is unset they follow the stored zone instead.
import pg from 'pg';
import { ConfigError } from '../config.js';
import { databaseFailure } from '../db/migrate.js';
import { log } from '../log.js';
import { storedTimeZone, zoneMismatch } from '../db/writes/setup.js';
import type { Services } from '../services.js';
import { sameZone } from '../core/local-days.js';

/** Your own PostgreSQL: a read API login that may write (the schema's owner, a superuser) is said once listening; its sessions stay read-only. */
export async function warnIfLoginWrites(services: Services): Promise<void> {
  if (!services.config.database.url) return;
  const writes = await services.pool.query<{ writes: boolean }>(`SELECT has_table_privilege('samples', 'INSERT') AS writes`).then(
    ({ rows }) => rows[0].writes,
    () => false, // a database that cannot say now is the routes' and /healthz's to report
  );
  if (writes) {
    log.warn("DATABASE_URL's login may write the tables (the schema's owner or a superuser): the read API's sessions are read-only whatever the login, but give it a login of its own in healthd_reader (README: Your own PostgreSQL)");
  }
}

/** Refuses with the way out when the stored zone differs, or the database has no schema or cannot be read. */
export async function checkStoredZone(services: Services): Promise<void> {
  let zone: string | null;
  try {
    zone = await storedTimeZone(services.pool);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '42P01') throw new ConfigError('DATABASE_URL has no healthd schema; run `npm run migrate` first');
    throw new ConfigError(`DATABASE_URL: cannot read the database (${databaseFailure(error)})`);
  }
  const configured = services.config.timeZone;
  if (zone !== null && !sameZone(zone, configured)) {
    throw new ConfigError(await zoneMismatch(services.pool, configured, zone, !services.config.database.url));
  }
}

/**
 * The zone to cut days in: SERVICE_TIME_ZONE when set; else the one stored in
 * the database at `databaseUrl`, or `configured` (UTC) when none is stored or
 * the database cannot say (checkStoredZone then says why). A connect timeout
 * of 0 waits as long as the connection takes (a database just reached).
 */
export async function servingZone(setting: { timeZone: string; timeZoneSet: boolean }, databaseUrl: string, connectTimeoutMs = 0): Promise<string> {
  if (setting.timeZoneSet) return setting.timeZone;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: connectTimeoutMs });
  try {
    await client.connect();
    return (await storedTimeZone(client)) ?? setting.timeZone;
  } catch {
    return setting.timeZone;
  } finally {
    await client.end().catch(() => {});
  }
}
