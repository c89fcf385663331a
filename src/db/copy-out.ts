// `COPY … TO STDOUT` read straight off the connection's socket, the way
// pg-copy-streams does it (pg's own parser is set aside while the COPY runs
// and handed the rest once it is done, so pg still sees CommandComplete,
// ReadyForQuery or an ErrorResponse), but without copying: pg-copy-streams
// gathers every socket read into a new buffer and then each read's CopyData
// into another, which was a tenth of the export's main thread with the GC it
// caused (bench/RESULTS.md). Here each CopyData payload leaves as a view of
// the socket's own chunk (object mode: a view per read(), never joined), and
// the socket is read only while the consumer keeps up, so PostgreSQL waits on
// a slow client.
import { Readable } from 'node:stream';

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const COPY_OUT_RESPONSE = 0x48; // 'H'
/** Messages the server may send in the middle of a COPY; skipped. */
const ASIDE = new Set([COPY_OUT_RESPONSE, 0x4e /* NoticeResponse */, 0x53 /* ParameterStatus */, 0x41 /* NotificationResponse */]);
const HEADER_BYTES = 5;

interface Connection {
  stream: Readable;
  query(text: string): void;
}

/** A Submittable for client.query(): a Readable of the COPY data, one buffer view per read(). */
export class CopyOutQuery extends Readable {
  private connection: Connection | null = null;
  private pgData: ((chunk: Buffer) => void) | null = null;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerFilled = 0;
  private code = 0;
  /** Payload bytes of the current message still to come. */
  private left = 0;
  private wanted = false;
  private detached = false;
  private readonly onReadable = () => this.forward();

  constructor(private readonly text: string) {
    // Views of socket reads (up to 64 KB each); 16 of them at most before the socket waits.
    super({ objectMode: true, highWaterMark: 16 });
  }

  /** Called by pg with the connection once the query's turn comes. */
  submit(connection: Connection): void {
    this.connection = connection;
    const { stream } = connection;
    const listeners = stream.listeners('data') as ((chunk: Buffer) => void)[];
    if (listeners.length !== 1) throw new Error('expected pg to be the only reader of its connection');
    this.pgData = listeners[0];
    stream.removeListener('data', this.pgData);
    stream.pause();
    stream.on('readable', this.onReadable);
    connection.query(this.text);
  }

  override _read(): void {
    this.wanted = true;
    this.forward();
  }

  private forward(): void {
    const stream = this.connection?.stream;
    if (!stream) return;
    let chunk: Buffer | null;
    while (this.wanted && !this.detached && (chunk = stream.read() as Buffer | null) !== null) this.parse(chunk);
  }

  private parse(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.left > 0) {
        const n = Math.min(this.left, chunk.length - at);
        if (this.code === COPY_DATA && !this.push(chunk.subarray(at, at + n))) this.wanted = false;
        this.left -= n;
        at += n;
        continue;
      }
      if (this.headerFilled === 0) {
        const code = chunk[at];
        // CommandComplete, ErrorResponse, …: pg's parser takes it from here.
        if (code !== COPY_DATA && code !== COPY_DONE && !ASIDE.has(code)) return this.detach(chunk.subarray(at), false);
      }
      const n = Math.min(HEADER_BYTES - this.headerFilled, chunk.length - at);
      chunk.copy(this.header, this.headerFilled, at, at + n);
      this.headerFilled += n;
      at += n;
      if (this.headerFilled < HEADER_BYTES) return;
      this.headerFilled = 0;
      this.code = this.header[0];
      this.left = this.header.readUInt32BE(1) - 4;
      if (this.code === COPY_DONE) return this.detach(chunk.subarray(at + this.left), true);
    }
  }

  /** Gives the connection back to pg with the bytes it has not seen yet. */
  private detach(rest: Buffer, done: boolean): void {
    this.detached = true;
    const stream = this.connection!.stream;
    stream.removeListener('readable', this.onReadable);
    stream.on('data', this.pgData!);
    if (rest.length > 0) this.pgData!(rest);
    process.nextTick(() => stream.resume());
    if (done) this.push(null);
  }

  // What pg calls on the active query for the messages it parses after the COPY.
  handleError(error: Error): void {
    this.destroy(error);
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {}
}
