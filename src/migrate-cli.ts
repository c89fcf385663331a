// `npm run migrate`: applies the schema to DATABASE_URL (idempotent, versioned).
import { ConfigError, loadDatabaseUrl } from './config.js';
import { applyMigrations } from './db/migrate.js';

try {
  const url = loadDatabaseUrl();
  const applied = await applyMigrations(url, (line) => process.stdout.write(line + '\n'));
  process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'schema is up to date\n');
} catch (error) {
  process.stderr.write(`healthd migrate: ${(error as Error).message}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
