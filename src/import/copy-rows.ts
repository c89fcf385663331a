// `samples` rows in PostgreSQL's binary COPY format (src/db/writes/sample-copy.ts
// writes each), gathered in a buffer that moves to the main thread without a
// copy. A row whose type or source has no id yet waits until the name ids have registered the name; `take` does
// that and hands over the rows so far.
import { sampleRowMaxBytes, writeSampleRow } from '../db/writes/sample-copy.js';
import type { NameIds } from './name-ids.js';
import { writeUuidBytes } from './record-ids.js';
import type { SampleRow } from './records.js';

export interface CopyChunk {
  bytes: Buffer;
  rows: number;
  /** Hands the buffer back for reuse once PostgreSQL has committed its rows. */
  release?: () => void;
}

const INITIAL_BYTES = 512 << 10;
const MAX_SPARE = 64;

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
    this.ensure(sampleRowMaxBytes(row.metadata));
    this.used = writeSampleRow(this.buffer, this.used, this.userIdBytes, writeUuidBytes, row.idHash, typeId, sourceId, row);
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
