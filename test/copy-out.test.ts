// Reading a COPY's data off the connection (src/db/copy-out.ts): the frames
// stripped on hand-built protocol bytes cut at every place, then copyOutWhole
// and CopyOutStream on a real PostgreSQL — notices between the rows, an error
// in the middle, and the connection answering the next query after each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyOutWhole, CopyDataFrames, CopyOutStream, recycleCopyData } from '../src/db/copy-out.js';
import { databaseWithClient } from './support/db.js';

/** A protocol message: its code, its length (itself included), its payload. */
function message(code: string, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'latin1') : payload;
  const frame = Buffer.alloc(5);
  frame.write(code, 0, 'latin1');
  frame.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([frame, body]);
}

const rows = Array.from({ length: 40 }, (_, i) => Buffer.from(`${i}\t${'x'.repeat(i % 7)}\n`));
const COPY_OUT_RESPONSE = message('H', Buffer.from([0, 0, 2, 0, 0, 0, 0]));
const NOTICE = message('N', 'SNOTICE\0Mnoisy\0\0');
const PARAMETER = message('S', 'TimeZone\0UTC\0');
const DONE_AND_AFTER = Buffer.concat([message('c', ''), message('C', 'COPY 40\0'), message('Z', 'I')]);

/** Feeds `bytes` to a fresh CopyDataFrames in pieces of `piece` bytes (each its own buffer, as socket reads are); answers the data and what it gave back. */
function feed(bytes: Buffer, piece: number): { data: Buffer; rest: Buffer; done: boolean } {
  const frames = new CopyDataFrames();
  const data: Buffer[] = [];
  const after: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += piece) {
    const chunk = Buffer.from(bytes.subarray(at, at + piece));
    if (frames.rest) {
      after.push(chunk);
      continue;
    }
    const length = frames.take(chunk);
    data.push(Buffer.from(chunk.subarray(0, length)));
    if (frames.rest) after.push(frames.rest);
  }
  return { data: Buffer.concat(data), rest: Buffer.concat(after), done: frames.done };
}

test('CopyDataFrames: the CopyData payloads in order, whatever the reads cut (a frame, a payload), other messages dropped; the rest from CopyDone on given back', () => {
  const messages = [COPY_OUT_RESPONSE, ...rows.slice(0, 20).map((r) => message('d', r)), NOTICE, PARAMETER, ...rows.slice(20).map((r) => message('d', r))];
  const bytes = Buffer.concat([...messages, DONE_AND_AFTER]);
  for (const piece of [1, 2, 3, 4, 5, 6, 7, 11, 13, 64, bytes.length]) {
    const { data, rest, done } = feed(bytes, piece);
    assert.deepEqual(data, Buffer.concat(rows), `pieces of ${piece}`);
    assert.deepEqual(rest, DONE_AND_AFTER, `pieces of ${piece}`);
    assert.equal(done, true);
  }
});

test('CopyDataFrames: an ErrorResponse ends it, not done, the error and all after given back; nothing is taken after', () => {
  const error = Buffer.concat([message('E', 'SERROR\0C22012\0Mdivision by zero\0\0'), message('Z', 'I')]);
  const bytes = Buffer.concat([COPY_OUT_RESPONSE, ...rows.slice(0, 3).map((r) => message('d', r)), error]);
  for (const piece of [1, 5, 9, bytes.length]) {
    const { data, rest, done } = feed(bytes, piece);
    assert.deepEqual(data, Buffer.concat(rows.slice(0, 3)));
    assert.deepEqual(rest, error);
    assert.equal(done, false);
  }
  const frames = new CopyDataFrames();
  frames.take(Buffer.from(bytes));
  assert.throws(() => frames.take(Buffer.from('d')), /after the end of the COPY/);
});

const own = databaseWithClient((db) =>
  db.query(`CREATE FUNCTION noisy(i int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN IF i % 500 = 0 THEN RAISE NOTICE 'row %', i; END IF; RETURN i; END $$`),
);

async function read(stream: CopyOutStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

test('copyOutWhole: a buffer handed back is filled by a later COPY that fits in it, a smaller one is not; each answers its own bytes', async () => {
  const copy = (rows: number, expected: number) =>
    copyOutWhole(own.client, `COPY (SELECT g, repeat(chr(65 + g % 26), 30) FROM generate_series(1, ${rows}) g) TO STDOUT`, expected);
  const text = (rows: number) => Array.from({ length: rows }, (_, i) => `${i + 1}\t${String.fromCharCode(65 + ((i + 1) % 26)).repeat(30)}\n`).join('');
  const first = await copy(2000, 80_000);
  assert.equal(first.toString('latin1'), text(2000));
  recycleCopyData(first);
  const second = await copy(500, 20_000);
  assert.equal(second.buffer, first.buffer, 'the buffer handed back is filled again');
  assert.equal(second.toString('latin1'), text(500), 'with its own bytes, none of the COPY before');
  recycleCopyData(second);
  const larger = await copy(3000, 120_000);
  assert.notEqual(larger.buffer, first.buffer, 'a COPY expecting more than it holds gets a buffer of its own');
  assert.equal(larger.toString('latin1'), text(3000));
});

test('copyOutWhole: all of the rows, notices between them dropped, and the connection answers the next query', async () => {
  const notices: string[] = [];
  const listener = (notice: { message?: string }) => notices.push(notice.message ?? '');
  own.client.on('notice', listener);
  try {
    const data = await copyOutWhole(own.client, 'COPY (SELECT noisy(g) FROM generate_series(1, 20000) g) TO STDOUT', 1024);
    assert.equal(data.toString('latin1'), Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join(''));
    assert.deepEqual(notices, [], 'the notices inside the COPY are not pg’s to see');
  } finally {
    own.client.removeListener('notice', listener);
  }
  assert.equal((await own.client.query('SELECT 5 AS five')).rows[0].five, 5);
});

test('copyOutWhole: an error in the middle rejects with PostgreSQL’s error; the connection answers the next query', async () => {
  await assert.rejects(
    copyOutWhole(own.client, 'COPY (SELECT 1 / (g - 15000) FROM generate_series(1, 20000) g) TO STDOUT', 1024),
    (error: Error & { code?: string }) => error.code === '22012',
  );
  assert.equal((await own.client.query('SELECT 6 AS six')).rows[0].six, 6);
});

test('CopyOutStream: all of the rows, notices between them dropped, and the connection answers the next query', async () => {
  const notices: string[] = [];
  own.client.on('notice', (notice) => notices.push(notice.message ?? ''));
  const text = await read(own.client.query(new CopyOutStream('COPY (SELECT noisy(g) FROM generate_series(1, 20000) g) TO STDOUT')));
  assert.equal(text, Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join(''));
  assert.deepEqual(notices, [], 'the notices inside the COPY are not pg’s to see');
  const { rows: after } = await own.client.query<{ one: number }>('SELECT 1 AS one');
  assert.deepEqual(after, [{ one: 1 }]);
});

test('CopyOutStream: read slowly, it still delivers every byte (the socket waits meanwhile)', async () => {
  const stream = own.client.query(new CopyOutStream(`COPY (SELECT g, repeat('y', 200) FROM generate_series(1, 5000) g) TO STDOUT`));
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const expected = Array.from({ length: 5000 }, (_, i) => `${i + 1}\t${'y'.repeat(200)}\n`).join('').length;
  assert.equal(bytes, expected);
  assert.equal((await own.client.query('SELECT 2 AS two')).rows[0].two, 2);
});

test('CopyOutStream: an error in the middle fails the stream with PostgreSQL’s error, after the rows before it; the connection answers the next query', async () => {
  const stream = own.client.query(new CopyOutStream(`COPY (SELECT 1 / (g - 15000) FROM generate_series(1, 20000) g) TO STDOUT`));
  const parts: Buffer[] = [];
  await assert.rejects(
    (async () => {
      for await (const chunk of stream) parts.push(Buffer.from(chunk as Buffer));
    })(),
    (error: Error & { code?: string }) => error.code === '22012',
  );
  assert.ok(Buffer.concat(parts).length > 0, 'rows before the error arrived');
  assert.equal((await own.client.query('SELECT 3 AS three')).rows[0].three, 3);
});

test('CopyOutStream: destroyed by its reader in the middle, with more read than it took, the rest is dropped and the connection answers the next query', async () => {
  const stream = own.client.query(new CopyOutStream(`COPY (SELECT g, repeat('z', 100) FROM generate_series(1, 50000) g) TO STDOUT`));
  // Its buffer full (over its high-water mark: it reads no more on its own), the reader goes.
  await new Promise((resolve) => stream.once('readable', resolve));
  // The first socket reads may hold less than the mark: wait (at most 5 s) until it is passed.
  const until = Date.now() + 5_000;
  while (stream.readableLength < stream.readableHighWaterMark && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(stream.readableLength >= stream.readableHighWaterMark, 'the stream filled its buffer past the mark with no reader');
  stream.destroy();
  assert.equal((await own.client.query('SELECT 4 AS four')).rows[0].four, 4);
});
