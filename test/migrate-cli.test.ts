// `npm run migrate`: applies the versioned schema to DATABASE_URL once, is a
// no-op the second time, and refuses to run without DATABASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.js';
import { createTestDatabase, stopOwnCluster, withDatabase } from './support/db.js';
import { migrations } from '../src/db/migrations.js';

const CLI = join(process.cwd(), 'dist', 'src', 'migrate-cli.js');

function runMigrate(env: Record<string, string | undefined>) {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DATABASE_URL') merged[k] = v;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  return spawnSync(process.execPath, [CLI], { env: merged, encoding: 'utf8' });
}

test('migrate applies every version once, then reports the schema up to date', async () => {
  const holder = await createTestDatabase(); // only to reach the cluster
  const name = 'm_' + holder.name.slice(2);
  const admin = new pg.Client({ connectionString: holder.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(holder.adminUrl, name);
  try {
    const first = runMigrate({ DATABASE_URL: url });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`applied migrations ${migrations.map((m) => m.version).join(', ')}`));
    const second = runMigrate({ DATABASE_URL: url });
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /schema is up to date/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tables = (await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((r) => r.tablename);
    await client.end();
    for (const table of ['activity_summaries', 'daily_aggregates', 'profiles', 'sample_types', 'samples', 'settings', 'sources', 'state_of_mind', 'upload_batches', 'users', 'workout_routes', 'workout_streams', 'workouts']) {
      assert.ok(tables.includes(table), table);
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await holder.drop();
    await stopOwnCluster();
  }
});

test('a database owner that may not create roles: migrate applies the schema, then fails naming the roles and the way out; once it may, migrate makes and grants them', { timeout: 120_000 }, async () => {
  // A cluster of its own: the shared test cluster has the roles already.
  const dir = mkdtempSync(join(tmpdir(), 'healthd-roles-'));
  const cluster = await startEmbeddedDatabase({ dir, port: await freePort(), unsafeFast: true });
  try {
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE owner LOGIN PASSWORD 'owner-password'`);
      await admin.query('CREATE DATABASE health OWNER owner');
      await admin.query(`ALTER SCHEMA public OWNER TO owner`).catch(() => {});
      const url = new URL(withDatabase(cluster.adminUrl, 'health'));
      url.username = 'owner';
      url.password = 'owner-password';
      const first = runMigrate({ DATABASE_URL: url.toString() });
      assert.equal(first.status, 1, first.stdout + first.stderr);
      assert.match(first.stdout, /applied migrations 1, 2, 3, 4/);
      assert.match(first.stderr, /^healthd migrate: the roles healthd_reader and healthd_writer are missing: this login may not create roles\. Run `npm run migrate` once as the schema's owner with CREATEROLE/);
      assert.match(first.stderr, /CREATE ROLE healthd_reader NOLOGIN; CREATE ROLE healthd_writer NOLOGIN;/);
      await admin.query('ALTER ROLE owner CREATEROLE');
      const second = runMigrate({ DATABASE_URL: url.toString() });
      assert.equal(second.status, 0, second.stdout + second.stderr);
      assert.match(second.stdout, /schema is up to date/);
      const health = new pg.Client({ connectionString: withDatabase(cluster.adminUrl, 'health') });
      await health.connect();
      const { rows } = await health.query(
        `SELECT has_table_privilege('healthd_reader', 'samples', 'SELECT') AS reads,
                has_table_privilege('healthd_reader', 'samples', 'INSERT') AS reader_writes,
                has_table_privilege('healthd_writer', 'samples', 'INSERT') AS writes,
                has_table_privilege('healthd_reader', 'access_tokens', 'SELECT') AS tokens`,
      );
      await health.end();
      assert.deepEqual(rows[0], { reads: true, reader_writes: false, writes: true, tokens: true });
    } finally {
      await admin.end();
    }
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('migrate refuses without DATABASE_URL', () => {
  const result = runMigrate({});
  assert.notEqual(result.status, 0);
  assert.match(result.stderr.trim(), /^healthd migrate: DATABASE_URL/);
});
