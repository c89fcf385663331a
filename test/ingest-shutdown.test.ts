// Issue 13, the graceful stop: on SIGTERM the receiver's port closes with the
// read API's, a batch already being stored finishes and is answered (200,
// committed), and the process exits 0.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { batch, heartRate, UPLOAD_TOKEN } from './support/ingest.js';
import { startServer, type TestServer } from './support/server.js';

const T = Date.UTC(2024, 5, 10, 6);

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  server = await startServer({ databaseUrl: db.url, receiver: true, env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN } });
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

test('SIGTERM: a batch being stored finishes and is answered; the ports close; exit 0', async () => {
  const lines = batch({ samples: Array.from({ length: 2000 }, (_, i) => heartRate(`CCCCCCCC-0000-4000-8000-${String(i).padStart(12, '0')}`, T + i * 1000, 60)) });
  const cut = lines.indexOf('\n', lines.length / 2) + 1;
  const url = new URL(server.ingestUrl);
  // A plain body sent in two halves: the batch's transaction is open between them.
  const req = request({
    host: url.hostname,
    port: url.port,
    path: '/v1/batches',
    method: 'POST',
    headers: { authorization: `Bearer ${UPLOAD_TOKEN}`, 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(lines) },
  });
  const answered = once(req, 'response');
  req.write(lines.slice(0, cut));
  // The event that matters: the receiver's session is inside the batch's transaction.
  const deadline = Date.now() + 10_000;
  while (true) {
    const [row] = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'healthd-ingest' AND xact_start IS NOT NULL`, [db.name]);
    if (row.n > 0) break;
    assert.ok(Date.now() < deadline, 'the batch never opened its transaction');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await once(server.child.stderr!, 'data'); // "shutting down"
  await assert.rejects(fetch(`${server.ingestUrl}/healthz`), 'the receiver no longer accepts connections');
  req.end(lines.slice(cut));
  const [response] = (await answered) as [import('node:http').IncomingMessage];
  let body = '';
  for await (const chunk of response) body += chunk;
  assert.equal(response.statusCode, 200, body);
  assert.equal(JSON.parse(body).accepted, 2000);
  const [code] = await exited;
  assert.equal(code, 0);
  const [row] = await db.query(`SELECT count(*)::int AS n FROM samples`);
  assert.equal(row.n, 2000);
});
