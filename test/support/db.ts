// Throwaway databases for tests. `npm test` (test/run.ts) starts one embedded
// cluster and migrates a template database; each test file clones the template
// into a fresh database of its own. Run alone, a file starts its own cluster.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/migrate.js';

export const TEMPLATE_DB = 'healthd_template';
const ADMIN_ENV = 'HEALTHD_TEST_PG_ADMIN';

let ownCluster: { db: EmbeddedDatabase; dir: string } | null = null;

export function tmpRoot(): string {
  const root = join(process.cwd(), '.tmp');
  mkdirSync(root, { recursive: true });
  return root;
}

export function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = '/' + database;
  return url.toString();
}

export async function prepareTemplate(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  await applyMigrations(withDatabase(adminUrl, TEMPLATE_DB));
}

async function clusterAdminUrl(): Promise<string> {
  const fromRunner = process.env[ADMIN_ENV];
  if (fromRunner) return fromRunner;
  if (!ownCluster) {
    const dir = mkdtempSync(join(tmpRoot(), 'pg-'));
    const db = await startEmbeddedDatabase({ dir, unsafeFast: true });
    await prepareTemplate(db.adminUrl);
    ownCluster = { db, dir };
    process.env[ADMIN_ENV] = db.adminUrl;
  }
  return ownCluster.db.adminUrl;
}

export interface TestDatabase {
  /** Superuser URL of this test's own database (for fixtures). */
  url: string;
  name: string;
  adminUrl: string;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** A fresh database with the schema applied. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = await clusterAdminUrl();
  const name = 't_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // DROP DATABASE ... WITH (FORCE) ends sessions; an idle client's error must not crash the test.
  pool.on('error', () => {});
  return {
    url,
    name,
    adminUrl,
    async query(sql, params) {
      return (await pool.query(sql, params)).rows;
    },
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Stops the cluster a file started for itself (no-op under test/run.ts). */
export async function stopOwnCluster(): Promise<void> {
  if (!ownCluster) return;
  await ownCluster.db.stop();
  rmSync(ownCluster.dir, { recursive: true, force: true });
  ownCluster = null;
}

/**
 * What the stored counts get wrong, [] when every count is right: users and
 * types whose sample count (migration 6: the sum of sample_counts) differs
 * from the samples stored, as 'samples user type counted stored', and users
 * whose upload totals (migration 7: the sums of upload_totals) differ from
 * their upload_batches rows, as 'uploads user batches samples counted, stored'.
 */
export async function countMismatches(db: Pick<TestDatabase, 'query'>): Promise<string[]> {
  const samples = await db.query<{ k: string }>(
    `SELECT 'samples ' || coalesce(c.user_id, s.user_id) || ' ' || coalesce(c.type_id, s.type_id) || ' ' || coalesce(c.n, 0) || ' ' || coalesce(s.n, 0) AS k
     FROM (SELECT user_id, type_id, sum(n) AS n FROM sample_counts GROUP BY user_id, type_id HAVING sum(n) <> 0) c
     FULL JOIN (SELECT user_id, type_id, count(*) AS n FROM samples GROUP BY user_id, type_id) s ON s.user_id = c.user_id AND s.type_id = c.type_id
     WHERE c.n IS DISTINCT FROM s.n
     ORDER BY 1`,
  );
  const uploads = await db.query<{ k: string }>(
    `SELECT 'uploads ' || coalesce(t.user_id, b.user_id) || ' ' || coalesce(t.batches, 0) || ' ' || coalesce(t.samples, 0) || ', ' || coalesce(b.batches, 0) || ' ' || coalesce(b.samples, 0) AS k
     FROM (SELECT user_id, sum(batches) AS batches, sum(samples) AS samples FROM upload_totals GROUP BY user_id HAVING sum(batches) <> 0 OR sum(samples) <> 0) t
     FULL JOIN (SELECT user_id, count(*) AS batches, coalesce(sum(sample_count), 0) AS samples FROM upload_batches GROUP BY user_id) b ON b.user_id = t.user_id
     WHERE t.batches IS DISTINCT FROM b.batches OR t.samples IS DISTINCT FROM b.samples
     ORDER BY 1`,
  );
  return [...samples, ...uploads].map((row) => row.k);
}

/** Registers the file's hooks: before, a fresh database (`db`, set once `before` ran); after, it dropped and the file's own cluster stopped. */
export function fileDatabase(): { db: TestDatabase } {
  const state = {} as { db: TestDatabase };
  before(async () => {
    state.db = await createTestDatabase();
  });
  after(async () => {
    await state.db?.drop();
    await stopOwnCluster();
  });
  return state;
}

/** A test file's own database and one client on it, both set once `before` ran. */
export interface DatabaseWithClient {
  db: TestDatabase;
  client: pg.Client;
}

/**
 * Registers the file's hooks: before, a fresh database (then `setup`, e.g.
 * its sample types) and a connected client; after, the client ended, the
 * database dropped and the file's own cluster stopped.
 */
export function databaseWithClient(setup: (db: TestDatabase) => Promise<unknown>): DatabaseWithClient {
  const state = {} as DatabaseWithClient;
  before(async () => {
    state.db = await createTestDatabase();
    await setup(state.db);
    state.client = new pg.Client({ connectionString: state.db.url });
    await state.client.connect();
  });
  after(async () => {
    await state.client?.end();
    await state.db?.drop();
    await stopOwnCluster();
  });
  return state;
}
