// Applies the versioned migrations in order, once each, under an advisory
// lock so two processes migrating at once cannot interleave.
import pg from 'pg';
import { migrations } from './migrations.js';

const MIGRATION_LOCK = 7_201_113;

export async function applyMigrations(connectionString: string, log: (line: string) => void = () => {}): Promise<number[]> {
  const client = new pg.Client({ connectionString });
  // Only our own notices (e.g. a skipped role); not PostgreSQL's "already exists, skipping".
  client.on('notice', (notice) => {
    if (notice.message?.startsWith('healthd:')) log(`migrate: ${notice.message}`);
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
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
  return applied;
}
