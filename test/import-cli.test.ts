// The import command as a newcomer meets it: its help says where it writes;
// a wrong option, a damaged zip or a missing file is one line, the file
// checked before the user; and the embedded database `npm start` filled with
// the demo takes the first real import in the zone given (the demo goes, one
// line says so), while one holding real data refuses another zone naming the
// ways out.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { demoUserId } from '../src/demo/ids.js';
import { generateDemo } from '../src/demo/generate.js';
import { EMBEDDED_DEMO } from '../src/start/embedded.js';
import { tmpRoot } from './support/db.js';
import { importCli } from './support/import-cli.js';
import { writeAppleExportZip } from './support/apple-export.js';

const USER = '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const dir = mkdtempSync(join(tmpRoot(), 'import-cli-'));

after(() => rmSync(dir, { recursive: true, force: true }));

test('--help says where the import writes without DATABASE_URL', async () => {
  const dataDir = join(dir, 'somewhere');
  const run = await importCli(['--help'], { HEALTHD_DATA_DIR: dataDir });
  assert.equal(run.code, 0);
  assert.match(run.stdout, /HEALTHD_DATA_DIR \(default \.\/data; now [^)]*somewhere\)/);
  assert.match(run.stdout, /DATABASE_URL when set/);
  assert.match(run.stdout, /--lenient/);
});

test('an unknown option, a missing file, a damaged zip: one line each, the file checked before the user', async () => {
  const unknown = await importCli(['--frobnicate', 'export.zip'], {});
  assert.equal(unknown.code, 2);
  assert.deepEqual(unknown.stderr.trim().split('\n'), ['import: unknown option --frobnicate (npm run import -- --help shows the usage)']);

  // No user anywhere: the missing file is still what is named.
  const missing = await importCli([join(dir, 'nope.zip')], {});
  assert.equal(missing.code, 1);
  assert.match(missing.stderr.trim(), /^import: \S*nope\.zip: no such file or folder$/);

  const damaged = join(dir, 'damaged.zip');
  writeFileSync(damaged, Buffer.from('PK\u0003\u0004 this is no zip at all, only its first four bytes'));
  const zip = await importCli([damaged], {});
  assert.equal(zip.code, 1);
  assert.equal(zip.stderr.trim().split('\n').length, 1, zip.stderr);
  assert.match(zip.stderr, /^import: \S*damaged\.zip: not a zip archive/);

  const notExport = join(dir, 'notes.xml');
  writeFileSync(notExport, '<?xml version="1.0"?>\n<gpx version="1.1"/>\n');
  const xml = await importCli(['--user', USER, notExport], {});
  assert.equal(xml.code, 1);
  assert.match(xml.stderr.trim(), /^import: \S*notes\.xml: neither a zip archive nor an Apple Health export XML/);

  // The file is fine: now the user is what is missing.
  const zipPath = join(dir, 'export.zip');
  await writeAppleExportZip(zipPath);
  const noUser = await importCli([zipPath], {});
  assert.equal(noUser.code, 2);
  assert.match(noUser.stderr.trim(), /^import: no user: pass --user <uuid> or set SERVICE_USER_ID/);
});

test('the embedded demo gives way to the first real import, in its zone; real data refuses another zone, naming the ways out', { timeout: 240_000 }, async () => {
  const dataDir = join(dir, 'data');
  const port = await freePort();
  // What `npm start` leaves: the demo's users (a short stretch of days) with their days cut in UTC.
  const cluster = await startEmbeddedDatabase({ dir: dataDir, port, unsafeFast: true });
  try {
    await applyMigrations(cluster.adminUrl);
    await generateDemo(cluster.adminUrl, { users: EMBEDDED_DEMO.users, days: 2, seed: EMBEDDED_DEMO.seed, timeZone: 'UTC' });
  } finally {
    await cluster.stop();
  }
  const zipPath = join(dir, 'export.zip');
  await writeAppleExportZip(zipPath);
  const env = { HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) };

  const first = await importCli(['--user', USER, zipPath], { ...env, SERVICE_TIME_ZONE: 'Europe/Berlin' });
  assert.equal(first.code, 0, first.stderr);
  const said = first.stderr.split('\n').filter((line) => /demo/.test(line));
  assert.deepEqual(said, ['import: the embedded database held only the demo data: replaced by this import (days cut in Europe/Berlin)']);

  const check = await startEmbeddedDatabase({ dir: dataDir, port, unsafeFast: true });
  try {
    const client = new pg.Client({ connectionString: check.adminUrl });
    await client.connect();
    try {
      assert.deepEqual((await client.query('SELECT user_id FROM users')).rows, [{ user_id: USER }]);
      assert.deepEqual((await client.query(`SELECT value FROM settings WHERE key = 'time_zone'`)).rows, [{ value: 'Europe/Berlin' }]);
      const demoIds = Array.from({ length: EMBEDDED_DEMO.users }, (_, i) => demoUserId(EMBEDDED_DEMO.seed, i));
      assert.equal(Number((await client.query('SELECT count(*) AS n FROM samples WHERE user_id = ANY($1::uuid[])', [demoIds])).rows[0].n), 0);
    } finally {
      await client.end();
    }
  } finally {
    await check.stop();
  }

  // Now real data is there: another zone is refused, and the message names the ways out.
  const again = await importCli(['--user', USER, zipPath], { ...env, SERVICE_TIME_ZONE: 'America/New_York' });
  assert.equal(again.code, 2);
  const lines = again.stderr.trim().split('\n');
  assert.match(
    lines[lines.length - 1],
    /^import: SERVICE_TIME_ZONE is America\/New_York but the stored days are cut in Europe\/Berlin: set SERVICE_TIME_ZONE=Europe\/Berlin \(or leave it unset\), or use another data directory \(HEALTHD_DATA_DIR\) or your own PostgreSQL \(DATABASE_URL\)$/,
  );
  assert.ok(!/demo/.test(again.stderr));
});
