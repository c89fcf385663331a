// Where writers (migrate, demo, import) and `npm start` find a database they
// may write: DATABASE_URL when set, otherwise the embedded cluster under the
// data directory (started here, stopped by close()).
import { ConfigError, type DatabaseSettings } from '../config.js';
import { startEmbeddedDatabase } from './embedded.js';

export interface DatabaseHandle {
  /** Connection string with write access (superuser for the embedded cluster). */
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export async function openWritableDatabase(settings: DatabaseSettings, log: (line: string) => void = () => {}): Promise<DatabaseHandle> {
  if (settings.url) return { url: settings.url, embedded: false, close: async () => {} };
  const db = await startEmbeddedDatabase({ dir: settings.dataDir, port: settings.embeddedPort, log }).catch((error: Error) => {
    // Another program on the port: a setting to change, said in one line as the other ports' are.
    if (/could not bind .*Address already in use/is.test(error.message)) {
      throw new ConfigError(`EMBEDDED_PG_PORT ${settings.embeddedPort} is in use by another program: set EMBEDDED_PG_PORT to a free port`);
    }
    throw error;
  });
  return { url: db.adminUrl, embedded: true, close: () => db.stop() };
}
