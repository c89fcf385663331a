// Writes a whole reply in one corked batch, and never touches a response whose
// client is gone (uWS aborts the process on that). A reply's head is a status,
// header lines fixed per kind of reply (built once, not per request), the
// request's id, the reply's own headers and its content type.
import type { HttpRequest, HttpResponse } from './uws.js';
import type { BodyBytes } from '../routes/route.js';
import type { ResponseState } from './stream-sink.js';

const REASONS: Record<number, string> = {
  200: 'OK', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 413: 'Content Too Large', 429: 'Too Many Requests', 500: 'Internal Server Error',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

const STATUS_LINES = new Map(Object.entries(REASONS).map(([status, reason]) => [Number(status), `${status} ${reason}`]));

/** What uWS writes after `HTTP/1.1 `: the code, a space and the reason (RFC 9112 wants the space even with no reason). */
export const statusLine = (status: number): string => STATUS_LINES.get(status) ?? `${status} `;

/** Header names and values, alternating: a set shared by many replies. */
export type HeaderLines = readonly string[];

export const headerLines = (headers: Readonly<Record<string, string>>): HeaderLines => Object.freeze(Object.entries(headers).flat());

export interface ReplyHead {
  fixed: HeaderLines;
  requestId: string;
  /** The reply's own headers (Allow, Retry-After, Content-Disposition, …). */
  own?: Readonly<Record<string, string>>;
  /** Absent for a reply without a body (a CORS preflight's 204). */
  contentType?: string;
}

export function writeHead(res: HttpResponse, status: number, head: ReplyHead): void {
  res.writeStatus(statusLine(status));
  const { fixed, own } = head;
  for (let i = 0; i < fixed.length; i += 2) res.writeHeader(fixed[i], fixed[i + 1]);
  res.writeHeader('X-Request-Id', head.requestId);
  if (own) for (const name in own) res.writeHeader(name, own[name]);
  if (head.contentType !== undefined) res.writeHeader('Content-Type', head.contentType);
}

export function sendWhole(
  res: HttpResponse,
  state: ResponseState,
  status: number,
  head: ReplyHead,
  body: string | Uint8Array | BodyBytes,
  closeConnection = false,
): void {
  if (state.aborted || state.done) return;
  // Written before the reply counts as sent: a body that fails to write is the caller's 500.
  const bytes = typeof body === 'string' || body instanceof Uint8Array ? body : writtenBody(body);
  state.done = true;
  res.cork(() => {
    writeHead(res, status, head);
    res.end(bytes, closeConnection);
  });
}

/**
 * A body written as bytes (BodyBytes) is written into one buffer kept for the
 * purpose: uWS copies what `end` is given before it returns, so the next
 * reply may reuse it. Such a body is never one string: uWS flattens a string
 * longer than V8's largest ordinary object (128 KB) into a page of its own,
 * mapped and unmapped each time, and reads it twice more for its UTF-8; for a
 * page of 1000 samples that cost a fifth of the server's time, and the
 * string itself and its UTF-8 another fifth (bench/RESULTS.md, 2026-11-25).
 * The buffer kept grows to the largest such body up to BODY_BUFFER_KEPT (a
 * page of 5000 samples with short source names needs 1 MB); a larger body is
 * written into a buffer of its own, left to the garbage collector.
 */
const BODY_BUFFER_KEPT = 4 * 1024 * 1024;
let bodyBuffer = Buffer.allocUnsafe(256 * 1024);

export function writtenBody(body: BodyBytes): Uint8Array {
  let target = bodyBuffer;
  if (target.length < body.maxBytes) {
    target = Buffer.allocUnsafe(Math.max(body.maxBytes, Math.min(target.length * 2, BODY_BUFFER_KEPT)));
    if (target.length <= BODY_BUFFER_KEPT) bodyBuffer = target;
  }
  return target.subarray(0, body.writeInto(target));
}

/**
 * Closes the connection without an answer, reading nothing more from it: for a
 * request whose framing cannot be trusted. (uWS would still serve a request it
 * has already read into its buffer behind one answered with Connection:
 * close; and a response cannot be touched once it has ended.)
 */
export function hangUp(res: HttpResponse, state: ResponseState): void {
  if (state.aborted || state.done) return;
  state.done = true;
  res.close();
}

/**
 * Whether a request declares its body's length more than once. uWS takes the
 * first Content-Length and reads what follows the shorter length as the next
 * request: a proxy that took another value would pass a request through
 * unseen (request smuggling). Such a request is refused and its connection
 * closed. The headers are walked only when a Content-Length is there.
 */
export function contentLengthRepeated(req: HttpRequest): boolean {
  if (req.getHeader('content-length') === '') return false;
  let seen = 0;
  req.forEach((name) => {
    if (name === 'content-length') seen++;
  });
  return seen > 1;
}
