// Numbers written as ASCII bytes straight into a buffer, with no string made:
// for text written from COPY bytes (the samples export's lines, /v1/samples'
// pages). Integers below 2^53 and numbers of one decimal, nearly all that
// samples hold, are written here; anything else is left to the caller, whose
// format decides its text (String(n) for JSON, plainNumber for the export).

/** Integers below this are written digit by digit: their text is their digits. */
const DIGITS_BELOW = 2 ** 53;
const BILLION = 1_000_000_000;
const MINUS = 0x2d;
const POINT = 0x2e;
const ZERO = 0x30;

/**
 * Writes n at `o` when its shortest text is its digits (an integer below
 * 2^53 in magnitude; -0 as 0) or whole.tenth (62.5, -36.6), as String(n)
 * writes it; answers the offset after it, or -1, having written nothing,
 * when n is neither (a NaN and an infinity are neither).
 */
export function writeSimpleNumber(out: Uint8Array, o: number, n: number): number {
  // Most values: a whole number below 1000 (a heart rate, a step count, a category's value; -0 is 0).
  if (n >= 0 && n < 1000 && (n | 0) === n) {
    if (n >= 100) out[o++] = ZERO + ((n / 100) | 0);
    if (n >= 10) out[o++] = ZERO + (((n / 10) | 0) % 10);
    out[o++] = ZERO + (n % 10);
    return o;
  }
  if (Number.isInteger(n)) {
    if (n >= DIGITS_BELOW || n <= -DIGITS_BELOW) return -1;
    if (n < 0) out[o++] = MINUS;
    return writeWhole(out, o, Math.abs(n));
  }
  // One decimal: when k / 10 reads back as n, "k/10" is n's shortest round-trip text.
  const k = Math.round(n * 10);
  if (k / 10 !== n || k >= DIGITS_BELOW || k <= -DIGITS_BELOW) return -1;
  if (k < 0) out[o++] = MINUS;
  const tenths = Math.abs(k);
  const whole = Math.floor(tenths / 10);
  o = writeWhole(out, o, whole);
  out[o++] = POINT;
  out[o++] = ZERO + (tenths - whole * 10);
  return o;
}

/** The digits of an integer 0 ≤ n < 2^53 at `o`; answers the offset after them. */
function writeWhole(out: Uint8Array, o: number, n: number): number {
  if (n < BILLION) return writeDigits(out, o, n, 0);
  const high = Math.floor(n / BILLION);
  return writeDigits(out, writeDigits(out, o, high, 0), n - high * BILLION, 9);
}

/** The digits of 0 ≤ n < 10^9 at `o`, padded with zeros to `width`; answers the offset after them. */
function writeDigits(out: Uint8Array, o: number, n: number, width: number): number {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = (rest / 10) | 0) digits++;
  if (digits < width) digits = width;
  for (let i = o + digits - 1; i >= o; i--) {
    const next = (n / 10) | 0;
    out[i] = ZERO + n - next * 10;
    n = next;
  }
  return o + digits;
}
