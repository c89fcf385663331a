// Decodes PostgreSQL's binary array format (what array_send returns) of a
// one-dimensional float8[] straight into a Float64Array. Workout streams are
// long arrays; parsing them from text cost most of the series route's time
// (bench/RESULTS.md), this is about twice as fast and allocates one buffer.

/** array_send(x::float8[]) → Float64Array; a NULL element reads as NaN. */
export function float8ArrayFromBinary(bytes: Buffer): Float64Array {
  const ndim = bytes.readInt32BE(0);
  if (ndim === 0) return new Float64Array(0);
  if (ndim !== 1) throw new Error(`expected a one-dimensional array, got ${ndim} dimensions`);
  const length = bytes.readInt32BE(12);
  const out = new Float64Array(length);
  let offset = 20;
  for (let i = 0; i < length; i++) {
    const size = bytes.readInt32BE(offset);
    offset += 4;
    if (size === -1) {
      out[i] = NaN;
    } else {
      out[i] = bytes.readDoubleBE(offset);
      offset += size;
    }
  }
  return out;
}
