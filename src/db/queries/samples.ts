// One page of raw samples of one type, as synced (never deduplicated): an
// ordered range scan of samples (user_id, type_id, start_ms, uuid) that stops
// after offset + limit rows. The type id comes first (cached, src/db/names.ts)
// so the planner sees the real id and its row estimate (a deep offset into a
// dense type then still walks the index instead of sorting the whole range).
//
// The page comes back as one row of columns — the uuids' text run together,
// the instants, values and source ids as binary float8 arrays — not as a
// thousand rows: parsing a row per sample (a message, five fields, a parser
// each) cost as much as everything else the route does. Source names come
// from the cache of names.
import type { Db } from '../pool.js';
import { float8ArrayFromSql, float8ArraySql } from '../binary-arrays.js';
import { sampleTypeId, sourceNames } from '../names.js';

export interface SampleColumns {
  /** The uuids' text (36 characters each), in page order. */
  uuids: string;
  /** Epoch ms (exact below 2^53, as the int8 parser's Number is). */
  starts: Float64Array;
  ends: Float64Array;
  /** NaN for NULL (and for a stored NaN: both are null in JSON). */
  values: Float64Array;
  /** NaN for a sample without a source. */
  sourceIds: Float64Array;
  /** Names of the page's source ids (and maybe more). */
  sources: ReadonlyMap<number, string>;
}

const ORDER = 'ORDER BY p.start_ms, p.uuid';

/** $1 user id, $2 type id, $3 start (inclusive), $4 end (exclusive), $5 limit, $6 offset. */
export const SAMPLES_PAGE_SQL = `
  SELECT coalesce(string_agg(p.uuid::text, '' ${ORDER}), '') AS uuids,
         ${float8ArraySql(`coalesce(array_agg(p.start_ms::float8 ${ORDER}), '{}')`)} AS starts,
         ${float8ArraySql(`coalesce(array_agg(p.end_ms::float8 ${ORDER}), '{}')`)} AS ends,
         ${float8ArraySql(`coalesce(array_agg(p.value ${ORDER}), '{}')`)} AS "values",
         ${float8ArraySql(`coalesce(array_agg(p.source_id::float8 ${ORDER}), '{}')`)} AS sources
  FROM (
    SELECT s.uuid, s.start_ms, s.end_ms, s.value, s.source_id
    FROM samples s
    WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
    ORDER BY s.start_ms, s.uuid
    LIMIT $5 OFFSET $6
  ) p`;

const EMPTY: SampleColumns = Object.freeze({
  uuids: '',
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  values: new Float64Array(0),
  sourceIds: new Float64Array(0),
  sources: new Map(),
});

export async function samplesPageColumns(
  db: Db,
  userId: string,
  identifier: string,
  start: number,
  end: number,
  limit: number,
  offset: number,
): Promise<SampleColumns> {
  const typeId = await sampleTypeId(db, identifier);
  if (typeId === null) return EMPTY;
  const { rows } = await db.query<{ uuids: string; starts: string; ends: string; values: string; sources: string }>(SAMPLES_PAGE_SQL, [userId, typeId, start, end, limit, offset]);
  const row = rows[0];
  const sourceIds = float8ArrayFromSql(row.sources);
  return {
    uuids: row.uuids,
    starts: float8ArrayFromSql(row.starts),
    ends: float8ArrayFromSql(row.ends),
    values: float8ArrayFromSql(row.values),
    sourceIds,
    sources: await sourceNames(db, sourceIds),
  };
}
