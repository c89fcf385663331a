// Reading PostgreSQL's binary COPY (src/db/binary-copy.ts), on bytes built by
// hand in the format's layout. The real server's COPYs are read by the sleep,
// samples and export tests; these hold the refusals of data that is not one
// whole row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyRowFields, readInt64 } from '../src/db/binary-copy.js';
import { BINARY_COPY_HEADER } from '../src/db/writes/sample-copy.js';

const int16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const field = (bytes: Buffer | null) => (bytes === null ? int32(-1) : Buffer.concat([int32(bytes.length), bytes]));
const row = (...fields: (Buffer | null)[]) => Buffer.concat([int16(fields.length), ...fields.map(field)]);
const copy = (...parts: Buffer[]) => Buffer.concat([BINARY_COPY_HEADER, ...parts]);
const TRAILER = int16(-1);

test('copyRowFields: the fields of the one row, NULL as null', () => {
  const fields = copyRowFields(copy(row(Buffer.from('ab'), null, Buffer.alloc(0)), TRAILER), 3);
  assert.deepEqual(fields.map((f) => (f === null ? null : f.toString())), ['ab', null, '']);
});

test('copyRowFields: anything but one whole row of that many fields is refused', () => {
  const one = row(Buffer.from('ab'), Buffer.from('c'));
  const cases: [string, Buffer, RegExp][] = [
    ['no row', copy(TRAILER), /got none/],
    ['two rows', copy(one, one, TRAILER), /trailer/],
    ['other columns', copy(one, TRAILER), /got 2 columns/],
    ['no trailer', copy(one), /trailer/],
    ['cut in a field', copy(one).subarray(0, BINARY_COPY_HEADER.length + 8), /cut short/],
    ['not COPY data', Buffer.concat([Buffer.from('PGCOPX\n\xff\r\n\0', 'latin1'), Buffer.alloc(8), one, TRAILER]), /not a binary COPY/],
  ];
  for (const [what, data, message] of cases) assert.throws(() => copyRowFields(data, what === 'other columns' ? 3 : 2), message, what);
});

test('readInt64: exact to 2^53 both ways, rounded to the nearest double beyond', () => {
  const values = [0n, 1n, -1n, 2n ** 32n, -(2n ** 32n) - 1n, 2n ** 53n, -(2n ** 53n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 1_767_571_401_793n];
  for (const value of values) {
    const bytes = Buffer.alloc(10);
    bytes.writeBigInt64BE(value, 2);
    assert.equal(readInt64(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 2), Number(value), String(value));
  }
});
