// JSON text written by PostgreSQL, for answers it can spell as JSON.stringify
// would: a float8's text is JSON.stringify's between 1e-4 and 1e15 (shortest
// round-trip digits, no exponent), so a statement writing numbers says
// whether any fell outside (exoticNumberSql), and the route then reads
// values instead.

/** The JSON text of float8 `column`: null for NULL, NaN and ±Infinity (as JSON.stringify writes them), 0 for -0. */
export const jsonNumberSql = (column: string): string =>
  `CASE WHEN ${column} IS NULL OR ${column} IN ('NaN', 'Infinity', '-Infinity') THEN 'null' WHEN ${column} = 0 THEN '0' ELSE ${column}::text END`;

/** True when float8 `column` is a number whose PostgreSQL text differs from JSON.stringify's: nonzero and finite, below 1e-4 or from 1e15. */
export const exoticNumberSql = (column: string): string =>
  `(${column} <> 0 AND ${column} NOT IN ('NaN', 'Infinity', '-Infinity') AND (abs(${column}) < '1e-4'::float8 OR abs(${column}) >= '1e15'::float8))`;
