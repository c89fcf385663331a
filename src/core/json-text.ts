// Pieces of JSON text exactly as JSON.stringify writes them, for replies
// built as strings from column arrays instead of objects (a page of a
// thousand samples as objects, then stringified, cost as much again as
// fetching it). The tests compare each body built this way with
// JSON.stringify of the objects the routes used to build.

/** A number as JSON.stringify writes it: finite numbers in their shortest form (-0 as 0), anything else (null too) null. */
export const jsonNumber = (n: number | null): string => (Number.isFinite(n) ? String(n) : 'null');

/** A string or null as JSON.stringify writes it. */
export const jsonStringOrNull = (s: string | null): string => (s === null ? 'null' : JSON.stringify(s));
