// Sleep-analysis samples of one user over a span of start times, all sources,
// as the four columns night assembly reads (SleepColumns). Served by the
// samples (user_id, type_id, start_ms, uuid) index: one range scan, already in
// the order assembly needs. Shared by /v1/sleep/daily, the summary and the
// sleep export (through src/reads/sleep.ts).
import type { SleepColumns } from '../../core/sleep-nights.js';
import { SLEEP_ANALYSIS } from '../../core/registry.js';
import { float8ArrayFromSql, float8ArraySql } from '../binary-arrays.js';
import { prepared, type Db } from '../pool.js';

/**
 * Samples starting in [$3, $4) as four binary float8 arrays in one row:
 * thousands of rows (90 nights of stages from two sources) cost more to parse
 * one by one — text fields, an int8 parser per field — than the route spent on
 * everything else. PostgreSQL reads the index in (start_ms, uuid) order and
 * feeds all four aggregates from it without sorting. $1 user, $2 the sleep
 * identifier. A sample with no source reads as source 0 (identity ids start at
 * 1): one unknown source. Prepared (its plan is the same index range scan
 * whatever the values): planning it each time cost PostgreSQL ~0.3 ms more.
 * Also one part of the summary's statement (src/db/queries/summary.ts).
 */
export const SLEEP_SAMPLE_ARRAYS_SQL = `
  SELECT ${float8ArraySql(`coalesce(array_agg(s.start_ms::float8 ORDER BY s.start_ms, s.uuid), '{}')`)} AS starts,
         ${float8ArraySql(`coalesce(array_agg(s.end_ms::float8 ORDER BY s.start_ms, s.uuid), '{}')`)} AS ends,
         ${float8ArraySql(`coalesce(array_agg(s.value ORDER BY s.start_ms, s.uuid), '{}')`)} AS "values",
         ${float8ArraySql(`coalesce(array_agg(coalesce(s.source_id, 0)::float8 ORDER BY s.start_ms, s.uuid), '{}')`)} AS sources
  FROM samples s
  WHERE s.user_id = $1
    AND s.type_id = (SELECT type_id FROM sample_types WHERE identifier = $2)
    AND s.start_ms >= $3 AND s.start_ms < $4`;

const SLEEP_SAMPLE_ARRAYS = prepared(SLEEP_SAMPLE_ARRAYS_SQL);

/** SLEEP_SAMPLE_ARRAYS_SQL's row: the arrays as base64 text (sleepColumnsOfRow decodes them). */
export interface SleepArraysRow {
  starts: string;
  ends: string;
  values: string;
  sources: string;
}

export function sleepColumnsOfRow(row: SleepArraysRow): SleepColumns {
  return {
    startMs: float8ArrayFromSql(row.starts),
    endMs: float8ArrayFromSql(row.ends),
    value: float8ArrayFromSql(row.values),
    sourceId: float8ArrayFromSql(row.sources),
  };
}

export async function sleepSampleColumns(db: Db, userId: string, fromMs: number, toMs: number): Promise<SleepColumns> {
  const { rows } = await db.query<SleepArraysRow>(SLEEP_SAMPLE_ARRAYS([userId, SLEEP_ANALYSIS, fromMs, toMs]));
  return sleepColumnsOfRow(rows[0]);
}
