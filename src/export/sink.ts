// Where a streamed file goes: a body with backpressure. The export writes to
// this interface; the HTTP front implements it over one uWS response
// (src/http/stream-sink.ts), and tests can implement it over anything.

export interface StreamSink {
  /**
   * Queues a chunk; resolves when more may be written. Rejects once the stream
   * is closed. The chunk is the sink's only during the call: what it cannot
   * send at once it copies (the export reuses its buffers).
   */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Ends the body cleanly. */
  end(): void;
  /** Drops the connection: the client sees a failed download. */
  abort(): void;
  readonly closed: boolean;
  /** Aborted when the client goes away or the stream is aborted. */
  readonly signal: AbortSignal;
}
