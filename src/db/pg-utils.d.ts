// pg's value conversion for a statement's parameters (arrays to PostgreSQL's
// array text, dates, buffers, JSON), which @types/pg does not declare: the one
// pg's Query binds with, used by src/db/prepared-read.ts to bind the same way.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
