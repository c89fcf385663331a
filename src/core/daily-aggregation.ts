// Daily buckets of one quantity type for one user, the way the phone's
// statistics queries fill `daily_aggregates`. Shared by the demo generator and
// the Apple Health importer so both write buckets by the same rules:
//
// - A sample belongs to the local day (in the given IANA zone, cut by
//   local-days.ts) of its start, even when it ends on the next day. DST days
//   are 23 or 25 hours.
// - Discrete types: avg, min and max of the day's sample values; sum is null.
// - Cumulative types: the day's sum; avg/min/max are null. Overlapping sources
//   are deduplicated by priority (a lower number wins): a sample counts only
//   for the part of its duration not covered by samples of higher priority,
//   value × uncovered / duration. An instant sample (start = end) counts fully
//   unless it lies inside a higher-priority interval [start, end). Samples of
//   the same priority simply add.
// - Samples arrive in non-decreasing start order (an out-of-order sample is an
//   Error). A day can no longer change once a sample has started at or after
//   its end and at or after the end of every sample in it (only a sample that
//   starts before another ends can cover it). drain() hands out such days,
//   ascending, and forgets them, so memory holds roughly the samples of the
//   last day plus those of the longest sample's span — a day for a 24 h
//   sample. Nothing caps the span: a longer sample only delays its day.
import { dayAfter, dayStartMs, isValidZone, localDayOf } from './local-days.js';

export interface AggregationSample {
  startMs: number;
  endMs: number;
  value: number;
  /** Lower number wins overlaps (e.g. 0 watch, 1 phone). */
  priority: number;
}

export interface DayBucket {
  day: string;
  sum: number | null;
  avg: number | null;
  min: number | null;
  max: number | null;
}

interface LocalDay {
  day: string;
  startMs: number;
  endMs: number;
}

/**
 * Local day boundaries, cached: samples come in time order, so most hit one of
 * the last few days. One calendar per zone is shared by every aggregator, since
 * exports interleave types day by day as often as they list them type by type.
 */
class LocalCalendar {
  private static readonly byZone = new Map<string, LocalCalendar>();
  private static readonly RECENT_DAYS = 8;
  private readonly recent: LocalDay[] = [];

  static of(zone: string): LocalCalendar {
    let calendar = LocalCalendar.byZone.get(zone);
    if (calendar === undefined) {
      if (!isValidZone(zone)) throw new Error(`unknown time zone: ${zone}`);
      LocalCalendar.byZone.set(zone, (calendar = new LocalCalendar(zone)));
    }
    return calendar;
  }

  private constructor(private readonly zone: string) {}

  dayOf(ms: number): LocalDay {
    const recent = this.recent;
    for (let i = 0; i < recent.length; i++) {
      const day = recent[i];
      if (ms >= day.startMs && ms < day.endMs) return day;
    }
    const label = localDayOf(ms, this.zone);
    const day = { day: label, startMs: dayStartMs(label, this.zone), endMs: dayStartMs(dayAfter(label), this.zone) };
    if (!(day.startMs <= ms && ms < day.endMs)) throw new Error(`no local day for ${ms} in ${this.zone}`);
    recent.unshift(day);
    if (recent.length > LocalCalendar.RECENT_DAYS) recent.pop();
    return day;
  }
}

interface DiscreteDay {
  local: LocalDay;
  total: number;
  count: number;
  min: number;
  max: number;
}

interface HeldSample {
  sample: AggregationSample;
  local: LocalDay;
  counted: boolean;
}

interface CumulativeDay {
  local: LocalDay;
  sum: number;
  /** Latest end of the day's samples: higher-priority samples starting before it may still cover them. */
  maxEndMs: number;
}

export class DailyAggregator {
  private readonly calendar: LocalCalendar;
  private latestStartMs = -Infinity;
  private readonly discreteDays: DiscreteDay[] = [];
  private readonly cumulativeDays: CumulativeDay[] = [];
  /** Cumulative samples not yet counted, and counted ones that may still cover those, by start. */
  private held: HeldSample[] = [];
  private heldMaxSpanMs = 0;

  constructor(timeZone: string, private readonly aggregation: 'cumulative' | 'discrete') {
    this.calendar = LocalCalendar.of(timeZone);
  }

  add(sample: AggregationSample): void {
    const { startMs, endMs, value } = sample;
    if (!Number.isFinite(startMs) || !Number.isFinite(endMs) || !Number.isFinite(value)) {
      throw new Error('sample times and value must be finite numbers');
    }
    if (endMs < startMs) throw new Error(`sample ends (${endMs}) before it starts (${startMs})`);
    if (startMs < this.latestStartMs) throw new Error(`samples must come in start order: ${startMs} after ${this.latestStartMs}`);
    this.latestStartMs = startMs;
    const local = this.calendar.dayOf(startMs);
    if (this.aggregation === 'discrete') this.addDiscrete(local, value);
    else this.addCumulative(local, sample);
  }

  drain(): DayBucket[] {
    return this.aggregation === 'discrete' ? this.releaseDiscrete(false) : this.releaseCumulative(false);
  }

  finish(): DayBucket[] {
    return this.aggregation === 'discrete' ? this.releaseDiscrete(true) : this.releaseCumulative(true);
  }

  private addDiscrete(local: LocalDay, value: number): void {
    const open = this.discreteDays[this.discreteDays.length - 1];
    if (open !== undefined && open.local === local) {
      open.total += value;
      open.count += 1;
      if (value < open.min) open.min = value;
      if (value > open.max) open.max = value;
    } else {
      this.discreteDays.push({ local, total: value, count: 1, min: value, max: value });
    }
  }

  private releaseDiscrete(all: boolean): DayBucket[] {
    let n = 0;
    while (n < this.discreteDays.length && (all || this.discreteDays[n].local.endMs <= this.latestStartMs)) n++;
    return this.discreteDays.splice(0, n).map((d) => ({ day: d.local.day, sum: null, avg: d.total / d.count, min: d.min, max: d.max }));
  }

  private addCumulative(local: LocalDay, sample: AggregationSample): void {
    this.held.push({ sample, local, counted: false });
    this.heldMaxSpanMs = Math.max(this.heldMaxSpanMs, sample.endMs - sample.startMs);
    const open = this.cumulativeDays[this.cumulativeDays.length - 1];
    if (open !== undefined && open.local === local) open.maxEndMs = Math.max(open.maxEndMs, sample.endMs);
    else this.cumulativeDays.push({ local, sum: 0, maxEndMs: sample.endMs });
  }

  private releaseCumulative(all: boolean): DayBucket[] {
    let n = 0;
    while (
      n < this.cumulativeDays.length &&
      (all || (this.cumulativeDays[n].local.endMs <= this.latestStartMs && this.cumulativeDays[n].maxEndMs <= this.latestStartMs))
    ) {
      n++;
    }
    if (n === 0) return [];
    const released = this.cumulativeDays.splice(0, n);
    const sums = new Map<LocalDay, CumulativeDay>(released.map((d) => [d.local, d]));
    for (const entry of this.held) {
      const day = sums.get(entry.local);
      if (day === undefined || entry.counted) continue;
      day.sum += this.uncoveredValue(entry.sample);
      entry.counted = true;
    }
    this.forgetUselessSamples();
    return released.map((d) => ({ day: d.local.day, sum: d.sum, avg: null, min: null, max: null }));
  }

  /** The sample's value scaled by the share of its duration no higher-priority sample covers. */
  private uncoveredValue(sample: AggregationSample): number {
    const { startMs, endMs, priority, value } = sample;
    const held = this.held;
    let i = firstStartingAtOrAfter(held, startMs - this.heldMaxSpanMs);
    if (startMs === endMs) {
      for (; i < held.length && held[i].sample.startMs <= startMs; i++) {
        const other = held[i].sample;
        if (other.priority < priority && other.startMs <= startMs && startMs < other.endMs) return 0;
      }
      return value;
    }
    // Higher-priority intervals clipped to the sample, already ordered by start: merge as we go.
    let covered = 0;
    let runStart = 0;
    let runEnd = -Infinity;
    for (; i < held.length && held[i].sample.startMs < endMs; i++) {
      const other = held[i].sample;
      if (other.priority >= priority || other.endMs <= startMs) continue;
      const from = Math.max(other.startMs, startMs);
      const to = Math.min(other.endMs, endMs);
      if (to <= from) continue;
      if (from > runEnd) {
        if (runEnd > runStart) covered += runEnd - runStart;
        runStart = from;
        runEnd = to;
      } else if (to > runEnd) {
        runEnd = to;
      }
    }
    if (runEnd > runStart) covered += runEnd - runStart;
    return covered === 0 ? value : (value * (endMs - startMs - covered)) / (endMs - startMs);
  }

  /** Counted samples that end before every sample still to count (or still to come) cover nothing more. */
  private forgetUselessSamples(): void {
    let horizonMs = this.latestStartMs;
    for (const entry of this.held) {
      if (!entry.counted && entry.sample.startMs < horizonMs) horizonMs = entry.sample.startMs;
    }
    this.held = this.held.filter((entry) => !entry.counted || entry.sample.endMs > horizonMs);
    this.heldMaxSpanMs = this.held.reduce((span, entry) => Math.max(span, entry.sample.endMs - entry.sample.startMs), 0);
  }
}

function firstStartingAtOrAfter(held: HeldSample[], ms: number): number {
  let lo = 0;
  let hi = held.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (held[mid].sample.startMs < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
