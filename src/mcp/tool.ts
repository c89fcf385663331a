// What a tool is: a name, a description an assistant reads to choose it, a zod
// input schema (the SDK validates every call against it and lists it in
// tools/list), and a handler that reads through the read API's routes
// (ToolContext, route-call.ts) and returns compact JSON or markdown. A
// ToolError becomes a tool result with isError and the message; so does any
// refusal of the route behind (its ApiError message), never a protocol error.
import { z } from 'zod';
import type { ResolvedConfig } from '../services.js';

export type QueryValue = string | number | readonly string[] | undefined;

export interface RouteRequest {
  /** The `user` input (any case); the default user when absent. */
  user?: string;
  query?: Readonly<Record<string, QueryValue>>;
  path?: Readonly<Record<string, string>>;
}

/** What a tool handler reads with. */
export interface ToolContext {
  config: ResolvedConfig;
  /** A JSON route's body. */
  json<T>(operationId: string, request?: RouteRequest): Promise<T>;
  /** A text route's body (the summary's markdown). */
  text(operationId: string, request?: RouteRequest): Promise<string>;
}

/** A refusal the assistant can act on: the message names the problem. */
export class ToolError extends Error {
  override name = 'ToolError';
}

export type ToolOutput = { json: unknown } | { markdown: string };

export interface ToolSpec<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Shape;
  run(args: z.output<z.ZodObject<Shape>>, ctx: ToolContext): Promise<ToolOutput>;
}

/** A tool as the server registers it (the input's type stays inside). */
export interface Tool {
  name: string;
  title: string;
  description: string;
  /** Built once: the SDK would build an object schema from a bare shape on every registration, that is every HTTP request. */
  input: z.ZodObject;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

/**
 * Strict: an argument the tool does not take is refused by name, never
 * dropped. Dropped, `activityType` for `activity_type` or `userId` for `user`
 * would answer for every workout or the default user with nothing to say so.
 */
export function defineTool<Shape extends z.ZodRawShape>(spec: ToolSpec<Shape>): Tool {
  return { ...spec, input: z.strictObject(spec.input) } as unknown as Tool;
}

/** Every tool reads and nothing else: no writes, the same answer for the same data, no world outside healthd. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
