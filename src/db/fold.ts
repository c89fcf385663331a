// Requests that arrive together share one statement. Every request uWS hands
// over in one turn of the event loop (its poll phase) leaves its input here;
// in the check phase right after, one statement runs for all the distinct
// inputs and each request gets its own answer. Under load the requests of
// many connections arrive in one turn, and a statement's fixed cost — its
// write to PostgreSQL's socket, PostgreSQL's work per statement, the answer's
// framing — is paid once for them all (bench/RESULTS.md, 2026-11-25). A lone
// request waits for nothing: its turn's check phase follows at once.
//
// Not a cache: a statement runs after every request folded into it arrived,
// so each sees what a statement of its own, sent then, would have seen.
import pg from 'pg';
import { ClientGone, connection, prepared, RequestDb, type Db } from './pool.js';
import { readPrepared } from './prepared-read.js';

interface Waiter<R> {
  resolve(value: R): void;
  reject(error: unknown): void;
  gone: () => boolean;
}

interface Pending<I, R> {
  input: I;
  waiters: Array<Waiter<R>>;
}

/** Runs one statement for the distinct inputs, answering their results in their order. */
export type FoldedRun<I, R> = (db: pg.ClientBase, inputs: readonly I[]) => Promise<R[]>;

const NEVER_GONE = () => false;

class Folder<I, R> {
  private pending = new Map<string, Pending<I, R>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly run: FoldedRun<I, R>,
  ) {}

  add(key: string, input: I, gone: () => boolean): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => this.flush());
      const waiter = { resolve, reject, gone };
      const same = this.pending.get(key);
      if (same) same.waiters.push(waiter);
      else this.pending.set(key, { input, waiters: [waiter] });
    });
  }

  /** Runs the turn's statement for the inputs whose requests still have a client. */
  private flush(): void {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.send(batch, true);
  }

  /**
   * One statement for `entries`, on a connection of its own. As a request's
   * own statement would (src/db/pool.ts), it is not sent when every client
   * left while it waited for the connection. A statement for several inputs
   * that fails on a value is tried again input by input (`split`), so that
   * an input the database refuses fails only its own requests.
   */
  private send(entries: Array<Pending<I, R>>, split: boolean): void {
    let live = stillWaiting(entries);
    if (live.length === 0) return;
    const fail = (error: unknown) => {
      for (const entry of live) for (const waiter of entry.waiters) waiter.reject(error);
    };
    connection(this.pool).then(async (client) => {
      live = stillWaiting(live);
      if (live.length === 0) return client.release();
      let results: R[];
      try {
        results = await this.run(client, live.map((entry) => entry.input));
      } catch (error) {
        client.release(error as Error);
        if (split && live.length > 1 && inputsMayCause(error)) for (const entry of live) this.send([entry], false);
        else fail(error);
        return;
      }
      client.release();
      for (let i = 0; i < live.length; i++) for (const waiter of live[i].waiters) waiter.resolve(results[i]);
    }, fail);
  }
}

/**
 * Whether one input may have caused `error`: PostgreSQL's data exceptions
 * (class 22: a value out of range, a division by zero). Not a timeout or a
 * lost connection, which trying again input by input would only repeat, each
 * request waiting its whole timeout once more.
 */
const inputsMayCause = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('22');
};

/** The entries with a waiter whose client is still there, those waiters only; the others' are told ClientGone. */
function stillWaiting<I, R>(entries: Array<Pending<I, R>>): Array<Pending<I, R>> {
  const live: Array<Pending<I, R>> = [];
  for (const entry of entries) {
    const waiters = entry.waiters.filter((waiter) => {
      if (!waiter.gone()) return true;
      waiter.reject(new ClientGone());
      return false;
    });
    if (waiters.length > 0) live.push({ input: entry.input, waiters });
  }
  return live;
}

/**
 * A read whose requests fold: `read(db, key, input)` answers the result for
 * `input` (`key` names it: equal keys, equal inputs). On a pool, or a
 * request's view of one, it joins the turn's statement; on one connection
 * (an export's) it runs alone. Requests with equal inputs get the same result
 * object: whoever reads it must not change it.
 */
export function foldedRead<I, R>(run: FoldedRun<I, R>): (db: Db, key: string, input: I) => Promise<R> {
  const folders = new WeakMap<pg.Pool, Folder<I, R>>();
  return (db, key, input) => {
    const pool = db instanceof RequestDb ? db.pool : db instanceof pg.Pool ? db : null;
    if (pool === null) return run(db as pg.ClientBase, [input]).then((results) => results[0]);
    let folder = folders.get(pool);
    if (!folder) {
      folder = new Folder(pool, run);
      folders.set(pool, folder);
    }
    return folder.add(key, input, db instanceof RequestDb ? db.gone : NEVER_GONE);
  };
}

/**
 * `make` of a folded read's result, made once for all the requests that got
 * that result (equal inputs in one turn: the same object) and kept as long as
 * the result is: the body they all answer, say, built once instead of once a
 * request. Like the statement, not a cache: a later turn's result is another
 * object.
 */
export function perResult<R extends object, T>(make: (result: R) => T): (result: R) => T {
  const made = new WeakMap<R, T>();
  return (result) => {
    if (made.has(result)) return made.get(result) as T;
    const value = make(result);
    made.set(result, value);
    return value;
  };
}

/**
 * A statement that answers one row, folded: `sql`, whose parameters $1…$n are
 * of `types`, runs as a LATERAL subquery once for each request's parameters,
 * all in one statement, and each request gets its row. (Its text holds no `$`
 * inside a literal.)
 */
export function foldedRow<R>(sql: string, types: readonly string[], rowMode?: 'array'): (db: Db, params: readonly unknown[]) => Promise<R> {
  const columns = types.map((_, i) => `p${i + 1}`);
  const statement = prepared(
    `SELECT folded.* FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')}) WITH ORDINALITY AS asked (${columns.join(', ')}, position)
     CROSS JOIN LATERAL (${sql.replace(/\$(\d+)/g, (_, n: string) => `asked.p${n}`)}) folded
     ORDER BY asked.position`,
  );
  const read = foldedRead<readonly unknown[], R>(async (client, inputs) => {
    const values = types.map((_, k) => inputs.map((params) => params[k]));
    const config = statement(values);
    const rows = await readPrepared<R>(client, config, rowMode);
    if (rows.length !== inputs.length) throw new Error(`a folded statement answered ${rows.length} rows for ${inputs.length} requests`);
    return rows as R[];
  });
  return (db, params) => read(db, JSON.stringify(params), params);
}

/**
 * The items of a turn's requests (a request's types, say) run together for
 * one statement: `columns[k]` holds every item's value k, each item led by
 * its request's number; `before[i]`, how many items the requests before
 * request i had.
 */
export function itemColumns<I>(inputs: readonly I[], width: number, itemsOf: (input: I) => unknown[][]): { columns: unknown[][]; before: number[] } {
  const columns: unknown[][] = Array.from({ length: width + 1 }, () => []);
  const before: number[] = [];
  inputs.forEach((input, request) => {
    before.push(columns[0].length);
    for (const item of itemsOf(input)) {
      columns[0].push(request);
      item.forEach((value, k) => columns[k + 1].push(value));
    }
  });
  return { columns, before };
}

/** Rows that carry their request's number, each request's in their order. */
export function rowsByRequest<T extends { request: number }>(rows: readonly T[], requests: number): T[][] {
  const answers: T[][] = Array.from({ length: requests }, () => []);
  for (const row of rows) answers[row.request].push(row);
  return answers;
}
