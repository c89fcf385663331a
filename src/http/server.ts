// The HTTP front: one uWS handler for every request. It snapshots what it needs
// from `req` synchronously, registers onAborted before any await, then runs the
// pipeline: route → method → throttle → token → user → parameters → handler,
// and writes the reply corked. Errors become `{"error"}` with their status; an
// unexpected one is a 500 that says nothing of its cause (the log says all).
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
import { sendWhole, writeHead } from './reply.js';
import { Router } from './router.js';
import { UwsStreamSink, type ResponseState } from './stream-sink.js';
import { FailedAuthThrottle } from './throttle.js';
import type { HttpRequest, HttpResponse, Uws, us_listen_socket } from './uws.js';

interface Snapshot {
  method: string;
  path: string;
  query: string;
  authorization: string;
  host: string;
  forwardedFor: string;
  forwardedHost: string;
  forwardedProto: string;
  socketAddress: string;
}

function snapshot(res: HttpResponse, req: HttpRequest, trustProxyHeaders: boolean): Snapshot {
  // Every X-Forwarded-For header line counts, so walk them all — but only when
  // they are trusted: the walk was a quarter of /healthz's profile.
  let forwardedFor = '';
  if (trustProxyHeaders) {
    req.forEach((name, value) => {
      if (name === 'x-forwarded-for') forwardedFor = forwardedFor ? `${forwardedFor},${value}` : value;
    });
  }
  return {
    method: req.getCaseSensitiveMethod(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    authorization: req.getHeader('authorization'),
    host: req.getHeader('host'),
    forwardedFor,
    forwardedHost: req.getHeader('x-forwarded-host'),
    forwardedProto: req.getHeader('x-forwarded-proto'),
    socketAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
}

const JSON_TYPE = 'application/json';
const BASE_HEADERS = { 'X-Content-Type-Options': 'nosniff' };
const NO_STORE = { 'Cache-Control': 'no-store' };

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

  function errorReply(res: HttpResponse, state: ResponseState, error: ApiError, extra: Record<string, string>): void {
    sendWhole(res, state, error.status, { ...BASE_HEADERS, ...extra, ...error.headers, 'Content-Type': JSON_TYPE }, JSON.stringify({ error: error.message }), shuttingDown);
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

  async function runStream(res: HttpResponse, state: ResponseState, reply: StreamReply, extra: Record<string, string>, requestId: string, route: string, onAbort: { sink?: UwsStreamSink }): Promise<void> {
    const sink = new UwsStreamSink(res, state, config.limits.exportIdleLimitMs);
    onAbort.sink = sink;
    streams.add(sink);
    try {
      if (state.aborted) return;
      res.cork(() => {
        writeHead(res, 200, { ...BASE_HEADERS, ...extra, ...reply.headers, 'Content-Type': reply.contentType });
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
    const request = snapshot(res, req, config.trustProxyHeaders);
    const state: ResponseState = { aborted: false, done: false };
    const controller = new AbortController();
    const onAbort: { sink?: UwsStreamSink } = {};
    res.onAborted(() => {
      state.aborted = true;
      controller.abort();
      onAbort.sink?.clientAborted();
    });
    const requestId = `${idPrefix}-${(++requestCounter).toString(36)}`;
    const isV1 = request.path === '/v1' || request.path.startsWith('/v1/');
    const extra: Record<string, string> = isV1 || request.path === '/healthz' ? { ...NO_STORE, 'X-Request-Id': requestId } : { 'X-Request-Id': requestId };
    const match = router.match(request.path);
    if (!match) return errorReply(res, state, errors.notFound(), extra);
    if (request.method !== 'GET') return errorReply(res, state, errors.methodNotAllowed(), extra);

    inFlight++;
    try {
      let userId = config.defaultUserId!;
      const query = parseQueryString(request.query);
      if (match.route.auth) {
        const address = clientAddress(request.socketAddress, request.forwardedFor, config.trustProxyHeaders);
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
      const path = parser.path ? (parser.path(new Map(Object.entries(match.path).map(([k, v]) => [k, [v]]))) as Record<string, string>) : match.path;
      const ctx: RouteContext<unknown> = {
        query: parser.query(query),
        path,
        userId,
        request: { host: request.host, forwardedHost: request.forwardedHost, forwardedProto: request.forwardedProto },
        services,
        requestId,
        signal: controller.signal,
      };
      const reply = await match.route.handler(ctx as RouteContext<never>);
      if (state.aborted) {
        if (reply.kind === 'stream') await reply.cleanup?.();
        return;
      }
      switch (reply.kind) {
        case 'json':
          sendWhole(res, state, reply.status ?? 200, { ...BASE_HEADERS, ...extra, ...reply.headers, 'Content-Type': JSON_TYPE }, JSON.stringify(reply.body), shuttingDown);
          return;
        case 'text':
          sendWhole(res, state, reply.status ?? 200, { ...BASE_HEADERS, ...extra, ...reply.headers, 'Content-Type': reply.contentType }, reply.body, shuttingDown);
          return;
        case 'stream':
          await runStream(res, state, reply, extra, requestId, match.route.path, onAbort);
          return;
      }
    } catch (error) {
      errorReply(res, state, toApiError(error, requestId, match.route.path), extra);
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

