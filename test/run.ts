// `npm test`: one embedded PostgreSQL cluster for the whole run, a migrated
// template database each test file clones, then node's test runner over every
// compiled test file — its usual report (spec on a terminal, TAP otherwise),
// then a short summary for a person (support/summary-reporter.ts). The
// cluster is removed afterwards.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../src/db/embedded.js';
import { prepareTemplate, tmpRoot } from './support/db.js';

const testDir = join(process.cwd(), 'dist', 'test');
const only = process.argv.slice(2);
// Only tests whose source is still there: a deleted test's compiled file may linger in dist/.
const files = readdirSync(testDir)
  .filter((name) => name.endsWith('.test.js') && existsSync(join(process.cwd(), 'test', name.replace(/\.js$/, '.ts'))))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort()
  .map((name) => join(testDir, name));

const dir = mkdtempSync(join(tmpRoot(), 'test-pg-'));
const db = await startEmbeddedDatabase({ dir, unsafeFast: true });
let code = 1;
try {
  await prepareTemplate(db.adminUrl);
  const reporters = [
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`, '--test-reporter-destination=stdout',
    `--test-reporter=${join(testDir, 'support', 'summary-reporter.js')}`, '--test-reporter-destination=stdout',
  ];
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...reporters, ...files], {
    stdio: 'inherit',
    env: { ...process.env, HEALTHD_TEST_PG_ADMIN: db.adminUrl },
  });
  code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
