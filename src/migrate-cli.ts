// `npm run migrate`: applies the schema to DATABASE_URL (idempotent, versioned).
import { ConfigError, loadDatabaseUrl } from './config.js';
import { applyMigrations, INSUFFICIENT_PRIVILEGE, missingRoles } from './db/migrate.js';

try {
  const url = loadDatabaseUrl();
  const applied = await applyMigrations(url, (line) => process.stdout.write(line + '\n'));
  process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'schema is up to date\n');
  const missing = await missingRoles(url);
  if (missing.length > 0) {
    // The schema is there, but the logins README gives the server cannot be made without these roles.
    process.stderr.write(
      `healthd migrate: the roles ${missing.join(' and ')} are missing: this login may not create roles. ` +
        `Run \`npm run migrate\` once as the schema's owner with CREATEROLE (or a superuser), or have one run ` +
        `${missing.map((role) => `CREATE ROLE ${role} NOLOGIN;`).join(' ')} and run \`npm run migrate\` again to grant them.\n`,
    );
    process.exit(1);
  }
} catch (error) {
  const hint = (error as { code?: unknown }).code === INSUFFICIENT_PRIVILEGE ? ' (run it as the schema\'s owner, the login that owns the database or ran the first migration, not the server\'s read or receiver login)' : '';
  process.stderr.write(`healthd migrate: ${(error as Error).message}${hint}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
