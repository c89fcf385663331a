// A `COPY … TO STDOUT` read whole into one Buffer, for answers of a bounded
// size (a page of samples): PostgreSQL sends each row as a CopyData message,
// which pg's own parser frames; this query only keeps the bytes. The exports,
// whose answers are unbounded, stream theirs through pg-copy-streams instead
// (src/db/queries/export-copy.ts) — which takes the connection's socket over
// and re-frames it, a Readable in between: for one page that machinery cost
// more than the rows (bench/RESULTS.md, the 2026-11-24 22:30 run).
import type pg from 'pg';

/** What pg hands a query of a CopyData message: its data (a view of pg's read buffer, valid only during the call). */
interface CopyDataMessage {
  chunk: Buffer;
}

class WholeCopyOut implements pg.Submittable {
  private data: Buffer;
  private size = 0;
  private settled = false;
  /** Set by pg's client (or before submitting); called once, with the bytes or the error. */
  callback?: (error: Error | null, data?: Buffer) => void;

  constructor(
    private readonly text: string,
    expectedBytes: number,
  ) {
    this.data = Buffer.allocUnsafe(Math.max(expectedBytes, 64));
  }

  submit(connection: pg.Connection): void {
    (connection as unknown as { query(text: string): void }).query(this.text);
  }

  handleCopyData(message: CopyDataMessage): void {
    const chunk = message.chunk;
    if (this.size + chunk.length > this.data.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.size + chunk.length));
      this.data.copy(grown, 0, 0, this.size);
      this.data = grown;
    }
    // TypedArray's set: a row's few dozen bytes at a time, Buffer's copy costs more in its checks than in copying.
    this.data.set(chunk, this.size);
    this.size += chunk.length;
  }

  handleError(error: Error): void {
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle(null, this.data.subarray(0, this.size));
  }

  private settle(error: Error | null, data?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(error, data);
  }

  // A COPY answers with none of these; pg's client calls them on whatever query is active.
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
}

/**
 * The data of `COPY (…) TO STDOUT` run on `client`, whole (frames stripped,
 * the format's own header and trailer kept). `expectedBytes` sizes the first
 * buffer. Rejects with PostgreSQL's error, or pg's read timeout.
 */
export function copyOutWhole(client: pg.ClientBase, text: string, expectedBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const query = new WholeCopyOut(text, expectedBytes);
    query.callback = (error, data) => (error ? reject(error) : resolve(data!));
    client.query(query);
  });
}
