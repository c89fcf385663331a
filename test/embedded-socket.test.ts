// The embedded cluster's connection string (src/db/embedded.ts embeddedUrl):
// healthd's own connections go through the cluster's Unix socket when its
// path fits the kernel's limit, loopback TCP otherwise, and TCP keeps
// answering either way (psql, other tools, EMBEDDED_PG_PORT).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { embeddedUrl } from '../src/db/embedded.js';
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

test('a short data directory: the URL names its socket directory (<dir>/pg) and keeps the port', () => {
  const url = new URL(embeddedUrl('/srv/healthd/data', 54329, 'healthd_api', 'p@ss/word'));
  assert.equal(url.searchParams.get('host'), resolve('/srv/healthd/data', 'pg'));
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
