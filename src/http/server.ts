// The read API's HTTP front: one uWS handler for every request. It snapshots
// what it needs from `req` synchronously, registers onAborted before any
// await, then runs the pipeline in the order the spec's Authentication rules
// need — route → method → throttle → token → user → parameters → handler — so
// a client without a token learns nothing from a malformed query (401, or 429
// while throttled, before any 400). It writes the reply corked. Errors become
// `{"error"}` with their status; an unexpected one is a 500 that says nothing
// of its cause (the log says all).
//
// The fixed cost per request is what /healthz, a 401 and a cached answer pay
// against a hello-world, so work only some requests need is done only for
// them: the client address when the throttle keys on it, the Host headers
// for the route that reads them, header sets and the 401 body built once.
import { randomBytes } from 'node:crypto';
import { ApiError, errors } from '../errors.js';
import { ClientGone, pastTimeLimit, RequestDb } from '../db/pool.js';
import { describeError, log } from '../log.js';
import { compileParamParser } from '../params/parse.js';
import { parseQueryString } from '../params/query-string.js';
import type { JsonReply, Reader, RequestContext, RequestInfo, Route, StreamReply } from '../routes/route.js';
import { UserParams } from '../schemas/common.js';
import type { Services } from '../services.js';
import { selectUser, staticReadToken, uwsClientAddress, type ReadAuthenticator } from './auth.js';
import { CorsPolicy } from './cors.js';
import { contentLengthRepeated, hangUp, headerLines, sendWhole, writeHead, type HeaderLines } from './reply.js';
import { Router } from './router.js';
import { UwsStreamSink, type ResponseState } from './stream-sink.js';
import { FailedAuthThrottle } from './throttle.js';
import { listener, type HttpRequest, type HttpResponse, type Uws } from './uws.js';

interface Snapshot {
  method: string;
  query: string;
  /** Read for auth routes only. */
  authorization: string;
  /** Read for routes that read it only (readsHost); empty otherwise. */
  info: RequestInfo;
  /** Read only with SERVICE_CORS_ORIGINS set, as is preflightMethod (Access-Control-Request-Method). */
  origin: string;
  preflightMethod: string;
  /** Content-Length given more than once (contentLengthRepeated). */
  repeatedLength: boolean;
}

const NO_INFO: RequestInfo = Object.freeze({ host: '', forwardedHost: '', forwardedProto: '' });

/**
 * What the pipeline reads from `req` past its first await (uWS invalidates
 * `req` once the handler returns or awaits), each header only for the
 * requests that use it: a header read is a call into uWS and a new string.
 */
function snapshot(req: HttpRequest, route: Route | undefined, cors: boolean): Snapshot {
  return {
    method: req.getCaseSensitiveMethod(),
    query: req.getQuery() ?? '',
    authorization: route?.auth ? req.getHeader('authorization') : '',
    info: route?.readsHost
      ? { host: req.getHeader('host'), forwardedHost: req.getHeader('x-forwarded-host'), forwardedProto: req.getHeader('x-forwarded-proto') }
      : NO_INFO,
    origin: cors ? req.getHeader('origin') : '',
    preflightMethod: cors ? req.getHeader('access-control-request-method') : '',
    repeatedLength: contentLengthRepeated(req),
  };
}

/**
 * Every X-Forwarded-For header line, joined: all of them count, so they are
 * walked — only when the throttle keys on them, which is rare (a failed or
 * throttled client): the walk was a quarter of /healthz's profile.
 */
function forwardedFor(req: HttpRequest): string {
  let joined = '';
  req.forEach((name, value) => {
    if (name === 'x-forwarded-for') joined = joined ? `${joined},${value}` : value;
  });
  return joined;
}

const JSON_TYPE = 'application/json';
/** Header sets of every reply but X-Request-Id and the reply's own. */
const PLAIN = { 'X-Content-Type-Options': 'nosniff' };
const NO_STORE = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
const PLAIN_HEADERS = headerLines(PLAIN);
const NO_STORE_HEADERS = headerLines(NO_STORE);

// Failed authentications are the cheapest requests to send many of: their
// body is built once (the error object is shared already).
const UNAUTHORIZED = errors.unauthorized();
const UNAUTHORIZED_BODY = JSON.stringify({ error: UNAUTHORIZED.message });
const errorBody = (error: ApiError): string => (error === UNAUTHORIZED ? UNAUTHORIZED_BODY : JSON.stringify({ error: error.message }));

const parseUserParam = compileParamParser(UserParams);
const STATIC_READER: Reader = Object.freeze({ boundUser: null });

export interface HttpServer {
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; running requests go on, and kept-alive connections' next requests are still served (each then closed). */
  stopListening(): void;
  /** Once the pools are about to close: any further request is a 503 (its connection closed) rather than a query on an ended pool. */
  refuseRequests(): void;
  /** Requests (JSON and streams) still running. */
  readonly inFlight: number;
  readonly throttle: FailedAuthThrottle;
  /** The bearer check this front applies (the MCP listener applies the same). */
  readonly authenticate: ReadAuthenticator;
}

export interface HttpServerOptions {
  /** Who a bearer token names; the static SERVICE_API_TOKEN when not given. */
  authenticate?: ReadAuthenticator;
}

export function createHttpServer(uws: Uws, services: Services, routes: readonly Route[], options: HttpServerOptions = {}): HttpServer {
  const { config } = services;
  const router = new Router(routes);
  const authenticate = options.authenticate ?? staticReadToken(config.apiToken);
  const throttle = new FailedAuthThrottle();
  const cors = new CorsPolicy(config.corsOrigins, { plain: PLAIN, noStore: NO_STORE });
  const idPrefix = randomBytes(3).toString('hex');
  let requestCounter = 0;
  let inFlight = 0;
  let shuttingDown = false;
  let refusing = false;

  const app = uws.App();
  const listening = listener(uws, app, config.sharePort);

  /** An error's reply; without its body for HEAD (a body after a HEAD answer would read as the next response). */
  function errorReply(res: HttpResponse, state: ResponseState, error: ApiError, fixed: HeaderLines, requestId: string, head = false): void {
    sendWhole(res, state, error.status, { fixed, requestId, own: error.headers, contentType: JSON_TYPE }, head ? '' : errorBody(error), shuttingDown);
  }

  function toApiError(error: unknown, requestId: string, route: string): ApiError {
    if (error instanceof ApiError) return error;
    const pastLimit = pastTimeLimit(error);
    if (pastLimit) {
      log.warn(pastLimit, { requestId, route });
      return errors.queryTimeout();
    }
    log.error('request failed', { requestId, route, ...describeError(error) });
    return errors.internal();
  }

  /** Tells a streamed body that its client went away (set once the stream starts). */
  interface ClientGone {
    sink?: UwsStreamSink;
  }

  async function runStream(res: HttpResponse, state: ResponseState, reply: StreamReply, fixed: HeaderLines, requestId: string, route: string, gone: ClientGone): Promise<void> {
    const sink = new UwsStreamSink(res, state, () => writeHead(res, 200, { fixed, requestId, own: reply.headers, contentType: reply.contentType }));
    gone.sink = sink;
    try {
      if (state.aborted) return;
      await reply.write(sink);
      sink.end();
    } catch (error) {
      if (!sink.closed && !sink.started) {
        // Nothing sent yet (a JSONL file fails before its first line): the answer is the error itself.
        errorReply(res, state, toApiError(error, requestId, route), fixed, requestId);
      } else {
        if (!sink.closed) log.error('stream failed after it started', { requestId, route, ...describeError(error) });
        sink.abort();
      }
    } finally {
      try {
        await reply.cleanup?.();
      } catch (error) {
        log.error('stream cleanup failed', { requestId, route, ...describeError(error) });
      }
    }
  }

  /**
   * Writes a route's immediate answer (routes/route.ts) at once, inside uWS's
   * callback: no promise, no abort handler, no request context. False when
   * the route has none at hand (the request then takes the usual path).
   */
  function answeredAtOnce(res: HttpResponse, req: HttpRequest, route: Route): boolean {
    if (req.getCaseSensitiveMethod() !== 'GET' || contentLengthRepeated(req)) return false;
    const reply = route.immediate?.(services);
    if (reply === undefined) return false;
    const fixed = fixedHeaders(route, cors.enabled ? req.getHeader('origin') : '');
    sendJson(res, { aborted: false, done: false }, reply, fixed, nextRequestId());
    return true;
  }

  const nextRequestId = () => `${idPrefix}-${(++requestCounter).toString(36)}`;

  /** The header lines every reply of `route` (undefined: no route serves the path) carries. */
  function fixedHeaders(route: Route | undefined, origin: string): HeaderLines {
    // A path no route serves gets no-store too: nothing about it is worth caching.
    const noStore = route?.noStore !== false;
    // An unknown path is readable cross-origin too: a dashboard's typo should read as the 404 it is.
    const crossOrigin = cors.enabled && route?.crossOrigin !== false;
    return crossOrigin ? cors.replyHeaders(origin, noStore) : noStore ? NO_STORE_HEADERS : PLAIN_HEADERS;
  }

  function sendJson(res: HttpResponse, state: ResponseState, reply: JsonReply, fixed: HeaderLines, requestId: string): void {
    sendWhole(res, state, reply.status ?? 200, { fixed, requestId, own: reply.headers, contentType: JSON_TYPE }, JSON.stringify(reply.body), shuttingDown);
  }

  async function handle(res: HttpResponse, req: HttpRequest, match: ReturnType<Router['match']>): Promise<void> {
    const route = match?.route;
    const request = snapshot(req, route, cors.enabled);
    const state: ResponseState = { aborted: false, done: false };
    const gone: ClientGone = {};
    res.onAborted(() => {
      state.aborted = true;
      gone.sink?.clientAborted();
    });
    const requestId = nextRequestId();
    const fixed = fixedHeaders(route, request.origin);
    const head = request.method === 'HEAD';
    if (request.repeatedLength) return hangUp(res, state);
    if (!match || !route) return errorReply(res, state, errors.notFound(), fixed, requestId, head);
    if (request.method !== 'GET') {
      const preflight = cors.enabled && route.crossOrigin && request.method === 'OPTIONS' ? cors.preflightHeaders(request.origin, request.preflightMethod) : null;
      if (preflight) return sendWhole(res, state, 204, { fixed: preflight, requestId }, '', shuttingDown);
      return errorReply(res, state, errors.methodNotAllowed(), fixed, requestId, head);
    }

    if (refusing) return errorReply(res, state, errors.shuttingDown(), fixed, requestId);
    inFlight++;
    try {
      let reader = STATIC_READER;
      if (route.auth) {
        // Reads `req`, so it is called only here, before the first await; once at most.
        let known: string | undefined;
        const address = () => (known ??= uwsClientAddress(res, config.trustProxyHeaders ? forwardedFor(req) : '', config.trustProxyHeaders));
        const wait = throttle.retryAfterFor(address);
        if (wait > 0) throw errors.tooManyFailedAuth(wait);
        const authenticated = authenticate(request.authorization);
        if (authenticated === null) {
          throttle.recordFailure(address(), Date.now());
          throw errors.unauthorized();
        }
        reader = authenticated;
      }
      const query = parseQueryString(request.query);
      const userId = route.auth ? selectUser(reader, parseUserParam(query).user, config) : config.defaultUserId;
      const ctx: RequestContext = {
        userId,
        reader,
        request: request.info,
        services,
        db: new RequestDb(services.pool, () => state.aborted),
        requestId,
      };
      const reply = await route.run(ctx, query, match.path);
      if (state.aborted) {
        if (reply.kind === 'stream') await reply.cleanup?.();
        return;
      }
      switch (reply.kind) {
        case 'json':
          sendJson(res, state, reply, fixed, requestId);
          return;
        case 'text':
          sendWhole(res, state, reply.status ?? 200, { fixed, requestId, own: reply.headers, contentType: reply.contentType }, reply.body, shuttingDown);
          return;
        case 'stream':
          await runStream(res, state, reply, fixed, requestId, route.path, gone);
          return;
      }
    } catch (error) {
      if (error instanceof ClientGone) return;
      errorReply(res, state, toApiError(error, requestId, route.path), fixed, requestId);
    } finally {
      inFlight--;
    }
  }

  app.any('/*', (res, req) => {
    const match = router.match(req.getUrl());
    if (match?.route.immediate && answeredAtOnce(res, req, match.route)) return;
    handle(res, req, match).catch((error) => log.error('unhandled request failure', describeError(error)));
  });

  return {
    listen: (host, port) => listening.listen(host, port),
    stopListening() {
      shuttingDown = true;
      listening.close();
    },
    refuseRequests() {
      shuttingDown = true;
      refusing = true;
    },
    get inFlight() {
      return inFlight;
    },
    throttle,
    authenticate,
  };
}
