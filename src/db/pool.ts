// The API's connection pools. Every session is read-only and carries the
// statement timeout (→ 504); connecting, and waiting on a server that stopped
// answering, are bounded so a dead database gives a 500, never a hang. A
// request waiting for a connection while all are busy waits within its
// database time (→ 504), not the connect timeout: a busy database is not an
// unreachable one. Exports get their own small pool without the timeout.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { QUERY_CANCELED } from '../errors.js';
import { describeError, log } from '../log.js';

// bigint (int8) and numeric arrive as strings by default; our bigints are epoch
// ms and counts, all far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/** One run of a prepared statement: its name, text and parameters (a pg.QueryConfig; src/db/prepared-read.ts reads its rows). */
export interface PreparedStatement {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * A statement each session parses and plans once, then only executes (a named
 * prepared statement): for the read routes' fixed SQL that walks an index by
 * user and day or time range, whose plan does not hinge on the values. For
 * these, parsing and planning cost PostgreSQL as much as running them or more
 * (the daily metrics statement: 0.90 → 0.50 ms of PostgreSQL's CPU a request,
 * bench/RESULTS.md). Behind PgBouncer this wants session pooling (or its
 * max_prepared_statements).
 */
export function prepared(text: string): (values: unknown[]) => PreparedStatement {
  const name = `healthd_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  return (values) => ({ name, text, values });
}

/**
 * A statement's text with its parameters renumbered from $(1 + by): to run it
 * as one part of a larger statement whose own parameters come first. (The
 * statements this serves hold no `$` inside literals.)
 */
export function shiftParams(text: string, by: number): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
}

/** What a query function runs on: a pool, one checked-out connection (an export's), or a request's view of the pool. */
export type Db = pg.Pool | pg.ClientBase | RequestDb;

/** Thrown instead of sending a query whose request has no client left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('the client went away before its query was sent');
    this.name = 'ClientGone';
  }
}

/**
 * The read pool as one HTTP request sees it: a query asked for after the
 * request's client went away, or whose wait for a connection outlasted the
 * client, is never sent. When many clients give up at once (a proxy's
 * timeout, a load generator closing 1000 connections) the pool goes on to
 * the clients still waiting instead of working through answers nobody reads.
 * Otherwise it is `pool.query`: the same connect, query and release, a
 * connection whose query failed dropped rather than reused.
 */
export class RequestDb {
  readonly query: pg.Pool['query'];

  constructor(
    /** The pool underneath: the key of caches that live as long as the database (src/db/names.ts). */
    readonly pool: pg.Pool,
    /** Whether the request's client went away. */
    readonly gone: () => boolean,
  ) {
    this.query = ((config: string | pg.QueryConfig, values?: unknown[]) => this.withClient((client) => client.query(config, values))) as pg.Pool['query'];
  }

  /** Runs `work` on a connection of its own, released after (dropped when `work` failed). */
  withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return checkedOut(this.pool, work, this.gone);
  }
}

/** Thrown when every connection of a pool stayed busy for as long as a request may wait for one (the pool's `waitMs`). */
export class PoolWaitTimeout extends Error {
  constructor() {
    super('no database connection came free in time');
    this.name = 'PoolWaitTimeout';
  }
}

/** pg-pool's error for a wait in its queue that outlasted connectionTimeoutMillis (a connect that times out says otherwise). */
const QUEUE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * Why a request ran out of its database time (→ 504), as the log says it; undefined when it did not:
 * a statement cancelled by statement_timeout, or a wait for a connection as long.
 */
export function pastTimeLimit(error: unknown): string | undefined {
  if ((error as { code?: unknown })?.code === QUERY_CANCELED) return 'query cancelled by statement timeout';
  if (error instanceof PoolWaitTimeout) return 'no database connection came free within the query time limit';
  return undefined;
}

/** A connection of `pool`; a wait in its queue that timed out as PoolWaitTimeout. */
export async function connection(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw (error as Error)?.message === QUEUE_TIMEOUT_MESSAGE ? new PoolWaitTimeout() : error;
  }
}

/** `work` on a connection checked out of `pool` and released after, dropped when `work` failed; never checked out or run once `gone`. */
async function checkedOut<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, gone: () => boolean): Promise<T> {
  if (gone()) throw new ClientGone();
  const client = await connection(pool);
  if (gone()) {
    client.release();
    throw new ClientGone();
  }
  let result: T;
  try {
    result = await work(client);
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  client.release();
  return result;
}

const NEVER_GONE = () => false;

/** Runs `work` on one connection of `db`: the connection itself, or one checked out of a pool (or a request's view of it) and released after. */
export function withClient<T>(db: Db, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  if (db instanceof RequestDb) return db.withClient(work);
  if (db instanceof pg.Pool) return checkedOut(db, work, NEVER_GONE);
  return work(db);
}

export interface PoolOptions {
  connectionString: string;
  max: number;
  statementTimeoutMs: number;
  /** How long making a connection may take: past it the database counts as unreachable. */
  connectTimeoutMs: number;
  /** How long a request may wait for a connection while every one is busy (then PoolWaitTimeout); the connect timeout when absent. */
  waitMs?: number;
  applicationName: string;
}

/**
 * How long after the statement timeout the client gives up on a query by
 * itself: the server enforces statement_timeout, so a frozen or unreachable
 * server (established connections, no answers) would otherwise hang requests.
 */
export const CLIENT_TIMEOUT_MARGIN_MS = 2_000;

/**
 * How long a request's database work lasts at most, unless something hangs:
 * its wait for a connection (the query time limit; connecting, when that
 * takes longer), then its statement, past which the client gives up by itself.
 */
export const longestRequestMs = (connectTimeoutMs: number, queryTimeoutMs: number): number =>
  Math.max(connectTimeoutMs, queryTimeoutMs) + queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS;

/**
 * A connection string and the session settings healthd's sessions need. pg
 * lets an `options` parameter in the string replace the pool's own, which
 * would silently drop them (read-only, the statement timeout): the string's
 * options are kept and ours follow them, so ours win (the last -c does).
 */
export function withSessionOptions(connectionString: string, ours: string): { connectionString: string; options: string } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, options: ours };
  }
  const theirs = url.searchParams.get('options');
  if (theirs === null) return { connectionString, options: ours };
  url.searchParams.delete('options');
  return { connectionString: url.toString(), options: `${theirs} ${ours}` };
}

/**
 * The read sessions plan a prepared statement once, for any parameters. The
 * folded statements (src/db/fold.ts) take their requests' parameters as
 * arrays, whose length a custom plan reads: PostgreSQL (plan_cache_mode
 * auto) then never settles on the generic plan, and plans them anew at every
 * execution — 70 to 220 µs of its CPU a statement, more than running some of
 * them (bench/RESULTS.md, 2026-12-07 night). Each read statement's generic
 * plan probes its indexes as the custom ones do (the same section); the
 * others reached their generic plan after five executions already.
 */
const GENERIC_PLANS = 'plan_cache_mode=force_generic_plan';

export function createReadOnlyPool(options: PoolOptions): pg.Pool {
  // pg-pool bounds both the wait in its queue and a new connection's connect by
  // connectionTimeoutMillis, and hands its options to each client: its clients
  // take the connect timeout as their own, and the pool the wait's.
  const connectTimeoutMs = options.connectTimeoutMs;
  class Client extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  }
  const pool = new pg.Pool({
    ...withSessionOptions(options.connectionString, `-c default_transaction_read_only=on -c ${GENERIC_PLANS} -c statement_timeout=${options.statementTimeoutMs}`),
    max: options.max,
    Client,
    connectionTimeoutMillis: Math.max(options.waitMs ?? 0, connectTimeoutMs),
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName,
    // pool.query drops a client whose query timed out instead of reusing it.
    ...(options.statementTimeoutMs > 0 ? { query_timeout: options.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS } : {}),
  });
  // A client whose server goes away emits 'error' when no query of its own is
  // running to receive it; without a listener that crashes the process. That
  // happens idle in the pool (the pool drops the client and re-emits on
  // itself) and also checked out between queries — an export's connection
  // while its reader is slow. The code holding the client fails on its next
  // query; logged once here, for every client.
  pool.on('connect', (client) => {
    client.on('error', (error) => log.warn('database connection lost', { pool: options.applicationName, ...describeError(error) }));
  });
  pool.on('error', () => {});
  return pool;
}
