// Metric reads: the newest raw sample per quantity type, and the phone's daily
// buckets paged as day rows across types. Both walk the types in request order
// (WITH ORDINALITY) and probe one index per type through a LATERAL subquery,
// so the work is bounded by the types asked for and the page, not the table.
import { dayListSql, type DailyValueColumns } from '../../core/daily-columns.js';
import { exoticNumberSql, jsonNumberSql } from '../json-text.js';
import { isValueSql } from '../../core/values.js';
import { prepared, type Db } from '../pool.js';
import { readPrepared } from '../prepared-read.js';
import { foldedRead, itemColumns, rowsByRequest } from '../fold.js';
import type { DailyMetricType } from '../../core/registry.js';
import { float8ArrayFromSql, float8ArraySql } from '../binary-arrays.js';

export interface LatestSampleRow {
  identifier: string;
  value: number | null;
  timestamp: number;
}

/**
 * The newest sample by start of one type; a tie on start goes to the greatest
 * uuid. One backward probe of samples (user_id, type_id, start_ms, uuid).
 * `userId` and `identifier` are SQL expressions.
 */
const newestSampleSql = (userId: string, identifier: string): string => `
    SELECT s.start_ms, s.value
    FROM samples s
    WHERE s.user_id = ${userId}
      AND s.type_id = (SELECT t.type_id FROM sample_types t WHERE t.identifier = ${identifier})
    ORDER BY s.start_ms DESC, s.uuid DESC
    LIMIT 1`;

/** The newest sample of each type that has one, in request order. $1 user id, $2 identifiers (text[]). */
export const LATEST_METRICS_SQL = `
  SELECT requested.identifier, newest.value, newest.start_ms AS timestamp
  FROM unnest($2::text[]) WITH ORDINALITY AS requested (identifier, position)
  CROSS JOIN LATERAL (${newestSampleSql('$1', 'requested.identifier')}) newest
  ORDER BY requested.position`;

/**
 * The same for the requests of a turn, folded into one statement
 * (src/db/fold.ts): their types run together, each with its request's
 * number and user. $1 request numbers (int[]), $2 user ids, $3 identifiers.
 */
const LATEST_METRICS_FOLDED = prepared(`
  SELECT requested.request, requested.identifier, newest.value, newest.start_ms AS timestamp
  FROM unnest($1::int[], $2::uuid[], $3::text[]) WITH ORDINALITY AS requested (request, user_id, identifier, position)
  CROSS JOIN LATERAL (${newestSampleSql('requested.user_id', 'requested.identifier')}) newest
  ORDER BY requested.position`);

interface LatestRequest {
  userId: string;
  identifiers: readonly string[];
}

const latestOfRequests = foldedRead<LatestRequest, LatestSampleRow[]>(async (db, requests) => {
  const { columns } = itemColumns(requests, 2, (request) => request.identifiers.map((identifier) => [request.userId, identifier]));
  const rows = await readPrepared<LatestSampleRow & { request: number }>(db, LATEST_METRICS_FOLDED(columns));
  // Each row keeps its request's number: the route reads the members it answers with (a copy without it cost every row V8's slow path).
  return rowsByRequest(rows, requests.length);
});

export function latestSamples(db: Db, userId: string, identifiers: readonly string[]): Promise<LatestSampleRow[]> {
  return latestOfRequests(db, userId + JSON.stringify(identifiers), { userId, identifiers });
}

export interface DailyValueRow {
  identifier: string;
  date: string;
  value: number;
}

/**
 * Day rows with a value, types in request order and each ascending by day,
 * then one page of them. The ordinality pathkey keeps the nested loop in
 * request order, so the sort only orders days within a type and LIMIT stops
 * the walk after offset + limit rows.
 * $1 user id, $2 identifiers, $3 cumulative flags (null: the sum, else the mean), $4 first day, $5 last day,
 * $6 limit (null: every row), $7 offset.
 */
/** A requested type's value of bucket `a`: null cumulative flag, the sum else the mean; true, the sum; false, the mean. */
const BUCKET_VALUE = 'CASE WHEN requested.cumulative IS NULL THEN coalesce(a.sum, a.avg) WHEN requested.cumulative THEN a.sum ELSE a.avg END';
/** The requested types, in request order. */
const REQUESTED = 'unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS requested (identifier, cumulative, position)';
/** The buckets of the requested type of `userId` from `firstDay` to `lastDay` (SQL expressions). */
const bucketsSql = (userId: string, firstDay: string, lastDay: string): string => `
    FROM daily_aggregates a
    WHERE a.user_id = ${userId}
      AND a.type_id = (SELECT t.type_id FROM sample_types t WHERE t.identifier = requested.identifier)
      AND a.day >= ${firstDay} AND a.day <= ${lastDay}`;
/** The buckets of the requested type in the page's days. */
const REQUESTED_BUCKETS = bucketsSql('$1', '$4::date', '$5::date');

const DAILY_METRICS_PAGE = `
  SELECT requested.identifier, requested.position, bucket.day, bucket.value
  FROM ${REQUESTED}
  CROSS JOIN LATERAL (
    SELECT a.day, ${BUCKET_VALUE} AS value${REQUESTED_BUCKETS}
  ) bucket
  -- Only days with a value: not NULL, NaN or ±Infinity (src/core/values.ts).
  WHERE ${isValueSql('bucket.value')}
  ORDER BY requested.position, bucket.day
  LIMIT $6 OFFSET $7`;

/** A page of day rows: the user's buckets of `types` (in request order) on the local days firstDay…lastDay. */
export interface DailyPage {
  userId: string;
  types: readonly DailyMetricType[];
  firstDay: string;
  lastDay: string;
  /** null: every row. */
  limit: number | null;
  offset: number;
}

/** DAILY_METRICS_PAGE's parameters, in order. */
export const pageParams = ({ userId, types, firstDay, lastDay, limit, offset }: DailyPage) => [
  userId,
  types.map((t) => t.identifier),
  types.map((t) => t.cumulative),
  firstDay,
  lastDay,
  limit,
  offset,
];

const DAILY_METRICS_SQL = `SELECT page.identifier, page.day::text AS date, page.value FROM (${DAILY_METRICS_PAGE}) page ORDER BY page.position, page.day`;
const DAILY_METRICS = prepared(DAILY_METRICS_SQL);

const PAGE_ORDER = 'ORDER BY page.position, page.day';


/** JSON text of one day of `bucket` ({"date","value"}), in PostgreSQL's float text (see dailyValuesText). */
const DAY_JSON = `'{"date":"' || bucket.day::text || '","value":' || ${jsonNumberSql('bucket.value')} || '}'`;

/**
 * The page's days as JSON text per requested position, in order: PostgreSQL
 * writes each {"date","value"} (its float text is JSON.stringify's between
 * 1e-4 and 1e15; `exotic` says a group holds another value, and the page is
 * then read as columns instead).
 */
const DAILY_METRICS_TEXT_SQL = `
  SELECT min(bucket.identifier) AS identifier, count(*)::int AS count, bool_or(${exoticNumberSql('bucket.value')}) AS exotic,
         string_agg(${DAY_JSON}, ',' ORDER BY bucket.day) AS days
  FROM (${DAILY_METRICS_PAGE}) bucket
  GROUP BY bucket.position
  ORDER BY bucket.position`;

const DAILY_METRICS_TEXT = prepared(DAILY_METRICS_TEXT_SQL);

/**
 * The first page, for the common request whose days all fit one page: each
 * type's days aggregated by themselves, an ordered walk of its index that
 * stops after limit + 1 days (no sort across types, no grouping: a fifth
 * less of PostgreSQL than cutting the page out of all types' rows), as
 * columns per requested position — the days' text run together and the
 * values as a binary float8 array, which costs PostgreSQL a quarter less
 * again than writing each day's JSON (bench/RESULTS.md, issue 12). When the
 * types hold more than `limit` days together, the page is cut by
 * DAILY_METRICS_TEXT_SQL after all. For offset 0 only.
 *
 * The first pages of a turn's requests fold into one statement
 * (src/db/fold.ts): their types run together, each with its request's
 * number, user, days and limit, and `position` counts through them all. $1
 * request numbers (int[]), $2 users, $3 identifiers, $4 cumulative flags, $5
 * first days, $6 last days, $7 limits (null: every day).
 */
const DAILY_FIRST_PAGES_COLUMNS = prepared(`
  SELECT requested.request, requested.position::int AS position, days.count, days.dates, days."values"
  FROM unnest($1::int[], $2::uuid[], $3::text[], $4::boolean[], $5::date[], $6::date[], $7::int[])
       WITH ORDINALITY AS requested (request, user_id, identifier, cumulative, first_day, last_day, page_limit, position)
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS count, ${dayListSql('bucket.day', 'ORDER BY bucket.day')} AS dates,
           ${float8ArraySql('array_agg(bucket.value ORDER BY bucket.day)')} AS "values"
    FROM (
      SELECT a.day, ${BUCKET_VALUE} AS value${bucketsSql('requested.user_id', 'requested.first_day', 'requested.last_day')}
        AND ${isValueSql(BUCKET_VALUE)}
      ORDER BY a.day
      LIMIT requested.page_limit + 1
    ) bucket
  ) days
  WHERE days.count > 0
  ORDER BY requested.position`);

interface FirstPageRow {
  request: number;
  position: number;
  count: number;
  dates: string;
  values: string;
}

/** Each request's rows, positions counted from 1 within it. */
const firstPagesOf = foldedRead<DailyPage, FirstPageRow[]>(async (db, pages) => {
  const { columns, before } = itemColumns(pages, 6, (page) => page.types.map((type) => [page.userId, type.identifier, type.cumulative, page.firstDay, page.lastDay, page.limit]));
  const rows = await readPrepared<FirstPageRow>(db, DAILY_FIRST_PAGES_COLUMNS(columns));
  // Positions count through every request's types: from 1 within each (set on the rows this statement made, before any request reads them).
  for (const row of rows) row.position -= before[row.request];
  return rowsByRequest(rows, pages.length);
});

/** The page at offset 0 (`page.offset` is not read) as columns when the types' days fit it whole, else null (then read the page: dailyValuesText). */
export async function dailyFirstPageColumns(db: Db, page: DailyPage): Promise<DailyValueColumns | null> {
  const key = JSON.stringify([page.userId, page.types, page.firstDay, page.lastDay, page.limit]);
  const rows = await firstPagesOf(db, key, page);
  let total = 0;
  for (const row of rows) total += row.count;
  if (page.limit !== null && total > page.limit) return null;
  const positions = new Float64Array(total);
  const values = new Float64Array(total);
  let at = 0;
  for (const row of rows) {
    positions.fill(row.position, at, at + row.count);
    values.set(float8ArrayFromSql(row.values), at);
    at += row.count;
  }
  // Every row holds a day (count > 0): their lists join into one.
  return { positions, dates: rows.map((row) => row.dates).join(','), values };
}

export interface DailyDaysText {
  identifier: string;
  count: number;
  /** The elements of a days array, comma-separated. */
  days: string;
}

/** A page as JSON text per requested position, or null when a value's text differs from JSON.stringify's (then read the columns). */
export async function dailyValuesText(db: Db, page: DailyPage): Promise<DailyDaysText[] | null> {
  const rows = await readPrepared<DailyDaysText & { exotic: boolean }>(db, DAILY_METRICS_TEXT(pageParams(page)));
  return rows.some((row) => row.exotic) ? null : rows;
}

/**
 * The same page as one row of columns (src/db/queries/samples.ts says why):
 * each row's type position (1-based, in request order), the days as one
 * text (dayListSql), the values as a binary float8 array.
 */
export const DAILY_METRICS_COLUMNS_SQL = `
  SELECT ${float8ArraySql(`coalesce(array_agg(page.position::float8 ${PAGE_ORDER}), '{}')`)} AS positions,
         ${dayListSql('page.day', PAGE_ORDER)} AS dates,
         ${float8ArraySql(`coalesce(array_agg(page.value ${PAGE_ORDER}), '{}')`)} AS "values"
  FROM (${DAILY_METRICS_PAGE}) page`;

const DAILY_METRICS_COLUMNS = prepared(DAILY_METRICS_COLUMNS_SQL);

export async function dailyValueColumns(db: Db, page: DailyPage): Promise<DailyValueColumns> {
  const rows = await readPrepared<{ positions: string; dates: string; values: string }>(db, DAILY_METRICS_COLUMNS(pageParams(page)));
  const row = rows[0];
  return { positions: float8ArrayFromSql(row.positions), dates: row.dates, values: float8ArrayFromSql(row.values) };
}

export async function dailyValues(db: Db, page: DailyPage): Promise<DailyValueRow[]> {
  return readPrepared<DailyValueRow>(db, DAILY_METRICS(pageParams(page)));
}
