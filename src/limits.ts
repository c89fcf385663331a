// Every limit of the API, written once: range caps, page sizes and their
// clamps, types per list, export slots, time limits, the failed-auth throttle
// and cache times. Parameter schemas, refusals and their messages, the export
// slot SQL, route descriptions, /docs and /openapi.json all read them here.
//
// Most are fixed by the specification. The tunable ones have a setting each
// (TUNABLES: name, default, bounds); config.ts reads those settings, and what
// a running server documents is its configured value, never the default.

/** Largest timestamp a parameter may carry (9999-12-31T23:59:59.999Z). */
export const MAX_EPOCH_MS = 253_402_300_799_999;

/** Identifiers in one `types` list, repeats included. */
export const TYPES_PER_LIST = 50;

/** Page sizes: the default, and the most a request gets (larger values are clamped to it). */
export const PAGE = {
  dailyRows: { default: 10_000, max: 50_000 },
  workouts: { default: 50, max: 200 },
  samples: { default: 1000, max: 5000 },
} as const;

/** Points per workout stream or route track: default, clamp, and the least (first and last are kept). */
export const POINTS = { default: 500, max: 5000, min: 2 } as const;

/** Range caps, in 24-hour days of `end - start`. */
export const RANGE_CAP_DAYS = { samples: 31, perDay: 366 } as const;

/** An export's range cap, in 24-hour days: the samples dataset's, or the day-grained ones' (also what the viewer's export form checks). */
export const exportCapDays = (dataset: string): number => (dataset === 'samples' ? RANGE_CAP_DAYS.samples : RANGE_CAP_DAYS.perDay);

/** Day-grained answers also refuse a range touching more local days than this (a DST year slips one more in). */
export const MAX_LOCAL_DAYS = 366;

/** Exports running at once across every server process sharing the database. */
export const EXPORT_SLOTS: number = 2;

/** Seconds a refused export is told to wait. */
export const EXPORT_RETRY_AFTER_S = 60;

/** Failed authentications per client address: a token bucket. */
export const FAILED_AUTH = { burst: 10, refillPerMinute: 10, maxAddresses: 100_000 } as const;

/** Sleep samples further apart than this start a new session. */
export const SLEEP_SESSION_GAP_MS = 3 * 3_600_000;

export const SUMMARY = { markdownLinesUnder: 60, topActivityTypes: 3 } as const;

/**
 * Cross-origin reads (SERVICE_CORS_ORIGINS): how long a browser may cache a
 * preflight's answer, the response headers a page may read besides the
 * safelisted ones, and the request headers it may send (the token, and a
 * Content-Type some clients add to every request). The MCP port's POSTs also
 * send Accept and the protocol's version header.
 */
export const CORS = {
  preflightMaxAgeS: 600,
  exposedHeaders: 'Content-Disposition, Retry-After, WWW-Authenticate, X-Request-Id',
  allowedHeaders: 'Authorization, Content-Type',
  mcpAllowedHeaders: 'Authorization, Content-Type, Accept, Mcp-Protocol-Version',
} as const;

/**
 * The MCP server's tools (src/mcp), sized for an assistant's context window.
 * Their date ranges are capped by RANGE_CAP_DAYS (counted in local days).
 */
export const MCP = {
  /** Identifiers in one tool call's `types`. */
  typesPerCall: 10,
  /** Points per workout stream or GPS track when a call names no max_points (the cap is POINTS.max). */
  defaultPoints: 100,
  /** Raw samples per call when a call names no limit (the cap is PAGE.samples.max). */
  defaultSamples: 200,
  /** Workouts per call when a call names no limit (the cap is PAGE.workouts.max). */
  defaultWorkouts: 20,
  /** Users per list_users call when a call names no limit, and at most (a clinic's thousand users in one answer would flood an assistant's context). */
  defaultUsers: 50,
  usersPerCall: 500,
  /** Longest range of get_metric_stats, in local days (its answer is per week or month, so years fit). */
  statsDays: 10 * 366,
  /** Bytes of one POST /mcp body (a tool call is well under 1 KB). */
  bodyBytes: 64 * 1024,
} as const;

/** Users whose catalog is kept in memory (least recently used out). */
export const CATALOG_CACHE_USERS = 10_000;

/**
 * Worker threads (~15 MB each): the first starts with the first task
 * (src/worker-pool.ts) and then always stays, as piscina replaces a thread
 * that died only up to that minimum and tasks queued behind it would wait
 * forever. More (WORKER_THREADS at most) start when tasks wait and stop
 * after this long without work.
 */
export const WORKER_IDLE_MS = 60_000;

export interface Tunables {
  /** Database time per request (statement_timeout), then 504. */
  queryTimeoutMs: number;
  exportTimeLimitMs: number;
  /** An export whose client takes nothing for this long is dropped. */
  exportIdleLimitMs: number;
  /** Running exports get this long on shutdown. */
  shutdownGraceMs: number;
  catalogFreshMs: number;
  /** After freshness, how long the cached catalog is still served while one refresh runs. */
  catalogStaleMs: number;
  healthCacheMs: number;
}

export interface Tunable {
  setting: string;
  default: number;
  min: number;
  max: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const TUNABLES: Readonly<Record<keyof Tunables, Tunable>> = {
  queryTimeoutMs: { setting: 'QUERY_TIMEOUT_MS', default: 30_000, min: 1, max: HOUR },
  exportTimeLimitMs: { setting: 'EXPORT_TIME_LIMIT_MS', default: 30 * MINUTE, min: 1, max: 24 * HOUR },
  exportIdleLimitMs: { setting: 'EXPORT_IDLE_LIMIT_MS', default: MINUTE, min: 1, max: HOUR },
  shutdownGraceMs: { setting: 'SHUTDOWN_GRACE_MS', default: 15_000, min: 0, max: 10 * MINUTE },
  catalogFreshMs: { setting: 'CATALOG_FRESH_MS', default: 5 * MINUTE, min: 0, max: 24 * HOUR },
  catalogStaleMs: { setting: 'CATALOG_STALE_MS', default: HOUR, min: 0, max: 24 * HOUR },
  healthCacheMs: { setting: 'HEALTH_CACHE_MS', default: 2_000, min: 0, max: MINUTE },
};

const UNITS: ReadonlyArray<readonly [ms: number, one: string, many: string]> = [
  [HOUR, 'hour', 'hours'],
  [MINUTE, 'minute', 'minutes'],
  [1000, 'second', 'seconds'],
];

/** A duration as a person says it: `30 seconds`, `1 minute`, `1.5 hours`, `250 ms`. */
export function spokenDuration(ms: number): string {
  for (const [size, one, many] of UNITS) {
    if (ms >= size && (ms / size) * 10 === Math.round((ms / size) * 10)) {
      const n = ms / size;
      return `${n} ${n === 1 ? one : many}`;
    }
  }
  return `${ms} ms`;
}

const WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** A small count in words (`two`), digits past ten. */
export function countInWords(n: number): string {
  return WORDS[n] ?? String(n);
}

/**
 * The sync receiver's limits (Puls Sync Protocol v1, FACTS.md §5: the
 * reference's values). Over a limit the answer is 413, which the app never
 * retries; the protocol's own caps on counts and points are 400/413 as noted.
 */
export const INGEST = {
  /** Request body as sent (gzip), checked against Content-Length and while reading. */
  compressedBodyBytes: 256 * 1024 * 1024,
  /**
   * An answer sent before its body ended (a refusal on line 2 of a large batch)
   * keeps the connection while uWS reads and drops up to this much of the
   * declared rest, so the client reads the answer rather than a reset; a
   * longer, or chunked, rest closes the connection at once.
   */
  lingerBytes: 16 * 1024 * 1024,
  /** NDJSON once inflated (plain bodies too), counted as bytes come out of the inflater. */
  decompressedBytes: 128 * 1024 * 1024,
  /** One NDJSON line: the largest real ones are ECGs and 4,000-point route or series lines (~400 KB). */
  lineBytes: 4 * 1024 * 1024,
  /** Any single header count. */
  linesPerType: 100_000,
  /** All header counts together. */
  linesTotal: 200_000,
  /** Points in one route or series line. */
  pointsPerLine: 4_000,
  /**
   * Characters of a name the store indexes: a type identifier, a source's name
   * and device, a workout's activity type. Real ones are under 100; past a few
   * hundred a name no longer fits a PostgreSQL index entry (2,704 bytes), which
   * would refuse the batch on every retry.
   */
  nameChars: 255,
  /**
   * Levels of nesting kept in a free-form object a line carries and the store
   * keeps as given (a workout's events and activities, a time context).
   * Members nested deeper are unknown fields, which the protocol has a
   * receiver ignore: they are left out (the protocol's own members end by the
   * third level). Thousands of levels would overflow the stack storing them.
   */
  freeFormDepth: 16,
  /** A bucket's `intervalValue`: PostgreSQL's integer. */
  intervalValueMax: 2_147_483_647,
  /** Route points, and series points, in one batch. */
  pointsPerBatch: 100_000,
  /**
   * Type identifiers stored (sample_types), past which the receiver registers
   * no identifier its registry does not know: their lines are dropped, the
   * batch still answered 200 (FACTS §7). Type ids are smallints; HealthKit
   * has a few hundred types.
   */
  typesHeldMax: 4_096,
  /** `GET /v1/uuids` range, in 24-hour days. */
  uuidsRangeDays: 35,
  /** Database time a batch may take (the reference bounds its work at 5 minutes). */
  batchTimeoutMs: 5 * MINUTE,
  /** Sample rows a batch holds in memory before they go to its staging table. */
  stagingRows: 5_000,
  /** Every this many batches (per process) the batch's user's sample counts and upload totals are folded (src/db/writes/sample-counts.ts). */
  foldCountsEvery: 64,
} as const;

/** The user an upload without `X-User-ID` belongs to (fixed by the protocol so a reinstall keeps its identity). */
export const PROTOCOL_DEFAULT_USER = '5ea4d000-0000-4000-8000-000000000001';

/** How often each server process re-reads the issued tokens (a revocation takes effect within this). */
export const TOKEN_REFRESH_MS = 2_000;

/**
 * How long `npm run tokens -- issue` and `revoke` wait before they return, so
 * that every running server has re-read the tokens: a token works, or stops
 * working, once the command is done (a script that tried a new token at once
 * would otherwise be refused and spend the failed-auth allowance). One re-read
 * interval and a second for the read itself.
 */
export const TOKEN_TAKE_UP_MS = TOKEN_REFRESH_MS + 1_000;

/**
 * Past this since the last re-read that succeeded (the database down, or the
 * pool too busy to lend the re-read a connection), an issued token is answered
 * 503 rather than honoured: it may have been revoked meanwhile.
 * SERVICE_API_TOKEN and SERVICE_UPLOAD_TOKEN, not in the database, still work.
 */
export const TOKENS_STALE_MS = 15_000;
