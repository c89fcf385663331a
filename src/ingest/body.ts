// A batch body as NDJSON lines, decoded incrementally: bytes from the socket
// (src/ingest/server.ts feeds a Readable with backpressure), through the
// inflater when gzip (a small body inflated whole, in one call), split on
// `\n`. Memory is bounded by one line (the line cap) or a small body's
// SMALL_INFLATED_BYTES, never the batch; the decompressed-size cap is counted
// as bytes come out of the inflater, so a gzip bomb stops at the cap.
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { ApiError } from '../errors.js';
import { INGEST } from '../limits.js';
import { ingestErrors } from './errors.js';

/**
 * Bytes the inflater hands over at a time: zlib's default 16 KiB made each MB
 * of lines cost 64 callbacks and buffers, so a large body gets 128 KiB; a
 * small one (most syncs after the first: a few samples) no more than its
 * lines can fill, as each batch allocates its own.
 */
const CHUNK_BYTES = 128 << 10;
function inflateChunkBytes(compressedBytes: number | null): number {
  const least = 16 << 10;
  if (compressedBytes === null || !Number.isFinite(compressedBytes)) return CHUNK_BYTES;
  return Math.min(CHUNK_BYTES, Math.max(least, compressedBytes * 8));
}

/**
 * A gzip body up to this size (its Content-Length) is read whole and inflated
 * in one call on the event loop, when its trailer says it inflates to at
 * most SMALL_INFLATED_BYTES (enforced: a larger output stops the call). Most
 * batches are this small (the app's backfill batches of 1,000 samples are
 * ~35 KB); streaming them through the inflater cost a thread-pool round trip
 * per chunk and about twice the CPU of one call. A larger body streams, so
 * memory stays bounded by a line whatever the batch.
 */
export const SMALL_BODY_BYTES = 256 << 10;
export const SMALL_INFLATED_BYTES = 4 << 20;

/** The inflated size a gzip member's trailer states (ISIZE, little-endian, modulo 2^32); -1 when the body is too short to have one. */
const statedSize = (gzip: Buffer): number => (gzip.length >= 18 ? gzip.readUInt32LE(gzip.length - 4) : -1);

/**
 * A small gzip body read whole: inflated in one call, as chunks to split, or
 * its bytes when it must stream after all (inflating past SMALL_INFLATED_BYTES).
 */
async function inflateWhole(body: Readable): Promise<{ chunks: Buffer[] } | { gzip: Buffer }> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk as Buffer);
  const gzip = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  if (statedSize(gzip) > SMALL_INFLATED_BYTES) return { gzip };
  let inflated: Buffer;
  try {
    inflated = gunzipSync(gzip, { maxOutputLength: SMALL_INFLATED_BYTES });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return { gzip };
    throw error;
  }
  // Split as the inflater's chunks come, for the same reader below.
  const chunks: Buffer[] = [];
  for (let at = 0; at < inflated.length; at += CHUNK_BYTES) chunks.push(inflated.subarray(at, at + CHUNK_BYTES));
  return { chunks };
}

/** Inflates a streamed gzip body; the body's errors (client gone) reach the reader through the inflater. */
function inflateStream(body: Readable, compressedBytes: number | null): Readable {
  const gunzip = createGunzip({ chunkSize: inflateChunkBytes(compressedBytes) });
  // (pipe, not pipeline: pipeline's abort signal made a DOMException per batch, 1-2 % of a small batch's CPU.)
  body.on('error', (error) => gunzip.destroy(error));
  body.pipe(gunzip);
  return gunzip;
}

export interface Line {
  /** 1-based, blank lines counted. */
  number: number;
  text: string;
}

/** Whether a line holds nothing but white space (skipped); a line starting `{` never does. */
const isBlank = (text: string): boolean => text.length === 0 || (text.charCodeAt(0) !== 0x7b && /^\s*$/.test(text));

/**
 * The lines of `bytes` (whole lines with `\n` between them, the first
 * numbered `first`) checked one at a time: the path for a stretch that is
 * not valid UTF-8 or is longer than one line may be. Answers the lines
 * before the first bad one, and that line's error.
 */
function checkEach(bytes: Buffer, first: number): { lines: Line[]; error: ApiError | null; next: number } {
  const lines: Line[] = [];
  let number = first;
  for (let from = 0; from <= bytes.length; number++) {
    let newline = bytes.indexOf(10, from);
    if (newline === -1) newline = bytes.length;
    if (newline - from > INGEST.lineBytes) return { lines, error: ingestErrors.lineTooLong(number), next: number };
    const line = bytes.subarray(from, newline);
    if (!isUtf8(line)) return { lines, error: ingestErrors.badLine(number, 'is not valid UTF-8'), next: number };
    const text = line.toString('utf8');
    if (!isBlank(text)) lines.push({ number, text });
    from = newline + 1;
  }
  return { lines, error: null, next: number };
}

/**
 * The body's lines, blank ones left out, handed over a run at a time (every
 * line that ends in a chunk of the body: one await per chunk, not per line).
 * `gzip` false reads the body as it is; `compressedBytes` is its
 * Content-Length when sent.
 */
export async function* ndjsonLines(body: Readable, gzip: boolean, compressedBytes: number | null = null): AsyncGenerator<Line[]> {
  let inflated = 0;
  /** The number of the line begun in earlier chunks, or of the next line. */
  let number = 1;
  /** That line's bytes so far. */
  let pieces: Buffer[] = [];
  let pending = 0;
  try {
    let source: AsyncIterable<Buffer> | Iterable<Buffer> = body;
    if (gzip && compressedBytes !== null && compressedBytes <= SMALL_BODY_BYTES) {
      const whole = await inflateWhole(body);
      source = 'chunks' in whole ? whole.chunks : inflateStream(Readable.from([whole.gzip]), compressedBytes);
    } else if (gzip) {
      source = inflateStream(body, compressedBytes);
    }
    for await (const chunk of source) {
      inflated += chunk.length;
      if (inflated > INGEST.decompressedBytes) throw ingestErrors.inflatedTooLarge();
      const last = chunk.lastIndexOf(10);
      if (last === -1) {
        pending += chunk.length;
        if (pending > INGEST.lineBytes) throw ingestErrors.lineTooLong(number);
        pieces.push(chunk);
        continue;
      }
      // Every line that ends in this chunk, decoded together: a newline byte is never inside a UTF-8 character.
      const whole = pieces.length === 0 ? chunk.subarray(0, last) : Buffer.concat([...pieces, chunk.subarray(0, last)]);
      let lines: Line[] = [];
      if (whole.length <= INGEST.lineBytes && isUtf8(whole)) {
        const texts = whole.toString('utf8').split('\n');
        for (let i = 0; i < texts.length; i++) if (!isBlank(texts[i])) lines.push({ number: number + i, text: texts[i] });
        number += texts.length;
      } else {
        const checked = checkEach(whole, number);
        if (checked.error) {
          if (checked.lines.length > 0) yield checked.lines;
          throw checked.error;
        }
        lines = checked.lines;
        number = checked.next;
      }
      pieces = last + 1 < chunk.length ? [chunk.subarray(last + 1)] : [];
      pending = chunk.length - last - 1;
      if (lines.length > 0) yield lines;
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw ingestErrors.badGzip();
    throw error;
  }
  if (pieces.length > 0) {
    const { lines, error } = checkEach(Buffer.concat(pieces), number);
    if (lines.length > 0) yield lines;
    if (error) throw error;
  }
}
