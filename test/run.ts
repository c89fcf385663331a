// `npm test`: one embedded PostgreSQL cluster for the whole run, a migrated
// template database each test file clones, then node's test runner over every
// compiled test file. The cluster is removed afterwards.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../src/db/embedded.js';
import { prepareTemplate, tmpRoot } from './support/db.js';

const testDir = join(process.cwd(), 'dist', 'test');
const only = process.argv.slice(2);
const files = readdirSync(testDir)
  .filter((name) => name.endsWith('.test.js'))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort()
  .map((name) => join(testDir, name));

const dir = mkdtempSync(join(tmpRoot(), 'test-pg-'));
const db = await startEmbeddedDatabase({ dir, unsafeFast: true });
let code = 1;
try {
  await prepareTemplate(db.adminUrl);
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, HEALTHD_TEST_PG_ADMIN: db.adminUrl },
  });
  code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
