// The demo's database work besides the bulk rows (which stream in through
// COPY): one transaction claims the time zone, registers the demo's sample
// types and sources, and replaces its users — all through src/db/writes.
import pg from 'pg';
import { analyzeTables as analyze, replaceUsers } from '../db/writes/demo.js';
import { recountSamples } from '../db/writes/sample-counts.js';
import { claimTimeZone, registerSources, registerTypes } from '../db/writes/setup.js';
import type { Persona } from './persona.js';
import type { SourceKey } from './samples.js';

const SOURCES: Readonly<Record<SourceKey, { name: string; device: string }>> = {
  watch: { name: 'Apple Watch', device: 'Watch7,3' },
  phone: { name: 'iPhone', device: 'iPhone15,2' },
  oura: { name: 'Oura', device: '' },
};

/** The ids the demo's rows carry. */
export interface DemoIds {
  typeIds: Map<string, number>;
  sourceIds: Record<SourceKey, number>;
}

export interface UserRow {
  persona: Persona;
  createdAtMs: number;
  withProfile: boolean;
}

export async function prepareDatabase(connectionString: string, timeZone: string, identifiers: readonly string[], users: readonly UserRow[]): Promise<DemoIds> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('BEGIN');
    const stored = await claimTimeZone(client, timeZone);
    if (stored !== timeZone) {
      throw new Error(`the database's days are cut in ${stored}, not ${timeZone}: generate the demo for ${stored} or use another database`);
    }
    const typeIds = await registerTypes(client, identifiers);
    const keys = Object.keys(SOURCES) as SourceKey[];
    const sources = await registerSources(client, keys.map((k) => SOURCES[k]));
    const sourceIds = Object.fromEntries(
      keys.map((k) => [k, sources.find((r) => r.name === SOURCES[k].name && r.device === SOURCES[k].device)?.sourceId as number]),
    ) as Record<SourceKey, number>;
    await replaceUsers(
      client,
      users.map((u) => ({
        userId: u.persona.userId,
        createdAtMs: u.createdAtMs,
        profile: u.withProfile ? { name: u.persona.name, email: u.persona.email, dateOfBirthMs: u.persona.dateOfBirthMs, biologicalSex: u.persona.biologicalSex } : null,
      })),
    );
    await client.query('COMMIT');
    return { typeIds, sourceIds };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** The users' samples counted (the demo's COPY skips the counting triggers), and fresh planner statistics, once millions of rows have arrived. */
export async function analyzeTables(connectionString: string, userIds: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await recountSamples(client, userIds);
    await analyze(client);
  } finally {
    await client.end();
  }
}
