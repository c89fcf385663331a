// /v1/export streaming and its slots: the CSV header out before any row is
// read, the export slots across the database (503 with Retry-After when all
// are taken; freed after abort, completion and error), and bulk files that
// reach the client in chunks of the pump's size.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { CHUNK_CHARS } from '../src/export/pump.js';
import { acquireExportSlot, type ExportSlot } from '../src/export/slots.js';
import { BULK, BULK_ROWS, BULK_START, DAY, HEART, TEMP, at, exportFixture } from './support/export-fixture.js';
import { sessionsIdleInTransaction, waitFor } from './support/faults.js';

const fixture = exportFixture();
const { fetchRaw, advisoryLocks, rawExport } = fixture;

describe('streaming and slots', () => {
  const bulk = (format = 'csv') => `format=${format}&dataset=samples&type=${BULK}&start=${BULK_START}&end=${BULK_START + 30 * DAY}`;
  const small = `format=csv&dataset=samples&type=${HEART}&start=${at('2026-01-10T10:00Z')}&end=${at('2026-01-10T10:01Z')}`;

  test('the CSV header goes out before the first row is read (the rows wait on a table lock)', async () => {
    const locker = new pg.Client({ connectionString: fixture.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE samples IN ACCESS EXCLUSIVE MODE');
      const exp = rawExport(small, { pauseAtHead: true });
      await exp.headSeen;
      await waitFor('the header row', async () => exp.body() === '2d\r\ntype,unit,uuid,start,end,value,label,source\r\n');
      await locker.query('ROLLBACK');
      exp.resume();
      const done = await exp.finished;
      assert.equal(done.status, 200);
      assert.equal(done.clean, true);
      assert.equal((done.body.match(/count\/min/g) ?? []).length, 6);
    } finally {
      await locker.end();
    }
    await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
  });

  test('two exports hold the slots: a third gets 503 with Retry-After: 60; slots come back after abort, completion and error', async () => {
    const first = rawExport(bulk(), { pauseAtHead: true });
    const second = rawExport(bulk('jsonl'), { pauseAtHead: true });
    await first.headSeen;
    // JSONL sends its head with the first rows; the bulk rows fill the socket, so the head does arrive.
    await second.headSeen;
    assert.equal(await advisoryLocks(), 2);

    const third = await fetchRaw(small);
    assert.equal(third.status, 503);
    assert.equal(third.headers['retry-after'], '60');
    assert.equal(third.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(third.body.toString()), { error: 'two exports are already running; retry later' });
    // Refusals of the request itself still come first.
    assert.equal((await fetchRaw('format=csv&dataset=samples&start=0&end=1')).status, 400);

    // Client abort frees a slot: a fourth export then runs to its end.
    first.hangUp();
    assert.equal((await first.finished).clean, false);
    await waitFor('one slot back', async () => (await advisoryLocks()) === 1);
    const fourth = await fetchRaw(small);
    assert.equal(fourth.status, 200);
    assert.equal(fourth.complete, true);
    assert.equal(await advisoryLocks(), 1);
    second.hangUp();
    await second.finished;
    await waitFor('both slots back', async () => (await advisoryLocks()) === 0);

    // Completion frees the slot: five exports in a row all run.
    for (let i = 0; i < 5; i++) assert.equal((await fetchRaw(small)).status, 200);
    assert.equal(await advisoryLocks(), 0);

    // A NaN value is no value (src/core/values.ts): an empty cell, the file ends cleanly.
    const temperatures = await fetchRaw(`format=csv&dataset=samples&type=${TEMP}&start=${at('2026-01-10T10:00Z')}&end=${at('2026-01-10T11:00Z')}`);
    assert.equal(temperatures.complete, true);
    assert.deepEqual(temperatures.body.toString().split('\r\n').slice(1, -1).map((line) => line.split(',')[5]), ['36.6', '']);

    // An error after the first byte (the export's session ended while its rows wait on a lock) aborts the file and frees the slot.
    for (let i = 0; i < 3; i++) {
      const locker = new pg.Client({ connectionString: fixture.db.url });
      const watcher = new pg.Client({ connectionString: fixture.db.url });
      await Promise.all([locker.connect(), watcher.connect()]);
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE samples IN ACCESS EXCLUSIVE MODE');
        const failing = rawExport(small);
        const waiting = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'healthd-export' AND wait_event_type = 'Lock'`;
        await waitFor('the export waiting on its rows', async () => (await watcher.query(waiting)).rows.length === 1);
        await watcher.query(`SELECT pg_terminate_backend(pid) FROM (${waiting}) w`);
        const failed = await failing.finished;
        assert.equal(failed.status, 200);
        assert.equal(failed.clean, false, 'no clean end of file');
        assert.equal(failed.body, '2d\r\ntype,unit,uuid,start,end,value,label,source\r\n');
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        await Promise.all([locker.end(), watcher.end()]);
      }
    }
    await waitFor('slots back after errors', async () => (await advisoryLocks()) === 0);
    const both = await Promise.all([fetchRaw(small), fetchRaw(small)]);
    assert.deepEqual(both.map((r) => r.status), [200, 200]);
  });

  test('a bulk export streams to the end in chunks of the pump\'s size on the wire', async () => {
    const response = await rawExport(bulk()).finished;
    assert.equal(response.status, 200);
    assert.equal(response.clean, true);
    // The body as it came: <hex size>\r\n<data>\r\n … 0\r\n\r\n (the rows are ASCII: characters are bytes).
    const sizes: number[] = [];
    const data: string[] = [];
    for (let at = 0; ; ) {
      const lineEnd = response.body.indexOf('\r\n', at);
      const size = parseInt(response.body.slice(at, lineEnd), 16);
      if (size === 0) break;
      sizes.push(size);
      data.push(response.body.slice(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    const lines = data.join('').split('\r\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, 1 + BULK_ROWS);
    assert.match(lines[1], new RegExp(`^${BULK},dBASPL,[0-9a-f-]{36},${BULK_START},${BULK_START + 5000},40,,Apple Watch$`));
    const longestRow = lines.reduce((longest, line) => Math.max(longest, line.length + 2), 0);
    assert.equal(sizes[0], lines[0].length + 2, 'the header row goes out as a chunk of its own');
    const rows = sizes.slice(1);
    for (const size of rows.slice(0, -1)) assert.ok(size >= CHUNK_CHARS && size < CHUNK_CHARS + longestRow, `a chunk of ${size} bytes`);
    assert.ok(rows[rows.length - 1] < CHUNK_CHARS + longestRow);
    assert.ok(rows.length >= Math.floor((data.join('').length - sizes[0]) / (CHUNK_CHARS + longestRow)), `${rows.length} chunks`);
  });
});

describe('a slot given back', () => {
  test('a samples export cut short by its client ends its transaction: the connection goes back to the pool, no warning', async () => {
    const bulkCsv = `format=csv&dataset=samples&type=${BULK}&start=${BULK_START}&end=${BULK_START + 30 * DAY}`;
    const before = fixture.server.output().length;
    for (let i = 0; i < 3; i++) {
      const exp = rawExport(bulkCsv, { pauseAtHead: true });
      await exp.headSeen;
      exp.hangUp();
      assert.equal((await exp.finished).clean, false);
      await waitFor('the slot back', async () => (await advisoryLocks()) === 0);
    }
    assert.equal((await fetchRaw(`format=csv&dataset=samples&type=${HEART}&start=${at('2026-01-10T10:00Z')}&end=${at('2026-01-10T10:01Z')}`)).status, 200);
    const logged = fixture.server.output().slice(before);
    assert.doesNotMatch(logged, /released by closing its connection/);
    assert.equal(await sessionsIdleInTransaction(fixture.db.adminUrl, fixture.db.name), 0);
  });

  /** A slot on a pool of one connection (what the pool hands out next is the released one, unless it was closed), and its session's pid. */
  async function slotOnOneConnection(use: (pool: pg.Pool, slot: ExportSlot, pid: number) => Promise<void>): Promise<void> {
    const pool = new pg.Pool({ connectionString: fixture.db.url, max: 1 });
    try {
      const slot = await acquireExportSlot(pool);
      assert.ok(slot);
      const { rows } = await slot.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await use(pool, slot, rows[0].pid);
    } finally {
      await pool.end();
    }
  }

  test('a connection released inside its transaction (an export cut short after its COPY ended) never returns to the pool', async () => {
    await slotOnOneConnection(async (pool, slot, exportPid) => {
      await slot.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await slot.client.query('SELECT count(*) FROM samples');
      await slot.release();
      assert.equal(await advisoryLocks(), 0, 'the slot is free');
      const next = await pool.connect();
      try {
        assert.equal(next.getTransactionStatus(), 'I');
        const { rows } = await next.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        assert.notEqual(rows[0].pid, exportPid, 'a new session, not the export’s');
      } finally {
        next.release();
      }
      assert.equal(await sessionsIdleInTransaction(fixture.db.adminUrl, fixture.db.name), 0, 'no session left idle in transaction');
    });
  });

  test('a connection outside a transaction goes back to the pool as it is', async () => {
    await slotOnOneConnection(async (pool, slot, exportPid) => {
      await slot.release();
      assert.equal(await advisoryLocks(), 0, 'the slot is free');
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      assert.equal(rows[0].pid, exportPid);
    });
  });
});
