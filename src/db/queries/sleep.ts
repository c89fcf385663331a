// Sleep-analysis samples of one user over a span of start times, all sources,
// for night assembly, and how far back to read so that a night ending in a
// window comes back whole (shared by /v1/sleep/daily, the summary and the sleep
// export). Served by the samples (user_id, type_id, start_ms, uuid) index: one
// range scan, already in the order assembly needs.
import type pg from 'pg';
import { float8ArrayFromBinary } from '../binary-arrays.js';
import { SLEEP_SESSION_GAP_MS, splitSleepSessions, type SleepSample } from '../../core/sleep-nights.js';
import { SLEEP_ANALYSIS } from '../../core/registry.js';

const HOUR_MS = 3_600_000;
const INITIAL_LOOKBACK_MS = 48 * HOUR_MS;
/** The longest a single sleep-analysis sample is taken to last: past that margin no earlier sample can join a session. */
export const LONGEST_SAMPLE_MS = 24 * HOUR_MS;

/**
 * Sleep samples starting in [$3, $4), by start then uuid, as startMs, endMs,
 * value, sourceId (also the sleep export's cursor). $1 user, $2 the sleep
 * identifier. A sample with no source reads as source 0 (identity ids start
 * at 1): one unknown source.
 */
export const SLEEP_SAMPLES_SQL = `
  SELECT s.start_ms AS "startMs", s.end_ms AS "endMs", s.value, coalesce(s.source_id, 0) AS "sourceId"
  FROM samples s
  WHERE s.user_id = $1
    AND s.type_id = (SELECT type_id FROM sample_types WHERE identifier = $2)
    AND s.start_ms >= $3 AND s.start_ms < $4
  ORDER BY s.start_ms, s.uuid`;

/**
 * The same samples as four binary float8 arrays in one row: thousands of rows
 * (90 nights of stages from two sources) cost more to parse one by one — text
 * fields, an int8 parser per field — than the route spent on everything else.
 * PostgreSQL reads the index in (start_ms, uuid) order and feeds all four
 * aggregates from it without sorting.
 */
const SLEEP_SAMPLE_ARRAYS_SQL = `
  SELECT array_send(coalesce(array_agg(s.start_ms::float8 ORDER BY s.start_ms, s.uuid), '{}')) AS starts,
         array_send(coalesce(array_agg(s.end_ms::float8 ORDER BY s.start_ms, s.uuid), '{}')) AS ends,
         array_send(coalesce(array_agg(s.value ORDER BY s.start_ms, s.uuid), '{}')) AS "values",
         array_send(coalesce(array_agg(coalesce(s.source_id, 0)::float8 ORDER BY s.start_ms, s.uuid), '{}')) AS sources
  FROM samples s
  WHERE s.user_id = $1
    AND s.type_id = (SELECT type_id FROM sample_types WHERE identifier = $2)
    AND s.start_ms >= $3 AND s.start_ms < $4`;

export async function sleepSamples(pool: pg.Pool, userId: string, fromMs: number, toMs: number): Promise<SleepSample[]> {
  const { rows } = await pool.query<{ starts: Buffer; ends: Buffer; values: Buffer; sources: Buffer }>(SLEEP_SAMPLE_ARRAYS_SQL, [userId, SLEEP_ANALYSIS, fromMs, toMs]);
  const starts = float8ArrayFromBinary(rows[0].starts);
  const ends = float8ArrayFromBinary(rows[0].ends);
  const values = float8ArrayFromBinary(rows[0].values);
  const sources = float8ArrayFromBinary(rows[0].sources);
  const samples: SleepSample[] = new Array(starts.length);
  for (let i = 0; i < starts.length; i++) samples[i] = { startMs: starts[i], endMs: ends[i], value: values[i], sourceId: sources[i] };
  return samples;
}

/**
 * The instant from which sleep samples must be read so that every night
 * ending at or after `windowStartMs` is assembled from all its samples, as
 * /v1/sleep/daily decides it: look back 48 h, doubling while the first
 * session that reaches the window starts within LONGEST_SAMPLE_MS + the
 * session gap of the lookback's edge. Only samples before the window are
 * read: a session formed from them reaches the window when it ends in it, or
 * when it is the last one and a sample within the gap of its end could still
 * extend it. Counting that last session in when nothing does extend it only
 * looks back further, which changes no night ending in the window: an earlier
 * sample ends too long before it to join. (The sleep export's cursor starts
 * there.)
 */
export async function sleepReadStart(pool: pg.Pool, userId: string, windowStartMs: number): Promise<number> {
  return (await readReaching(pool, userId, windowStartMs, windowStartMs)).from;
}

/**
 * The samples from sleepReadStart's instant up to `toMs` (after the window
 * start), with one query in the usual case: the 48 h lookback is read together
 * with the window, and earlier samples only when a session reaches back.
 */
export async function sleepSamplesReaching(pool: pg.Pool, userId: string, windowStartMs: number, toMs: number): Promise<SleepSample[]> {
  return (await readReaching(pool, userId, windowStartMs, toMs)).samples;
}

async function readReaching(pool: pg.Pool, userId: string, windowStartMs: number, toMs: number): Promise<{ from: number; samples: SleepSample[] }> {
  let from = windowStartMs - INITIAL_LOOKBACK_MS;
  let samples = await sleepSamples(pool, userId, from, toMs);
  for (;;) {
    let beforeWindow = 0;
    while (beforeWindow < samples.length && samples[beforeWindow].startMs < windowStartMs) beforeWindow++;
    if (!needsEarlier(samples.slice(0, beforeWindow), from, windowStartMs)) return { from, samples };
    const earlier = windowStartMs - 2 * (windowStartMs - from);
    samples = (await sleepSamples(pool, userId, earlier, from)).concat(samples);
    from = earlier;
  }
}

/** Whether the samples read from `from` up to the window start may miss the start of a session that reaches the window. */
function needsEarlier(beforeWindow: readonly SleepSample[], from: number, windowStartMs: number): boolean {
  const reaching = splitSleepSessions(beforeWindow).find((session, i, sessions) => {
    const latestEnd = session.reduce((latest, sample) => Math.max(latest, sample.endMs), -Infinity);
    return latestEnd >= windowStartMs || (i === sessions.length - 1 && latestEnd + SLEEP_SESSION_GAP_MS >= windowStartMs);
  });
  return reaching !== undefined && reaching[0].startMs - from <= LONGEST_SAMPLE_MS + SLEEP_SESSION_GAP_MS;
}
