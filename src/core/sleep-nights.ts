// Sleep nights from raw sleep-analysis samples, deduplicated across devices.
//
// A watch and a phone often record the same night; adding them up would
// double it, so every figure comes from one source, never a sum of sources.
//
// Rules (api.md "SleepNight", open-details.md "Sleep ties"):
// - Sessions are built from the samples of all sources together, ordered by
//   start; a sample starting more than 3 h after the latest end seen so far in
//   the session opens a new session (a gap of exactly 3 h does not split).
// - A session's `start` is its first sample start, its `end` the latest sample
//   end (any source), its `date` the local day of `end` (the wake-up day).
// - Values: 0 inBed, 1 asleepUnspecified, 2 awake, 3 asleepCore, 4 asleepDeep,
//   5 asleepREM. Other values count no minutes but still belong to the session
//   (they extend it and their source counts in `sources`).
// - Within one source, overlapping samples of the same value count once
//   (their union), so a source that wrote duplicates does not inflate.
// - `inBedMinutes` is the highest single-source in-bed total.
// - One source supplies `asleepMinutes` (core + deep + rem + unspecified) and
//   `stages`: the one with the most asleep time; on a tie the one with more
//   staged (core/deep/rem) time; then the lower source id. `awake` is reported
//   in `stages` but is not asleep.
// - Minutes are exact: each figure is its millisecond total / 60000, unrounded.
// - `sources` is the number of distinct sources with a sample in the session.
import { localDayOf } from './local-days.js';

export interface SleepSample {
  startMs: number;
  endMs: number;
  value: number;
  sourceId: number;
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

export const SLEEP_SESSION_GAP_MS = 3 * 3600_000;

const IN_BED = 0;
const ASLEEP_UNSPECIFIED = 1;
const AWAKE = 2;
const ASLEEP_CORE = 3;
const ASLEEP_DEEP = 4;
const ASLEEP_REM = 5;
const STAGE_COUNT = 6;
const MS_PER_MINUTE = 60_000;

/** Splits samples (sorted by startMs) into sessions at gaps over SLEEP_SESSION_GAP_MS. */
export function splitSleepSessions(samples: readonly SleepSample[]): SleepSample[][] {
  const sessions: SleepSample[][] = [];
  let session: SleepSample[] = [];
  let latestEndMs = -Infinity;
  let previousStartMs = -Infinity;
  for (const sample of samples) {
    if (sample.startMs < previousStartMs) throw new RangeError('sleep samples must be sorted by startMs');
    previousStartMs = sample.startMs;
    if (session.length > 0 && sample.startMs - latestEndMs > SLEEP_SESSION_GAP_MS) {
      sessions.push(session);
      session = [];
      latestEndMs = -Infinity;
    }
    session.push(sample);
    latestEndMs = Math.max(latestEndMs, sample.endMs);
  }
  if (session.length > 0) sessions.push(session);
  return sessions;
}

/** One SleepNight per session, ascending by end, dated in `zone`. Input sorted by startMs. */
export function assembleSleepNights(samples: readonly SleepSample[], zone: string): SleepNight[] {
  // Sessions come out ordered by start and never overlap, so they are also ordered by end.
  return splitSleepSessions(samples).map((session) => assembleNight(session, zone));
}

function assembleNight(session: readonly SleepSample[], zone: string): SleepNight {
  const tallies = new Map<number, SourceTally>();
  let endMs = -Infinity;
  for (const sample of session) {
    endMs = Math.max(endMs, sample.endMs);
    let tally = tallies.get(sample.sourceId);
    if (!tally) {
      tally = new SourceTally(sample.sourceId);
      tallies.set(sample.sourceId, tally);
    }
    tally.add(sample);
  }

  let inBedMs = 0;
  let chosen: SourceTally | undefined;
  for (const tally of tallies.values()) {
    tally.finish();
    inBedMs = Math.max(inBedMs, tally.msOf(IN_BED));
    if (!chosen || sleepsMore(tally, chosen)) chosen = tally;
  }
  // A session holds at least one sample, so some source was chosen.
  const source = chosen as SourceTally;

  return {
    date: localDayOf(endMs, zone),
    start: session[0].startMs,
    end: endMs,
    inBedMinutes: inBedMs / MS_PER_MINUTE,
    asleepMinutes: source.asleepMs() / MS_PER_MINUTE,
    stages: {
      core: source.msOf(ASLEEP_CORE) / MS_PER_MINUTE,
      deep: source.msOf(ASLEEP_DEEP) / MS_PER_MINUTE,
      rem: source.msOf(ASLEEP_REM) / MS_PER_MINUTE,
      unspecified: source.msOf(ASLEEP_UNSPECIFIED) / MS_PER_MINUTE,
      awake: source.msOf(AWAKE) / MS_PER_MINUTE,
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

  add(sample: SleepSample): void {
    const value = sample.value;
    if (!Number.isInteger(value) || value < 0 || value >= STAGE_COUNT || !(sample.endMs > sample.startMs)) return;
    if (!Number.isNaN(this.openStartMs[value]) && sample.startMs <= this.openEndMs[value]) {
      this.openEndMs[value] = Math.max(this.openEndMs[value], sample.endMs);
      return;
    }
    this.close(value);
    this.openStartMs[value] = sample.startMs;
    this.openEndMs[value] = sample.endMs;
  }

  finish(): void {
    for (let value = 0; value < STAGE_COUNT; value++) this.close(value);
  }

  msOf(value: number): number {
    return this.totalMs[value];
  }

  stagedMs(): number {
    return this.totalMs[ASLEEP_CORE] + this.totalMs[ASLEEP_DEEP] + this.totalMs[ASLEEP_REM];
  }

  asleepMs(): number {
    return this.stagedMs() + this.totalMs[ASLEEP_UNSPECIFIED];
  }

  private close(value: number): void {
    if (Number.isNaN(this.openStartMs[value])) return;
    this.totalMs[value] += this.openEndMs[value] - this.openStartMs[value];
    this.openStartMs[value] = NaN;
  }
}
