// Tools read through the read API's own route table, in process: a tool turns
// its inputs into the route's raw query (the same strings a URL would carry)
// and runs the route with a RequestContext, so parsing, limits, refusals,
// user selection and isolation are the REST ones — no HTTP hop. The user is
// chosen as the front chooses it (selectUser: the multi-user rule, a per-user
// token's own user). A route's ApiError becomes a ToolError with its message;
// an unknown type's refusal names the tool that lists the types, not the
// catalog's path; a cancelled statement (57014) the 504's message; anything else is logged
// and answers `internal error`, as REST does.
import { randomBytes } from 'node:crypto';
import { canonicalUuid } from '../core/uuid.js';
import { ClientGone, pastTimeLimit, RequestDb } from '../db/pool.js';
import { ApiError, errors, UnknownTypeError, unknownTypeMessage } from '../errors.js';
import { selectUser } from '../http/auth.js';
import { describeError, log } from '../log.js';
import { NO_NUL, type RawQuery } from '../params/query-string.js';
import { wholeText, type Reader, type Reply, type RequestContext, type Route } from '../routes/route.js';
import type { Services } from '../services.js';
import { ToolError, type QueryValue, type RouteRequest, type ToolContext } from './tool.js';
import { listAvailableTypes } from './tools/people.js';

/** The route table as the tools use it: by operationId. */
export class RouteTable {
  private readonly byId: ReadonlyMap<string, Route>;
  private readonly idPrefix = `mcp-${randomBytes(3).toString('hex')}`;
  private counter = 0;

  constructor(
    private readonly services: Services,
    routes: readonly Route[],
  ) {
    this.byId = new Map(routes.map((route) => [route.operationId, route]));
  }

  route(operationId: string): Route {
    const route = this.byId.get(operationId);
    if (!route) throw new Error(`the route table has no ${operationId}`);
    return route;
  }

  /**
   * A context reading as `reader()` at each call (the static token's reader, or a per-user token's);
   * with `gone`, a call sends no query once it answers true (src/db/pool.ts).
   */
  contextFor(reader: () => Reader, gone?: () => boolean): ToolContext {
    const db = gone ? new RequestDb(this.services.pool, gone) : this.services.pool;
    const run = async (operationId: string, request: RouteRequest = {}): Promise<Reply> => {
      const route = this.route(operationId);
      const as = reader();
      const requestId = `${this.idPrefix}-${(++this.counter).toString(36)}`;
      try {
        const requested = request.user === undefined ? undefined : (canonicalUuid(request.user) ?? undefined);
        const ctx: RequestContext = {
          userId: selectUser(as, requested, this.services.config),
          reader: as,
          request: { host: '', forwardedHost: '', forwardedProto: '' },
          services: this.services,
          db,
          requestId,
        };
        return await route.run(ctx, rawQuery(request.query ?? {}), rawQuery(request.path ?? {}));
      } catch (error) {
        throw toolError(error, requestId, route.path);
      }
    };
    return {
      config: this.services.config,
      async json<T>(operationId: string, request?: RouteRequest): Promise<T> {
        const reply = await run(operationId, request);
        if (reply.kind === 'json') return reply.body as T;
        // A route may serve its JSON already serialized (the catalog does).
        if (reply.kind === 'text' && reply.contentType.startsWith('application/json')) return JSON.parse(wholeText(reply.body)) as T;
        throw new Error(`${operationId} did not answer JSON`);
      },
      async text(operationId: string, request?: RouteRequest): Promise<string> {
        const reply = await run(operationId, request);
        if (reply.kind === 'text') return wholeText(reply.body);
        throw new Error(`${operationId} did not answer text`);
      },
    };
  }
}

/** The parameters a URL would carry, its query's or its path's; a value holding NUL is refused as the front refuses it (inputs check it first). */
function rawQuery(values: Readonly<Record<string, QueryValue>>): RawQuery {
  const query: RawQuery = new Map();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const text = typeof value === 'object' ? value.join(',') : String(value);
    if (text.includes('\u0000')) throw new ToolError(`${name} ${NO_NUL}`);
    query.set(name, [text]);
  }
  return query;
}

function toolError(error: unknown, requestId: string, route: string): ToolError {
  if (error instanceof ToolError) return error;
  // The API's text names the catalog's path, which a tool's caller cannot fetch: the tool that lists the types instead.
  if (error instanceof UnknownTypeError) return new ToolError(unknownTypeMessage(error.identifier, error.suggestion, `by ${listAvailableTypes.name}`));
  if (error instanceof ApiError) return new ToolError(error.message);
  // Nobody reads this answer: not a failure to log.
  if (error instanceof ClientGone) return new ToolError(error.message);
  const pastLimit = pastTimeLimit(error);
  if (pastLimit) {
    log.warn(pastLimit, { requestId, route, via: 'mcp' });
    return new ToolError(errors.queryTimeout().message);
  }
  log.error('tool call failed', { requestId, route, via: 'mcp', ...describeError(error) });
  return new ToolError(errors.internal().message);
}
