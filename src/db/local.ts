// Where writers (migrate, demo, import) and `npm start` find their database:
// DATABASE_URL when set, otherwise the embedded cluster under ./data.
import { resolve } from 'node:path';
import { startEmbeddedDatabase } from './embedded.js';

export const DEFAULT_DATA_DIR = resolve(process.env.HEALTHD_DATA_DIR ?? 'data');
export const DEFAULT_EMBEDDED_PORT = 54329;

export interface DatabaseHandle {
  /** Connection string with write access (superuser for the embedded cluster). */
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export async function writableDatabase(log: (line: string) => void = () => {}): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (url) return { url, embedded: false, close: async () => {} };
  const port = Number(process.env.EMBEDDED_PG_PORT ?? DEFAULT_EMBEDDED_PORT);
  const db = await startEmbeddedDatabase({ dir: DEFAULT_DATA_DIR, port, log });
  return { url: db.adminUrl, embedded: true, close: () => db.stop() };
}
