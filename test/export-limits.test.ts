// A cut-off export file never ends cleanly: the time limit, the idle-client
// limit and the shutdown grace each abort the connection instead (each on a
// server started with that limit at 300 ms).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BULK, BULK_START, DAY, ZONE, exportFixture, exportPath } from './support/export-fixture.js';
import { bearer, waitFor } from './support/faults.js';
import { DEFAULT_USER, startServer, TEST_TOKEN, type TestServer } from './support/server.js';

const fixture = exportFixture();
const { advisoryLocks, rawExport } = fixture;

describe('limits cut the file instead of ending it', () => {
  const bulk = `format=csv&dataset=samples&type=${BULK}&start=${BULK_START}&end=${BULK_START + 30 * DAY}`;
  const env = (limits: Record<string, string>) => ({ databaseUrl: fixture.db.url, env: { SERVICE_TIME_ZONE: ZONE, ...limits } });

  /** An export whose client stops reading at the head, then reads again after `pauseMs`. */
  async function stalledExport(target: TestServer, pauseMs: number) {
    const exp = rawExport(bulk, { target, pauseAtHead: true });
    await exp.headSeen;
    setTimeout(exp.resume, pauseMs);
    return exp.finished;
  }

  describe('EXPORT_TIME_LIMIT_MS=300', () => {
    let limited: TestServer;
    before(async () => {
      limited = await startServer(env({ EXPORT_TIME_LIMIT_MS: '300' }));
    });
    after(async () => {
      await limited?.stop();
    });

    test('a slow node:http reader sees the download aborted, never a clean end', async () => {
      const started = Date.now();
      const outcome = await new Promise<string>((resolve) => {
        const request = httpGet(`${limited.baseUrl}${exportPath(bulk)}`, { headers: bearer(TEST_TOKEN) }, (response) => {
          assert.equal(response.statusCode, 200);
          // A chunk, then 10 ms of nothing: far slower than the export (over 80 MB/s). After the cut the client
          // still reads what the kernel buffered (MBs on loopback); at a chunk per 50 ms that took 7–8 s once the
          // export filled those buffers within its 300 ms.
          response.on('data', () => {
            response.pause();
            setTimeout(() => response.resume(), 10);
          });
          response.on('end', () => resolve(response.complete ? 'clean end' : 'end without completion'));
          response.on('aborted', () => resolve('aborted'));
          response.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        });
        request.on('error', (error: NodeJS.ErrnoException) => resolve(`request ${error.code}`));
      });
      assert.ok(['aborted', 'ECONNRESET'].includes(outcome), outcome);
      assert.ok(Date.now() - started < 10_000);
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    });

    test('a raw client never receives the terminating zero-length chunk', async () => {
      const response = await stalledExport(limited, 1_000);
      assert.equal(response.status, 200);
      assert.equal(response.clean, false);
      assert.ok(response.body.startsWith('2d\r\ntype,unit,uuid,start,end,value,label,source\r\n'));
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    });
  });

  test('EXPORT_IDLE_LIMIT_MS=300: a client that reads nothing is dropped', async () => {
    const idle = await startServer(env({ EXPORT_IDLE_LIMIT_MS: '300' }));
    try {
      // JSONL, the larger file (35 MB): more than the socket buffers take however they grow.
      const exp = rawExport(bulk.replace('format=csv', 'format=jsonl'), { target: idle, readNothing: true });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      exp.resume();
      const response = await exp.finished;
      assert.equal(response.status, 200);
      assert.equal(response.clean, false);
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    } finally {
      await idle.stop();
    }
  });

  test('a per-user read token revoked while its export runs: the file is cut at the next re-read of the tokens, never ended cleanly; other exports run on', async () => {
    const cli = join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js');
    const tokens = (...args: string[]) => promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: fixture.db.url } });
    const token = (await tokens('issue', '--read', '--user', DEFAULT_USER, '--name', 'leaked')).stdout.trim();
    const id = /^(\d+)\s+read\s+\S+\s+leaked\b/m.exec((await tokens('list')).stdout)![1];
    const server = await startServer(env({}));
    try {
      const revoked = rawExport(bulk, { target: server, pauseAtHead: true, token });
      const kept = rawExport(bulk, { target: server, pauseAtHead: true });
      await Promise.all([revoked.headSeen, kept.headSeen]);
      await tokens('revoke', id);
      await waitFor('the revoked export cut', async () => server.output().includes('export stopped: its token was revoked'));
      revoked.resume();
      const cut = await revoked.finished;
      assert.deepEqual([cut.status, cut.clean], [200, false]);
      kept.resume();
      const whole = await kept.finished;
      assert.deepEqual([whole.status, whole.clean], [200, true], 'the export asked with SERVICE_API_TOKEN ends cleanly');
      const refused = await server.getJson('/v1/users', { token });
      assert.equal(refused.status, 401);
    } finally {
      await server.stop();
    }
  });

  test('SHUTDOWN_GRACE_MS=300: a running export gets its grace, then is cut; the process exits 0', async () => {
    const stopping = await startServer(env({ SHUTDOWN_GRACE_MS: '300' }));
    const exp = rawExport(bulk, { target: stopping, pauseAtHead: true });
    await exp.headSeen;
    const signalled = Date.now();
    assert.equal(await stopping.stop('SIGTERM'), 0);
    const took = Date.now() - signalled;
    assert.ok(took >= 250 && took < 5_000, `exited ${took} ms after SIGTERM`);
    exp.resume();
    const response = await exp.finished;
    assert.equal(response.status, 200);
    assert.equal(response.clean, false);
  });
});
