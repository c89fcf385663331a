// Bulk load of `samples` through COPY, one committed batch at a time. Each
// batch is one statement that either commits whole or not at all, and ids
// are deterministic, so a crash or Ctrl-C loses at most the batches in flight
// and a re-run inserts exactly what is missing.
//
// A batch takes one of two paths:
// - direct: COPY straight into `samples`, for a user who had no samples when
//   the import began (nothing to conflict with). The batch's bytes are kept
//   until it commits: if the export repeats a record (same content, same id),
//   the unique index refuses the COPY, the batch is replayed through the
//   staged path, and every later batch is staged.
// - staged: COPY into a session-local table, then INSERT … SELECT … ORDER BY
//   type_id, start_ms ON CONFLICT DO NOTHING (re-imports, newer exports). The
//   order clusters the heap by type and time, as the read routes scan it.
//
// Two connections ("lanes") alternate: while one commits its batch, the XML
// keeps streaming into the other, so parsing and PostgreSQL work overlap.
// Where it is safe and the role may (src/db/writes/bulk-load.ts), the lanes
// skip the per-row foreign-key checks: every type and source id they write
// was read back from its table first.
import pg from 'pg';
import type { CopyStreamQuery } from 'pg-copy-streams';
import {
  copySamplesSql, EMPTY_STAGING_SQL, LOADER_SESSION_SQL, MERGE_STAGED_SQL, STAGING_TABLE_SQL,
} from '../db/writes/import.js';
import { copyFromStdin, skipForeignKeyChecks } from '../db/writes/bulk-load.js';
import { BINARY_COPY_HEADER, BINARY_COPY_TRAILER } from '../db/writes/sample-copy.js';
import type { CopyChunk } from './copy-rows.js';

export const DEFAULT_BATCH_ROWS = 50_000;
/** A batch also ends at this many bytes: a direct batch's bytes stay in memory until it commits. */
const BATCH_BYTES = 4 << 20;
const MAX_QUEUED_BYTES = 2 << 20;

/** A repeated record refuses a direct COPY (or two lanes wait on each other's repeats). */
const REPLAYED_ERRORS = new Set(['23505', '40P01']);

/** Whether batches may skip the conflict check; shared by both lanes, it only ever turns false. */
interface Path {
  direct: boolean;
}

class Lane {
  private copy: CopyStreamQuery | null = null;
  private copyDone: Promise<void> | null = null;
  private copyFailure: Error | null = null;
  private direct = false;
  /** The direct batch so far, for a replay through staging. */
  private kept: Buffer[] = [];
  /** How to hand each of the batch's buffers back once it has committed. */
  private releases: Array<() => void> = [];
  rows = 0;
  bytes = 0;
  committing: Promise<number> | null = null;

  private constructor(
    public client: pg.Client,
    private readonly url: string,
  ) {}

  static async open(url: string): Promise<Lane> {
    return new Lane(await Lane.connect(url), url);
  }

  private static async connect(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {}); // a lane's errors surface through its COPY and queries
    await client.connect();
    for (const setting of LOADER_SESSION_SQL) await client.query(setting);
    await skipForeignKeyChecks(client, 'samples');
    await client.query(STAGING_TABLE_SQL);
    return client;
  }

  private startCopy(direct: boolean): CopyStreamQuery {
    const copy = this.client.query(copyFromStdin(copySamplesSql(direct)));
    copy.write(BINARY_COPY_HEADER);
    this.copyFailure = null;
    this.copyDone = new Promise((resolve, reject) => {
      copy.on('finish', resolve);
      copy.on('error', (error: Error) => {
        this.copyFailure ??= error;
        reject(error);
      });
    });
    this.copyDone.catch(() => {}); // surfaced by commit()
    return copy;
  }

  /** Queues COPY bytes; resolves once the socket has room again. */
  async write(bytes: Buffer, path: Path, release?: () => void): Promise<void> {
    if (release !== undefined) this.releases.push(release);
    if (this.copy === null) {
      this.direct = path.direct;
      this.copy = this.startCopy(this.direct);
    }
    this.bytes += bytes.length;
    if (this.direct) this.kept.push(bytes);
    // A refused direct COPY is replayed from `kept` at commit; until then only keep.
    if (this.copyFailure !== null) {
      if (this.direct) return;
      throw this.copyFailure;
    }
    const copy = this.copy;
    if (copy.write(bytes) || copy.writableLength <= MAX_QUEUED_BYTES) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        copy.off('drain', done);
        copy.off('error', done);
        resolve();
      };
      copy.on('drain', done);
      copy.on('error', done);
    });
    if (this.copyFailure !== null && !this.direct) throw this.copyFailure;
  }

  /** Ends the batch's COPY and commits it; resolves to the rows that were new. */
  async commit(path: Path): Promise<number> {
    if (this.copy === null) return 0;
    const copy = this.copy;
    this.copy = null;
    this.rows = 0;
    this.bytes = 0;
    try {
      if (this.copyFailure === null) copy.end(BINARY_COPY_TRAILER);
      await this.copyDone;
      const rows = this.direct ? copy.rowCount : await this.mergeStaged();
      this.released();
      return rows;
    } catch (error) {
      if (!this.direct || !REPLAYED_ERRORS.has((error as { code?: string }).code ?? '')) throw error;
      // The export repeats a record. The refused COPY may still hold unsent bytes:
      // drop its connection rather than reason about the stream's state, and
      // replay the batch through staging on a fresh one.
      path.direct = false;
      await this.client.end().catch(() => {});
      this.client = await Lane.connect(this.url);
      const replay = this.startCopy(false);
      for (const bytes of this.kept) replay.write(bytes);
      replay.end(BINARY_COPY_TRAILER);
      await this.copyDone;
      const rows = await this.mergeStaged();
      this.released();
      return rows;
    } finally {
      this.kept = [];
      // On failure the buffers may still sit in a socket write: never reused then.
      this.releases = [];
    }
  }

  /** The batch is committed, so no write still holds its buffers. */
  private released(): void {
    for (const release of this.releases) release();
    this.releases = [];
  }

  private async mergeStaged(): Promise<number> {
    const result = await this.client.query(MERGE_STAGED_SQL);
    await this.client.query(EMPTY_STAGING_SQL);
    return result.rowCount ?? 0;
  }
}

/** How long an aborted loader waits for PostgreSQL to end its sessions. */
const ABORT_WAIT_MS = 10_000;

export interface LoaderOptions {
  /** Rows per committed batch (a batch also ends at 4 MB). */
  batchRows: number;
  /** The user had no samples when the import began: batches may take the direct path. */
  userHasNoSamples: boolean;
}

export interface LoadTotals {
  /** Rows handed to PostgreSQL. */
  written: number;
  /** Of those, rows that were not stored yet. */
  inserted: number;
}

export class SampleLoader {
  private readonly lanes: [Lane, Lane];
  private active = 0;
  private written = 0;
  private inserted = 0;
  private readonly path: Path;

  private constructor(
    lanes: [Lane, Lane],
    private readonly options: LoaderOptions,
  ) {
    this.lanes = lanes;
    this.path = { direct: options.userHasNoSamples };
  }

  static async open(url: string, options: LoaderOptions): Promise<SampleLoader> {
    const lanes = await Promise.all([Lane.open(url), Lane.open(url)]);
    return new SampleLoader(lanes as [Lane, Lane], options);
  }

  /** Hands COPY rows to PostgreSQL; commits and rotates lanes once a batch is full. */
  async write(chunk: CopyChunk): Promise<void> {
    const lane = this.lanes[this.active];
    lane.rows += chunk.rows;
    this.written += chunk.rows;
    await lane.write(chunk.bytes, this.path, chunk.release);
    if (lane.rows >= this.options.batchRows || lane.bytes >= BATCH_BYTES) await this.rotate();
  }

  private async rotate(): Promise<void> {
    const lane = this.lanes[this.active];
    lane.committing = lane.commit(this.path);
    lane.committing.catch(() => {}); // awaited on the lane's next turn or in finish()
    this.active = 1 - this.active;
    const next = this.lanes[this.active];
    if (next.committing) {
      this.inserted += await next.committing;
      next.committing = null;
    }
  }

  async finish(): Promise<LoadTotals> {
    const lane = this.lanes[this.active];
    lane.committing = lane.commit(this.path);
    for (const each of this.lanes) {
      if (each.committing) this.inserted += await each.committing;
      each.committing = null;
    }
    await Promise.all(this.lanes.map((each) => each.client.end()));
    return { written: this.written, inserted: this.inserted };
  }

  /**
   * Drops the connections: an unfinished COPY or merge is rolled back by the
   * server. One already sent may still commit: with `watcher`, resolves once
   * PostgreSQL has ended the sessions (or after ABORT_WAIT_MS).
   */
  async abort(watcher?: pg.ClientBase): Promise<void> {
    const pids = this.lanes.map((lane) => (lane.client as unknown as { processID: number | null }).processID);
    await Promise.all(this.lanes.map((lane) => lane.client.end().catch(() => {})));
    if (!watcher) return;
    for (const until = Date.now() + ABORT_WAIT_MS; Date.now() < until; ) {
      const { rows } = await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY ($1::int[])', [pids]);
      if (rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
