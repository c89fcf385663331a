// The export's StreamSink (src/export/sink.ts) over one uWS response.
// `write` resolves when the client can take more (uWS `write` returned true,
// or `onWritable` fired). `abort` closes the connection without a clean end,
// so a cut-off download always shows as failed. Nothing touches `res` after
// it is gone.
//
// The response head is written with the first chunk (or the end). uWS ends a
// chunked head only with a chunk: a head written before, then cut off, reads
// to clients as an empty file that ended cleanly. The CSV header row is the
// first chunk, written before the first row is read, so its head goes out
// then; a JSONL file's head goes out with its first line, and a file that
// fails before it is answered with the error (src/http/server.ts).
//
// uWS itself closes a backpressured response after about 10 s without
// progress; how long a client may stall is the export's decision (its idle
// limit, src/export/run.ts), so while waiting we re-arm uWS's timer every few
// seconds with pause()+resume() (resume resets the socket timeout and keeps
// polling for writability).
import type { StreamSink } from '../export/sink.js';
import type { HttpResponse } from './uws.js';

const UWS_TIMER_REARM_MS = 4_000;

export class StreamClosedError extends Error {
  constructor(reason: string) {
    super(`stream closed: ${reason}`);
    this.name = 'StreamClosedError';
  }
}

export interface ResponseState {
  aborted: boolean;
  done: boolean;
}

export class UwsStreamSink implements StreamSink {
  private readonly controller = new AbortController();
  private waiting: { resolve: () => void; reject: (error: Error) => void; keepAlive: NodeJS.Timeout } | null = null;

  private headWritten = false;

  constructor(
    private readonly res: HttpResponse,
    private readonly state: ResponseState,
    /** Writes the response head (called inside a cork, once, before the first chunk or the end). */
    private readonly writeHead: () => void,
  ) {}

  /** Whether the head has been written: from then on a failure can only cut the body off. */
  get started(): boolean {
    return this.headWritten;
  }

  private head(): void {
    if (this.headWritten) return;
    this.headWritten = true;
    this.writeHead();
  }

  get closed(): boolean {
    return this.state.aborted || this.state.done;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Called by the front when uWS reports the client gone. */
  clientAborted(): void {
    this.fail(new StreamClosedError('client went away'));
  }

  private fail(error: Error): void {
    if (!this.controller.signal.aborted) this.controller.abort(error);
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) {
      clearInterval(waiting.keepAlive);
      waiting.reject(error);
    }
  }

  write(chunk: string | Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new StreamClosedError('already closed'));
    let ok = true;
    this.res.cork(() => {
      this.head();
      ok = this.res.write(chunk);
    });
    if (ok) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const keepAlive = setInterval(() => {
        if (this.closed) return;
        this.res.pause();
        this.res.resume();
      }, UWS_TIMER_REARM_MS);
      this.waiting = { resolve, reject, keepAlive };
      this.res.onWritable(() => {
        const waiting = this.waiting;
        this.waiting = null;
        if (waiting) {
          clearInterval(waiting.keepAlive);
          waiting.resolve();
        }
        return true;
      });
    });
  }

  end(): void {
    if (this.closed) return;
    this.state.done = true;
    this.res.cork(() => {
      this.head();
      this.res.end();
    });
  }

  abort(): void {
    if (this.closed) {
      this.fail(new StreamClosedError('aborted'));
      return;
    }
    this.state.done = true;
    this.res.close();
    this.fail(new StreamClosedError('aborted'));
  }
}
