// A page of daily aggregate values as columns, the shape PostgreSQL returns it
// in (src/db/queries/metrics.ts) and /v1/metrics/daily and the summary read:
// row i is of the requested type at 1-based position positions[i], on the
// i-th day of `dates`, with the value values[i].
//
// Days travel from PostgreSQL as one text, comma-separated (dayListSql), and
// are read in order (DayReader): not at a fixed width, since a day at the
// very top of the timestamp range east of UTC has a five-digit year
// (10000-01-01); and not split into an array, which cost the daily route a
// sixth of its server time.

export interface DailyValueColumns {
  /** 1-based position of each row's type in the request. */
  positions: Float64Array;
  /** Each row's day, YYYY-MM-DD (a five-digit year at the top of the range), comma-separated: read with DayReader. */
  dates: string;
  values: Float64Array;
}

/** SQL: the days `day` (a date expression) in `order` (an ORDER BY clause) as one comma-separated text, '' for none. */
export const dayListSql = (day: string, order: string): string => `coalesce(string_agg((${day})::text, ',' ${order}), '')`;

/** Reads dayListSql's text one day at a time, in order. */
export class DayReader {
  private at = 0;

  constructor(private readonly text: string) {}

  next(): string {
    const comma = this.text.indexOf(',', this.at);
    const end = comma === -1 ? this.text.length : comma;
    const day = this.text.slice(this.at, end);
    this.at = end + 1;
    return day;
  }
}
