// Applies the versioned migrations in order, once each, under an advisory
// lock so two processes migrating at once cannot interleave; then the roles
// and their grants, every time (ROLES_SQL: a run by a login that may create
// roles makes the ones an earlier run had to skip).
import pg from 'pg';
import { migrations, READ_ROLE, ROLES_SQL, WRITER_ROLE } from './migrations.js';

/** The advisory lock migrations run under (a test holds it to stop a command before its work begins). */
export const MIGRATION_LOCK = 7_201_113;

export async function applyMigrations(connectionString: string, log: (line: string) => void = () => {}): Promise<number[]> {
  const client = new pg.Client({ connectionString });
  // Only our own notices (e.g. a skipped role), each once; not PostgreSQL's "already exists, skipping".
  const said = new Set<string>();
  client.on('notice', (notice) => {
    if (notice.message?.startsWith('healthd:') && !said.has(notice.message)) {
      said.add(notice.message);
      log(`migrate: ${notice.message}`);
    }
  });
  await client.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set<number>((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(migration.version);
      log(`migrate: applied ${migration.version} ${migration.name}`);
    }
    await client.query(ROLES_SQL);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
  return applied;
}

/** The roles the migrations make that the database lacks (the migrating login could not create them). */
export async function missingRoles(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'SELECT name FROM unnest($1::text[]) AS r (name) WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r.name) ORDER BY name',
      [[READ_ROLE, WRITER_ROLE]],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

export const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * What to add to a refusal from a command that writes the schema's tables
 * (migrate, import, tokens, demo) when the login may not: the way out. Empty
 * for any other error.
 */
/** What a failed connection or statement says, for a one-line refusal: PostgreSQL's words and its code (never the connection string). */
export function databaseFailure(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const words = typeof message === 'string' && message !== '' ? message : 'no answer';
  return typeof code === 'string' ? `${words}, ${code}` : words;
}

export function ownerLoginHint(error: unknown): string {
  return (error as { code?: unknown }).code === INSUFFICIENT_PRIVILEGE
    ? ' (run it with the login that ran `npm run migrate`, the schema\'s owner, not the server\'s read or receiver login)'
    : '';
}
