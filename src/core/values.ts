// What counts as a value. A double precision column can hold NaN and
// ±Infinity, which no writer of ours stores (JSON cannot carry them, the
// importer refuses them) but another writer of the tables may. JSON has no
// text for them either. So everywhere a figure is read, a non-finite number
// is no value: a nullable field answers it as null (in JSON, CSV and JSONL
// alike, as JSON.stringify writes it), and wherever the spec asks for values
// only it is left out as a NULL is:
// - a daily bucket: no day in /v1/metrics/daily, the daily_metrics export or
//   the summary's statistics (isValueSql in their statement);
// - a ring, a workout's duration or distance, a body reading: not counted by
//   the summary;
// - a point of a workout stream or route: not a point (not in totalPoints).

/** True for a number JSON can write: finite. */
export const isValue = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

/** SQL: float8 `expression` when it is a value, else NULL (NaN sorts above Infinity, so one comparison leaves out both). */
export const valueOrNullSql = (expression: string): string => `CASE WHEN abs(${expression}) < 'Infinity'::float8 THEN ${expression} END`;
