// Reading a `COPY … TO STDOUT`, two ways, both taking the connection's
// socket over for the length of the COPY (CopySocket), as pg-copy-streams
// does, and stripping the frames in place in each socket read
// (CopyDataFrames) instead of slicing each message out, an object or two a
// row. A page of samples or of sleep, whose size is bounded, is read whole
// into one buffer (copyOutWhole): PostgreSQL sends each row as a CopyData
// message, and pg's own parser framing the 1000 messages of a page cost the
// main thread more than the rest of reading it (bench/RESULTS.md,
// 2026-12-07). The samples export and the importer's read-back, whose sizes
// are not bounded, stream it (CopyOutStream), so that a slow reader leaves
// the COPY waiting on the socket. On the export bench's 2.68 M rows, read
// into the CSV export's lines, that took 1.63–1.91 s of CPU against
// 1.80–2.10 s through pg-copy-streams, with 8–31 collections of the young
// generation against 26–107 (bench/RESULTS.md, the 2026-11-25 03:45 section).
import type pg from 'pg';
import { Readable, type Duplex } from 'node:stream';

/**
 * A COPY read whole into one buffer: the connection's socket taken over for
 * the COPY's length (CopySocket), each socket read's CopyData appended.
 */
class WholeCopyOut implements pg.Submittable {
  private data: Buffer;
  private size = 0;
  private settled = false;
  private readonly socket = new CopySocket((chunk, length) => this.append(chunk, length), () => {});
  /** Set by pg's client (or before submitting); called once, with the bytes or the error. */
  callback?: (error: Error | null, data?: Buffer) => void;

  constructor(
    private readonly text: string,
    expectedBytes: number,
  ) {
    this.data = spareBuffer(expectedBytes) ?? Buffer.allocUnsafe(Math.max(expectedBytes, 64));
  }

  submit(connection: pg.Connection): void {
    this.socket.take(connection, this.text, false);
  }

  /** A socket read's CopyData, the first `length` bytes of `chunk`. */
  private append(chunk: Buffer, length: number): void {
    if (this.size + length > this.data.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.size + length));
      this.data.copy(grown, 0, 0, this.size);
      this.data = grown;
    }
    this.data.set(length === chunk.length ? chunk : chunk.subarray(0, length), this.size);
    this.size += length;
  }

  handleError(error: Error): void {
    this.settle(error);
  }

  /** The query's end: after CopyDone, the bytes; after an error, already settled; anything else lost data. */
  handleReadyForQuery(): void {
    if (this.socket.done) this.settle(null, this.data.subarray(0, this.size));
    else this.settle(new Error('the COPY ended without its CopyDone'));
  }

  private settle(error: Error | null, data?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(error, data);
  }

  // The COPY's end is seen in its bytes (CopyDone); pg calls these on whatever query is active.
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

// Buffers of whole COPYs handed back (recycleCopyData), for the next ones to
// fill: a page of samples is read every time into a buffer of ~60 KB, outside
// V8's heap, and allocating one each page, with the page's decoded columns,
// made the garbage collector run more (bench/RESULTS.md, 2026-11-25, after the
// 14:35 run). Only a buffer of its own (not a slice of Node's shared pool) is
// kept, and a few at most.
const spares: Buffer[] = [];
const SPARES_KEPT = 4;
const SPARE_MIN_BYTES = 16 * 1024;

/** A spare buffer of at least `bytes`, or undefined (a smaller one is dropped). */
function spareBuffer(bytes: number): Buffer | undefined {
  const spare = spares.pop();
  return spare && spare.length >= bytes ? spare : undefined;
}

/** Hands back what copyOutWhole answered once nothing reads it any more: a later whole COPY may fill it. */
export function recycleCopyData(data: Buffer): void {
  if (spares.length < SPARES_KEPT && data.byteOffset === 0 && data.buffer.byteLength >= SPARE_MIN_BYTES) spares.push(Buffer.from(data.buffer));
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

/** A message's frame: its code (a byte) and its length (4 bytes, itself included). */
const FRAME_BYTES = 5;
const COPY_DATA = 0x64; // 'd'
/** Messages PostgreSQL may send inside a COPY that do not end it, dropped here: CopyOutResponse (its first), NoticeResponse, ParameterStatus, NotificationResponse. */
const PASSED_OVER = new Set([0x48, 0x4e, 0x53, 0x41]);
const COPY_DONE = 0x63; // 'c'

/**
 * The frames of a COPY's messages, stripped: each socket read's CopyData
 * payloads moved to its start, over the frames (a message may be cut
 * anywhere by a read's end). Ends at the first message that ends the COPY —
 * CopyDone, an ErrorResponse, anything it does not know — whose bytes and
 * all after them are then PostgreSQL's for pg's own parser (`rest`).
 */
export class CopyDataFrames {
  private readonly frame = Buffer.alloc(FRAME_BYTES);
  private frameBytes = 0;
  private code = 0;
  /** Payload bytes of the current message still to come. */
  private left = 0;
  /** From the message that ended the COPY on: its frame, then the rest of that read (null before). */
  rest: Buffer | null = null;
  /** Whether that message was CopyDone (an ended COPY), not an error. */
  done = false;

  /** Moves the CopyData payloads of `chunk` to its start; answers their length. Takes no more once `rest` is set. */
  take(chunk: Buffer): number {
    if (this.rest) throw new Error('COPY data after the end of the COPY');
    let at = 0;
    let out = 0;
    while (at < chunk.length) {
      if (this.left === 0) {
        if (this.frameBytes === 0 && at + FRAME_BYTES <= chunk.length && chunk[at] === COPY_DATA) {
          // The rule: a CopyData frame whole in this read, read where it is.
          this.code = COPY_DATA;
          this.left = ((chunk[at + 1] << 24) | (chunk[at + 2] << 16) | (chunk[at + 3] << 8) | chunk[at + 4]) - 4;
          at += FRAME_BYTES;
          continue;
        }
        while (this.frameBytes < FRAME_BYTES && at < chunk.length) this.frame[this.frameBytes++] = chunk[at++];
        if (this.frameBytes < FRAME_BYTES) break;
        this.frameBytes = 0;
        this.code = this.frame[0];
        if (this.code !== COPY_DATA && !PASSED_OVER.has(this.code)) {
          this.done = this.code === COPY_DONE;
          this.rest = Buffer.concat([this.frame, chunk.subarray(at)]);
          return out;
        }
        this.left = this.frame.readUInt32BE(1) - 4;
        continue;
      }
      const n = Math.min(this.left, chunk.length - at);
      if (this.code === COPY_DATA) {
        if (out !== at) chunk.copyWithin(out, at, at + n);
        out += n;
      }
      at += n;
      this.left -= n;
    }
    return out;
  }
}

/** What a Submittable gets of pg's connection: its socket, and the simple query it sends. */
interface CopyConnection {
  stream: Duplex;
  query(text: string): void;
}

/**
 * pg's connection socket, taken over for a COPY's length: each socket read's
 * frames stripped in place (CopyDataFrames) and its CopyData handed on; from
 * the message that ends the COPY on, the socket and its bytes go back to pg's
 * parser, which then answers the COPY's end (or error) to the query and the
 * queries queued behind. Only the socket's pausing is the reader's.
 */
class CopySocket {
  private readonly frames = new CopyDataFrames();
  private socket: Duplex | null = null;
  /** pg's own 'data' listener of the socket, put back at the end. */
  private pgListener: ((chunk: Buffer) => void) | null = null;
  private readonly onData = (chunk: Buffer) => this.forward(chunk);

  constructor(
    /** A socket read's CopyData: the first `length` bytes of `chunk`, a view valid during the call. */
    private readonly copyData: (chunk: Buffer, length: number) => void,
    /** The COPY's messages are read; `done` says whether it ended in CopyDone. */
    private readonly ended: () => void,
  ) {}

  /** Whether the COPY ended in CopyDone (not an error). */
  get done(): boolean {
    return this.frames.done;
  }

  /** Sends `text` on the connection and reads its COPY; a `paused` socket reads once resumed. */
  take(connection: pg.Connection, text: string, paused: boolean): void {
    const own = connection as unknown as CopyConnection;
    const socket = own.stream;
    const listeners = socket.listeners('data');
    if (listeners.length !== 1) throw new Error(`expected pg's one data listener on the socket, found ${listeners.length}`);
    this.pgListener = listeners[0] as (chunk: Buffer) => void;
    socket.removeListener('data', this.pgListener);
    // Flowing: a 'data' event is one socket read. (Read in paused mode, read() joins whatever
    // reads are buffered into one new buffer: a copy of most of the COPY.)
    socket.on('data', this.onData);
    if (paused) socket.pause();
    this.socket = socket;
    own.query(text);
  }

  pause(): void {
    this.socket?.pause();
  }

  resume(): void {
    this.socket?.resume();
  }

  private forward(chunk: Buffer): void {
    const length = this.frames.take(chunk);
    if (length > 0) this.copyData(chunk, length);
    if (this.frames.rest) this.giveBack(this.frames.rest);
  }

  /** The socket back to pg, with what was read of the messages after the COPY. */
  private giveBack(rest: Buffer): void {
    const socket = this.socket!;
    const listener = this.pgListener!;
    this.socket = null;
    this.pgListener = null;
    socket.removeListener('data', this.onData);
    socket.on('data', listener);
    listener(rest);
    socket.resume();
    this.ended();
  }
}

/**
 * The data of `COPY (…) TO STDOUT` as a Readable of byte chunks (frames
 * stripped, the format's own header and trailer kept; a chunk is a view of a
 * socket read). It reads the socket only while its reader takes what it read,
 * so a slow reader leaves the rest waiting on the socket. Ends at CopyDone;
 * fails with PostgreSQL's error (a cancel's too). Either way the messages
 * after go back to pg, which then answers the queries queued behind.
 */
export class CopyOutStream extends Readable implements pg.Submittable {
  private readonly socket = new CopySocket(
    (chunk, length) => {
      if (!this.destroyed && !this.push(chunk.subarray(0, length))) this.socket.pause();
    },
    () => {
      if (this.socket.done) this.push(null);
    },
  );

  constructor(private readonly text: string) {
    super();
  }

  submit(connection: pg.Connection): void {
    this.socket.take(connection, this.text, true);
  }

  override _read(): void {
    this.socket.resume();
  }

  /** Destroyed by its reader before the COPY's end: the rest is read and dropped, so the connection comes back to pg. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.resume();
    callback(error);
  }

  handleError(error: Error): void {
    this.destroy(error);
  }

  /** The query's end: after CopyDone or the error, the stream has ended or failed; anything else lost data. */
  handleReadyForQuery(): void {
    if (!this.socket.done && !this.destroyed) this.destroy(new Error('the COPY ended without its CopyDone'));
  }

  // The COPY's end is seen in its bytes (CopyDone); pg calls these on whatever query is active.
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** The data of `COPY (…) TO STDOUT` run on `client`, as it arrives (CopyOutStream). */
export function copyOut(client: pg.ClientBase, text: string): Readable {
  return client.query(new CopyOutStream(text));
}
