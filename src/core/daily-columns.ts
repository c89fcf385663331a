// A page of daily aggregate values as columns, the shape PostgreSQL returns it
// in (src/db/queries/metrics.ts) and /v1/metrics/daily and the summary read:
// row i is of the requested type at 1-based position positions[i], on the day
// dayAt(dates, i), with the value values[i].

export interface DailyValueColumns {
  /** 1-based position of each row's type in the request. */
  positions: Float64Array;
  /** The days' text run together, ten characters each (YYYY-MM-DD, as every day of an epoch-ms range is). */
  dates: string;
  values: Float64Array;
}

const DAY_CHARS = 10;

/** The i-th row's day. */
export function dayAt(dates: string, i: number): string {
  return dates.slice(i * DAY_CHARS, (i + 1) * DAY_CHARS);
}
