// The sync receiver's own uWS listener (never the read API's port). Per
// request, in order: route → method → throttle → token → X-Puls-Protocol →
// X-User-ID / X-Wake-ID → the token's bound user → Content-Encoding and
// size; all of it decided synchronously from a snapshot of `req`, before a
// byte of body is read. A batch body then streams through a Readable whose
// backpressure pauses the socket (res.pause/resume) while the batch's rows
// are being stored. Replies are written corked, never after the client left.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError, errors } from '../errors.js';
import { uwsClientAddress } from '../http/auth.js';
import { hangUp, headerLines, sendWhole } from '../http/reply.js';
import type { ResponseState } from '../http/stream-sink.js';
import type { FailedAuthThrottle } from '../http/throttle.js';
import { listener, type HttpRequest, type HttpResponse, type Uws } from '../http/uws.js';
import { canonicalUuid } from '../core/uuid.js';
import { INGEST, PROTOCOL_DEFAULT_USER } from '../limits.js';
import { describeError, log } from '../log.js';
import { parseQueryString } from '../params/query-string.js';
import type { Uploader } from '../tokens/store.js';
import { storeBatch, type BatchStore } from './batch.js';
import { ndjsonLines } from './body.js';
import { ClientLeft, FixedBodyError, ingestErrors } from './errors.js';
import { requestVersion } from './framing.js';
import { capabilities, digestAnswer, statsAnswer, uuidsAnswer } from './reads.js';

interface Snapshot {
  method: string;
  url: string;
  query: string;
  authorization: string;
  forwardedFor: string;
  protocol: string;
  /** Every X-User-ID header as sent: none, one (maybe empty) or, wrongly, several. */
  userIds: string[];
  wakeId: string;
  batchId: string;
  encoding: string;
  contentLength: string;
  /** Content-Length given more than once: refused, the connection closed (see contentLengthRepeated). */
  repeatedLength: boolean;
}

function snapshot(req: HttpRequest, trustProxyHeaders: boolean): Snapshot {
  let forwardedFor = '';
  const userIds: string[] = [];
  let lengths = 0;
  // getHeader answers '' for an absent header and an empty one alike, and only the first of several.
  req.forEach((name, value) => {
    if (name === 'x-user-id') userIds.push(value);
    else if (name === 'content-length') lengths++;
    else if (trustProxyHeaders && name === 'x-forwarded-for') forwardedFor = forwardedFor ? `${forwardedFor},${value}` : value;
  });
  return {
    method: req.getCaseSensitiveMethod(),
    url: req.getUrl(),
    query: req.getQuery() ?? '',
    authorization: req.getHeader('authorization'),
    forwardedFor,
    protocol: req.getHeader('x-puls-protocol'),
    userIds,
    wakeId: req.getHeader('x-wake-id'),
    batchId: req.getHeader('x-batch-id'),
    encoding: req.getHeader('content-encoding'),
    contentLength: req.getHeader('content-length'),
    repeatedLength: lengths > 1,
  };
}

/** A reply's state, plus what to tell the body stream when the client goes. */
type RequestState = ResponseState & { onAbort?: () => void };

const JSON_TYPE = 'application/json';
const HEADERS = headerLines({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
const HEALTHY = JSON.stringify({ ok: true });

/** Paths, the method each answers and whether it needs an upload token. */
const ROUTES: Readonly<Record<string, { method: 'GET' | 'POST'; auth: boolean }>> = {
  '/healthz': { method: 'GET', auth: false },
  '/v1/batches': { method: 'POST', auth: true },
  '/v1/capabilities': { method: 'GET', auth: true },
  '/v1/stats': { method: 'GET', auth: true },
  '/v1/uuids': { method: 'GET', auth: true },
  '/v1/digest': { method: 'GET', auth: true },
};

export interface IngestServerOptions {
  store: BatchStore;
  authenticate: (authorization: string) => Uploader | null;
  /** Shared with the read API: failed attempts on either port draw from one allowance. */
  throttle: FailedAuthThrottle;
  trustProxyHeaders: boolean;
  /** SERVICE_SHARE_PORT: the port may be shared with other healthd processes. */
  sharePort: boolean;
}

export interface IngestServer {
  listen(host: string, port: number): Promise<number>;
  stopListening(): void;
  /** Batches and reads still running. */
  readonly inFlight: number;
}

/**
 * Whether the rest of a body an answer leaves unread is worth waiting for
 * instead of closing: uWS reads and drops it after the answer (then serves the
 * connection's next request), so the client reads the answer rather than a
 * reset — for a declared length up to INGEST.lingerBytes.
 */
function restIsBounded(contentLength: string): boolean {
  return contentLength !== '' && Number(contentLength) <= INGEST.lingerBytes;
}

export function createIngestServer(uws: Uws, options: IngestServerOptions): IngestServer {
  const { store, authenticate, throttle, trustProxyHeaders } = options;
  const app = uws.App();
  const listening = listener(uws, app, options.sharePort);
  const idPrefix = 'in-' + randomBytes(3).toString('hex');
  let requestCounter = 0;
  let inFlight = 0;
  let shuttingDown = false;

  function reply(res: HttpResponse, state: ResponseState, requestId: string, status: number, body: string, own?: Record<string, string>, close = false): void {
    sendWhole(res, state, status, { fixed: HEADERS, requestId, own, contentType: JSON_TYPE }, body, close || shuttingDown);
  }

  /** An error's reply; without its body for HEAD (a body after a HEAD answer would read as the next response). */
  function replyError(res: HttpResponse, state: ResponseState, requestId: string, error: ApiError, close = false, head = false): void {
    const body = head ? '' : error instanceof FixedBodyError ? error.body : JSON.stringify({ error: error.message });
    reply(res, state, requestId, error.status, body, error.headers as Record<string, string>, close);
  }

  /** The checks every authenticated request passes, in order; answers the user it acts for. */
  function authorize(res: HttpResponse, request: Snapshot): string {
    const address = () => uwsClientAddress(res, request.forwardedFor, trustProxyHeaders);
    const wait = throttle.retryAfterFor(address);
    if (wait > 0) throw errors.tooManyFailedAuth(wait);
    const uploader = authenticate(request.authorization);
    if (uploader === null) {
      throttle.recordFailure(address(), Date.now());
      throw errors.unauthorized();
    }
    requestVersion(request.protocol);
    if (request.userIds.length > 1) throw ingestErrors.userIdTwice();
    const namedUser = request.userIds[0];
    let userId = PROTOCOL_DEFAULT_USER;
    if (namedUser !== undefined) {
      // Present but empty is malformed, not absent: it must not write into the default user.
      const named = canonicalUuid(namedUser.trim());
      if (named === null) throw ingestErrors.badUserId();
      userId = named;
    }
    if (request.wakeId !== '' && canonicalUuid(request.wakeId.trim()) === null) throw ingestErrors.badWakeId();
    if (uploader.boundUser !== null && uploader.boundUser !== userId) {
      if (namedUser !== undefined) throw ingestErrors.otherUser();
      // No X-User-ID from a bound device: it writes as its own user.
      userId = uploader.boundUser;
    }
    return userId;
  }

  function receiveBatch(res: HttpResponse, state: RequestState, request: Snapshot, userId: string, requestId: string): void {
    const encoding = request.encoding.trim().toLowerCase();
    if (encoding !== '' && encoding !== 'gzip' && encoding !== 'identity') throw ingestErrors.badEncoding(request.encoding);
    if (request.contentLength !== '' && Number(request.contentLength) > INGEST.compressedBodyBytes) throw ingestErrors.bodyTooLarge();

    let received = 0;
    let paused = false;
    let ended = false;
    const body = new Readable({
      highWaterMark: 1 << 20,
      read() {
        if (paused && !state.aborted && !state.done) {
          paused = false;
          res.resume();
        }
      },
    });
    state.onAbort = () => body.destroy(new ClientLeft());
    res.onData((chunk, isLast) => {
      if (state.aborted || state.done || body.destroyed) return;
      received += chunk.byteLength;
      if (received > INGEST.compressedBodyBytes) {
        body.destroy(ingestErrors.bodyTooLarge());
        return;
      }
      // uWS reuses the chunk's memory once this callback returns: copy it.
      if (!body.push(Buffer.from(chunk.slice(0))) && !isLast) {
        paused = true;
        res.pause();
      }
      if (isLast) {
        ended = true;
        body.push(null);
      }
    });

    inFlight++;
    const compressedBytes = request.contentLength === '' ? null : Number(request.contentLength);
    storeBatch(store, { userId, requestedVersion: requestVersion(request.protocol), batchIdHeader: request.batchId, lines: ndjsonLines(body, encoding === 'gzip', compressedBytes)[Symbol.asyncIterator]() })
      .then(
        (counts) => reply(res, state, requestId, 200, JSON.stringify(counts)),
        (error: ApiError) => {
          // A paused socket writes nothing: let the refusal out (uWS then reads the rest of the body, see restIsBounded).
          if (paused && !state.aborted && !state.done) {
            paused = false;
            res.resume();
          }
          replyError(res, state, requestId, error, !ended && !restIsBounded(request.contentLength));
        },
      )
      .catch((error) => log.error('batch reply failed', describeError(error)))
      .finally(() => {
        inFlight--;
        body.destroy();
      });
  }

  function read(res: HttpResponse, state: ResponseState, request: Snapshot, userId: string, requestId: string): void {
    const query = parseQueryString(request.query);
    let answer: Promise<unknown>;
    switch (request.url) {
      case '/v1/capabilities':
        return reply(res, state, requestId, 200, capabilities());
      case '/v1/stats':
        answer = statsAnswer(store.pool, userId);
        break;
      case '/v1/uuids':
        answer = uuidsAnswer(store.pool, userId, query);
        break;
      default:
        answer = digestAnswer(store.pool, userId, query);
    }
    inFlight++;
    answer
      .then(
        (body) => reply(res, state, requestId, 200, JSON.stringify(body)),
        (error) => {
          if (!(error instanceof ApiError)) log.error('receiver read failed', { requestId, path: request.url, ...describeError(error) });
          replyError(res, state, requestId, error instanceof ApiError ? error : errors.internal());
        },
      )
      .finally(() => inFlight--);
  }

  app.any('/*', (res, req) => {
    const request = snapshot(req, trustProxyHeaders);
    const state: RequestState = { aborted: false, done: false };
    res.onAborted(() => {
      state.aborted = true;
      state.onAbort?.();
    });
    const requestId = `${idPrefix}-${(++requestCounter).toString(36)}`;
    const closeEarly = request.contentLength !== '' && !restIsBounded(request.contentLength);
    const head = request.method === 'HEAD';
    if (request.repeatedLength) return hangUp(res, state);
    try {
      const route = ROUTES[request.url];
      if (!route) throw errors.notFound();
      if (request.method !== route.method) throw ingestErrors.methodNotAllowed(route.method);
      if (!route.auth) return reply(res, state, requestId, 200, HEALTHY);
      const userId = authorize(res, request);
      if (request.url === '/v1/batches') return receiveBatch(res, state, request, userId, requestId);
      return read(res, state, request, userId, requestId);
    } catch (error) {
      if (error instanceof ApiError) return replyError(res, state, requestId, error, closeEarly, head);
      log.error('receiver request failed', { requestId, ...describeError(error) });
      return replyError(res, state, requestId, errors.internal(), closeEarly, head);
    }
  });

  return {
    listen: (host, port) => listening.listen(host, port),
    stopListening() {
      shuttingDown = true;
      listening.close();
    },
    get inFlight() {
      return inFlight;
    },
  };
}
