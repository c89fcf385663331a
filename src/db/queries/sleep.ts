// Sleep-analysis samples of one user over a span of start times, all sources,
// as the four columns night assembly reads (SleepColumns). Served by the
// samples (user_id, type_id, start_ms, uuid) index: one range scan, already in
// the order assembly needs. Shared by /v1/sleep/daily, the summary and the
// sleep export (through src/reads/sleep.ts).
//
// The four columns come as four float8 arrays in one row: thousands of rows
// (90 nights of stages from two sources) cost more to parse one by one — text
// fields, an int8 parser per field — than the route spent on everything else.
// PostgreSQL reads the index in (start_ms, uuid) order and feeds all four
// aggregates from it without sorting. A sample with no source reads as source
// 0 (identity ids start at 1): one unknown source. The row comes as a binary
// COPY, the arrays in their binary form as they are.
import type { SleepColumns } from '../../core/sleep-nights.js';
import { SLEEP_ANALYSIS } from '../../core/registry.js';
import { float8ArrayFromBinary } from '../binary-arrays.js';
import { copyRowFields } from '../binary-copy.js';
import { copyOutWhole } from '../copy-out.js';
import { sampleTypeId } from '../names.js';
import { withClient, type Db } from '../pool.js';
import { integerSql, uuidSql } from './export-copy.js';

/** The four arrays of samples `s`, in SleepColumns' order. */
const SLEEP_ARRAYS_SQL = `
  coalesce(array_agg(s.start_ms::float8 ORDER BY s.start_ms, s.uuid), '{}') AS starts,
  coalesce(array_agg(s.end_ms::float8 ORDER BY s.start_ms, s.uuid), '{}') AS ends,
  coalesce(array_agg(s.value ORDER BY s.start_ms, s.uuid), '{}') AS "values",
  coalesce(array_agg(coalesce(s.source_id, 0)::float8 ORDER BY s.start_ms, s.uuid), '{}') AS sources`;

/** Columns of SLEEP_ARRAYS_SQL's row. */
const SLEEP_ARRAYS = 4;

/**
 * COPY of the samples of type `typeId` starting in [fromMs, toMs) as the four
 * arrays, binary: each field is its array's binary form (array_send's), with
 * no base64 made by PostgreSQL or read by healthd. Against the same arrays as
 * base64 text in a statement's row: PostgreSQL 1.5–1.6 against 2.0–2.2 ms,
 * healthd 0.4–0.5 against 0.5–0.8 ms, for 90 nights (2,529 samples;
 * bench/RESULTS.md).
 */
export const sleepArraysCopySql = (userId: string, typeId: number, fromMs: number, toMs: number): string => `COPY (
  SELECT ${SLEEP_ARRAYS_SQL}
  FROM samples s
  WHERE s.user_id = ${uuidSql(userId)} AND s.type_id = ${integerSql(typeId)} AND s.start_ms >= ${integerSql(fromMs)} AND s.start_ms < ${integerSql(toMs)}
) TO STDOUT (FORMAT binary)`;

const NO_SAMPLES: SleepColumns = Object.freeze({ startMs: new Float64Array(0), endMs: new Float64Array(0), value: new Float64Array(0), sourceId: new Float64Array(0) });
/** The COPY's first buffer: 90 nights of stages from two sources are ~100 KB. */
const EXPECTED_COPY_BYTES = 128 << 10;

export async function sleepSampleColumns(db: Db, userId: string, fromMs: number, toMs: number): Promise<SleepColumns> {
  const typeId = await sampleTypeId(db, SLEEP_ANALYSIS);
  if (typeId === null) return NO_SAMPLES;
  const sql = sleepArraysCopySql(userId, typeId, fromMs, toMs);
  const data = await withClient(db, (client) => copyOutWhole(client, sql, EXPECTED_COPY_BYTES));
  const [starts, ends, values, sources] = copyRowFields(data, SLEEP_ARRAYS).map((field) => {
    if (field === null) throw new Error('a sleep array came back NULL');
    return float8ArrayFromBinary(field);
  });
  return { startMs: starts, endMs: ends, value: values, sourceId: sources };
}
