// `samples` rows in PostgreSQL's binary COPY format, for every writer that
// bulk-loads samples (the importer's lanes, the sync receiver): the columns in
// order, the stream's header and trailer, and one row written straight into a
// buffer — no number turned into text and parsed back, ids as their 16 bytes.
import { copyFromStdinSql } from './bulk-load.js';

/** The columns a `samples` COPY row carries, in order, with their types. */
const COLUMN_TYPES = [
  ['user_id', 'uuid'], ['uuid', 'uuid'], ['type_id', 'smallint'], ['start_ms', 'bigint'], ['end_ms', 'bigint'],
  ['value', 'double precision'], ['source_id', 'integer'], ['metadata', 'jsonb'],
] as const;

export const SAMPLE_COPY_COLUMNS: readonly string[] = COLUMN_TYPES.map(([name]) => name);

/** The same columns as a table definition's list, for a staging table the rows can be COPYed into as they are. */
export const SAMPLE_COPY_COLUMNS_DDL = COLUMN_TYPES.map(([name, type]) => `${name} ${type}`).join(', ');

/** A binary COPY of sample rows into `table` (`samples`, or a staging table with the same columns). */
export const copySampleRowsSql = (table: string): string => copyFromStdinSql(table, SAMPLE_COPY_COLUMNS, 'binary');

/** What opens a binary COPY stream (then flags and the header extension's length, int32 each), and what closes it. */
export const BINARY_COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
export const BINARY_COPY_HEADER = Buffer.concat([BINARY_COPY_SIGNATURE, Buffer.alloc(8)]);
export const BINARY_COPY_TRAILER = Buffer.from([0xff, 0xff]);

/** Bytes of a row besides its metadata: field count, then each field's length and data. */
const FIXED_ROW_BYTES = 2 + (4 + 16) * 2 + (4 + 2) + (4 + 8) * 3 + (4 + 4) + 4;
const JSONB_VERSION = 1;
const TWO_TO_32 = 4294967296;

/** The most bytes a row takes (UTF-8 takes at most 3 bytes per UTF-16 unit of the metadata). */
export const sampleRowMaxBytes = (metadata: string | null): number => FIXED_ROW_BYTES + (metadata === null ? 0 : 1 + metadata.length * 3);

/** A row's own columns besides its ids (the importer's parsed records are these). */
export interface SampleRowValues {
  startMs: number;
  endMs: number;
  value: number | null;
  /** JSON text, or null. */
  metadata: string | null;
}

/** Puts the 16 bytes of the sample id `id` (in the writer's own text form) at `offset`. */
export type UuidWriter = (id: string, buffer: Buffer, offset: number) => void;

/**
 * Writes one row at `offset` (the caller made room: sampleRowMaxBytes) and
 * answers the offset after it.
 */
export function writeSampleRow(
  b: Buffer,
  offset: number,
  userIdBytes: Buffer,
  writeUuid: UuidWriter,
  id: string,
  typeId: number,
  sourceId: number | null,
  row: SampleRowValues,
): number {
  let o = b.writeInt16BE(SAMPLE_COPY_COLUMNS.length, offset);
  o = b.writeInt32BE(16, o);
  o += userIdBytes.copy(b, o);
  o = b.writeInt32BE(16, o);
  writeUuid(id, b, o);
  o += 16;
  o = b.writeInt32BE(2, o);
  o = b.writeInt16BE(typeId, o);
  o = writeInt64(b, o, row.startMs);
  o = writeInt64(b, o, row.endMs);
  if (row.value === null) {
    o = b.writeInt32BE(-1, o);
  } else {
    o = b.writeInt32BE(8, o);
    o = b.writeDoubleBE(row.value, o);
  }
  if (sourceId === null) {
    o = b.writeInt32BE(-1, o);
  } else {
    o = b.writeInt32BE(4, o);
    o = b.writeInt32BE(sourceId, o);
  }
  const metadata = row.metadata;
  if (metadata === null) return b.writeInt32BE(-1, o);
  const length = b.write(metadata, o + 5, 'utf8');
  b.writeInt32BE(1 + length, o);
  b[o + 4] = JSONB_VERSION;
  return o + 5 + length;
}

/** A bigint column: epoch ms are integers within ±2^53. */
function writeInt64(buffer: Buffer, offset: number, value: number): number {
  const high = Math.floor(value / TWO_TO_32);
  offset = buffer.writeInt32BE(8, offset);
  offset = buffer.writeInt32BE(high, offset);
  return buffer.writeUInt32BE(value - high * TWO_TO_32, offset);
}
