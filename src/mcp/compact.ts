// How the tools write numbers and instants for an assistant's context window.
// Field names stay the API's and units its canonical ones; what changes is the
// notation:
// - measured values keep one decimal from 10 up, two from 1 to 10, and three
//   significant digits below 1 (72.333 → 72.3, 4.751 → 4.75, 0.2153 → 0.215,
//   100.45 kg → 100.5): what a person reads, with no whole digit ever lost;
// - coordinates keep five decimals (about a metre), altitudes one;
// - an instant (epoch ms in the API) is local ISO 8601 time in the service's
//   zone with its offset, to the second (`2026-03-08T07:12:05-04:00`):
//   readable without arithmetic, unambiguous in a repeated DST hour;
// - points of a workout stream or track carry seconds from the workout's start.
import { offsetMs } from '../core/local-days.js';

const SMALL_SIGNIFICANT_DIGITS = 3;
const COORDINATE_DECIMALS = 5;
const ALTITUDE_DECIMALS = 1;

/** The notation above in a sentence, for the guide an assistant reads. */
export const NOTATION_WORDS =
  `Measured values keep one decimal from 10 up, two from 1 to 10 and ${SMALL_SIGNIFICANT_DIGITS} significant digits below 1 (never a whole digit lost); ` +
  `coordinates ${COORDINATE_DECIMALS} decimals, altitudes ${ALTITUDE_DECIMALS}.`;

function roundTo(value: number, decimals: number): number {
  const magnitude = Math.abs(value);
  // Past 2^53 / 10^decimals there are no decimals left to round.
  if (magnitude >= 2 ** 53 / 10 ** decimals) return value;
  // Rounded as the number is written (its shortest decimal form, so 1.005 → 1.01), half away from zero; -0 becomes 0.
  // (A nudge of the binary product instead rounded 414261112644.5498 up to .6 once its ulps reached the kept digit.)
  const written = String(magnitude);
  if (written.includes('e')) return Math.sign(value) * Number(magnitude.toFixed(decimals)) || 0; // below 1e-6
  const point = written.indexOf('.');
  if (point === -1 || written.length - point - 1 <= decimals) return value || 0;
  const digits = written.slice(0, point) + written.slice(point + 1, point + 1 + decimals);
  const kept = Number(digits) + (written.charCodeAt(point + 1 + decimals) >= 0x35 ? 1 : 0);
  return (Math.sign(value) * kept) / 10 ** decimals || 0;
}

/** A measured value: one decimal from 10 up, two from 1, three significant digits below 1. */
export function roundValue(value: number): number;
export function roundValue(value: number | null): number | null;
export function roundValue(value: number | null): number | null {
  if (value === null || !Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.abs(value);
  if (magnitude >= 10) return roundTo(value, 1);
  if (magnitude >= 1) return roundTo(value, 2);
  return Number(value.toPrecision(SMALL_SIGNIFICANT_DIGITS));
}

export const roundCoordinate = (degrees: number): number => roundTo(degrees, COORDINATE_DECIMALS);
export const roundAltitude = (metres: number | null): number | null => (metres === null ? null : roundTo(metres, ALTITUDE_DECIMALS));

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** An instant as local ISO 8601 time to the second with its offset, e.g. `2026-03-08T07:12:05-04:00`. */
export function localTime(ms: number, zone: string): string {
  const offset = offsetMs(ms, zone);
  const local = new Date(ms + offset);
  const year = local.getUTCFullYear();
  const sign = offset < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(offset) / 60_000);
  return (
    `${pad(year, 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
  );
}

export function localTimeOrNull(ms: number | null, zone: string): string | null {
  return ms === null ? null : localTime(ms, zone);
}

/** Seconds from `startMs` to `ms`, to the second. */
export const secondsFrom = (startMs: number, ms: number): number => Math.round((ms - startMs) / 1000);

/** The UTC calendar day of an instant (a date of birth is stored as UTC midnight). */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const INSTANT_KEYS = new Set(['start', 'end', 'date', 'timestamp']);

/**
 * Free-form objects (workout events, sub-activities): numbers under start,
 * end, date or timestamp are instants; other numbers are measured values.
 */
export function compactFreeForm(value: unknown, zone: string, key = ''): unknown {
  if (typeof value === 'number') return INSTANT_KEYS.has(key) && Number.isInteger(value) ? localTime(value, zone) : roundValue(value);
  if (Array.isArray(value)) return value.map((item) => compactFreeForm(item, zone));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compactFreeForm(v, zone, k)]));
  }
  return value;
}

/** Every number of an object rounded as a measured value (rings, statistics, stages). */
export function roundAll<T extends object>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).map(([k, v]) => [k, typeof v === 'number' ? roundValue(v) : v !== null && typeof v === 'object' && !Array.isArray(v) ? roundAll(v) : v]),
  ) as T;
}
