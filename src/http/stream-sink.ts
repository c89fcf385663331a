// A streamed response body with backpressure, over one uWS response.
// `write` resolves when the client can take more (uWS `write` returned true,
// or `onWritable` fired); a client that takes nothing for `idleLimitMs` is
// dropped. `abort` closes the connection without a clean end, so a cut-off
// download always shows as failed. Nothing touches `res` after it is gone.
//
// uWS itself closes a backpressured response after about 10 s without
// progress; our limit is a minute, so while waiting we re-arm its timer every
// few seconds with pause()+resume() (resume resets the socket timeout and
// keeps polling for writability).
import type { HttpResponse } from './uws.js';

export interface StreamSink {
  /** Queues a chunk; resolves when more may be written. Rejects once the stream is closed. */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Ends the body cleanly. */
  end(): void;
  /** Drops the connection: the client sees a failed download. */
  abort(): void;
  readonly closed: boolean;
  /** Aborted when the client goes away or the stream is aborted. */
  readonly signal: AbortSignal;
  /** Bytes queued so far. */
  readonly bytesWritten: number;
}

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
  private waiting: { resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout; keepAlive: NodeJS.Timeout } | null = null;
  bytesWritten = 0;

  constructor(
    private readonly res: HttpResponse,
    private readonly state: ResponseState,
    private readonly idleLimitMs: number,
  ) {}

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
      clearTimeout(waiting.timer);
      clearInterval(waiting.keepAlive);
      waiting.reject(error);
    }
  }

  write(chunk: string | Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new StreamClosedError('already closed'));
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    this.bytesWritten += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (ok) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.abort(), this.idleLimitMs);
      const keepAlive = setInterval(() => {
        if (this.closed) return;
        this.res.pause();
        this.res.resume();
      }, UWS_TIMER_REARM_MS);
      this.waiting = { resolve, reject, timer, keepAlive };
      this.res.onWritable(() => {
        const waiting = this.waiting;
        this.waiting = null;
        if (waiting) {
          clearTimeout(waiting.timer);
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
