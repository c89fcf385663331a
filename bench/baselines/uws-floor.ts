// The floor of an HTTP server over the bare pool's SQL: a uWS server on
// healthd's native binary that answers a bench route's path by running that
// route's bare-pool statements (bench/lib/bare-sql.ts, prepared, rowMode
// array, the same pool size; read as healthd reads its prepared statements,
// src/db/prepared-read.ts, since 2026-12-08), then sending healthd's own answer to that
// path, read once at start, with the header lines healthd wrote (its
// X-Request-Id as it was then): the same bytes, so the client's share is the
// same. It checks no token, reads no parameter, shapes no row and makes no
// request id. By default every request of one turn of the
// event loop shares one run of the statements, as healthd's folded reads do
// (src/db/fold.ts; the bench's requests are all alike); with FLOOR_FOLD=0
// each request runs its own. It does less than any real route can, so the
// rate it reaches over the bare pool is as far as a server that asks
// PostgreSQL for every answer gets on this machine (bench/floor.ts).
// Environment: PORT, DATABASE_URL, DB_POOL_SIZE, FLOOR_FOLD, FLOOR_ROUTES (a
// JSON file: path with query → FloorRoute); prints `floor listening on <port>`.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { loadUws, type HttpResponse } from '../../src/http/uws.js';
import { bareBaselines, runBare, type BareBaseline } from '../lib/bare-sql.js';
import type { FloorRoute } from '../lib/systems.js';

const { uws } = loadUws(false);
const fold = process.env.FLOOR_FOLD !== '0';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10), application_name: 'bench-floor' });
const asked = JSON.parse(readFileSync(process.env.FLOOR_ROUTES!, 'utf8')) as Record<string, FloorRoute>;
interface Served {
  baseline: BareBaseline;
  headers: Array<[string, string]>;
  body: Buffer;
}
const byPath = new Map<string, Served>();
for (const [path, { route, ctx, headers, body }] of Object.entries(asked)) {
  const baseline = bareBaselines(ctx)[route];
  if (!baseline) throw new Error(`no bare-pool baseline for ${route}`);
  byPath.set(path, { baseline, headers, body: Buffer.from(body) });
}

interface Waiting {
  res: HttpResponse;
  aborted: boolean;
}
const turn = new Map<Served, Waiting[]>();

const FAILED: Array<[string, string]> = [['content-type', 'application/json']];

function answer(waiting: readonly Waiting[], status: string, headers: ReadonlyArray<[string, string]>, body: string | Buffer): void {
  for (const w of waiting) {
    if (w.aborted) continue;
    w.res.cork(() => {
      w.res.writeStatus(status);
      for (const [name, value] of headers) w.res.writeHeader(name, value);
      w.res.end(body);
    });
  }
}

function run(served: Served, waiting: Waiting[]): void {
  runBare(pool, served.baseline, true).then(
    () => answer(waiting, '200 OK', served.headers, served.body),
    (error: unknown) => {
      process.stderr.write(`floor: ${String(error)}\n`);
      answer(waiting, '500 Internal Server Error', FAILED, '{}');
    },
  );
}

uws
  .App()
  .get('/*', (res, req) => {
    const query = req.getQuery();
    const served = byPath.get(query ? `${req.getUrl()}?${query}` : req.getUrl());
    if (!served) {
      res.writeStatus('404 Not Found').end('{}');
      return;
    }
    const waiting: Waiting = { res, aborted: false };
    res.onAborted(() => (waiting.aborted = true));
    if (!fold) return run(served, [waiting]);
    const same = turn.get(served);
    if (same) return void same.push(waiting);
    if (turn.size === 0) {
      setImmediate(() => {
        const batch = [...turn];
        turn.clear();
        for (const [b, w] of batch) run(b, w);
      });
    }
    turn.set(served, [waiting]);
  })
  .listen('127.0.0.1', Number(process.env.PORT), (socket) => {
    if (!socket) {
      process.stderr.write(`cannot listen on ${process.env.PORT}\n`);
      process.exit(1);
    }
    process.stdout.write(`floor listening on ${process.env.PORT}\n`);
  });

process.on('SIGTERM', () => void pool.end().finally(() => process.exit(0)));
