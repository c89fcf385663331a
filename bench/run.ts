// `npm run bench`: loads (or reuses) the demo dataset in bench/data/demo/, then
// measures every route of the issue against three baselines measured in the
// same run, interleaved run by run — the HTTP ceiling (uWS hello-world), the
// bare pool (the cheapest SQL yielding the route's rows through a bare
// pg.Pool, each statement prepared, rowMode array, no HTTP: bench/lib/bare-sql.ts) and Fastify + pg
// doing the obvious thing — with the CPU each spends per request, then
// scaling (1 vs 2 processes; 10/100/1000 connections), and writes the
// generated sections of bench/RESULTS.md. Each load runs in its own process;
// each figure is the median of BENCH_RUNS runs of BENCH_SECONDS seconds.
// `node dist/bench/run.js <route name fragment …>` measures only the matching
// routes against their baselines and prints the table instead (no scaling, no
// export, RESULTS.md untouched): a quick check of one change. With
// BENCH_SCALING=1 it also runs them on 2 processes (the scaling table); with
// BENCH_CONNECTIONS=n, at n connections (and n bare-pool loops) instead of 10
// (a full run stays at 10: its tables say so). A fragment ending in `$` is a
// whole name (`"/v1/workouts/{uuid}$"`, not its series).
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { allRoutes } from '../src/routes/all.js';
import { DATASET, openDataset } from './lib/dataset.js';
import { dbLoad } from './lib/db-load.js';
import { httpLoad } from './lib/http-load.js';
import { medianOf, type Measurement } from './lib/measure.js';
import { closeChildren } from './lib/child.js';
import { postmasterPid } from './lib/cpu.js';
import { exportSection } from './lib/export-section.js';
import { renderRoutes, writeSection, type RouteResult, type ScalingRow, type SweepRow } from './lib/report.js';
import { bareBaselines } from './lib/bare-sql.js';
import { benchRoutes, nameMatches, ordinaryWorkout, routeHeaders, routeLoad, type BenchContext, type BenchRoute } from './lib/routes.js';
import { startFastify, startHealthd, startHello, type Baseline, type Healthd, type SystemSettings } from './lib/systems.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Connections of every figure but the sweep's; BENCH_CONNECTIONS only for named routes (main refuses it in a full run). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const POOL_SIZE = 10;
const WORKER_THREADS = 2;
const SWEEP_CONNECTIONS = [100, 1000];
const SWEEP_ROUTES = ['/healthz', '/v1/samples'];
/** Routes measured again with two processes (the rest would add minutes and say no more on 2 cores). */
const SCALING_ROUTES = ['/healthz', '/v1/samples', '/v1/metrics/daily'];
/** BENCH_SCALING=1: a run of named routes also measures them on 2 processes. */
const SCALING_NAMED = process.env.BENCH_SCALING === '1';
const DATA_DIR = fileURLToPath(new URL('../../bench/data/demo', import.meta.url));
const RESULTS = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
const EXPORT_DIR = fileURLToPath(new URL('../../bench/data/export', import.meta.url));

/** The HTTP ceiling's request: the hello-world answers any path. */
const HELLO: BenchRoute = { name: 'HTTP ceiling (uWS hello)', route: '/healthz', path: '/healthz', auth: 'none', expectStatus: 200, database: false };

const log = (line: string) => process.stderr.write(`${line}\n`);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

function httpJob(baseUrl: string, route: BenchRoute, connections: number, seconds = SECONDS, serverPids?: number[], postmasterPid?: number) {
  return { ...routeLoad(baseUrl, route, connections), seconds, serverPids, postmasterPid };
}

/** One request, checked: the status the bench expects, and the parsed body. */
async function probe(baseUrl: string, route: BenchRoute): Promise<unknown> {
  const response = await fetch(baseUrl + route.path, { headers: routeHeaders(route) });
  const text = await response.text();
  if (response.status !== route.expectStatus) throw new Error(`${route.name}: expected ${route.expectStatus}, got ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

// Same JSON value (member order aside: fast-json-stringify writes schema order);
// generatedAt, the summary's clock, is the one member two servers cannot share.
const withoutClock = (body: unknown) => JSON.parse(JSON.stringify(body, (key, value: unknown) => (key === 'generatedAt' ? 0 : value)));
const sameJson = (a: unknown, b: unknown) => isDeepStrictEqual(withoutClock(a), withoutClock(b));

async function main(): Promise<void> {
  const loadBefore = loadavg();
  if (process.argv.length <= 2 && CONNECTIONS !== 10) throw new Error('BENCH_CONNECTIONS is for runs of named routes: a full run writes RESULTS.md at 10 connections');
  if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1) throw new Error(`BENCH_CONNECTIONS must be a whole number of 1 or more, not ${process.env.BENCH_CONNECTIONS}`);
  log(`bench: ${RUNS} runs × ${SECONDS} s per figure, ${CONNECTIONS} connections`);
  const dataset = await openDataset(DATA_DIR, DATASET, log);
  const registered = new Set(allRoutes().map((r) => r.path));
  const ctx: BenchContext = { userId: dataset.userIds[0], endDay: dataset.endDay, timeZone: DATASET.timeZone, longRideUuid: dataset.longRideUuid };
  const only = process.argv.slice(2);
  let routes: BenchRoute[] = [];
  let missing: string[] = [];
  const settings: SystemSettings = { databaseUrl: dataset.db.adminUrl, userId: ctx.userId, timeZone: ctx.timeZone, poolSize: POOL_SIZE, workerThreads: WORKER_THREADS };

  const results: RouteResult[] = [];
  const scaling: ScalingRow[] = [];
  const sweep: SweepRow[] = [];
  /** The HTTP ceiling at 10 connections: the one measured beside /healthz (the first route). */
  let helloAt10: Measurement | undefined;
  let hello: Baseline | undefined;
  let fastify: Baseline | undefined;
  let healthd: Healthd | undefined;
  try {
    hello = await startHello();
    fastify = await startFastify(settings);
    healthd = await startHealthd(settings, 1);
    ctx.detailWorkoutUuid = await ordinaryWorkout(healthd.baseUrl, ctx.longRideUuid);
    const all = benchRoutes(ctx);
    routes = all.filter((r) => registered.has(r.route) && (only.length === 0 || only.some((fragment) => nameMatches(r.name, fragment))));
    missing = all.filter((r) => !registered.has(r.route)).map((r) => r.name);
    for (const route of routes) {
      const ours = await probe(healthd.baseUrl, route);
      if (route.database && !sameJson(ours, await probe(fastify.baseUrl, route))) throw new Error(`${route.name}: Fastify answers other JSON than healthd`);
    }
    log(`bench: every route answers as expected; Fastify answers the same JSON (${elapsed()})`);

    const measureHello = async () => {
      const helloRuns: Measurement[] = [];
      for (let run = 0; run < RUNS; run++) helloRuns.push(await httpLoad(httpJob(hello!.baseUrl, HELLO, CONNECTIONS, SECONDS, [hello!.process.pid])));
      return medianOf(helloRuns);
    };

    const healthdPids = healthd.processes.map((p) => p.pid);
    const postmaster = postmasterPid(join(DATA_DIR, 'pg'));
    const fastifyPids = [fastify.process.pid];
    for (const route of routes) {
      await httpLoad(httpJob(healthd.baseUrl, route, CONNECTIONS, 1)); // warm-up, not counted
      if (route.database) await httpLoad(httpJob(fastify.baseUrl, route, CONNECTIONS, 1));
      healthd.rss.takePeakMb();
      const ours: Measurement[] = [];
      const fast: Measurement[] = [];
      const db: Measurement[] = [];
      let peakRssMb = 0;
      const ceiling: Measurement[] = [];
      for (let run = 0; run < RUNS; run++) {
        ours.push(await httpLoad(httpJob(healthd.baseUrl, route, CONNECTIONS, SECONDS, healthdPids, route.database ? postmaster : undefined)));
        peakRssMb = Math.max(peakRssMb, healthd.rss.takePeakMb());
        if (!route.database) {
          // The ceiling of a route without a database, run by run beside it, with the same client: same
          // headers, and for the 401 row the same X-Forwarded-For per request, which costs autocannon itself.
          ceiling.push(await httpLoad({ ...httpJob(hello.baseUrl, route, CONNECTIONS, SECONDS, [hello.process.pid]), url: hello.baseUrl + HELLO.path, expectStatus: HELLO.expectStatus }));
          continue;
        }
        fast.push(await httpLoad(httpJob(fastify.baseUrl, route, CONNECTIONS, SECONDS, fastifyPids, postmaster)));
        db.push(await dbLoad({ databaseUrl: settings.databaseUrl, poolSize: POOL_SIZE, concurrency: CONNECTIONS, seconds: SECONDS, ctx, route: route.route, postmasterPid: postmaster }));
      }
      const result: RouteResult = {
        route,
        ours: medianOf(ours),
        peakRssMb,
        fastify: route.database ? medianOf(fast) : null,
        dbCeiling: route.database ? medianOf(db) : null,
        httpCeiling: route.database ? (helloAt10 ??= await measureHello()) : medianOf(ceiling),
      };
      if (route.route === HELLO.route && route.auth === 'none') helloAt10 ??= result.httpCeiling;
      results.push(result);
      log(`bench: ${route.name}: ${result.ours.rps.toFixed(0)} req/s, p99 ${result.ours.p99} ms (${elapsed()})`);
    }

    for (const connections of only.length === 0 ? SWEEP_CONNECTIONS : []) {
      const helloRuns: Measurement[] = [];
      for (let run = 0; run < RUNS; run++) helloRuns.push(await httpLoad(httpJob(hello.baseUrl, HELLO, connections)));
      sweep.push({ name: HELLO.name, connections, result: medianOf(helloRuns) });
      for (const route of routes.filter((r) => SWEEP_ROUTES.includes(r.route) && r.auth !== 'wrong')) {
        const runs: Measurement[] = [];
        for (let run = 0; run < RUNS; run++) runs.push(await httpLoad(httpJob(healthd.baseUrl, route, connections)));
        sweep.push({ name: route.name, connections, result: medianOf(runs) });
      }
      log(`bench: ${connections} connections done (${elapsed()})`);
    }

    await healthd.stop();
    healthd = await startHealthd(settings, 2);
    for (const route of routes.filter((r) => (only.length === 0 ? SCALING_ROUTES.includes(r.route) : SCALING_NAMED) && r.auth !== 'wrong')) {
      await probe(healthd.baseUrl, route);
      await httpLoad(httpJob(healthd.baseUrl, route, CONNECTIONS, 1));
      const runs: Measurement[] = [];
      for (let run = 0; run < RUNS; run++) runs.push(await httpLoad(httpJob(healthd.baseUrl, route, CONNECTIONS)));
      const one = results.find((r) => r.route === route)!.ours;
      scaling.push({ route, one, two: medianOf(runs), peakRssMb: healthd.rss.takePeakMb() });
    }
    log(`bench: 2 processes done (${elapsed()})`);
  } finally {
    closeChildren();
    await Promise.allSettled([healthd?.stop(), hello?.process.stop(), fastify?.process.stop()]);
    await dataset.db.stop();
  }
  const loadAfter = loadavg();
  const routeSeconds = (performance.now() - started) / 1000;

  const routesMarkdown = renderRoutes({
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGb: totalmem() / 2 ** 30, node: process.version, loadBefore, loadAfter },
    seconds: SECONDS,
    runs: RUNS,
    connections: CONNECTIONS,
    poolSize: POOL_SIZE,
    workerThreads: WORKER_THREADS,
    dataset: { ...dataset.params, endDay: dataset.endDay, samples: dataset.samples, generatedIn: dataset.generatedIn },
    results,
    baselineSql: bareBaselines(ctx),
    sweep,
    scaling,
    missing,
    wallSeconds: routeSeconds,
  });
  if (only.length > 0) {
    process.stdout.write(routesMarkdown + '\n');
    return;
  }
  await writeSection(RESULTS, 'routes', routesMarkdown);
  log(`bench: wrote the route sections of ${RESULTS}; now the export bench (${elapsed()})`);
  const exportStarted = performance.now();
  const exportMarkdown = await exportSection(EXPORT_DIR, log);
  await writeSection(RESULTS, 'export', `${exportMarkdown}\n- Export part of this run: ${((performance.now() - exportStarted) / 1000).toFixed(0)} s; whole \`npm run bench\`: ${elapsed()} after the build.`);
  log(`bench: wrote ${RESULTS} (${elapsed()})`);
}

main().catch((error: unknown) => {
  log(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
