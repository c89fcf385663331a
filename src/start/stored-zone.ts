// The zone the stored days were cut in must be the configured one: checked by
// `npm start` and `npm run mcp` before they serve anything. Where
// SERVICE_TIME_ZONE is unset they follow the stored zone instead.
import pg from 'pg';
import { ConfigError } from '../config.js';
import { storedTimeZone, zoneMismatch } from '../db/writes/setup.js';
import type { Services } from '../services.js';
import { sameZone } from '../core/local-days.js';

/** Refuses with the way out when the stored zone differs, or the database has no schema or cannot be read. */
export async function checkStoredZone(services: Services): Promise<void> {
  let zone: string | null;
  try {
    zone = await storedTimeZone(services.pool);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '42P01') throw new ConfigError('DATABASE_URL has no healthd schema; run `npm run migrate` first');
    throw new ConfigError(`DATABASE_URL: cannot read the database (${code ?? (error as Error).message})`);
  }
  const configured = services.config.timeZone;
  if (zone !== null && !sameZone(zone, configured)) {
    throw new ConfigError(zoneMismatch(configured, zone, !services.config.database.url));
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
