// The zone the stored days were cut in must be the configured one: checked by
// `npm start` and `npm run mcp` before they serve anything.
import { ConfigError } from '../config.js';
import { storedTimeZone } from '../db/writes/setup.js';
import type { Services } from '../services.js';

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
  if (zone !== null && zone !== configured) {
    throw new ConfigError(`SERVICE_TIME_ZONE is ${configured} but the stored data was cut in ${zone}; set SERVICE_TIME_ZONE=${zone}`);
  }
}
