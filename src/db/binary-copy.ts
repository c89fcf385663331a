// Reading PostgreSQL's binary COPY format: the header's check, a uuid field
// as the lowercase hex text PostgreSQL writes, a bigint as a Number, the
// fields of a one-row COPY. The samples' plain columns arrive this way
// (src/db/queries/export-copy.ts) for the export's lines
// (src/export/sample-lines.ts) and /v1/samples' page
// (src/db/queries/samples.ts); the sleep samples as one row of arrays
// (src/db/queries/sleep.ts).
import { BINARY_COPY_HEADER, BINARY_COPY_SIGNATURE } from './writes/sample-copy.js';

/** Bytes of the header every binary COPY begins with (signature, flags, extension length). */
export const COPY_HEADER_BYTES = BINARY_COPY_HEADER.length;

/** Throws unless the COPY_HEADER_BYTES at `at` are a binary COPY header without extensions. */
export function checkCopyHeader(data: Buffer, at: number): void {
  if (!data.subarray(at, at + BINARY_COPY_SIGNATURE.length).equals(BINARY_COPY_SIGNATURE)) throw new Error('not a binary COPY stream');
  if (data.readUInt32BE(at + BINARY_COPY_SIGNATURE.length + 4) !== 0) throw new Error('binary COPY header extensions are not supported');
}

/**
 * The `count` fields of the one row of a binary COPY's data, whole (header and
 * trailer checked; NULL fields are null). Throws unless the data holds exactly
 * one row of `count` fields.
 */
export function copyRowFields(data: Buffer, count: number): (Buffer | null)[] {
  if (data.length < COPY_HEADER_BYTES + 2) throw new Error('binary COPY data cut short');
  checkCopyHeader(data, 0);
  let at = COPY_HEADER_BYTES;
  const fields = data.readInt16BE(at);
  if (fields !== count) throw new Error(`expected one COPY row of ${count} columns, got ${fields === -1 ? 'none' : `${fields} columns`}`);
  at += 2;
  const out: (Buffer | null)[] = [];
  for (let f = 0; f < count; f++) {
    if (data.length - at < 4) throw new Error('binary COPY data cut short');
    const length = data.readInt32BE(at);
    at += 4;
    if (length === -1) {
      out.push(null);
      continue;
    }
    if (length < 0 || data.length - at < length) throw new Error('binary COPY data cut short');
    out.push(data.subarray(at, at + length));
    at += length;
  }
  if (data.length - at !== 2 || data.readInt16BE(at) !== -1) throw new Error('expected the binary COPY trailer after its one row');
  return out;
}

/** Two lowercase hex digits per byte value. */
const HEX = new Uint8Array(512);
for (let i = 0; i < 256; i++) HEX.set(Buffer.from(i.toString(16).padStart(2, '0'), 'latin1'), i * 2);
const DASH = 0x2d;
/** The 16 bytes of a uuid at `at` written at `o` as 8-4-4-4-12 lowercase hex (uuid::text, UUID_TEXT_LENGTH bytes); answers the offset after them. */
export function writeUuidText(out: Uint8Array, o: number, data: Uint8Array, at: number): number {
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[o++] = DASH;
    const byte = data[at + i] * 2;
    out[o++] = HEX[byte];
    out[o++] = HEX[byte + 1];
  }
  return o;
}

const TWO_TO_32 = 4294967296;

/**
 * A bigint field's 8 bytes at `at` of `view` as the double it reads as (exact
 * up to 2^53, rounded to nearest as a float8 cast rounds beyond). Through a
 * DataView, whose reads the JIT inlines (binary-arrays.ts).
 */
export function readInt64(view: DataView, at: number): number {
  const high = view.getInt32(at);
  const low = view.getUint32(at + 4);
  if (high >= -2097152 && high < 2097152) return high * TWO_TO_32 + low;
  return Number(view.getBigInt64(at));
}
