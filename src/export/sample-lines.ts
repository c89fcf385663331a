// The samples export's lines, written here from PostgreSQL's binary COPY of
// the plain columns (uuid, start_ms, end_ms, value, source_id: no text made
// by PostgreSQL, which then spends a fraction of what formatting the lines
// cost it) straight into bytes, with no row object and no string per cell.
// The cells are what csvLine / jsonlLine (src/core/export-encoding.ts) write
// for the same row — test/export-encoder.test.ts holds the two together on
// random rows: the constant ones (type, unit, a category's label per value,
// each source's name) are encoded once by those rules (sample-encoding.ts),
// the numbers by plainNumber, the uuid as lowercase hex.
//
// COPY data may be cut anywhere: a row cut by a chunk's end waits for the
// rest. A NaN or infinite value is no value (src/core/values.ts): written as
// a null is, with no label.
import { plainNumber } from '../core/export-encoding.js';
import { isValue } from '../core/values.js';
import { writeSimpleNumber } from '../core/number-bytes.js';
import { UUID_TEXT_LENGTH } from '../core/uuid-text.js';
import { SAMPLE_SELECT_FIELDS as FIELDS } from '../db/queries/export-copy.js';
import { checkCopyHeader, COPY_HEADER_BYTES, readInt64, writeUuidText } from '../db/binary-copy.js';
import { encodeCell, sampleCells } from './sample-encoding.js';
import type { ExportFormat } from './plan.js';

/** Bytes of a row's numbers as text, at most: two instants and a value (plainNumber of a double: under 330 characters). */
const NUMBER_BYTES = 3 * 340;
const INITIAL_OUT = 256 << 10;
/** Bytes of a chunk joined to a cut row: more than a whole row of these columns (66 bytes) or the header (19). */
const JOIN_BYTES = 256;

export class SampleLineWriter {
  private readonly head: Buffer;
  /** Between the uuid and the start, the start and the end, …: the format's separators. */
  private readonly afterUuid: Buffer;
  private readonly afterStart: Buffer;
  private readonly afterEnd: Buffer;
  private readonly afterValue: Buffer;
  private readonly afterLabel: Buffer;
  private readonly lineEnd: Buffer;
  private readonly nullCell: Buffer;
  private readonly labels: ReadonlyMap<string, Buffer> | null;
  private readonly sources = new Map<number, Buffer>();
  private readonly rowMaxBytes: number;
  private out = Buffer.allocUnsafe(INITIAL_OUT);
  /** Bytes of a row cut by the last chunk's end (the header too, at first). */
  private pending: Buffer | null = null;
  private headerDone = false;
  private ended = false;

  constructor(format: ExportFormat, identifier: string, sourceNames: ReadonlyMap<number, string>) {
    const cells = sampleCells(format, identifier);
    const b = (text: string) => Buffer.from(text, 'utf8');
    this.head = b(cells.head);
    const csv = format === 'csv';
    this.afterUuid = b(csv ? ',' : '","start":');
    this.afterStart = b(csv ? ',' : ',"end":');
    this.afterEnd = b(csv ? ',' : ',"value":');
    this.afterValue = b(csv ? ',' : ',"label":');
    this.afterLabel = b(csv ? ',' : ',"source":');
    this.lineEnd = b(csv ? '\r\n' : '}\n');
    this.nullCell = b(csv ? '' : 'null');
    this.labels = cells.labels ? new Map(Object.entries(cells.labels).map(([value, label]): [string, Buffer] => [value, b(label)])) : null;
    let longest = this.nullCell.length;
    for (const label of this.labels?.values() ?? []) longest = Math.max(longest, label.length);
    let longestSource = this.nullCell.length;
    for (const [id, name] of sourceNames) {
      const cell = b(encodeCell(format, name));
      this.sources.set(id, cell);
      longestSource = Math.max(longestSource, cell.length);
    }
    this.rowMaxBytes = this.head.length + UUID_TEXT_LENGTH + NUMBER_BYTES + longest + longestSource + 32;
  }

  /** Whether the COPY's trailer was seen. */
  get done(): boolean {
    return this.ended;
  }

  /** Takes one chunk of COPY data; `emit` gets the lines of the rows it completes. Answers whether the trailer was seen. */
  push(chunk: Buffer, emit: (bytes: Buffer) => void): boolean {
    if (this.ended) {
      if (chunk.length > 0) throw new Error('COPY data after its trailer');
      return true;
    }
    let o = 0;
    let data = chunk;
    let at = 0;
    if (this.pending) {
      // A row (or the header) cut by the last chunk: finish it on a copy of its start and this chunk's first
      // bytes (a row of these columns is under 100 bytes), then go on in the chunk itself.
      const cut = this.pending;
      this.pending = null;
      const joined = Buffer.concat([cut, chunk.subarray(0, JOIN_BYTES)]);
      const next = this.rows(joined, 0, cut.length, o, emit);
      o = next.o;
      if (next.at < cut.length || this.ended) {
        // Still cut (the chunk was too short), or the trailer: whatever is left waits or is checked.
        if (!this.ended) this.pending = Buffer.from(joined.subarray(next.at));
        else if (next.at < joined.length || chunk.length > JOIN_BYTES) throw new Error('COPY data after its trailer');
        this.flush(o, emit);
        return this.ended;
      }
      at = next.at - cut.length;
    }
    const last = this.rows(data, at, data.length, o, emit);
    if (this.ended && last.at < data.length) throw new Error('COPY data after its trailer');
    if (last.at < data.length) this.pending = Buffer.from(data.subarray(last.at));
    this.flush(last.o, emit);
    return this.ended;
  }

  /** Writes the lines of the complete rows of `data` that start before `limit`; answers where it stopped and the output offset. */
  private rows(data: Buffer, at: number, limit: number, o: number, emit: (bytes: Buffer) => void): { at: number; o: number } {
    if (!this.headerDone) {
      if (data.length - at < COPY_HEADER_BYTES) return { at, o };
      checkCopyHeader(data, at);
      this.headerDone = true;
      at += COPY_HEADER_BYTES;
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    while (at < limit && data.length - at >= 2) {
      const fields = data.readInt16BE(at);
      if (fields === -1) {
        this.ended = true;
        return { at: at + 2, o };
      }
      if (fields !== FIELDS) throw new Error(`expected ${FIELDS} columns per COPY row, got ${fields}`);
      const end = this.rowEnd(data, at + 2);
      if (end === -1) break;
      if (this.out.length - o < this.rowMaxBytes) o = this.flush(o, emit);
      o = this.writeLine(data, view, at + 2, o);
      at = end;
    }
    return { at, o };
  }

  private flush(o: number, emit: (bytes: Buffer) => void): number {
    if (o > 0) emit(this.out.subarray(0, o));
    return 0;
  }

  /** Where the row whose fields start at `at` ends, or -1 when it is cut. */
  private rowEnd(data: Buffer, at: number): number {
    for (let f = 0; f < FIELDS; f++) {
      if (data.length - at < 4) return -1;
      const length = data.readInt32BE(at);
      at += 4 + (length > 0 ? length : 0);
    }
    return at <= data.length ? at : -1;
  }

  /** Writes the line of the row whose fields start at `at` (of `data`, which `view` views) into `out` at `o`; answers the offset after it. */
  private writeLine(data: Buffer, view: DataView, at: number, o: number): number {
    const out = this.out;
    o += this.head.copy(out, o);
    // uuid: 16 bytes as 8-4-4-4-12 lowercase hex.
    at += 4;
    o = writeUuidText(out, o, data, at);
    at += 16;
    o += this.afterUuid.copy(out, o);
    o = writeNumber(out, o, readInt64(view, at + 4));
    at += 12;
    o += this.afterStart.copy(out, o);
    o = writeNumber(out, o, readInt64(view, at + 4));
    at += 12;
    o += this.afterEnd.copy(out, o);
    let label: Buffer = this.nullCell;
    if (data.readInt32BE(at) === -1) {
      o += this.nullCell.copy(out, o);
      at += 4;
    } else {
      const value = data.readDoubleBE(at + 4);
      if (isValue(value)) {
        const from = o;
        o = writeNumber(out, o, value);
        // categoryLabel looks a value up as a property key: String(value) (plainNumber's text for an integer).
        if (this.labels) label = this.labels.get(out.toString('latin1', from, o)) ?? this.nullCell;
      } else {
        o += this.nullCell.copy(out, o);
      }
      at += 12;
    }
    o += this.afterValue.copy(out, o);
    o += label.copy(out, o);
    o += this.afterLabel.copy(out, o);
    if (data.readInt32BE(at) === -1) {
      o += this.nullCell.copy(out, o);
    } else {
      const id = data.readInt32BE(at + 4);
      const source = this.sources.get(id);
      if (source === undefined) throw new Error(`source id ${id} has no name`);
      o += source.copy(out, o);
    }
    o += this.lineEnd.copy(out, o);
    return o;
  }
}

/** plainNumber(n) written at `o` (latin1: its text is ASCII); answers the offset after it. */
function writeNumber(out: Buffer, o: number, n: number): number {
  const end = writeSimpleNumber(out, o, n);
  return end >= 0 ? end : o + out.write(plainNumber(n), o, 'latin1');
}
