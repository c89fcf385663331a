// Pieces of JSON text exactly as JSON.stringify writes them, for replies
// built as strings from column arrays instead of objects (a page of a
// thousand samples as objects, then stringified, cost as much again as
// fetching it). The tests compare each body built this way with
// JSON.stringify of the objects the routes used to build.

const ZEROS = ['', '0', '00', '000', '0000', '00000'];

/**
 * A number as JSON.stringify writes it: finite numbers in their shortest form
 * (-0 as 0), anything else (null too) null. An integer from 1e9 to below 1e15
 * — an epoch ms, two or three to each sample, workout and mood entry — is
 * written as its millions and the rest, padded to six digits: V8 writes such
 * a number through its double-to-text path, but the two parts, below 2^31, as
 * small integers from its cache. A 1,000-sample page's numbers took ~110
 * against ~360 µs (bench/RESULTS.md, issue 12).
 */
export function jsonNumber(n: number | null): string {
  if (n === null) return 'null';
  if (n >= 1e9 && n < 1e15 && Number.isInteger(n)) {
    const millions = Math.floor(n / 1e6);
    const rest = String(n - millions * 1e6);
    return String(millions) + ZEROS[6 - rest.length] + rest;
  }
  return Number.isFinite(n) ? String(n) : 'null';
}

/** A string or null as JSON.stringify writes it. */
export const jsonStringOrNull = (s: string | null): string => (s === null ? 'null' : JSON.stringify(s));
