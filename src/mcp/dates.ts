// Tool dates: `YYYY-MM-DD` local days in SERVICE_TIME_ZONE, both ends
// inclusive, turned into the half-open epoch-ms range of those days — from the
// first instant of start_date to the first instant of the day after end_date —
// so a 23- or 25-hour DST day is covered exactly. Caps count local days
// (RANGE_CAP_DAYS); where the route behind a tool also caps the span at
// N × 24 hours, a range that a DST day lengthens past it is asked of the route
// in two pieces when its answers are per day (dayPieces); get_samples, paged,
// reads up to the cap and says what it left out.
import { z } from 'zod';
import { DAY_MS, dayAfter, dayStartMs, lastNDays } from '../core/local-days.js';
import { MAX_EPOCH_MS } from '../limits.js';
import { ToolError } from './tool.js';

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

// Where a local day starts asks luxon (and Intl) for the zone's offsets, a
// tenth of a millisecond a call; the days asked for repeat (today, last week).
const DAY_STARTS_KEPT = 4096;
const dayStarts = new Map<string, number>();

function startOf(day: string, zone: string): number {
  const key = `${zone} ${day}`;
  let start = dayStarts.get(key);
  if (start === undefined) {
    if (dayStarts.size >= DAY_STARTS_KEPT) dayStarts.clear();
    dayStarts.set(key, (start = dayStartMs(day, zone)));
  }
  return start;
}

/** Calendar days from `first` to `last`, both counted (no zone: dates on a calendar). */
const daysCounted = (first: string, last: string) => (Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS + 1;

function isCalendarDay(day: string): boolean {
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day;
}

/** A tool's date input. */
export const LocalDate = (description: string) =>
  z.string().regex(DAY_PATTERN, 'must be a date written YYYY-MM-DD').refine(isCalendarDay, 'must be a real calendar day').describe(description);

export interface DayRange {
  startDate: string;
  endDate: string;
  /** First instant of startDate. */
  startMs: number;
  /** First instant of the day after endDate. */
  endMs: number;
  /** Local days covered, both ends counted. */
  days: number;
}

export interface DayCap {
  /** Most local days a call covers. */
  days: number;
}

/**
 * The first instant of `day` in `zone` (with `after`, of the day after it),
 * within the epoch-ms range the routes take: 1970-01-01 may start before 0
 * east of UTC, 9999-12-31 end after the last instant west of it.
 */
export function dayBoundMs(day: string, zone: string, after = false): number {
  let ms = -1;
  try {
    ms = startOf(after ? dayAfter(day) : day, zone);
  } catch {
    // luxon's RangeError for a day it cannot place: out of range like the others.
  }
  if (ms < 0 || ms > MAX_EPOCH_MS) throw new ToolError('dates must fall between 1970-01-02 and 9999-12-30');
  return ms;
}

/** [start of startDate, start of the day after endDate) in `zone`, checked against `cap`. */
export function dayRange(startDate: string, endDate: string, zone: string, cap?: DayCap): DayRange {
  if (endDate < startDate) throw new ToolError(`end_date ${endDate} is before start_date ${startDate}`);
  const startMs = dayBoundMs(startDate, zone);
  const endMs = dayBoundMs(endDate, zone, true);
  // A day the zone's clocks jumped past (Pacific/Apia's 2011-12-30) has no instant: a range of such days alone is empty.
  if (endMs <= startMs) {
    throw new ToolError(`start_date ${startDate} to end_date ${endDate} covers no time in ${zone}: its clocks skipped ${startDate === endDate ? 'that day' : 'those days'}`);
  }
  const days = daysCounted(startDate, endDate);
  if (cap && days > cap.days) {
    throw new ToolError(`start_date ${startDate} to end_date ${endDate} covers ${days} days; at most ${cap.days} per call, so split the range`);
  }
  return { startDate, endDate, startMs, endMs, days };
}

/**
 * The range cut at a local midnight into pieces each within `cap.days` × 24
 * hours: one piece, unless a DST change lengthens the range past it (366 days
 * holding a fall-back day but not the spring-forward), when it is cut in two.
 * For a route whose answers are per local day, the pieces' answers together
 * are the whole range's.
 */
export function dayPieces(range: DayRange, zone: string, cap: DayCap): DayRange[] {
  if (range.endMs - range.startMs <= cap.days * DAY_MS || range.days < 2) return [range];
  let firstEnd = range.startDate;
  for (let i = 1; i < Math.floor(range.days / 2); i++) firstEnd = dayAfter(firstEnd);
  return [dayRange(range.startDate, firstEnd, zone), dayRange(dayAfter(firstEnd), range.endDate, zone)];
}

/** Today's local date in `zone`. */
export function today(zone: string, nowMs = Date.now()): string {
  return lastNDays(1, zone, nowMs)[0];
}
