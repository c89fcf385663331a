// Moves encoded rows to the client in chunks of about 64 KB, the next chunk
// built only once the sink has taken the last one: from an array (a dataset
// read whole), or from a database cursor with flat memory, so a slow client
// slows the cursor down instead of filling memory. Rows are taken from the stream synchronously
// while it has them buffered (the stream meanwhile fetches the next batch);
// only an empty buffer waits. When the sink closes (client gone, time limit,
// shutdown) the cursor is destroyed at once, which closes it on the server.
import type { Readable } from 'node:stream';
import type { StreamSink } from './sink.js';

/** Characters a chunk reaches before it goes to the sink (tests read it to check the wire). */
export const CHUNK_CHARS = 64 * 1024;

export interface RowEncoder {
  /** Text for one row. */
  row(cells: unknown[]): string;
}

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

/** Writes every row of `rows` through `encoder` to `sink`; rejects on a database error or a closed sink. */
export async function pumpCursor(rows: Readable, encoder: RowEncoder, sink: StreamSink): Promise<void> {
  // A database error can arrive while no wait is listening (the stream
  // prefetches during a sink write), and so can a failed cursor close after
  // the pump is done; `moreRows` reads it from `rows.errored`, so an 'error'
  // event must never be left without a listener.
  rows.on('error', () => {});
  const stop = () => rows.destroy();
  if (sink.signal.aborted) stop();
  sink.signal.addEventListener('abort', stop, { once: true });
  try {
    let chunk = '';
    for (;;) {
      let cells: unknown[] | null;
      while ((cells = rows.read()) !== null) {
        chunk += encoder.row(cells);
        if (chunk.length >= CHUNK_CHARS) {
          await sink.write(chunk);
          chunk = '';
        }
      }
      if (!(await moreRows(rows))) break;
    }
    if (chunk !== '') await sink.write(chunk);
  } finally {
    sink.signal.removeEventListener('abort', stop);
    if (!rows.readableEnded) rows.destroy();
  }
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
