// The embedded cluster's connection string (src/db/embedded.ts embeddedUrl):
// healthd's own connections go through the cluster's Unix socket when its
// path fits the kernel's limit and the cluster made it, loopback TCP
// otherwise (a file system that holds no sockets included), and TCP keeps
// answering either way (psql, other tools, EMBEDDED_PG_PORT).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedUrl, freePort, startEmbeddedDatabase } from '../src/db/embedded.js';
import { createTestDatabase, type TestDatabase } from './support/db.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db?.drop();
});

async function clientAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ address: string | null }>('SELECT inet_client_addr()::text AS address');
    return rows[0].address;
  } finally {
    await client.end();
  }
}

test('a cluster that is not running (no socket file): loopback TCP, the port and the login kept', () => {
  const url = new URL(embeddedUrl('/srv/healthd/data', 54329, 'healthd_api', 'p@ss/word'));
  assert.equal(url.searchParams.get('host'), null);
  assert.equal(url.hostname, '127.0.0.1');
  assert.equal(url.port, '54329');
  assert.equal(decodeURIComponent(url.username), 'healthd_api');
  assert.equal(decodeURIComponent(url.password), 'p@ss/word');
});

test('a data directory whose socket path would pass the 107-byte limit: loopback TCP, no socket named', () => {
  const dir = join('/srv', 'x'.repeat(100));
  const url = new URL(embeddedUrl(dir, 54329, 'postgres', 'secret'));
  assert.equal(url.searchParams.get('host'), null);
  assert.equal(url.hostname, '127.0.0.1');
});

test('the cluster answers on its socket (no client address) and on loopback TCP', async () => {
  const url = new URL(db.url);
  // The test cluster lives in <checkout>/.tmp/(test-)pg-XXXXXX/pg: its socket path fits unless the checkout's path is very long.
  const fits = join(process.cwd(), '.tmp', 'test-pg-XXXXXX', 'pg', '.s.PGSQL.65535').length <= 107;
  if (fits) {
    assert.ok(url.searchParams.get('host'), 'the test cluster is reached through its socket');
    assert.equal(await clientAddress(url.toString()), null, 'a Unix socket connection has no client address');
  }
  url.searchParams.delete('host');
  assert.equal(await clientAddress(url.toString()), '127.0.0.1/32');
});

test('where no socket can be made in the data directory, the cluster starts on loopback TCP alone and says so', async () => {
  // A short path, so the socket's fits wherever the checkout is.
  const dir = mkdtempSync(join(tmpdir(), 'healthd-socket-'));
  const port = await freePort();
  const lines: string[] = [];
  try {
    const first = await startEmbeddedDatabase({ dir, port, unsafeFast: true });
    assert.equal(new URL(first.adminUrl).searchParams.get('host'), join(dir, 'pg'), 'a running cluster with a socket is reached through it');
    await first.stop();
    // Something that is not a socket where the socket would go: PostgreSQL cannot bind it.
    mkdirSync(join(dir, 'pg', `.s.PGSQL.${port}`));
    const second = await startEmbeddedDatabase({ dir, port, unsafeFast: true, log: (line) => lines.push(line) });
    try {
      assert.equal(new URL(second.adminUrl).searchParams.get('host'), null);
      assert.equal(await clientAddress(second.adminUrl), '127.0.0.1/32');
      assert.ok(lines.some((line) => line.includes('listening on loopback TCP only') && line.includes('Unix-domain socket')), lines.join('\n'));
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
