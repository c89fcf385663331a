// The HTTP front: one uWS handler for every request. It snapshots what it needs
// from `req` synchronously, registers onAborted before any await, then runs the
// pipeline: route → method → throttle → token → user → parameters → handler,
// and writes the reply corked. Errors become `{"error"}` with their status; an
// unexpected one is a 500 that says nothing of its cause (the log says all).
// The fixed cost per request is what /healthz, a 401 and a cached answer pay
// against a hello-world, so work only some requests need is done only for
// them: the client address for auth routes, the abort signal when a route asks
// for it, header sets and the 401 body built once.
import { randomBytes } from 'node:crypto';
import { Type, type TObject } from '@sinclair/typebox';
import { Uuid } from '../schemas/common.js';
import { ApiError, errors, QUERY_CANCELED } from '../errors.js';
import { describeError, log } from '../log.js';
import type { RouteDef, RouteContext, StreamReply } from '../routes/route.js';
import { compileParamParser, type ParamParser } from '../schemas/params.js';
import type { Services } from '../services.js';
import { clientAddress, makeTokenCheck } from './auth.js';
import { parseQueryString } from './query-string.js';
import { headerLines, sendWhole, writeHead, type HeaderLines } from './reply.js';
import { Router } from './router.js';
import { UwsStreamSink, type ResponseState } from './stream-sink.js';
import { FailedAuthThrottle } from './throttle.js';
import type { HttpRequest, HttpResponse, Uws, us_listen_socket } from './uws.js';

interface Snapshot {
  method: string;
  path: string;
  query: string;
  /** Read for auth routes only, as is forwardedFor. */
  authorization: string;
  forwardedFor: string;
  host: string;
  forwardedHost: string;
  forwardedProto: string;
}

/** Everything the pipeline reads from `req`, which uWS invalidates once the handler returns or awaits. */
function snapshot(req: HttpRequest, path: string, auth: boolean, trustProxyHeaders: boolean): Snapshot {
  // Every X-Forwarded-For header line counts, so walk them all — but only when
  // the throttle will key on them: the walk was a quarter of /healthz's profile.
  let forwardedFor = '';
  if (auth && trustProxyHeaders) {
    req.forEach((name, value) => {
      if (name === 'x-forwarded-for') forwardedFor = forwardedFor ? `${forwardedFor},${value}` : value;
    });
  }
  return {
    method: req.getCaseSensitiveMethod(),
    path,
    query: req.getQuery() ?? '',
    authorization: auth ? req.getHeader('authorization') : '',
    forwardedFor,
    host: req.getHeader('host'),
    forwardedHost: req.getHeader('x-forwarded-host'),
    forwardedProto: req.getHeader('x-forwarded-proto'),
  };
}

/**
 * The throttle's key: the trusted forwarded address, else the socket's. The
 * socket address is a copy out of uWS, so it is read only then; `res` is valid
 * here (called before the first await, so the client cannot have gone yet).
 */
function throttleKey(res: HttpResponse, forwardedFor: string, trustProxyHeaders: boolean): string {
  return clientAddress('', forwardedFor, trustProxyHeaders) || Buffer.from(res.getRemoteAddressAsText()).toString();
}

const JSON_TYPE = 'application/json';
/** Header sets of every reply but X-Request-Id and the reply's own; no-store on /v1 and /healthz. */
const PLAIN_HEADERS = headerLines({ 'X-Content-Type-Options': 'nosniff' });
const NO_STORE_HEADERS = headerLines({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });

// Failed authentications are the cheapest requests to send many of: their
// body is built once (the error object is shared already).
const UNAUTHORIZED = errors.unauthorized();
const UNAUTHORIZED_BODY = JSON.stringify({ error: UNAUTHORIZED.message });
const errorBody = (error: ApiError): string => (error === UNAUTHORIZED ? UNAUTHORIZED_BODY : JSON.stringify({ error: error.message }));

const UserParam = compileParamParser(Type.Object({ user: Type.Optional(Uuid()) }));

export interface HttpServer {
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; running requests go on. */
  stopListening(): void;
  /** Requests (JSON and streams) still running. */
  readonly inFlight: number;
  /** Drops running streams (shutdown grace is over). */
  abortStreams(): void;
  readonly activeStreams: number;
  readonly throttle: FailedAuthThrottle;
}

export function createHttpServer(uws: Uws, services: Services, routes: readonly RouteDef[]): HttpServer {
  const { config } = services;
  const router = new Router(routes);
  const parsers = new Map<RouteDef, { query: ParamParser<TObject>; path?: ParamParser<TObject> }>();
  for (const route of routes) {
    parsers.set(route, {
      query: compileParamParser(route.params),
      path: route.pathParams ? compileParamParser(route.pathParams) : undefined,
    });
  }
  const tokenMatches = makeTokenCheck(config.apiToken!);
  const throttle = new FailedAuthThrottle();
  const streams = new Set<UwsStreamSink>();
  const idPrefix = randomBytes(3).toString('hex');
  let requestCounter = 0;
  let inFlight = 0;
  let shuttingDown = false;
  let listenSocket: us_listen_socket | null = null;

  const app = uws.App();

  function errorReply(res: HttpResponse, state: ResponseState, error: ApiError, fixed: HeaderLines, requestId: string): void {
    sendWhole(res, state, error.status, { fixed, requestId, own: error.headers, contentType: JSON_TYPE }, errorBody(error), shuttingDown);
  }

  function toApiError(error: unknown, requestId: string, route: string): ApiError {
    if (error instanceof ApiError) return error;
    if ((error as { code?: unknown })?.code === QUERY_CANCELED) {
      log.warn('query cancelled by statement timeout', { requestId, route });
      return errors.queryTimeout();
    }
    log.error('request failed', { requestId, route, ...describeError(error) });
    return errors.internal();
  }

  async function runStream(res: HttpResponse, state: ResponseState, reply: StreamReply, fixed: HeaderLines, requestId: string, route: string, onAbort: { sink?: UwsStreamSink }): Promise<void> {
    const sink = new UwsStreamSink(res, state, config.limits.exportIdleLimitMs);
    onAbort.sink = sink;
    streams.add(sink);
    try {
      if (state.aborted) return;
      res.cork(() => {
        writeHead(res, 200, { fixed, requestId, own: reply.headers, contentType: reply.contentType });
      });
      await reply.write(sink);
      sink.end();
    } catch (error) {
      if (!sink.closed) log.error('stream failed after it started', { requestId, route, ...describeError(error) });
      sink.abort();
    } finally {
      streams.delete(sink);
      try {
        await reply.cleanup?.();
      } catch (error) {
        log.error('stream cleanup failed', { requestId, route, ...describeError(error) });
      }
    }
  }

  async function handle(res: HttpResponse, req: HttpRequest): Promise<void> {
    const path = req.getUrl();
    const match = router.match(path);
    const auth = match?.route.auth === true;
    const request = snapshot(req, path, auth, config.trustProxyHeaders);
    const state: ResponseState = { aborted: false, done: false };
    // Made when a route first reads ctx.signal (most never do); aborted at once if the client is gone by then.
    let controller: AbortController | undefined;
    const onAbort: { sink?: UwsStreamSink } = {};
    res.onAborted(() => {
      state.aborted = true;
      controller?.abort();
      onAbort.sink?.clientAborted();
    });
    const requestId = `${idPrefix}-${(++requestCounter).toString(36)}`;
    const fixed = path === '/healthz' || path === '/v1' || path.startsWith('/v1/') ? NO_STORE_HEADERS : PLAIN_HEADERS;
    if (!match) return errorReply(res, state, errors.notFound(), fixed, requestId);
    if (request.method !== 'GET') return errorReply(res, state, errors.methodNotAllowed(), fixed, requestId);

    inFlight++;
    try {
      let userId = config.defaultUserId!;
      const query = parseQueryString(request.query);
      if (auth) {
        const address = throttleKey(res, request.forwardedFor, config.trustProxyHeaders);
        const wait = throttle.retryAfterSeconds(address, Date.now());
        if (wait > 0) throw errors.tooManyFailedAuth(wait);
        if (!tokenMatches(request.authorization)) {
          throttle.recordFailure(address, Date.now());
          throw errors.unauthorized();
        }
        const selected = UserParam(query).user as string | undefined;
        if (selected !== undefined && selected !== userId) {
          if (!config.multiUser) throw errors.multiUserDisabled();
          userId = selected;
        }
      }
      const parser = parsers.get(match.route)!;
      const pathParams = parser.path ? (parser.path(new Map(Object.entries(match.path).map(([k, v]) => [k, [v]]))) as Record<string, string>) : match.path;
      const ctx: RouteContext<unknown> = {
        query: parser.query(query),
        path: pathParams,
        userId,
        request: { host: request.host, forwardedHost: request.forwardedHost, forwardedProto: request.forwardedProto },
        services,
        requestId,
        get signal() {
          if (!controller) {
            controller = new AbortController();
            if (state.aborted) controller.abort();
          }
          return controller.signal;
        },
      };
      const reply = await match.route.handler(ctx as RouteContext<never>);
      if (state.aborted) {
        if (reply.kind === 'stream') await reply.cleanup?.();
        return;
      }
      switch (reply.kind) {
        case 'json':
          sendWhole(res, state, reply.status ?? 200, { fixed, requestId, own: reply.headers, contentType: JSON_TYPE }, JSON.stringify(reply.body), shuttingDown);
          return;
        case 'text':
          sendWhole(res, state, reply.status ?? 200, { fixed, requestId, own: reply.headers, contentType: reply.contentType }, reply.body, shuttingDown);
          return;
        case 'stream':
          await runStream(res, state, reply, fixed, requestId, match.route.path, onAbort);
          return;
      }
    } catch (error) {
      errorReply(res, state, toApiError(error, requestId, match.route.path), fixed, requestId);
    } finally {
      inFlight--;
    }
  }

  app.any('/*', (res, req) => {
    handle(res, req).catch((error) => log.error('unhandled request failure', describeError(error)));
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`could not listen on ${host}:${port}`));
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket as never));
        });
      });
    },
    stopListening() {
      shuttingDown = true;
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = null;
    },
    get inFlight() {
      return inFlight;
    },
    abortStreams() {
      for (const sink of streams) sink.abort();
    },
    get activeStreams() {
      return streams.size;
    },
    throttle,
  };
}

