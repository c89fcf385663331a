// The samples' plain columns — uuid, start_ms, end_ms, value, source_id — in
// (start, uuid) order as PostgreSQL's binary COPY, one ordered walk of the
// samples index. No text is made in PostgreSQL, which then spends a fraction
// of what formatting the rows costs it. Two readers: the samples export, whose
// lines src/export/sample-lines.ts writes from these bytes on the server's own
// core while PostgreSQL reads on (the source names from the same snapshot: the
// export runs both in one repeatable-read transaction, src/export/datasets.ts);
// and /v1/samples, which reads one page of them whole (src/db/queries/samples.ts).
//
// COPY takes no bind parameters. Its SQL is built from validated values only
// (integerSql, uuidSql: the user uuid, the type id, the range and the page as
// integers), here and for the sleep samples (src/db/queries/sleep.ts).
import type pg from 'pg';
import { isUuid } from '../../core/uuid.js';

/** An integer as SQL text; throws for anything else. */
export function integerSql(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}

/** A uuid as an SQL literal; throws for anything else. */
export function uuidSql(value: string): string {
  if (!isUuid(value)) throw new Error(`not a uuid: ${value}`);
  return `'${value.toLowerCase()}'::uuid`;
}

export interface RowPage {
  limit: number;
  offset: number;
}

/** Columns of samplesSelectSql's rows: uuid, start_ms, end_ms, value, source_id. */
export const SAMPLE_SELECT_FIELDS = 5;

/** SELECT of the samples of one type starting in [start, end), in (start, uuid) order; only `page`'s rows of them when given. */
export function samplesSelectSql(userId: string, typeId: number, start: number, end: number, page?: RowPage): string {
  return `SELECT s.uuid, s.start_ms, s.end_ms, s.value, s.source_id
  FROM samples s
  WHERE s.user_id = ${uuidSql(userId)} AND s.type_id = ${integerSql(typeId)} AND s.start_ms >= ${integerSql(start)} AND s.start_ms < ${integerSql(end)}
  ORDER BY s.start_ms, s.uuid${page ? `\n  LIMIT ${integerSql(page.limit)} OFFSET ${integerSql(page.offset)}` : ''}`;
}

/** COPY of samplesSelectSql's rows, binary format. */
export const samplesCopySql = (userId: string, typeId: number, start: number, end: number, page?: RowPage): string =>
  `COPY (\n  ${samplesSelectSql(userId, typeId, start, end, page)}\n) TO STDOUT (FORMAT binary)`;

/** Every source's name by id (a few dozen rows: every device and app that ever wrote). */
export async function allSourceNames(client: pg.ClientBase): Promise<Map<number, string>> {
  const { rows } = await client.query<{ source_id: number; name: string }>('SELECT source_id, name FROM sources');
  return new Map(rows.map((row) => [row.source_id, row.name]));
}
