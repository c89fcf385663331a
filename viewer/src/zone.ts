// Local days and times in the server's SERVICE_TIME_ZONE (from /v1/users),
// never the browser's: the API cuts days in that zone, so the viewer must
// label them the same way. Intl knows the zone's DST rules, so a 23- or
// 25-hour day starts and ends where the API says it does.

import { firstInstantOfDay } from '../../src/core/day-start.js';

export type LocalDate = string; // YYYY-MM-DD

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(zone: string): Intl.DateTimeFormat {
  let format = partsFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    partsFormats.set(zone, format);
  }
  return format;
}

function wallClock(ms: number, zone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of partsFormat(zone).formatToParts(ms)) if (part.type !== 'literal') out[part.type] = Number(part.value);
  return out;
}

/** The zone's offset from UTC at instant `ms`, in ms. */
export function offsetMs(ms: number, zone: string): number {
  const p = wallClock(ms, zone);
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - whole;
}

/** The local day of instant `ms`. */
export function localDate(ms: number, zone: string): LocalDate {
  const p = wallClock(ms, zone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The instant the local day begins, where the API's days begin (firstInstantOfDay, src/core/day-start.ts). */
export function dayStart(date: LocalDate, zone: string): number {
  return firstInstantOfDay(Date.parse(`${date}T00:00:00Z`), (ms) => offsetMs(ms, zone), (ms) => localDate(ms, zone) === date);
}

/** Calendar arithmetic on a local date. */
export function addDays(date: LocalDate, days: number): LocalDate {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export interface DayRange {
  /** Local days, oldest first, ending today. */
  dates: LocalDate[];
  /** Start of the first day. */
  start: number;
  /** Start of the day after today: [start, end) touches exactly `dates`. */
  end: number;
}

/** The last `count` local days, today included. */
export function lastDays(count: number, zone: string, now = Date.now()): DayRange {
  const today = localDate(now, zone);
  const dates = Array.from({ length: count }, (_, i) => addDays(today, i - count + 1));
  return { dates, start: dayStart(dates[0], zone), end: dayStart(addDays(today, 1), zone) };
}

/** Days between two local dates, both included. */
export function datesBetween(first: LocalDate, last: LocalDate): LocalDate[] {
  const dates: LocalDate[] = [];
  for (let date = first; date <= last; date = addDays(date, 1)) dates.push(date);
  return dates;
}
