// Decodes PostgreSQL's binary array format (what array_send returns) of a
// one-dimensional float8[] straight into a Float64Array. Workout streams are
// long arrays; parsing them from text cost most of the series route's time
// (bench/RESULTS.md), this is about twice as fast and allocates one buffer.

/**
 * SQL: float8[] expression `array` in its binary form (array_send) as base64
 * text. pg reads every result field as text, so a bytea would arrive as hex;
 * base64 is two thirds of those bytes and costs PostgreSQL 20–30 % less to
 * write (bench/RESULTS.md). NULL stays NULL. Decode with float8ArrayFromSql.
 */
export const float8ArraySql = (array: string): string => `encode(array_send(${array}), 'base64')`;

/** The text of float8ArraySql → Float64Array; a NULL element reads as NaN. (The decoder skips the line breaks PostgreSQL's base64 has.) */
export const float8ArrayFromSql = (text: string): Float64Array => float8ArrayFromBinary(Buffer.from(text, 'base64'));

/**
 * array_send(x::float8[]) → Float64Array; a NULL element reads as NaN. Read
 * through a DataView, whose big-endian reads the JIT inlines: ~3.5× faster
 * than Buffer's readInt32BE/readDoubleBE (a /tmp micro-bench, 2,529 elements:
 * 13 against 48 µs).
 */
export function float8ArrayFromBinary(bytes: Buffer): Float64Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ndim = view.getInt32(0);
  if (ndim === 0) return new Float64Array(0);
  if (ndim !== 1) throw new Error(`expected a one-dimensional array, got ${ndim} dimensions`);
  const length = view.getInt32(12);
  const out = new Float64Array(length);
  let offset = 20;
  for (let i = 0; i < length; i++) {
    const size = view.getInt32(offset);
    offset += 4;
    if (size === -1) {
      out[i] = NaN;
    } else {
      out[i] = view.getFloat64(offset);
      offset += size;
    }
  }
  return out;
}
