// A page of daily aggregate values as columns, the shape PostgreSQL returns it
// in (src/db/queries/metrics.ts) and /v1/metrics/daily and the summary read:
// row i is of the requested type at 1-based position positions[i], on the day
// dates[i], with the value values[i].
//
// Days travel from PostgreSQL as one text, comma-separated (dayListSql,
// daysOf): not at a fixed width, since a day at the very top of the timestamp
// range east of UTC has a five-digit year (10000-01-01).

export interface DailyValueColumns {
  /** 1-based position of each row's type in the request. */
  positions: Float64Array;
  /** Each row's day, YYYY-MM-DD (a five-digit year at the top of the range). */
  dates: readonly string[];
  values: Float64Array;
}

/** SQL: the days `day` (a date expression) in `order` (an ORDER BY clause) as one comma-separated text, '' for none. */
export const dayListSql = (day: string, order: string): string => `coalesce(string_agg((${day})::text, ',' ${order}), '')`;

/** dayListSql's text as its days. */
export const daysOf = (text: string): string[] => (text === '' ? [] : text.split(','));
