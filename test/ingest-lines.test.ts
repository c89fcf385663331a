// The receiver's line splitter (src/ingest/body.ts) on its own: a body cut
// into chunks anywhere — inside a line, inside a UTF-8 character, on a
// newline — gives the same lines with the same numbers as the body whole, and
// a bad line is named after the lines before it are handed over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ndjsonLines, type Line } from '../src/ingest/body.js';
import { ApiError } from '../src/errors.js';

async function read(chunks: Buffer[], gzip = false): Promise<{ lines: Line[]; error: string | null }> {
  const lines: Line[] = [];
  try {
    for await (const run of ndjsonLines(Readable.from(chunks), gzip)) lines.push(...run);
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
