// `samples` rows in PostgreSQL's binary COPY format (the columns of
// sample-loader.ts, in order), written straight into a buffer: no number is
// turned into text and parsed back, ids go in as their 16 bytes, and the
// buffer moves to the main thread without a copy. A row whose type or source
// has no id yet waits until the name ids have registered the name; `take` does
// that and hands over the rows so far.
import type { NameIds } from './name-ids.js';
import { writeUuidBytes } from './record-ids.js';
import type { SampleRow } from './records.js';

export interface CopyChunk {
  bytes: Buffer;
  rows: number;
  /** Hands the buffer back for reuse once PostgreSQL has committed its rows. */
  release?: () => void;
}

/** What opens and closes a binary COPY stream (sample-loader.ts writes them around each batch). */
export const BINARY_COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
export const BINARY_COPY_TRAILER = Buffer.from([0xff, 0xff]);

const FIELDS = 8;
const INITIAL_BYTES = 512 << 10;
/** Bytes of a row besides its metadata: field count, then each field's length and data. */
const FIXED_ROW_BYTES = 2 + (4 + 16) * 2 + (4 + 2) + (4 + 8) * 3 + (4 + 4) + 4;
const JSONB_VERSION = 1;
const MAX_SPARE = 64;
const TWO_TO_32 = 4294967296;

export class CopyRows {
  private buffer: Buffer = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  /** Buffers given back (their rows are committed): reused instead of allocating, which would make V8 collect for the external memory. */
  private readonly spare: Buffer[] = [];
  private used = 0;
  private rows = 0;
  private pending: SampleRow[] = [];
  private readonly userIdBytes: Buffer;
  /** Type ids that received rows. */
  readonly typeIds = new Set<number>();

  constructor(
    userId: string,
    private readonly nameIds: NameIds,
  ) {
    this.userIdBytes = Buffer.from(userId.replace(/-/g, ''), 'hex');
  }

  /** Bytes of rows waiting. */
  get size(): number {
    return this.used;
  }

  /** Rows wait on names yet to register. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  add(row: SampleRow): void {
    const typeId = this.nameIds.typeId(row.identifier);
    const sourceId = this.nameIds.sourceId(row.sourceName, row.device);
    if (typeId === undefined || sourceId === undefined) this.pending.push(row);
    else this.write(row, typeId, sourceId);
  }

  private write(row: SampleRow, typeId: number, sourceId: number): void {
    const metadata = row.metadata;
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.ensure(FIXED_ROW_BYTES + (metadata === null ? 0 : 1 + metadata.length * 3));
    const b = this.buffer;
    let o = this.used;
    o = b.writeInt16BE(FIELDS, o);
    o = b.writeInt32BE(16, o);
    o += this.userIdBytes.copy(b, o);
    o = b.writeInt32BE(16, o);
    writeUuidBytes(row.idHash, b, o);
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
    o = b.writeInt32BE(4, o);
    o = b.writeInt32BE(sourceId, o);
    if (metadata === null) {
      o = b.writeInt32BE(-1, o);
    } else {
      const length = b.write(metadata, o + 5, 'utf8');
      b.writeInt32BE(1 + length, o);
      b[o + 4] = JSONB_VERSION;
      o += 5 + length;
    }
    this.used = o;
    this.rows++;
    this.typeIds.add(typeId);
  }

  private ensure(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    const larger = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.used + bytes));
    this.buffer.copy(larger, 0, 0, this.used);
    this.buffer = larger;
  }

  /** Takes back a buffer that an earlier chunk came in. */
  reuse(bytes: Uint8Array): void {
    if (this.spare.length < MAX_SPARE) this.spare.push(Buffer.from(bytes.buffer, 0, bytes.buffer.byteLength));
  }

  /** Registers the names still unknown, then hands over every row so far (null when there is none); the bytes are the caller's. */
  async take(): Promise<CopyChunk | null> {
    if (this.pending.length > 0) {
      await this.nameIds.resolve();
      const pending = this.pending;
      this.pending = [];
      for (const row of pending) this.write(row, this.nameIds.typeId(row.identifier) as number, this.nameIds.sourceId(row.sourceName, row.device) as number);
    }
    if (this.rows === 0) return null;
    const chunk = { bytes: this.buffer.subarray(0, this.used), rows: this.rows };
    this.buffer = this.spare.pop() ?? Buffer.allocUnsafeSlow(Math.max(INITIAL_BYTES, this.buffer.length));
    this.used = 0;
    this.rows = 0;
    return chunk;
  }
}

/** A bigint column: epoch ms are integers within ±2^53. */
function writeInt64(buffer: Buffer, offset: number, value: number): number {
  const high = Math.floor(value / TWO_TO_32);
  offset = buffer.writeInt32BE(8, offset);
  offset = buffer.writeInt32BE(high, offset);
  return buffer.writeUInt32BE(value - high * TWO_TO_32, offset);
}
