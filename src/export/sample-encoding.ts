// The samples dataset is the one that runs to millions of rows, so its rows
// are encoded from PostgreSQL's own text of each column instead of parsed
// values: no number parsing and re-printing per cell. The output is byte for
// byte what csvLine / jsonlLine (src/core/export-encoding.ts) write for the
// parsed row (test/export.test.ts compares them on PostgreSQL's output):
// - bigint text is plain digits, the same as plainNumber below 2^53 (15
//   digits or fewer); longer ones go through plainNumber like any number.
// - float8 text (extra_float_digits > 0, set on the export session) holds the
//   shortest round-trip digits, as JavaScript does; PostgreSQL writes an
//   exponent from 1e15 up and below 1e-4, JavaScript from 1e21 and below
//   1e-6, and neither elsewhere. So plain decimal text is used as is, and
//   anything else (an exponent, -0, NaN, Infinity) goes through plainNumber,
//   which also refuses the non-finite ones.
// - uuid text is lowercase hex with hyphens: never quoted in CSV, quoted as is
//   in JSON. type, unit and label are fixed per type or value; the source
//   names repeat, so their encoded cells are cached.
import { csvLine, EXPORT_COLUMNS, jsonlLine, plainNumber, type Cell } from '../core/export-encoding.js';
import { categoryLabel, typeInfo, unitOf } from '../core/registry.js';
import type { ExportFormat } from './plan.js';
import type { RowEncoder } from './pump.js';

const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;
const SAFE_INTEGER_DIGITS = 15;
const CACHE_LIMIT = 1024;

/** One cell exactly as csvLine / jsonlLine encode it. */
export function encodeCell(format: ExportFormat, cell: Cell): string {
  if (format === 'csv') return csvLine([cell]).slice(0, -2);
  return jsonlLine(['v'], [cell]).slice('{"v":'.length, -'}\n'.length);
}

/** A bigint column's text as the number cell of its parsed value. */
export function integerText(text: string): string {
  return text.length <= SAFE_INTEGER_DIGITS ? text : plainNumber(Number(text));
}

/** A float8 column's text as the number cell of its parsed value. */
export function floatText(text: string): string {
  return PLAIN_DECIMAL.test(text) && text !== '-0' ? text : plainNumber(Number(text));
}

/** The cell cached under `key`, made on a miss; the cache is emptied when full, so it stays small. */
function cached(cache: Map<string, string>, key: string, make: () => string): string {
  let cell = cache.get(key);
  if (cell === undefined) {
    cell = make();
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, cell);
  }
  return cell;
}

/** Encodes rows [uuid, start, end, value, source] (PostgreSQL text, null for NULL) of one sample type. */
export function sampleTextEncoder(format: ExportFormat, identifier: string): RowEncoder {
  const columns = EXPORT_COLUMNS.samples;
  const before = columns.map((column, i) => (format === 'csv' ? (i === 0 ? '' : ',') : `${i === 0 ? '{' : ','}${JSON.stringify(column)}:`));
  const close = format === 'csv' ? '\r\n' : '}\n';
  const quote = format === 'csv' ? '' : '"';
  const nullCell = encodeCell(format, null);
  const head = before[0] + encodeCell(format, identifier) + before[1] + encodeCell(format, unitOf(identifier)) + before[2] + quote;
  const [, , , startSep, endSep, valueSep, labelSep, sourceSep] = before.map((text, i) => (i === 3 ? quote + text : text));
  const isCategory = typeInfo(identifier)?.kind === 'category';
  const labels = new Map<string, string>();
  const sources = new Map<string, string>();

  const labelCell = (value: string | null): string =>
    !isCategory || value === null ? nullCell : cached(labels, value, () => encodeCell(format, categoryLabel(identifier, Number(value))));
  // Runs of one source are the rule, so the last cell is checked before the cache.
  let lastSource: string | null = null;
  let lastSourceCell = nullCell;
  const sourceCell = (source: string | null): string => {
    if (source === lastSource) return lastSourceCell;
    lastSource = source;
    lastSourceCell = source === null ? nullCell : cached(sources, source, () => encodeCell(format, source));
    return lastSourceCell;
  };

  return {
    row(cells) {
      const [uuid, start, end, value, source] = cells as [string, string, string, string | null, string | null];
      return (
        head + uuid +
        startSep + integerText(start) +
        endSep + integerText(end) +
        valueSep + (value === null ? nullCell : floatText(value)) +
        labelSep + labelCell(value) +
        sourceSep + sourceCell(source) +
        close
      );
    },
  };
}
