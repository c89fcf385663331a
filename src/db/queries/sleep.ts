// Sleep-analysis samples of one user over a span of start times, all sources,
// for night assembly. Served by the samples (user_id, type_id, start_ms, uuid)
// index: one range scan, already in the order assembly needs.
import type pg from 'pg';
import type { SleepSample } from '../../core/sleep-nights.js';
import { SLEEP_ANALYSIS } from '../../core/registry.js';

/**
 * Sleep samples starting in [fromMs, toMs), by start then uuid. A sample with
 * no source reads as source 0 (identity ids start at 1): one unknown source.
 */
export async function sleepSamples(pool: pg.Pool, userId: string, fromMs: number, toMs: number): Promise<SleepSample[]> {
  const { rows } = await pool.query<SleepSample>(
    `SELECT s.start_ms AS "startMs", s.end_ms AS "endMs", s.value, coalesce(s.source_id, 0) AS "sourceId"
     FROM samples s
     WHERE s.user_id = $1
       AND s.type_id = (SELECT type_id FROM sample_types WHERE identifier = $2)
       AND s.start_ms >= $3 AND s.start_ms < $4
     ORDER BY s.start_ms, s.uuid`,
    [userId, SLEEP_ANALYSIS, fromMs, toMs],
  );
  return rows;
}
