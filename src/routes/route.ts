// What a route is: its documentation (operationId, parameters, responses), a
// parameter schema, and a handler that returns a Reply. Routes never touch the
// HTTP response: the front writes replies, including streamed ones.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Services } from '../services.js';
import type { StreamSink } from '../http/stream-sink.js';

export interface RequestInfo {
  host: string;
  forwardedHost: string;
  forwardedProto: string;
}

export interface RouteContext<Q> {
  query: Q;
  path: Record<string, string>;
  /** The selected user (lowercase uuid); set on /v1 routes. */
  userId: string;
  request: RequestInfo;
  services: Services;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
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
  body: string;
  headers?: Record<string, string>;
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
  contentType?: string;
  schema?: TSchema;
  headers?: Record<string, string>;
}

export interface RouteDef<P extends TObject = TObject> {
  operationId: string;
  path: string;
  auth: boolean;
  summary: string;
  description: string;
  params: P;
  pathParams?: TObject;
  /** Successful and route-specific responses; the common errors are added by the front. */
  responses: ResponseDoc[];
  handler(ctx: RouteContext<Static<P>>): Promise<Reply>;
}

export function defineRoute<P extends TObject>(route: RouteDef<P>): RouteDef<P> {
  return route;
}

export const json = (body: unknown, status = 200, headers?: Record<string, string>): JsonReply => ({ kind: 'json', status, body, headers });
