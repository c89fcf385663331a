// What a route is: its documentation (operationId, parameters, responses,
// description), the facts the front and the document act on (auth, no-store,
// which time limit bounds it), parameter schemas, and a handler that returns a
// Reply. defineRoute compiles the parameter parsers once and keeps each
// handler's parameter types (Static<> of its schemas) inside; the table holds
// Routes, whose `run` parses then handles. Routes never touch the HTTP
// response: the front writes replies, including streamed ones.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { StreamSink } from '../export/sink.js';
import type { Tunables } from '../limits.js';
import { compileParamParser } from '../params/parse.js';
import type { Params } from '../params/query-string.js';
import type { Services } from '../services.js';
import type { Db } from '../db/pool.js';

export interface RequestInfo {
  host: string;
  forwardedHost: string;
  forwardedProto: string;
}

/** Who is reading: the user a per-user read token is bound to, or null for the static token. */
export interface Reader {
  boundUser: string | null;
  /** Whether the token it came with is still honoured (an issued token, until revoked); absent: always (SERVICE_API_TOKEN). */
  honoured?: () => boolean;
}

/** What every handler gets besides its parameters. */
export interface RequestContext {
  /** The selected user (lowercase uuid); the default user on routes without auth. */
  userId: string;
  reader: Reader;
  request: RequestInfo;
  services: Services;
  /** The read pool as this request sees it: the HTTP front's skips queries once the client has gone (src/db/pool.ts). */
  db: Db;
  requestId: string;
}

export interface RouteContext<Q, P> extends RequestContext {
  query: Q;
  path: P;
}

export interface JsonReply {
  kind: 'json';
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface TextReply {
  kind: 'text';
  status?: number;
  contentType: string;
  /** Text, its UTF-8 (a body many requests share, encoded once), or bytes written when sent. */
  body: string | Uint8Array | BodyBytes;
  headers?: Record<string, string>;
}

/**
 * A body written as bytes when it is sent, into a buffer the HTTP front keeps
 * (src/http/reply.ts says why): how a body that runs past 128 KB comes.
 */
export interface BodyBytes {
  /** The body's length in bytes at most. */
  readonly maxBytes: number;
  /**
   * Writes the body from the start of `out` (at least maxBytes long) and
   * answers its length. Once only: what it is written from may be handed
   * back for reuse after.
   */
  writeInto(out: Buffer): number;
}

/** A text reply's body as one string (for callers that need the text, not the bytes: MCP). */
export function wholeText(body: string | Uint8Array | BodyBytes): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const out = Buffer.allocUnsafe(body.maxBytes);
  return out.toString('utf8', 0, body.writeInto(out));
}

export interface StreamReply {
  kind: 'stream';
  contentType: string;
  headers?: Record<string, string>;
  /** Writes the body. Throwing (or rejecting) after the first byte aborts the connection. */
  write(sink: StreamSink): Promise<void>;
  /** Runs once however the stream ends (done, client gone, error, shutdown). */
  cleanup?(): Promise<void> | void;
}

export type Reply = JsonReply | TextReply | StreamReply;

export interface ResponseDoc {
  status: number;
  description: string;
  /** Defaults to application/json. */
  contentType?: string;
  schema?: TSchema;
  headers?: Record<string, string>;
  /** A trimmed example body: a JSON value, or the text of another media type. Every 2xx response has one. */
  example?: unknown;
}

/** A request that works, as a client sends it: path parameters and query values as they appear in the URL. */
export interface RequestExample {
  path?: Record<string, string>;
  query?: Record<string, string>;
}

/** A description that names limits reads the configured ones. */
export type Description = string | ((limits: Tunables) => string);

interface RouteFacts {
  operationId: string;
  path: string;
  /** Needs the bearer token (every /v1 route). */
  auth: boolean;
  summary: string;
  description: Description;
  /** Successful and route-specific responses; the common errors are added by the document builder. */
  responses: ResponseDoc[];
  /** The request of the operation's example (/openapi.json, /docs). */
  example: RequestExample;
}

export interface RouteSpec<Q extends TObject, P extends TObject> extends RouteFacts {
  /** Cache-Control: no-store on every reply; default: the route needs auth. */
  noStore?: boolean;
  /** The export streams past the query time limit, bounded by its own limits instead. */
  streams?: boolean;
  /** Browsers on the origins of SERVICE_CORS_ORIGINS may read it (default); false for same-origin pages (/docs, /app). */
  crossOrigin?: boolean;
  /** The handler reads `request` (Host, X-Forwarded-Host and -Proto); the front reads those headers for such routes only. Default false. */
  readsHost?: boolean;
  params: Q;
  pathParams?: P;
  handler(ctx: RouteContext<Static<Q>, Static<P>>): Promise<Reply>;
  /**
   * The handler's answer when it is at hand without waiting and without the
   * request (a cached status): the front writes it at once, skipping the
   * asynchronous path. Undefined: ask the handler.
   */
  immediate?(services: Services): JsonReply | undefined;
}

/** A route as the table holds it. */
export interface Route extends RouteFacts {
  noStore: boolean;
  streams: boolean;
  crossOrigin: boolean;
  readsHost: boolean;
  params: TObject;
  pathParams?: TObject;
  /** Parses the parameters, the query's and the path's (a 400 names the first problem), then runs the handler. */
  run(ctx: RequestContext, query: Params, path: Params): Promise<Reply>;
  immediate?(services: Services): JsonReply | undefined;
}

const NO_PATH = Object.freeze({});

export function defineRoute<Q extends TObject, P extends TObject = TObject<{}>>(spec: RouteSpec<Q, P>): Route {
  const { handler, noStore, streams, crossOrigin, readsHost, ...facts } = spec;
  const parseQuery = compileParamParser(spec.params);
  const parsePath = spec.pathParams ? compileParamParser(spec.pathParams) : null;
  return {
    ...facts,
    noStore: noStore ?? spec.auth,
    streams: streams ?? false,
    crossOrigin: crossOrigin ?? true,
    readsHost: readsHost ?? false,
    run(ctx, query, path) {
      const pathParams = parsePath ? parsePath(path) : (NO_PATH as Static<P>);
      // Each member named, not `{ ...ctx, … }`: a spread's copy missed its inline cache on every request (bench/RESULTS.md, 2026-12-07).
      const { userId, reader, request, services, db, requestId } = ctx;
      return handler({ userId, reader, request, services, db, requestId, query: parseQuery(query), path: pathParams });
    },
  };
}

export const json = (body: unknown, status = 200, headers?: Record<string, string>): JsonReply => ({ kind: 'json', status, body, headers });

/** A 200 whose body is JSON already made (its text or its UTF-8). */
export const jsonText = (body: string | Uint8Array): TextReply => ({ kind: 'text', contentType: 'application/json', body });

/** The path and query of a route's example request, percent-encoded where needed. */
export function exampleUrl(route: Pick<Route, 'path' | 'example'>): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(route.example.path?.[name] ?? `{${name}}`));
  const query = Object.entries(route.example.query ?? {})
    .map(([name, value]) => `${name}=${encodeURIComponent(value).replace(/%2C/g, ',')}`)
    .join('&');
  return query ? `${path}?${query}` : path;
}

/** The description with the configured limits in it. */
export const describe = (description: Description, limits: Tunables): string => (typeof description === 'string' ? description : description(limits));
