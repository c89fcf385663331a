// One page of raw samples of one type, as synced (never deduplicated): an
// ordered range scan of samples (user_id, type_id, start_ms, uuid) that stops
// after offset + limit rows. The type id comes first (cached, src/db/names.ts)
// so the planner sees the real id and its row estimate (a deep offset into a
// dense type then still walks the index instead of sorting the whole range).
//
// The page comes back as one row, not a thousand: parsing a row per sample (a
// message, five fields, a parser each), then building objects and
// stringifying them, cost as much again as fetching the page. Usually that row
// holds the samples array's JSON text itself, written by PostgreSQL: its text
// of uuids, integers, shortest round-trip floats between 1e-4 and 1e15 and
// to_json strings is JSON.stringify's. A page with a value PostgreSQL writes
// otherwise (an exponent: below 1e-4 or from 1e15; JavaScript switches only
// below 1e-6 and from 1e21) or an end instant past 2^53 is read again as
// columns — the uuids' text run together, the instants, values and source ids
// as binary float8 arrays — and written in JavaScript
// (src/routes/samples-body.ts), source names from the cache of names.
import type { Db } from '../pool.js';
import { float8ArrayFromBinary } from '../binary-arrays.js';
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

const PAGE = `
    SELECT s.uuid, s.start_ms, s.end_ms, s.value, s.source_id
    FROM samples s
    WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
    ORDER BY s.start_ms, s.uuid
    LIMIT $5 OFFSET $6`;

/** A value whose PostgreSQL text is not JSON.stringify's: nonzero and finite, below 1e-4 or from 1e15. */
const EXOTIC_VALUE = `(p.value <> 0 AND p.value NOT IN ('NaN', 'Infinity', '-Infinity') AND (abs(p.value) < '1e-4'::float8 OR abs(p.value) >= '1e15'::float8))`;

/**
 * The page's samples as JSON text (the elements of the samples array), their
 * count, and whether a value or instant needs the column path. $7: the
 * category labels as JSON text by value text (an object; {} for other kinds).
 */
export const SAMPLES_PAGE_TEXT_SQL = `
  SELECT count(*)::int AS count,
         coalesce(bool_or(${EXOTIC_VALUE} OR abs(p.end_ms) > 9007199254740992), false) AS exotic,
         coalesce(string_agg(
           '{"uuid":"' || p.uuid::text || '","start":' || p.start_ms::text || ',"end":' || p.end_ms::text ||
           ',"value":' || CASE WHEN p.value IS NULL OR p.value IN ('NaN', 'Infinity', '-Infinity') THEN 'null' WHEN p.value = 0 THEN '0' ELSE p.value::text END ||
           ',"label":' || coalesce($7::jsonb ->> CASE WHEN p.value = 0 THEN '0' ELSE p.value::text END, 'null') ||
           ',"source":' || coalesce(to_json(src.name)::text, 'null') || '}',
           ',' ${ORDER}), '') AS samples
  FROM (${PAGE}) p LEFT JOIN sources src ON src.source_id = p.source_id`;

/** $1 user id, $2 type id, $3 start (inclusive), $4 end (exclusive), $5 limit, $6 offset. */
export const SAMPLES_PAGE_SQL = `
  SELECT coalesce(string_agg(p.uuid::text, '' ${ORDER}), '') AS uuids,
         array_send(coalesce(array_agg(p.start_ms::float8 ${ORDER}), '{}')) AS starts,
         array_send(coalesce(array_agg(p.end_ms::float8 ${ORDER}), '{}')) AS ends,
         array_send(coalesce(array_agg(p.value ${ORDER}), '{}')) AS "values",
         array_send(coalesce(array_agg(p.source_id::float8 ${ORDER}), '{}')) AS sources
  FROM (${PAGE}) p`;

const EMPTY: SampleColumns = Object.freeze({
  uuids: '',
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  values: new Float64Array(0),
  sourceIds: new Float64Array(0),
  sources: new Map(),
});

/** A page as JSON text: the samples array's elements and their count. */
export interface SampleText {
  count: number;
  /** The elements of the samples array, comma-separated. */
  samples: string;
}

/**
 * The page as PostgreSQL's JSON text, or null when it holds a value or an
 * instant whose text differs from JSON.stringify's (then read the columns).
 * `labelsJson`: JSON.stringify of each category label by String(value).
 */
export async function samplesPageText(
  db: Db,
  userId: string,
  identifier: string,
  start: number,
  end: number,
  limit: number,
  offset: number,
  labelsJson: Readonly<Record<string, string>>,
): Promise<SampleText | null> {
  const typeId = await sampleTypeId(db, identifier);
  if (typeId === null) return { count: 0, samples: '' };
  const { rows } = await db.query<{ count: number; exotic: boolean; samples: string }>(SAMPLES_PAGE_TEXT_SQL, [userId, typeId, start, end, limit, offset, labelsJson]);
  const row = rows[0];
  return row.exotic ? null : { count: row.count, samples: row.samples };
}

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
  const { rows } = await db.query<{ uuids: string; starts: Buffer; ends: Buffer; values: Buffer; sources: Buffer }>(SAMPLES_PAGE_SQL, [userId, typeId, start, end, limit, offset]);
  const row = rows[0];
  const sourceIds = float8ArrayFromBinary(row.sources);
  return {
    uuids: row.uuids,
    starts: float8ArrayFromBinary(row.starts),
    ends: float8ArrayFromBinary(row.ends),
    values: float8ArrayFromBinary(row.values),
    sourceIds,
    sources: await sourceNames(db, sourceIds),
  };
}
