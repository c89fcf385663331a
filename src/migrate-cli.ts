// `npm run migrate`: applies the schema to DATABASE_URL (idempotent, versioned).
import { applyMigrations } from './db/migrate.js';

const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('healthd migrate: DATABASE_URL must be set (the database to migrate)\n');
  process.exit(1);
}
try {
  const applied = await applyMigrations(url, (line) => process.stdout.write(line + '\n'));
  process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'schema is up to date\n');
} catch (error) {
  process.stderr.write(`healthd migrate: ${(error as Error).message}\n`);
  process.exit(1);
}
