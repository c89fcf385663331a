// The receiver's line splitter (src/ingest/body.ts) on its own: a body cut
// into chunks anywhere — inside a line, inside a UTF-8 character, on a
// newline — gives the same lines with the same numbers as the body whole, and
// a bad line is named after the lines before it are handed over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ndjsonLines, SMALL_BODY_BYTES, type Line } from '../src/ingest/body.js';
import { ApiError } from '../src/errors.js';

async function read(chunks: Buffer[], gzip = false, compressedBytes: number | null = null): Promise<{ lines: Line[]; error: string | null }> {
  const lines: Line[] = [];
  try {
    for await (const run of ndjsonLines(Readable.from(chunks), gzip, compressedBytes)) lines.push(...run);
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return { lines, error: `${error.status} ${error.message}` };
  }
  return { lines, error: null };
}

const TEXT = '{"a":"é"}\n\n  \n{"b":"😀 ü"}\r\n{"c":1}\n\t\n{"d":"last, no newline"}';
const WHOLE: Line[] = [
  { number: 1, text: '{"a":"é"}' },
  { number: 4, text: '{"b":"😀 ü"}\r' },
  { number: 5, text: '{"c":1}' },
  { number: 7, text: '{"d":"last, no newline"}' },
];

test('every cut of the body into two or three chunks gives the same lines and numbers', async () => {
  const bytes = Buffer.from(TEXT);
  assert.deepEqual(await read([bytes]), { lines: WHOLE, error: null });
  for (let i = 0; i <= bytes.length; i++) {
    assert.deepEqual(await read([bytes.subarray(0, i), bytes.subarray(i)]), { lines: WHOLE, error: null }, `cut at ${i}`);
    const j = Math.min(bytes.length, i + 3);
    assert.deepEqual(await read([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]), { lines: WHOLE, error: null }, `cuts at ${i}, ${j}`);
  }
  assert.deepEqual(await read([gzipSync(bytes)], true), { lines: WHOLE, error: null });
});

test('a line that is not UTF-8 is named, after the lines before it, however the body is cut', async () => {
  const bytes = Buffer.from(TEXT.replace('{"c":1}', '{"c":"\u00ff"}'), 'utf8');
  const at = bytes.indexOf(Buffer.from('\u00ff'));
  bytes[at] = 0xff;
  bytes[at + 1] = 0x20;
  for (let i = 0; i <= bytes.length; i++) {
    const answer = await read([bytes.subarray(0, i), bytes.subarray(i)]);
    assert.equal(answer.error, '400 line 5: is not valid UTF-8', `cut at ${i}`);
    assert.deepEqual(answer.lines, WHOLE.slice(0, 2), `cut at ${i}`);
  }
});

test('a small gzip body, inflated whole, gives the lines a streamed one gives: past the whole-body size, misleading trailer, several members', async () => {
  const whole = (gzip: Buffer) => read([gzip.subarray(0, 7), gzip.subarray(7)], true, gzip.length);
  const small = gzipSync(Buffer.from(TEXT));
  assert.deepEqual(await whole(small), { lines: WHOLE, error: null });

  // ~6 MB of lines in well under SMALL_BODY_BYTES of gzip: past what is inflated in one call, so it streams after all.
  const pad = 'x'.repeat(1000);
  const large = Array.from({ length: 6000 }, (_, i) => `{"n":${i},"pad":"${pad}"}`).join('\n');
  const bomb = gzipSync(Buffer.from(large));
  assert.ok(bomb.length < SMALL_BODY_BYTES && large.length > 5 << 20);
  const streamed = await read([bomb], true);
  assert.equal(streamed.error, null);
  assert.equal(streamed.lines.length, 6000);
  assert.deepEqual(await whole(bomb), streamed);

  // The same gzip with a trailer claiming 10 bytes: found past the one call's cap, then refused as the stream finds it.
  const lying = Buffer.from(bomb);
  lying.writeUInt32LE(10, lying.length - 4);
  const lyingStreamed = await read([lying], true);
  assert.match(lyingStreamed.error ?? '', /^400 body is not valid gzip/);
  assert.deepEqual(await whole(lying), lyingStreamed);

  // Two gzip members one after the other are one body.
  const [first, second] = [TEXT.slice(0, 20), TEXT.slice(20)].map((part) => gzipSync(Buffer.from(part)));
  assert.deepEqual(await whole(Buffer.concat([first, second])), { lines: WHOLE, error: null });
  assert.deepEqual(await whole(Buffer.from('not gzip at all, not even close')), await read([Buffer.from('not gzip at all, not even close')], true));
});
