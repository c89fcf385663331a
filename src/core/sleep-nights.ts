// Sleep nights from raw sleep-analysis samples, deduplicated across devices,
// and the rules that decide which samples a range needs. One shape from the
// query to here (and to the summary): SleepColumns, the samples as
// four typed arrays sorted by start — thousands of samples cost more as
// objects than everything else the route does.
//
// Rules (api.md "SleepNight", open-details.md "Sleep ties"):
// - Sessions are built from the samples of all sources together, ordered by
//   start; a sample starting more than SLEEP_SESSION_GAP_MS (3 h) after the
//   latest end seen so far in the session opens a new session (a gap of
//   exactly 3 h does not split).
// - A session's `start` is its first sample start, its `end` the latest sample
//   end (any source), its `date` the local day of `end` (the wake-up day).
// - Values are the framework's (SleepValue in registry.ts). Other values count
//   no minutes but still belong to the session (they extend it and their
//   source counts in `sources`).
// - Within one source, overlapping samples of the same value count once
//   (their union), so a source that wrote duplicates does not inflate.
// - `inBedMinutes` is the highest single-source in-bed total.
// - One source supplies `asleepMinutes` (core + deep + rem + unspecified) and
//   `stages`: the one with the most asleep time; on a tie the one with more
//   staged (core/deep/rem) time; then the lower source id. `awake` is reported
//   in `stages` but is not asleep.
// - Minutes are exact: each figure is its millisecond total / 60000, unrounded.
// - `sources` is the number of distinct sources with a sample in the session.
// - A range [start, end) answers the nights whose session ends on a local day
//   it touches (sleepWindow); those need every sample of their session, which
//   may begin long before the window (lookbackReachesFurther).
import { SLEEP_SESSION_GAP_MS } from '../limits.js';
import { dayAfter, dayStartMs, localDayOf } from './local-days.js';
import { SleepValue } from './registry.js';

/** Sleep-analysis samples sorted by start (then uuid); a sample with no source has source 0. */
export interface SleepColumns {
  startMs: Float64Array;
  endMs: Float64Array;
  /** A NULL value reads as NaN: it counts no minutes. */
  value: Float64Array;
  sourceId: Float64Array;
}

export interface SleepStages {
  core: number;
  deep: number;
  rem: number;
  unspecified: number;
  awake: number;
}

export interface SleepNight {
  date: string;
  start: number;
  end: number;
  inBedMinutes: number;
  asleepMinutes: number;
  stages: SleepStages;
  sources: number;
}

/** The longest a single sleep-analysis sample is taken to last: past that margin no earlier sample can join a session. */
export const LONGEST_SLEEP_SAMPLE_MS = 24 * 3_600_000;
/** How far before the window the first read looks; lookbackReachesFurther says when to look further. */
export const INITIAL_SLEEP_LOOKBACK_MS = 48 * 3_600_000;

/** Values 0 … STAGE_COUNT - 1 count minutes. */
const STAGE_COUNT = Math.max(...Object.values(SleepValue)) + 1;
const MS_PER_MINUTE = 60_000;

/** Columns [from, to) of `columns`, without copying. */
export function sliceSleepColumns(columns: SleepColumns, from: number, to: number): SleepColumns {
  return {
    startMs: columns.startMs.subarray(from, to),
    endMs: columns.endMs.subarray(from, to),
    value: columns.value.subarray(from, to),
    sourceId: columns.sourceId.subarray(from, to),
  };
}

/** `earlier` then `later`, both sorted, every sample of `earlier` starting before `later`'s first. */
export function concatSleepColumns(earlier: SleepColumns, later: SleepColumns): SleepColumns {
  const join = (a: Float64Array, b: Float64Array) => {
    const out = new Float64Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  };
  return {
    startMs: join(earlier.startMs, later.startMs),
    endMs: join(earlier.endMs, later.endMs),
    value: join(earlier.value, later.value),
    sourceId: join(earlier.sourceId, later.sourceId),
  };
}

/** Sessions as [first, last) sample indices, split at gaps over SLEEP_SESSION_GAP_MS. */
export function sleepSessions(columns: SleepColumns): Array<[from: number, to: number]> {
  const { startMs, endMs } = columns;
  const sessions: Array<[number, number]> = [];
  let from = 0;
  let latestEndMs = -Infinity;
  for (let i = 0; i < startMs.length; i++) {
    if (i > 0 && startMs[i] < startMs[i - 1]) throw new RangeError('sleep samples must be sorted by start');
    if (i > from && startMs[i] - latestEndMs > SLEEP_SESSION_GAP_MS) {
      sessions.push([from, i]);
      from = i;
      latestEndMs = -Infinity;
    }
    latestEndMs = Math.max(latestEndMs, endMs[i]);
  }
  if (startMs.length > from) sessions.push([from, startMs.length]);
  return sessions;
}

/** One SleepNight per session, ascending by end, dated in `zone`. */
export function assembleSleepNights(columns: SleepColumns, zone: string): SleepNight[] {
  // Sessions come out ordered by start and never overlap, so they are also ordered by end.
  return sleepSessions(columns).map(([from, to]) => assembleNight(columns, from, to, zone));
}

/** The instants a range's nights are cut from: nights ending in [startMs, endMs), samples read up to readUntilMs. */
export interface SleepWindow {
  startMs: number;
  endMs: number;
  /** A sample starting up to a session gap after the window can still extend (and move) a night ending in it. */
  readUntilMs: number;
}

/** The window of the local days [start, end) touches in `zone`. */
export function sleepWindow(start: number, end: number, zone: string): SleepWindow {
  const startMs = dayStartMs(localDayOf(start, zone), zone);
  const endMs = dayStartMs(dayAfter(localDayOf(end - 1, zone)), zone);
  return { startMs, endMs, readUntilMs: endMs + SLEEP_SESSION_GAP_MS };
}

/** The nights a window answers: those whose session ends in it. */
export function nightsInWindow(nights: readonly SleepNight[], window: SleepWindow): SleepNight[] {
  return nights.filter((night) => night.end >= window.startMs && night.end < window.endMs);
}

/**
 * Whether samples read from `fromMs` may miss the start of a session that
 * reaches the window (so the read must look further back). Only the samples
 * before the window matter: a session formed from them reaches the window when
 * it ends in it, or when it is the last one and a sample within the gap of its
 * end could still extend it. Counting that last session in when nothing does
 * extend it only looks back further, which changes no night ending in the
 * window: an earlier sample ends too long before it to join.
 */
export function lookbackReachesFurther(columns: SleepColumns, fromMs: number, windowStartMs: number): boolean {
  let beforeWindow = 0;
  while (beforeWindow < columns.startMs.length && columns.startMs[beforeWindow] < windowStartMs) beforeWindow++;
  const sessions = sleepSessions(sliceSleepColumns(columns, 0, beforeWindow));
  const reaching = sessions.find(([from, to], i) => {
    let latestEnd = -Infinity;
    for (let k = from; k < to; k++) latestEnd = Math.max(latestEnd, columns.endMs[k]);
    return latestEnd >= windowStartMs || (i === sessions.length - 1 && latestEnd + SLEEP_SESSION_GAP_MS >= windowStartMs);
  });
  return reaching !== undefined && columns.startMs[reaching[0]] - fromMs <= LONGEST_SLEEP_SAMPLE_MS + SLEEP_SESSION_GAP_MS;
}

function assembleNight(columns: SleepColumns, from: number, to: number, zone: string): SleepNight {
  const tallies = new Map<number, SourceTally>();
  let endMs = -Infinity;
  for (let i = from; i < to; i++) {
    endMs = Math.max(endMs, columns.endMs[i]);
    const sourceId = columns.sourceId[i];
    let tally = tallies.get(sourceId);
    if (!tally) {
      tally = new SourceTally(sourceId);
      tallies.set(sourceId, tally);
    }
    tally.add(columns.startMs[i], columns.endMs[i], columns.value[i]);
  }

  let inBedMs = 0;
  let chosen: SourceTally | undefined;
  for (const tally of tallies.values()) {
    tally.finish();
    inBedMs = Math.max(inBedMs, tally.msOf(SleepValue.inBed));
    if (!chosen || sleepsMore(tally, chosen)) chosen = tally;
  }
  // A session holds at least one sample, so some source was chosen.
  const source = chosen as SourceTally;

  return {
    date: localDayOf(endMs, zone),
    start: columns.startMs[from],
    end: endMs,
    inBedMinutes: inBedMs / MS_PER_MINUTE,
    asleepMinutes: source.asleepMs() / MS_PER_MINUTE,
    stages: {
      core: source.msOf(SleepValue.asleepCore) / MS_PER_MINUTE,
      deep: source.msOf(SleepValue.asleepDeep) / MS_PER_MINUTE,
      rem: source.msOf(SleepValue.asleepREM) / MS_PER_MINUTE,
      unspecified: source.msOf(SleepValue.asleepUnspecified) / MS_PER_MINUTE,
      awake: source.msOf(SleepValue.awake) / MS_PER_MINUTE,
    },
    sources: tallies.size,
  };
}

/** The tie rule: more asleep, then more staged, then the lower source id. */
function sleepsMore(a: SourceTally, b: SourceTally): boolean {
  if (a.asleepMs() !== b.asleepMs()) return a.asleepMs() > b.asleepMs();
  if (a.stagedMs() !== b.stagedMs()) return a.stagedMs() > b.stagedMs();
  return a.sourceId < b.sourceId;
}

/**
 * One source's time per sleep value, each the union of its intervals. Samples
 * arrive sorted by start, so the union is built in one pass: extend the open
 * interval while samples overlap it, close it at the first gap.
 */
class SourceTally {
  private readonly totalMs = new Float64Array(STAGE_COUNT);
  private readonly openStartMs = new Float64Array(STAGE_COUNT).fill(NaN);
  private readonly openEndMs = new Float64Array(STAGE_COUNT);

  constructor(readonly sourceId: number) {}

  add(startMs: number, endMs: number, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= STAGE_COUNT || !(endMs > startMs)) return;
    if (!Number.isNaN(this.openStartMs[value]) && startMs <= this.openEndMs[value]) {
      this.openEndMs[value] = Math.max(this.openEndMs[value], endMs);
      return;
    }
    this.close(value);
    this.openStartMs[value] = startMs;
    this.openEndMs[value] = endMs;
  }

  finish(): void {
    for (let value = 0; value < STAGE_COUNT; value++) this.close(value);
  }

  msOf(value: number): number {
    return this.totalMs[value];
  }

  stagedMs(): number {
    return this.totalMs[SleepValue.asleepCore] + this.totalMs[SleepValue.asleepDeep] + this.totalMs[SleepValue.asleepREM];
  }

  asleepMs(): number {
    return this.stagedMs() + this.totalMs[SleepValue.asleepUnspecified];
  }

  private close(value: number): void {
    if (Number.isNaN(this.openStartMs[value])) return;
    this.totalMs[value] += this.openEndMs[value] - this.openStartMs[value];
    this.openStartMs[value] = NaN;
  }
}
