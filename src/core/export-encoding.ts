// Row encoding for /v1/export: one CSV record or one JSONL object per row.
//
// Both formats carry the same columns in the same order, so a row is a list of
// cells and the dataset's column list names them (open-details.md "Export columns").
//
// Rules:
// - null: an empty CSV cell; an explicit `null` in JSONL (never a missing key).
// - A list (string[]): comma-joined inside an always-quoted CSV cell (an element
//   that itself holds a comma cannot be told apart after the join; the values
//   these lists carry are identifiers and platform names without commas);
//   a JSON array in JSONL.
// - Numbers never use an exponent, in either format (1e21 → 1000000000000000000000,
//   1e-7 → 0.0000001), with the shortest digits that round-trip; -0 is 0.
//   JSON.stringify would write an exponent, so JSONL numbers are formatted
//   here too. NaN and ±Infinity are no value (src/core/values.ts): a cell
//   holding one is written as a null is (plainNumber itself refuses them).
// - Booleans are `true` / `false`; strings are written as given (no formula
//   escaping: /docs warns about spreadsheet formulas instead).
// - CSV follows RFC 4180: a cell holding `"`, `,`, CR or LF is quoted with its
//   quotes doubled, and so is an empty string (`""`, unlike a null's empty
//   cell); every record ends with CRLF. JSONL lines end with LF.

import { isValue } from './values.js';

export type Cell = string | number | boolean | null | readonly string[];

/**
 * What the export's readers are told of its text cells (/docs and the
 * OpenAPI description of /v1/export): open-details.md asks for the formula
 * warning; the other text columns hold what a writer stored, as given.
 */
export const SPREADSHEET_WARNING =
  'source is the free-text column (the name of the recording app or device), and the other text cells (activityType, kind, valenceClassification, labels, associations) hold what was synced, as given. ' +
  'A cell starting with =, +, - or @ is a formula to a spreadsheet program, quoted or not; the file keeps every value as recorded, so open untrusted exports as text.';

/** How the files write a null (the encoding rules above), for /docs and the OpenAPI description. */
export const EXPORT_NULLS = 'A null, and a number stored as NaN or ±Infinity (no value), is an empty CSV cell and an explicit null in JSONL (never a zero or a missing key)';

/** A failure before a file's first byte (src/http/stream-sink.ts), for /docs and the OpenAPI description. */
export const EXPORT_FAILS_FIRST =
  'A JSONL file sends its response head with its first line, so one that fails before it has sent nothing: a database error is answered with a 500 instead, and a limit or shutdown closes the connection without an answer; one with no rows at all is an empty body with Content-Length: 0, not chunked.';

export type ExportDataset = 'daily_metrics' | 'samples' | 'workouts' | 'routes' | 'sleep' | 'activity' | 'state_of_mind';

export const EXPORT_COLUMNS: Readonly<Record<ExportDataset, readonly string[]>> = Object.freeze({
  daily_metrics: Object.freeze(['identifier', 'unit', 'date', 'value']),
  samples: Object.freeze(['type', 'unit', 'uuid', 'start', 'end', 'value', 'label', 'source']),
  workouts: Object.freeze([
    'uuid',
    'activityType',
    'start',
    'end',
    'durationS',
    'distanceM',
    'energyKcal',
    'hasRoute',
    'availableMetrics',
  ]),
  // One row per recorded GPS point (the route endpoint's points at full
  // resolution), its workout named on every row.
  routes: Object.freeze(['uuid', 'activityType', 'time', 'latitude', 'longitude', 'altitude']),
  sleep: Object.freeze([
    'date',
    'start',
    'end',
    'inBedMinutes',
    'asleepMinutes',
    'stages.core',
    'stages.deep',
    'stages.rem',
    'stages.unspecified',
    'stages.awake',
    'sources',
  ]),
  activity: Object.freeze([
    'date',
    'moveKcal',
    'moveGoalKcal',
    'exerciseMin',
    'exerciseGoalMin',
    'standHours',
    'standGoalHours',
    'moveMode',
    'moveTimeMin',
    'moveTimeGoalMin',
  ]),
  state_of_mind: Object.freeze([
    'uuid',
    'date',
    'timestamp',
    'kind',
    'valence',
    'valenceClassification',
    'labels',
    'associations',
  ]),
});

const NEEDS_QUOTES = /[",\r\n]/;
const EXPONENT_FORM = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/;

/** `n` in positional notation with its shortest round-trip digits. */
export function plainNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`cannot export a non-finite number: ${n}`);
  if (n === 0) return '0';
  const shortest = String(n);
  const parts = EXPONENT_FORM.exec(shortest);
  if (!parts) return shortest;
  const [, sign, lead, fraction = '', exponent] = parts;
  const digits = lead + fraction;
  // The decimal point sits after the leading digit, moved by the exponent.
  // JavaScript only uses an exponent from e+21 up (more places than the at most
  // 17 digits, so the point falls past them) and from e-7 down (before them).
  const point = 1 + Number(exponent);
  if (point > 0) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}0.${'0'.repeat(-point)}${digits}`;
}

/** One RFC 4180 record, CRLF-terminated. */
export function csvLine(cells: readonly Cell[]): string {
  return cells.map(csvCell).join(',') + '\r\n';
}

/** One JSON object with `columns` as keys in order, LF-terminated. */
export function jsonlLine(columns: readonly string[], cells: readonly Cell[]): string {
  if (columns.length !== cells.length) {
    throw new RangeError(`a row has ${cells.length} cells for ${columns.length} columns`);
  }
  const members = columns.map((column, i) => `${JSON.stringify(column)}:${jsonValue(cells[i])}`);
  return `{${members.join(',')}}\n`;
}

function csvCell(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return isValue(cell) ? plainNumber(cell) : '';
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  // An empty string is quoted so it stays distinct from a null.
  if (typeof cell === 'string') return cell === '' || NEEDS_QUOTES.test(cell) ? quoted(cell) : cell;
  return quoted(cell.join(','));
}

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function jsonValue(cell: Cell): string {
  if (cell === null) return 'null';
  if (typeof cell === 'number') return isValue(cell) ? plainNumber(cell) : 'null';
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (typeof cell === 'string') return JSON.stringify(cell);
  return `[${cell.map((item) => JSON.stringify(item)).join(',')}]`;
}
