// Issue 13, the receiver's own database role: with the read API on a login
// that can only read and the receiver on a login in healthd_writer (migration
// 4), the whole corpus is stored; the writer has no DDL and no more DML than
// it needs; and a receiver login without the role refuses the start.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { importCli } from './support/import-cli.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { waitFor } from './support/faults.js';
import { fixtures, getIngest, postBatch, SYNC_USER, UPLOAD_TOKEN } from './support/ingest.js';
import { runServerExpectingExit, startServer, TEST_TOKEN, type TestServer } from './support/server.js';

const suffix = randomBytes(4).toString('hex');
const WRITER = `t_ingest_${suffix}`;
const READER = `t_read_${suffix}`;
const NOBODY = `t_nobody_${suffix}`;
const PASSWORD = 'role-password-0123456789';

let db: TestDatabase;
let server: TestServer;

const loginUrl = (role: string) => {
  const url = new URL(db.url);
  url.username = role;
  url.password = PASSWORD;
  return url.toString();
};

before(async () => {
  db = await createTestDatabase();
  await db.query(`CREATE ROLE ${WRITER} LOGIN PASSWORD '${PASSWORD}' IN ROLE healthd_writer`);
  await db.query(`CREATE ROLE ${READER} LOGIN PASSWORD '${PASSWORD}' IN ROLE healthd_reader`);
  await db.query(`CREATE ROLE ${NOBODY} LOGIN PASSWORD '${PASSWORD}'`);
  server = await startServer({
    databaseUrl: loginUrl(READER),
    receiver: true,
    env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN, SERVICE_USER_ID: SYNC_USER, INGEST_DATABASE_URL: loginUrl(WRITER) },
  });
});

after(async () => {
  await server?.stop();
  await db.drop();
  for (const role of [WRITER, READER, NOBODY]) {
    const admin = new pg.Client({ connectionString: db.adminUrl });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`).finally(() => admin.end());
  }
  await stopOwnCluster();
});

test('the corpus goes in through the writer login, and reads through the reader', async () => {
  for (const fixture of fixtures()) {
    const answer = await postBatch(server.ingestUrl, fixture.ndjson);
    assert.equal(answer.status, 200, `${fixture.name}: ${answer.text}\n${server.output().slice(-1500)}`);
    assert.deepEqual(answer.body, fixture.expected.response, fixture.name);
  }
  const users = await server.getJson('/v1/users');
  assert.equal(users.body.users[0].batches, 8);
});

test('logins of their own start quietly; the schema owner\'s login for either side is said at start', async () => {
  await getIngest(server.ingestUrl, '/v1/capabilities');
  const quiet = server.output();
  assert.doesNotMatch(quiet, /login may write the tables|owns the tables or is a superuser/);
  const owner = await startServer({ databaseUrl: db.url, receiver: true, env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN, SERVICE_USER_ID: SYNC_USER } });
  try {
    // Said once both listen, after the banner.
    const said = await waitFor('the warnings', async () => (/healthd_reader[\s\S]*healthd_writer|healthd_writer[\s\S]*healthd_reader/.test(owner.output()) ? owner.output() : undefined));
    assert.match(said, /DATABASE_URL's login may write the tables \(the schema's owner or a superuser\): the read API's sessions are read-only whatever the login, but give it a login of its own in healthd_reader/);
    assert.match(said, /INGEST_DATABASE_URL's login \(DATABASE_URL's when unset\) owns the tables or is a superuser: give the receiver a login of its own in healthd_writer/);
  } finally {
    await owner.stop();
  }
});

test('/healthz reads as the routes do: a read login that lost its privileges is down, and up again once they are back', async () => {
  const health = async () => (await fetch(`${server.baseUrl}/healthz`)).status;
  try {
    assert.equal(await health(), 200);
    await db.query(`REVOKE healthd_reader FROM ${READER}`);
    await waitFor('/healthz 503', async () => (await health()) === 503);
    await db.query(`GRANT healthd_reader TO ${READER}`);
    await waitFor('/healthz 200', async () => (await health()) === 200);
  } finally {
    await db.query(`GRANT healthd_reader TO ${READER}`).catch(() => {});
  }
});

test('the writer may not change the schema, nor update samples', async () => {
  const client = new pg.Client({ connectionString: loginUrl(WRITER) });
  await client.connect();
  try {
    await assert.rejects(client.query('CREATE TABLE public.t_writer_ddl (x int)'), /permission denied/);
    await assert.rejects(client.query('ALTER TABLE samples ADD COLUMN x int'), /must be owner/);
    await assert.rejects(client.query('UPDATE samples SET value = 0'), /permission denied/);
    await assert.rejects(client.query('TRUNCATE samples'), /permission denied/);
  } finally {
    await client.end();
  }
});

test('a receiver login without the writer role refuses the start, naming INGEST_DATABASE_URL', async () => {
  const { code, output } = await runServerExpectingExit({
    DATABASE_URL: loginUrl(READER),
    SERVICE_API_TOKEN: TEST_TOKEN,
    SERVICE_USER_ID: SYNC_USER,
    SERVICE_PORT: '0',
    SERVICE_INGEST_PORT: '0',
    SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN,
    INGEST_DATABASE_URL: loginUrl(NOBODY),
  });
  assert.equal(code, 1);
  assert.match(output, /^healthd: INGEST_DATABASE_URL: its login lacks samples INSERT, samples DELETE, workouts INSERT, …; grant it the healthd_writer role$/m);
});

test('tokens, import and migrate with the server\'s read login: refused, naming the login they need', async () => {
  const run = promisify(execFile);
  const tokens = await run(process.execPath, [join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js'), 'issue', '--user', SYNC_USER, '--name', 'x'], { env: { ...process.env, DATABASE_URL: loginUrl(READER) } }).catch((error) => error);
  assert.equal(tokens.code, 1);
  assert.match(tokens.stderr, /^healthd tokens: permission denied for table access_tokens \(run it with the login that ran `npm run migrate`, the schema's owner, not the server's read or receiver login\)$/m);
  const imported = await importCli(['--user', SYNC_USER, join(process.cwd(), '..', 'shared', 'real-exports', 'en-2016-watch-excerpt.xml')], { DATABASE_URL: loginUrl(READER) });
  assert.notEqual(imported.code, 0);
  assert.match(imported.stderr, /cannot use the database at DATABASE_URL: permission denied for schema public \(run it with the login that ran `npm run migrate`/);
  const migrated = await run(process.execPath, [join(process.cwd(), 'dist', 'src', 'migrate-cli.js')], { env: { ...process.env, DATABASE_URL: loginUrl(READER) } }).catch((error) => error);
  assert.equal(migrated.code, 1);
  assert.match(migrated.stderr, /^healthd migrate: permission denied for .* \(run it as the schema's owner, the login that owns the database or ran the first migration, not the server's read or receiver login\)$/m);
});

test('settings: the upload secret is refused when a placeholder, short, or the read token', async () => {
  for (const [token, message] of [
    ['change-me', /SERVICE_UPLOAD_TOKEN still holds the placeholder change-me/],
    ['short', /SERVICE_UPLOAD_TOKEN must be at least 16 characters/],
    [TEST_TOKEN, /SERVICE_UPLOAD_TOKEN must differ from SERVICE_API_TOKEN/],
  ] as const) {
    const { code, output } = await runServerExpectingExit({ DATABASE_URL: db.url, SERVICE_API_TOKEN: TEST_TOKEN, SERVICE_USER_ID: SYNC_USER, SERVICE_UPLOAD_TOKEN: token });
    assert.equal(code, 1, output);
    assert.match(output, message);
  }
});

test('a device token issued to a server whose receiver login lacks the writer role: said once, and the receiver starts once the role is granted', async () => {
  const tokensCli = join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js');
  const late = await startServer({ databaseUrl: loginUrl(READER), env: { SERVICE_USER_ID: SYNC_USER, INGEST_DATABASE_URL: loginUrl(NOBODY) } });
  const run = promisify(execFile);
  let tokenId = '';
  try {
    assert.doesNotMatch(late.output(), /receiver listening/);
    const issued = await run(process.execPath, [tokensCli, 'issue', '--user', SYNC_USER, '--name', 'late phone'], { env: { ...process.env, DATABASE_URL: db.url } });
    tokenId = /issued upload token (\d+)/.exec(issued.stderr)![1];
    const refused = /could not start the sync receiver for the device tokens; tried again every 2 s.*its login lacks samples INSERT/;
    await waitFor('the refusal in the log', async () => refused.test(late.output()));
    // Re-read every 2 s, said once.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    assert.equal(late.output().match(new RegExp(refused.source, 'g'))!.length, 1, late.output());
    assert.doesNotMatch(late.output(), /receiver listening/);
    await db.query(`GRANT healthd_writer TO ${NOBODY}`);
    const port = await waitFor('the receiver to start', async () => /receiver listening on http:\/\/[^:]+:(\d+)/.exec(late.output())?.[1]);
    const answer = await postBatch(`http://127.0.0.1:${port}`, fixtures()[0].ndjson, { token: issued.stdout.trim() });
    assert.equal(answer.status, 200, answer.text);
  } finally {
    await db.query(`REVOKE healthd_writer FROM ${NOBODY}`);
    if (tokenId) await run(process.execPath, [tokensCli, 'revoke', tokenId], { env: { ...process.env, DATABASE_URL: db.url } });
    await late.stop();
  }
});

test('a server stopping while its receiver start is being retried does not start it: the role granted during the stop starts nothing', async () => {
  const tokensCli = join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js');
  const run = promisify(execFile);
  const stopping = await startServer({ databaseUrl: loginUrl(READER), env: { SERVICE_USER_ID: SYNC_USER, INGEST_DATABASE_URL: loginUrl(NOBODY), QUERY_TIMEOUT_MS: '20000' } });
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  let tokenId = '';
  try {
    const issued = await run(process.execPath, [tokensCli, 'issue', '--user', SYNC_USER, '--name', 'phone during a stop'], { env: { ...process.env, DATABASE_URL: db.url } });
    tokenId = /issued upload token (\d+)/.exec(issued.stderr)![1];
    await waitFor('the refusal in the log', async () => /could not start the sync receiver/.test(stopping.output()));
    // A read held on a lock keeps the stop going for more than two re-reads of the tokens.
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE profiles IN ACCESS EXCLUSIVE MODE');
    const held = stopping.get('/v1/profile');
    await waitFor('the read on the lock', async () => (await db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'profiles'::regclass`))[0].n > 0);
    stopping.child.kill('SIGTERM');
    await waitFor('the stop to begin', async () => stopping.output().includes('"msg":"shutting down"'));
    await db.query(`GRANT healthd_writer TO ${NOBODY}`);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    assert.doesNotMatch(stopping.output(), /receiver listening/);
    await locker.query('ROLLBACK');
    assert.ok([200, 404].includes((await held).status));
    const [code] = await once(stopping.child, 'exit');
    assert.equal(code, 0, stopping.output());
    assert.doesNotMatch(stopping.output(), /receiver listening/);
  } finally {
    await locker.end().catch(() => {});
    await db.query(`REVOKE healthd_writer FROM ${NOBODY}`);
    if (tokenId) await run(process.execPath, [tokensCli, 'revoke', tokenId], { env: { ...process.env, DATABASE_URL: db.url } });
    if (stopping.child.exitCode === null) await stopping.stop();
  }
});
