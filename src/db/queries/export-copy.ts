// The samples export written by PostgreSQL itself: `COPY (…) TO STDOUT` of
// the file's own bytes, so no row is parsed or encoded in JavaScript. Each
// COPY row is the text of every sample starting in one window of start times
// (WINDOW_MS), lines in (start, uuid) order, string_agg'ed straight from the
// samples index; the binary COPY format frames those rows by length, so the
// CRLF of a CSV record (COPY's own CSV ends lines with LF and would quote a
// CR) and the backslashes of JSON (COPY's text format would double them)
// pass untouched. src/db/copy-binary.ts takes the frames off.
//
// The text is what csvLine / jsonlLine (src/core/export-encoding.ts) write for
// the parsed row, byte for byte (test/export-copy.test.ts holds the SQL to
// them): numbers are PostgreSQL's shortest round-trip text (the export session
// has extra_float_digits = 1) where it has no exponent — as in JavaScript,
// between 1e-4 and 1e15 — and rewritten to positional notation from its
// exponent form elsewhere; -0 is 0; NaN and ±Infinity fail the statement, so
// the export aborts as the JavaScript encoder's RangeError made it.
//
// COPY takes no bind parameters. Its SQL is built here from validated values
// only — the user uuid, the type id and the range as integers — and fixed
// separators. The per-type text (type, unit, category labels) is not spliced
// in: it goes to the session as a setting through a bind parameter
// (set_config), read once per statement.
import type pg from 'pg';
import type { Readable } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import { isUuid } from '../../core/uuid.js';
import { MAX_EPOCH_MS } from '../../limits.js';

/** Start times per COPY row: 10 minutes of 1 Hz samples is 600 lines, ~80 KB. */
export const SAMPLES_COPY_WINDOW_MS = 10 * 60_000;

/** The custom setting holding the per-type cells (a jsonb object). */
const CELLS_SETTING = 'healthd.export_cells';

/** What the SQL reads from CELLS_SETTING: the encoded text of the constant cells. */
export interface SampleCells {
  /** Everything of a line before the uuid (type and unit cells with their separators). */
  head: string;
  /** The label cell per value text (String(value) of an integer value), category types only. */
  labels: Record<string, string> | null;
}

export type CopyFormat = 'csv' | 'jsonl';

/** A fixed piece of SQL text as a literal: code constants only, never data. */
function literal(text: string): string {
  if (/['\\]/.test(text)) throw new Error(`not a fixed SQL literal: ${text}`);
  return `'${text}'`;
}

function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}

/**
 * SQL text of a float8 expression as plainNumber writes it: positional,
 * shortest round-trip digits, -0 as 0; NULL stays NULL; NaN and ±Infinity
 * raise an error. PostgreSQL's own digits serve up to 2^53: there a shorter
 * digit string can only round-trip exactly halfway between two doubles, which
 * needs an integer halfway point (an ulp of 2 or more). From 2^53 up JavaScript
 * accepts such a tie (round half to even) and PostgreSQL's Ryu does not, so
 * those values — never a health measurement, but the encoder takes any — are
 * written from their exact value: the shortest candidate of 1 to 17 digits
 * that reads back as the value, the closest one (then the even one) if two do.
 */
export function plainNumberSql(v: string): string {
  return `CASE WHEN ${v} IS NULL THEN NULL WHEN ${v} = 0 THEN '0'
    WHEN abs(${v}) >= '1e-4'::float8 AND abs(${v}) < '1e15'::float8 THEN ${v}::text
    WHEN abs(${v}) < '9007199254740992'::float8 THEN ${positionalFromExponentSql(v)}
    ELSE ${exactShortestSql(v)} END`;
}

/** PostgreSQL's exponent text ('-1.25e-07') moved to positional notation. */
function positionalFromExponentSql(v: string): string {
  return `(SELECT CASE WHEN e.point >= length(e.digits) THEN e.sign || e.digits || repeat('0', e.point - length(e.digits))
                      WHEN e.point > 0 THEN e.sign || left(e.digits, e.point) || '.' || substr(e.digits, e.point + 1)
                      ELSE e.sign || '0.' || repeat('0', -e.point) || e.digits END
          FROM (SELECT CASE WHEN x.t LIKE '-%' THEN '-' ELSE '' END AS sign,
                       replace(split_part(ltrim(x.t, '-'), 'e', 1), '.', '') AS digits,
                       1 + split_part(x.t, 'e', 2)::int AS point
                FROM (SELECT ${v}::text AS t) x) e)`;
}

/**
 * An integral float8 of at least 2^53 as JavaScript writes it (positional: it
 * only uses an exponent from 1e21, where plainNumber pads with zeros anyway).
 * Its exact value is mantissa × 2^shift (numeric powers of two are exact);
 * NaN and ±Infinity fail the cast of their exponent to int.
 */
function exactShortestSql(v: string): string {
  return `(SELECT CASE WHEN ${v} < 0 THEN '-' ELSE '' END || trunc(best.cand)::text
     FROM (SELECT m.mantissa::int8::numeric * power(2::numeric, m.shift) AS x
           FROM (SELECT CASE WHEN a.m >= '9007199254740992'::float8 THEN a.m / 2 WHEN a.m < '4503599627370496'::float8 THEN a.m * 2 ELSE a.m END AS mantissa,
                        CASE WHEN a.m >= '9007199254740992'::float8 THEN a.shift + 1 WHEN a.m < '4503599627370496'::float8 THEN a.shift - 1 ELSE a.shift END AS shift
                 FROM (SELECT abs(${v}) / power(2::float8, g.shift) AS m, g.shift
                       FROM (SELECT floor(ln(abs(${v})) / ln(2::float8))::int - 52 AS shift) g) a) m) ex
     CROSS JOIN LATERAL (
       SELECT c.cand FROM generate_series(1, 17) AS k
       CROSS JOIN LATERAL (SELECT 10::numeric ^ (length(trunc(ex.x)::text) - k) AS q) b
       CROSS JOIN LATERAL (VALUES (div(ex.x, b.q) * b.q), (div(ex.x, b.q) * b.q + b.q)) AS c (cand)
       -- A candidate from halfway past the largest double on would read as infinite (an error).
       WHERE CASE WHEN c.cand < 18014398509481983 * 2::numeric ^ 970 THEN c.cand::float8 = abs(${v}) ELSE false END
       ORDER BY k, abs(c.cand - ex.x), div(c.cand, b.q) % 2
       LIMIT 1) best)`;
}

/** SQL text of a bigint expression as the export writes it: its digits up to 15 characters, else as the float8 it reads as. */
export function plainIntegerSql(v: string): string {
  return `CASE WHEN ${v} BETWEEN -99999999999999 AND 999999999999999 THEN ${v}::text ELSE ${plainNumberSql(`(${v})::float8`)} END`;
}

/** The encoded cell of a source name `name` (never NULL: the column is NOT NULL). */
function sourceCellSql(format: CopyFormat, name: string): string {
  return format === 'csv'
    ? `CASE WHEN ${name} = '' OR ${name} ~ '[",\\r\\n]' THEN '"' || replace(${name}, '"', '""') || '"' ELSE ${name} END`
    : `to_json(${name})::text`;
}

/**
 * One sample's line; `c` is the row of constant cells (with every source's
 * encoded cell by id: a probe of sources per sample cost more than the rest
 * of the line), `s` the sample. start_ms lies in the range, so its digits are
 * never more than 15.
 */
function sampleLineSql(format: CopyFormat, category: boolean): string {
  const nullCell = format === 'csv' ? "''" : "'null'";
  const label = category ? `coalesce(c.labels ->> (CASE WHEN s.value = 0 THEN '0' ELSE s.value::text END), ${nullCell})` : nullCell;
  const end = plainIntegerSql('s.end_ms');
  const value = `coalesce(${plainNumberSql('s.value')}, ${nullCell})`;
  const source = `coalesce(c.sources ->> s.source_id::text, ${nullCell})`;
  if (format === 'csv') return `c.head || s.uuid::text || ',' || s.start_ms::text || ',' || ${end} || ',' || ${value} || ',' || ${label} || ',' || ${source} || E'\\r\\n'`;
  return (
    `c.head || s.uuid::text || ${literal('","start":')} || s.start_ms::text || ${literal(',"end":')} || ${end} || ${literal(',"value":')} || ${value} || ` +
    `${literal(',"label":')} || ${label} || ${literal(',"source":')} || ${source} || E'}\\n'`
  );
}

/**
 * COPY of the export's lines of one sample type over [start, end), one binary
 * row per window of start times (NULL for a window without samples), in order.
 */
export function samplesCopySql(format: CopyFormat, category: boolean, userId: string, typeId: number, start: number, end: number): string {
  if (!isUuid(userId)) throw new Error(`not a uuid: ${userId}`);
  if (start < 0 || end - 1 > MAX_EPOCH_MS) throw new Error(`not an export range: [${start}, ${end})`);
  const window = integer(SAMPLES_COPY_WINDOW_MS);
  return `COPY (
  SELECT (SELECT string_agg(${sampleLineSql(format, category)}, '' ORDER BY s.start_ms, s.uuid)
          FROM samples s
          WHERE s.user_id = '${userId.toLowerCase()}'::uuid AND s.type_id = ${integer(typeId)}
            AND s.start_ms >= w.start AND s.start_ms < least(w.start + ${window}, ${integer(end)}))
  FROM generate_series(${integer(start)}::bigint, ${integer(end - 1)}::bigint, ${window}) AS w (start),
       (SELECT (current_setting('${CELLS_SETTING}')::jsonb ->> 'head') AS head,
               (current_setting('${CELLS_SETTING}')::jsonb -> 'labels') AS labels,
               (SELECT jsonb_object_agg(src.source_id, ${sourceCellSql(format, 'src.name')}) FROM sources src) AS sources) AS c
  ORDER BY w.start
) TO STDOUT (FORMAT binary)`;
}

/** Gives the session the constant cells the COPY reads (a bind parameter, not SQL text). */
export async function setSampleCells(client: pg.ClientBase, cells: SampleCells): Promise<void> {
  await client.query(`SELECT set_config('${CELLS_SETTING}', $1, false)`, [JSON.stringify(cells)]);
}

/** The COPY data as it arrives (binary format, frames included). */
export function copyOut(client: pg.ClientBase, sql: string): Readable {
  return client.query(copyTo(sql));
}
