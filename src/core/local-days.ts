// Local calendar days in the service's time zone (SERVICE_TIME_ZONE).
//
// Day-grained routes answer for every local day a half-open range [start, end)
// touches, and stored days were cut in that zone. Every offset comes from
// luxon (the IANA tz database): DST days are 23 or 25 hours long, and in a few
// zones midnight itself is skipped. The only arithmetic done here is reading a
// calendar day off an instant shifted by luxon's offset, and counting days
// between calendar dates, which involves no zone.
//
// Rules:
// - A day is a 'YYYY-MM-DD' string (five-digit year past 9999, reachable at the
//   very top of the timestamp range east of UTC).
// - A local day begins at its first existing instant: 00:00, or the moment the
//   clock jumps to when 00:00 is skipped, or the first of two 00:00s when the
//   clock is turned back to midnight (Havana, the Azores); it ends where the
//   next day begins.
// - Ranges are half-open: a range ending exactly at local midnight does not
//   touch the next day; a range grazing one millisecond of a day touches it.
// - An unknown zone, a malformed day or an instant luxon cannot represent is a
//   RangeError: these are programming errors, since routes validate first.
import { DateTime, IANAZone } from 'luxon';
import { firstInstantOfDay } from './day-start.js';

const DAY_PATTERN = /^(\d{4,5})-(\d{2})-(\d{2})$/;
/** 24 hours in ms: a calendar day's span on a zone-free calendar, and the unit of the routes' range caps. */
export const DAY_MS = 86_400_000;

/** The zone names the service accepts for SERVICE_TIME_ZONE: IANA names, `UTC` included. */
export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/** A valid zone's canonical IANA name: Europe/Berlin for europe/berlin, America/New_York for US/Eastern. */
function canonicalZone(zone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}

/**
 * Whether two zone names (valid ones; a stored one may be null) name the same
 * zone: zone names are matched without regard to case, and an alias is the
 * zone it stands for, so europe/berlin is never refused as another zone than
 * the Europe/Berlin stored.
 */
export function sameZone(a: string | null, b: string): boolean {
  return a !== null && (a === b || canonicalZone(a) === canonicalZone(b));
}

/** A valid zone name spelt as the zone database spells it (europe/berlin → Europe/Berlin); an alias stays the alias it is. */
export function zoneSpelling(zone: string): string {
  const canonical = canonicalZone(zone);
  return canonical.toLowerCase() === zone.toLowerCase() ? canonical : zone;
}

// localDayOf runs once per row in several routes (mood entries, sleep nights)
// and luxon's zone lookup costs 5–50 µs a call (it asks Intl for the offset).
// So offsets are cached per zone and UTC quarter hour, but only for a quarter
// whose first and last millisecond have the same offset: the offset then holds
// for the whole quarter (no real zone changes offset twice within 15 minutes).
// A quarter with a transition inside — at an instant off the quarter-hour grid,
// as some zones had before the 1970s — is asked of luxon every time.
const QUARTER_HOUR_MS = 900_000;
const OFFSET_CACHE_LIMIT = 50_000;
const offsetCache = new Map<string, Map<number, number>>();

/** The zone's offset from UTC at an instant, in ms (local time = UTC + offset). */
export function offsetMs(ms: number, zone: string): number {
  let byQuarter = offsetCache.get(zone);
  if (!byQuarter) offsetCache.set(zone, (byQuarter = new Map()));
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  const cached = byQuarter.get(quarter);
  if (cached !== undefined) return cached;
  const first = zoned(quarter * QUARTER_HOUR_MS, zone).offset * 60_000;
  const last = zoned((quarter + 1) * QUARTER_HOUR_MS - 1, zone).offset * 60_000;
  if (first !== last) return zoned(ms, zone).offset * 60_000;
  if (byQuarter.size >= OFFSET_CACHE_LIMIT) byQuarter.clear();
  byQuarter.set(quarter, first);
  return first;
}

/** 'YYYY-MM-DD' of an instant (epoch ms) in `zone`. */
export function localDayOf(ms: number, zone: string): string {
  if (!Number.isFinite(ms)) throw new RangeError(`cannot place instant ${ms} in time zone ${zone}`);
  const local = new Date(ms + offsetMs(ms, zone));
  return formatCalendarDay(local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate());
}

/** How many local days [startMs, endMs) touches; startMs < endMs. Cheaper than listing them (range checks run per request). */
export function countLocalDaysTouched(startMs: number, endMs: number, zone: string): number {
  if (!(startMs < endMs)) throw new RangeError('a range must end after it starts');
  return (calendarMs(localDayOf(endMs - 1, zone)) - calendarMs(localDayOf(startMs, zone))) / DAY_MS + 1;
}

/** Every local day [startMs, endMs) touches, ascending; startMs < endMs. */
export function localDaysTouched(startMs: number, endMs: number, zone: string): string[] {
  if (!(startMs < endMs)) throw new RangeError('a range must end after it starts');
  const last = localDayOf(endMs - 1, zone);
  const days = [localDayOf(startMs, zone)];
  while (days[days.length - 1] !== last) days.push(dayAfter(days[days.length - 1]));
  return days;
}

// Every day-grained request turns its range's days into instants, and luxon
// asks Intl for the zone's offset each time: on /v1/state-of-mind, most of
// the main thread's time in dependencies other than pg and piscina (5.9 % →
// 1.2 % of the CPU profile). A day's start in a zone never changes, so it is
// cached per zone and day, under the same limit.
const dayStartCache = new Map<string, Map<string, number>>();

/** The instant (epoch ms) local `day` begins in `zone`. */
export function dayStartMs(day: string, zone: string): number {
  let byDay = dayStartCache.get(zone);
  if (!byDay) dayStartCache.set(zone, (byDay = new Map()));
  const cached = byDay.get(day);
  if (cached !== undefined) return cached;
  const ms = firstInstantOf(day, zone);
  if (byDay.size >= OFFSET_CACHE_LIMIT) byDay.clear();
  byDay.set(day, ms);
  return ms;
}

/** The instant local `day` begins in `zone`, worked out (dayStartMs caches it). */
function firstInstantOf(day: string, zone: string): number {
  const parts = parseDay(day);
  if (!DateTime.fromObject(parts, { zone: 'utc' }).isValid) throw new RangeError(`cannot place day ${day} in time zone ${zone}`);
  return firstInstantOfDay(utcMidnight(parts).getTime(), (ms) => offsetMs(ms, zone), (ms) => localDayOf(ms, zone) === day);
}

/** The calendar day after `day` (no zone involved: plain date arithmetic, no luxon). */
export function dayAfter(day: string): string {
  const next = new Date(calendarMs(day) + DAY_MS);
  return formatCalendarDay(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate());
}

/** UTC midnight of a calendar day: its position on a zone-free calendar. */
function calendarMs(day: string): number {
  return utcMidnight(parseDay(day)).getTime();
}

/** setUTCFullYear, unlike Date.UTC, keeps years 0–99 as given; an overflowing day rolls into the next month. */
function utcMidnight(parts: { year: number; month: number; day: number }): Date {
  const at = new Date(0);
  at.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  return at;
}

/** [start of firstDay, start of the day after lastDay) in `zone`. */
export function daysSpanMs(firstDay: string, lastDay: string, zone: string): { startMs: number; endMs: number } {
  return { startMs: dayStartMs(firstDay, zone), endMs: dayStartMs(dayAfter(lastDay), zone) };
}

/** The `n` local days ending with today (the local day of nowMs), ascending. */
export function lastNDays(n: number, zone: string, nowMs: number): string[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`day count must be a positive integer, got ${n}`);
  const today = zoned(nowMs, zone);
  const calendarToday = DateTime.fromObject({ year: today.year, month: today.month, day: today.day }, { zone: 'UTC' });
  const days = [formatDay(calendarToday.minus({ days: n - 1 }))];
  for (let i = 1; i < n; i++) days.push(dayAfter(days[i - 1]));
  return days;
}

function zoned(ms: number, zone: string): DateTime {
  const at = DateTime.fromMillis(ms, { zone });
  if (!at.isValid) throw new RangeError(`cannot place instant ${ms} in time zone ${zone}`);
  return at;
}

function parseDay(day: string): { year: number; month: number; day: number } {
  const match = DAY_PATTERN.exec(day);
  const parts = match && { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
  if (!parts || !isCalendarDay(parts)) {
    throw new RangeError(`not a calendar day: ${day}`);
  }
  return parts;
}

function isCalendarDay(parts: { year: number; month: number; day: number }): boolean {
  if (parts.month < 1 || parts.month > 12 || parts.day < 1) return false;
  const at = utcMidnight(parts);
  return at.getUTCMonth() === parts.month - 1 && at.getUTCDate() === parts.day;
}

function formatDay(at: DateTime): string {
  return formatCalendarDay(at.year, at.month, at.day);
}

function formatCalendarDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
