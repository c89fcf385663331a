// The receiver's refusals, each once: status and message (FACTS.md §9.2). A
// 4xx tells the app the page is malformed and it stops re-sending it until
// the next run, so only genuinely bad input gets one; anything transient is a
// 5xx, which it retries. The unsupported-version answer has a fixed body.
import { ApiError } from '../errors.js';
import { INGEST } from '../limits.js';

const MIB = 1024 * 1024;

/** An ApiError whose body is not `{"error": message}`. */
export class FixedBodyError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly body: string,
  ) {
    super(status, message);
  }
}

export const SUPPORTED_VERSIONS = [1] as const;

const UNSUPPORTED_VERSION = new FixedBodyError(
  400,
  'unsupported protocol version',
  JSON.stringify({ error: 'unsupported protocol version', supportedVersions: SUPPORTED_VERSIONS }),
);

export const ingestErrors = {
  unsupportedVersion: () => UNSUPPORTED_VERSION,
  badLine: (line: number, problem: string) => new ApiError(400, `line ${line}: ${problem}`),
  badRequest: (message: string) => new ApiError(400, message),
  badGzip: () => new ApiError(400, 'body is not valid gzip (Content-Encoding: gzip)'),
  badEncoding: (value: string) => new ApiError(400, `Content-Encoding ${JSON.stringify(value.slice(0, 40))} is not supported; send gzip or identity`),
  badUserId: () => new ApiError(400, 'X-User-ID must be a uuid'),
  userIdTwice: () => new ApiError(400, 'X-User-ID must be given once'),
  badWakeId: () => new ApiError(400, 'X-Wake-ID must be a uuid'),
  otherUser: () => new ApiError(403, 'this device token is bound to another user than X-User-ID names'),
  bodyTooLarge: () => new ApiError(413, `body exceeds ${INGEST.compressedBodyBytes / MIB} MiB`),
  inflatedTooLarge: () => new ApiError(413, `body exceeds ${INGEST.decompressedBytes / MIB} MiB once decompressed`),
  lineTooLong: (line: number) => new ApiError(413, `line ${line} exceeds ${INGEST.lineBytes / MIB} MiB`),
  tooManyLines: (what: string) => new ApiError(413, what),
  methodNotAllowed: (allow: string) => new ApiError(405, `method not allowed; this path answers ${allow}`, { Allow: allow }),
  unavailable: () => new ApiError(503, 'the batch could not be stored now; retry'),
  timeout: () => new ApiError(503, 'storing the batch took too long; retry'),
} as const;

/** What a batch's body stream fails with when its client hangs up: no fault of the batch or the server. */
export class ClientLeft extends Error {
  constructor() {
    super('the client went away before its batch was read');
    this.name = 'ClientLeft';
  }
}
