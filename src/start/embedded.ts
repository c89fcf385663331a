// `npm start` with no DATABASE_URL: the embedded PostgreSQL under the data
// directory, made ready to serve — migrated, demo data loaded once into an
// empty database, a login role that can only read (the API's sessions), one
// with the writer role (the sync receiver's), and the secrets it needs kept
// in files of the data directory (mode 0600), made once and reused on every
// later start: the database passwords, the read token and the upload token.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { checkSecret, type Config } from '../config.js';
import { applyMigrations } from '../db/migrate.js';
import { READ_ROLE, WRITER_ROLE } from '../db/migrations.js';
import { ensureLoginRole } from '../db/roles.js';
import { embeddedUrl, runningClusterPort, secretFile } from '../db/embedded.js';
import { openWritableDatabase, type DatabaseHandle } from '../db/writable-database.js';
import { hasUsers, holdsOnlyEmptyUsers, preferredUser, replaceOnlyUsers } from '../db/writes/demo.js';
import { storedTimeZone } from '../db/writes/setup.js';
import { demoUserId } from '../demo/ids.js';
import { log } from '../log.js';
import { sameZone } from '../core/local-days.js';

/** The demo an empty embedded database gets. */
export const EMBEDDED_DEMO = { users: 3, days: 90, seed: 1 } as const;
const API_LOGIN_ROLE = 'healthd_api';
const INGEST_LOGIN_ROLE = 'healthd_ingest';

export interface EmbeddedServing {
  database: DatabaseHandle;
  /** The read-only login for the API's pools. */
  readUrl: string;
  apiToken: string;
  defaultUserId: string;
  /** The writer login for the receiver's pool. */
  ingestUrl: string;
  /** SERVICE_UPLOAD_TOKEN, or the one generated in the data directory. */
  uploadToken: string;
}

/** A secret kept in the data directory (secretFile); a token file holds to its setting's rules. */
export function dataDirSecret(config: Config, name: string, setting?: string): Promise<string> {
  const file = join(config.database.dataDir, name);
  return secretFile(file, (line) => log.warn(line), setting ? (value) => checkSecret(`${file} (${setting})`, value) : undefined);
}

/** The embedded demo's users, first the one served by default. */
export const embeddedDemoUsers = (): string[] => Array.from({ length: EMBEDDED_DEMO.users }, (_, i) => demoUserId(EMBEDDED_DEMO.seed, i));

/** The demo's first user while the demo is there; once a real import replaced it, the first user stored that holds data. */
async function embeddedDefaultUser(client: pg.ClientBase): Promise<string> {
  const demo = embeddedDemoUsers()[0];
  return (await preferredUser(client, [demo])) ?? demo;
}

export async function prepareEmbedded(config: Config): Promise<EmbeddedServing> {
  const database = await openWritableDatabase(config.database, (line) => log.info(line));
  try {
    await applyMigrations(database.url, (line) => log.info(line));
    // Demo code is only needed here, so production starts never load it.
    const { generateDemo } = await import('../demo/generate.js');
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    let readUrl: URL;
    let defaultUserId = config.defaultUserId;
    let ingestUrl: URL;
    try {
      const loadDemo = async (why: string, timeZone = config.timeZone) => {
        log.info(why, EMBEDDED_DEMO);
        const result = await generateDemo(database.url, { ...EMBEDDED_DEMO, timeZone });
        log.info('demo data loaded', { samples: result.samples, seconds: result.seconds });
      };
      if (!(await hasUsers(admin))) {
        await loadDemo('loading demo data (once, into the empty embedded database)');
      } else if (await holdsOnlyEmptyUsers(admin, embeddedDemoUsers())) {
        // A first start stopped while the demo loaded: its users are there, their data is not. Made again in the zone it claimed, unless one is set now.
        const zone = config.timeZoneSet ? config.timeZone : ((await storedTimeZone(admin)) ?? config.timeZone);
        await replaceOnlyUsers(admin, embeddedDemoUsers(), zone);
        await loadDemo('loading demo data again (its first load was cut short)', zone);
      } else if (config.timeZoneSet && !sameZone(await storedTimeZone(admin), config.timeZone) && (await replaceOnlyUsers(admin, embeddedDemoUsers(), config.timeZone))) {
        // Nothing but the demo was cut in the stored zone: it gives way to the zone now set, as it does to a first import.
        await loadDemo(`the demo data was cut in another zone: making it again in ${config.timeZone} (SERVICE_TIME_ZONE)`);
      }
      const password = await dataDirSecret(config, 'api-db-password');
      await ensureLoginRole(admin, API_LOGIN_ROLE, password, READ_ROLE);
      readUrl = new URL(database.url);
      readUrl.username = API_LOGIN_ROLE;
      readUrl.password = password;
      defaultUserId ??= await embeddedDefaultUser(admin);
      const ingestPassword = await dataDirSecret(config, 'ingest-db-password');
      await ensureLoginRole(admin, INGEST_LOGIN_ROLE, ingestPassword, WRITER_ROLE);
      ingestUrl = new URL(database.url);
      ingestUrl.username = INGEST_LOGIN_ROLE;
      ingestUrl.password = ingestPassword;
    } finally {
      await admin.end();
    }
    return {
      database,
      readUrl: readUrl.toString(),
      apiToken: config.apiToken ?? (await dataDirSecret(config, 'api-token', 'SERVICE_API_TOKEN')),
      defaultUserId,
      ingestUrl: config.ingest.databaseUrl ?? ingestUrl.toString(),
      uploadToken: config.ingest.uploadToken ?? (await dataDirSecret(config, 'upload-token', 'SERVICE_UPLOAD_TOKEN')),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * `npm run mcp` beside a running `npm start`: the embedded cluster that process
 * started, read through the same login with the same token and default user;
 * null when no cluster is running there (then prepareEmbedded starts it).
 */
export async function attachRunningEmbedded(config: Config): Promise<Pick<EmbeddedServing, 'readUrl' | 'apiToken' | 'defaultUserId'> | null> {
  const passwordFile = join(config.database.dataDir, 'api-db-password');
  const port = runningClusterPort(config.database.dataDir);
  if (port === null || !existsSync(passwordFile)) return null;
  const readUrl = embeddedUrl(config.database.dataDir, port, API_LOGIN_ROLE, (await readFile(passwordFile, 'utf8')).trim());
  const reader = new pg.Client({ connectionString: readUrl, connectionTimeoutMillis: config.dbConnectTimeoutMs });
  let defaultUserId: string;
  try {
    await reader.connect();
    defaultUserId = config.defaultUserId ?? (await embeddedDefaultUser(reader));
  } catch {
    return null;
  } finally {
    await reader.end().catch(() => {});
  }
  return { readUrl, apiToken: config.apiToken ?? (await dataDirSecret(config, 'api-token', 'SERVICE_API_TOKEN')), defaultUserId };
}
