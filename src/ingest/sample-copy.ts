// A batch's samples into `samples`, INGEST.stagingRows at a time. While the
// batch's samples come in (start, uuid) order — a first sync, a backfill —
// each chunk goes by binary COPY straight into the table
// (src/db/writes/sample-copy.ts writes the rows) inside a savepoint: no
// staging table, no INSERT … SELECT, no number turned into text and parsed
// back. When the unique index refuses a chunk (a uuid stored already: a
// re-sent sample, a repeat within the batch), the chunk is rolled back to its
// savepoint and its same bytes are COPYed into the session's staging table,
// then moved ON CONFLICT DO NOTHING in (start, uuid) order. Once a sample
// comes out of that order, the rest are staged and moved by one sorted
// statement at the end. Every batch thus inserts its samples in the one
// (start, uuid) order, as the receiver always has, so two batches holding the
// same samples wait for each other rather than deadlock.
//
// The next chunk is parsed while PostgreSQL takes one; the chunk's work is
// queued on the session behind the batch's other COPYs (staging.ts), so no
// other statement runs inside its savepoint.
import type pg from 'pg';
import { writeUuidText } from '../core/uuid.js';
import { copyWhole } from '../db/writes/bulk-load.js';
import { insertStagedSamples, moveStagedSamples, STAGING } from '../db/writes/ingest.js';
import {
  BINARY_COPY_HEADER,
  BINARY_COPY_TRAILER,
  copySampleRowsSql,
  sampleRowMaxBytes,
  writeSampleRow,
  type SampleRowValues,
} from '../db/writes/sample-copy.js';
import { INGEST } from '../limits.js';
import type { Staging } from './staging.js';

const UNIQUE_VIOLATION = '23505';
const SAVEPOINT = 'sample_chunk';
/**
 * A chunk's first size; it doubles as rows come. Small, as most batches are:
 * each batch takes its own, and 256 KiB a batch made garbage collection 18 %
 * of a one-sample batch's CPU (V8 collects by external memory too).
 */
const INITIAL_BYTES = 16 << 10;

/**
 * Chunk buffers of committed batches, kept for the next ones (at most
 * SPARE_BUFFERS of at most SPARE_MAX_BYTES each). Under backfill every batch
 * grew its own from INITIAL_BYTES by doubling, ~500 KB of new external memory
 * a batch, and V8 answered with a major collection every few hundred
 * milliseconds: reusing them took the server's CPU per sample from 8.9 to
 * 8.0 µs (bench/RESULTS.md, ingest notes).
 */
const spare: Buffer[] = [];
const NO_BYTES = Buffer.alloc(0);
export const SPARE_BUFFERS = 16;
export const SPARE_MAX_BYTES = 1 << 20;

/** A chunk's buffer, its COPY header written. */
function chunkBuffer(): Buffer {
  const buffer = spare.pop() ?? Buffer.allocUnsafe(INITIAL_BYTES);
  BINARY_COPY_HEADER.copy(buffer);
  return buffer;
}

const DIRECT_SQL = copySampleRowsSql('samples');
const STAGED_SQL = copySampleRowsSql(STAGING.samples.table);

const codeOf = (error: unknown): unknown => (error as { code?: unknown }).code;

export class SampleCopy {
  /** The chunk being filled; the one before may still be stored from `other` (made once a batch needs two). */
  private filling = chunkBuffer();
  private other: Buffer | null = null;
  private used = BINARY_COPY_HEADER.length;
  private rows = 0;
  /** The filling chunk's samples per type id. */
  private chunkTypes = new Map<number, number>();
  /** Samples created so far, per type id (for the sample counts: src/db/writes/sample-counts.ts). */
  readonly createdByType = new Map<number, number>();
  /** Whether refused chunks wait in the staging table for the sorted statement at the end. */
  private stagedLater = false;
  /** Whether the samples so far came in (start, uuid) order, and the last one's key. */
  private inOrder = true;
  private lastStart = -Infinity;
  private lastUuid = '';
  private readonly userIdBytes: Buffer;

  constructor(
    private readonly client: pg.ClientBase,
    private readonly staging: Staging,
    userId: string,
  ) {
    this.userIdBytes = Buffer.alloc(16);
    writeUuidText(userId, this.userIdBytes, 0);
  }

  /** Adds a sample (`uuid` as isUuid accepts it); when a chunk is full, resolves once the one before is stored and this one started. */
  add(uuid: string, typeId: number, sourceId: number | null, row: SampleRowValues): Promise<void> | undefined {
    if (this.inOrder) {
      const key = uuid.toLowerCase();
      if (row.startMs < this.lastStart || (row.startMs === this.lastStart && key < this.lastUuid)) this.inOrder = false;
      this.lastStart = row.startMs;
      this.lastUuid = key;
    }
    const need = sampleRowMaxBytes(row.metadata) + BINARY_COPY_TRAILER.length;
    if (this.used + need > this.filling.length) {
      const larger = Buffer.allocUnsafe(Math.max(this.filling.length * 2, this.used + need));
      this.filling.copy(larger, 0, 0, this.used);
      this.filling = larger;
    }
    this.used = writeSampleRow(this.filling, this.used, this.userIdBytes, writeUuidText, uuid, typeId, sourceId, row);
    this.rows++;
    this.chunkTypes.set(typeId, (this.chunkTypes.get(typeId) ?? 0) + 1);
    return this.rows >= INGEST.stagingRows ? this.flush() : undefined;
  }

  /** Starts storing the rows so far; resolves once the work before is done and this chunk started. */
  async flush(): Promise<void> {
    if (this.rows === 0) return;
    const bytes = this.filling.subarray(0, this.used + BINARY_COPY_TRAILER.copy(this.filling, this.used));
    const types = this.chunkTypes;
    const inOrder = this.inOrder;
    // The other buffer's chunk is stored before this one starts (queue waits for it), and the rows after
    // this chunk are added only once it started.
    const next = this.other ?? chunkBuffer();
    this.other = this.filling;
    this.filling = next;
    this.used = BINARY_COPY_HEADER.length;
    this.rows = 0;
    this.chunkTypes = new Map();
    await this.staging.queue(() => this.store(bytes, types, inOrder));
  }

  /**
   * Gives the batch's buffers to the next batches. Only once its every COPY
   * has ended (after the commit): a buffer still being written to a socket
   * must not be filled again.
   */
  recycle(): void {
    for (const buffer of [this.filling, this.other]) {
      if (buffer && buffer.length <= SPARE_MAX_BYTES && spare.length < SPARE_BUFFERS) spare.push(buffer);
    }
    this.filling = NO_BYTES;
    this.other = null;
  }

  /** After every chunk is stored (staging.flushAll): moves the rows still staged and answers the samples created. */
  async finish(): Promise<number> {
    if (this.stagedLater) {
      this.stagedLater = false;
      this.addCreated(await insertStagedSamples(this.client));
    }
    let created = 0;
    for (const n of this.createdByType.values()) created += n;
    return created;
  }

  private addCreated(byType: ReadonlyMap<number, number>): void {
    for (const [type, n] of byType) this.createdByType.set(type, (this.createdByType.get(type) ?? 0) + n);
  }

  private async store(bytes: Buffer, types: ReadonlyMap<number, number>, inOrder: boolean): Promise<void> {
    if (!inOrder) {
      await copyWhole(this.client, STAGED_SQL, bytes);
      this.stagedLater = true;
      return;
    }
    await this.client.query(`SAVEPOINT ${SAVEPOINT}`);
    try {
      await copyWhole(this.client, DIRECT_SQL, bytes);
      this.addCreated(types);
    } catch (error) {
      if (codeOf(error) !== UNIQUE_VIOLATION) throw error;
      await this.client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
      await copyWhole(this.client, STAGED_SQL, bytes);
      this.addCreated(await moveStagedSamples(this.client));
    }
    // Not released: the commit ends it with the batch, and a RELEASE would be one more round trip a chunk.
    // The next chunk's savepoint of the same name is the one a ROLLBACK TO then returns to.
  }
}
