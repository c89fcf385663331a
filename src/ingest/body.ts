// A batch body as NDJSON lines, decoded incrementally: bytes from the socket
// (src/ingest/server.ts feeds a Readable with backpressure), through the
// inflater when gzip, split on `\n`. Memory is bounded by one line (the line
// cap), never the batch; the decompressed-size cap is counted as bytes come
// out of the inflater, so a gzip bomb stops at the cap.
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from '../errors.js';
import { INGEST } from '../limits.js';
import { ingestErrors } from './errors.js';

/**
 * Bytes the inflater hands over at a time: zlib's default 16 KiB made each MB
 * of lines cost 64 callbacks and buffers, so a large body gets 128 KiB; a
 * small one (most syncs after the first: a few samples) no more than its
 * lines can fill, as each batch allocates its own.
 */
function inflateChunkBytes(compressedBytes: number | null): number {
  const most = 128 << 10;
  const least = 16 << 10;
  if (compressedBytes === null || !Number.isFinite(compressedBytes)) return most;
  return Math.min(most, Math.max(least, compressedBytes * 8));
}

export interface Line {
  /** 1-based, blank lines counted. */
  number: number;
  text: string;
}

/**
 * The body's lines, blank ones left out. `gzip` false reads the body as it
 * is; `compressedBytes` is its Content-Length when sent.
 */
export async function* ndjsonLines(body: Readable, gzip: boolean, compressedBytes: number | null = null): AsyncGenerator<Line> {
  let source: AsyncIterable<Buffer> = body;
  if (gzip) {
    const gunzip = createGunzip({ chunkSize: inflateChunkBytes(compressedBytes) });
    // The socket's errors (client gone) reach the loop below through the inflater. (pipe, not
    // pipeline: pipeline's abort signal made a DOMException per batch, 1-2 % of a small batch's CPU.)
    body.on('error', (error) => gunzip.destroy(error));
    body.pipe(gunzip);
    source = gunzip;
  }
  let inflated = 0;
  let number = 1;
  /** The line begun in earlier chunks. */
  let pieces: Buffer[] = [];
  let pending = 0;
  const line = (bytes: Buffer): Line | null => {
    if (!isUtf8(bytes)) throw ingestErrors.badLine(number, 'is not valid UTF-8');
    const text = bytes.toString('utf8');
    return /^\s*$/.test(text) ? null : { number, text };
  };
  try {
    for await (const chunk of source) {
      inflated += chunk.length;
      if (inflated > INGEST.decompressedBytes) throw ingestErrors.inflatedTooLarge();
      let from = 0;
      while (from < chunk.length) {
        const newline = chunk.indexOf(10, from);
        if (newline === -1) {
          pending += chunk.length - from;
          if (pending > INGEST.lineBytes) throw ingestErrors.lineTooLong(number);
          pieces.push(chunk.subarray(from));
          break;
        }
        if (pending + newline - from > INGEST.lineBytes) throw ingestErrors.lineTooLong(number);
        const bytes = pieces.length === 0 ? chunk.subarray(from, newline) : Buffer.concat([...pieces, chunk.subarray(from, newline)]);
        pieces = [];
        pending = 0;
        const next = line(bytes);
        if (next) yield next;
        number++;
        from = newline + 1;
      }
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw ingestErrors.badGzip();
    throw error;
  }
  if (pieces.length > 0) {
    const last = line(Buffer.concat(pieces));
    if (last) yield last;
  }
}
