// One catalogue of the API's errors. Routes throw them by name; the HTTP front
// turns each into its status, headers and the `{"error": "..."}` body.
import { countInWords, EXPORT_RETRY_AFTER_S, EXPORT_SLOTS, MAX_EPOCH_MS, TOKEN_REFRESH_MS, TOKENS_STALE_MS } from './limits.js';

/** Where a client finds the identifiers it may use (named by unknown-type refusals). */
export const CATALOG_PATH = '/v1/catalog/types';

/** The 504's message (api.md Errors), also quoted by the document. */
export const QUERY_TIMEOUT_MESSAGE = 'query took too long; narrow the range';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * An identifier refused as unknown, and where the caller finds the stored
 * ones: `listed` completes "the types stored for a user are listed …" — at
 * the catalog's path for the API, by a tool for MCP (src/mcp/route-call.ts).
 */
export const unknownTypeMessage = (identifier: string, suggestion: string | null, listed: string): string =>
  `unknown type: ${identifier}${suggestion ? `; did you mean ${suggestion}?` : ''} (the types stored for a user are listed ${listed})`;

/** A 400 for an unknown type identifier, which keeps what it refused so that MCP can word it for a tool's caller. */
export class UnknownTypeError extends ApiError {
  constructor(
    readonly identifier: string,
    readonly suggestion: string | null,
  ) {
    super(400, unknownTypeMessage(identifier, suggestion, `at ${CATALOG_PATH}`));
  }
}

// Failed authentications are the cheapest requests an attacker can send many
// of; building (and stack-tracing) a fresh error for each showed in profiles.
const UNAUTHORIZED = new ApiError(401, 'missing or invalid bearer token', { 'WWW-Authenticate': 'Bearer' });

/** A per-user read or device token met while the issued tokens have not been re-read for TOKENS_STALE_MS. */
export const TOKENS_UNCHECKED = 'issued tokens could not be checked lately; retry';
/** When that answer comes, for the documents. */
export const TOKENS_UNCHECKED_WHEN = `a request with an issued (per-user) read token while the issued tokens have not been re-read for ${TOKENS_STALE_MS / 1000} s (the database away), since it may have been revoked meanwhile`;

export const errors = {
  badRequest: (message: string) => new ApiError(400, message),
  /** A malformed or out-of-bounds instant: names the unit, since seconds are the usual mistake. */
  badTimestamp: (name: string) => new ApiError(400, `${name} must be a timestamp in epoch milliseconds: an integer from 0 to ${MAX_EPOCH_MS}`),
  /** A range refused for its bounds (end not after start, over its cap). */
  badRange: (problem: string) => new ApiError(400, `${problem} (start and end are epoch milliseconds)`),
  unknownType: (identifier: string, suggestion: string | null) => new UnknownTypeError(identifier, suggestion),
  unauthorized: () => UNAUTHORIZED,
  multiUserDisabled: () => new ApiError(403, 'multi-user reads are disabled'),
  otherUserForbidden: () => new ApiError(403, 'this token reads only its own user'),
  notFound: (what = 'not found') => new ApiError(404, what),
  workoutNotFound: () => new ApiError(404, 'workout not found'),
  profileNotFound: () => new ApiError(404, 'profile not found'),
  methodNotAllowed: () => new ApiError(405, 'method not allowed; this API answers GET only', { Allow: 'GET' }),
  /** The MCP listener's endpoint (src/mcp/http.ts): stateless Streamable HTTP, so POST only. */
  mcpPostOnly: (path: string) => new ApiError(405, `method not allowed; ${path} answers POST`, { Allow: 'POST' }),
  bodyTooLarge: (limitBytes: number) => new ApiError(413, `request body over ${limitBytes} bytes`),
  tooManyFailedAuth: (retryAfterSeconds: number) =>
    new ApiError(429, 'too many failed authentications; retry later', { 'Retry-After': String(retryAfterSeconds) }),
  internal: () => new ApiError(500, 'internal error'),
  /** The MCP listener and a browser page of an origin not in SERVICE_CORS_ORIGINS (DNS rebinding). */
  originRefused: () => new ApiError(403, 'a web page of this Origin may not call the MCP server (only origins listed in SERVICE_CORS_ORIGINS may)'),
  exportsBusy: () =>
    new ApiError(503, `${countInWords(EXPORT_SLOTS)} export${EXPORT_SLOTS === 1 ? ' is' : 's are'} already running; retry later`, {
      'Retry-After': String(EXPORT_RETRY_AFTER_S),
    }),
  queryTimeout: () => new ApiError(504, QUERY_TIMEOUT_MESSAGE),
  /** A request on a kept-alive connection once the database connections are closing: another process (or this one restarted) will answer. */
  shuttingDown: () => new ApiError(503, 'the server is shutting down; retry', { 'Retry-After': '1' }),
  tokensUnchecked: () => new ApiError(503, TOKENS_UNCHECKED, { 'Retry-After': String(TOKEN_REFRESH_MS / 1000) }),
} as const;

/** SQLSTATE of a statement cancelled by statement_timeout. */
export const QUERY_CANCELED = '57014';
