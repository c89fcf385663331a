// Moves the file to the client in chunks of about 64 KB, the next chunk built
// only once the sink has taken the last one: encoded rows from an array (a
// dataset read whole), or the bytes of a COPY with flat memory, so a slow
// client slows the COPY down instead of filling memory. COPY data is taken
// from the stream synchronously while it has some buffered; only an empty
// buffer waits. When the sink closes (client gone, time limit, shutdown) the
// COPY is cut at once (its connection closed, which ends it on the server).
import type { Readable } from 'node:stream';
import type { StreamSink } from './sink.js';

/** Characters a chunk reaches before it goes to the sink (tests read it to check the wire). */
export const CHUNK_CHARS = 64 * 1024;

/** Writes every row, encoded, to `sink`; rejects once the sink is closed. */
export async function writeChunked<R>(rows: readonly R[], encode: (row: R) => string, sink: StreamSink): Promise<void> {
  let chunk = '';
  for (const row of rows) {
    chunk += encode(row);
    if (chunk.length >= CHUNK_CHARS) {
      await sink.write(chunk);
      chunk = '';
    }
  }
  if (chunk !== '') await sink.write(chunk);
}

/** Resolves true once more rows are buffered, false at their end; rejects on an error or an early close. */
function moreRows(rows: Readable): Promise<boolean> {
  if (rows.readableEnded) return Promise.resolve(false);
  if (rows.errored) return Promise.reject(rows.errored);
  if (rows.destroyed) return Promise.reject(new Error('the row stream closed before its end'));
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void) => {
      rows.off('readable', onReadable).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onReadable = () => settle(() => resolve(true));
    const onEnd = () => settle(() => resolve(false));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => (rows.readableEnded ? resolve(false) : reject(rows.errored ?? new Error('the row stream closed before its end'))));
    rows.on('readable', onReadable).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * Writes the bytes `fields` yields from each chunk of `copy` (a COPY's data)
 * to `sink` in chunks of exactly CHUNK_CHARS bytes (the last one shorter),
 * reading the next chunk only once the sink has taken the last: a slow client
 * leaves the COPY waiting on its socket, so memory stays flat. When the sink
 * closes, or anything fails, `cancel` has PostgreSQL end the COPY (with an
 * error) and what it still sends is read and dropped, so the connection comes
 * back usable. Rejects on a database error, a closed sink, or a COPY that ends
 * without its trailer.
 */
export async function pumpCopy(
  copy: Readable,
  cancel: () => Promise<void>,
  fields: (chunk: Buffer, emit: (bytes: Buffer) => void) => boolean,
  sink: StreamSink,
): Promise<void> {
  copy.on('error', () => {});
  let finished = false;
  let stopped = false;
  const stop = () => {
    if (finished || stopped) return;
    stopped = true;
    cancel().catch(() => {}); // a connection that died ends the COPY anyway
    // Drop the rest, whoever still listens: with a 'data' listener the stream flows again whenever its last
    // 'readable' listener goes. resume() alone did not last: a read under way (moreRows) re-attached its
    // 'readable' listener and, on leaving, left the stream neither flowing nor read, so the COPY's error was
    // never read and the connection hung until the slot's release timed out (5 s).
    copy.removeAllListeners('readable');
    copy.on('data', () => {});
    copy.resume();
  };
  if (sink.signal.aborted) stop();
  sink.signal.addEventListener('abort', stop, { once: true });
  // The sink copies what it cannot send at once, so a chunk's buffer is free
  // again once written: a few buffers serve the whole file.
  const spare: Buffer[] = [];
  const take = () => spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_CHARS);
  let out = take();
  let filled = 0;
  const full: Buffer[] = [];
  const emit = (bytes: Buffer) => {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, CHUNK_CHARS - filled);
      bytes.copy(out, filled, at, at + n);
      filled += n;
      at += n;
      if (filled === CHUNK_CHARS) {
        full.push(out);
        out = take();
        filled = 0;
      }
    }
  };
  try {
    let ended = false;
    for (;;) {
      let chunk: Buffer | null;
      while ((chunk = copy.read() as Buffer | null) !== null) {
        ended = fields(chunk, emit);
        while (full.length > 0) {
          const chunk = full.shift()!;
          await sink.write(chunk);
          spare.push(chunk);
        }
      }
      if (!(await moreRows(copy))) break;
    }
    if (!ended) throw new Error('the COPY ended without its trailer');
    if (filled > 0) await sink.write(out.subarray(0, filled));
    finished = true;
  } catch (error) {
    stop();
    throw error;
  } finally {
    sink.signal.removeEventListener('abort', stop);
  }
}
