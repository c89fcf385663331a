// How near any server that asks PostgreSQL for each answer can come to 1.2×
// the bare pool on this machine: `node dist/bench/floor.js [route name
// fragment …]` (after `npx tsc -p .`; the small routes by default) measures,
// interleaved run by run, healthd, the floor server with its turns folded,
// the floor server statement per request (bench/baselines/uws-floor.ts: the
// bare pool's own statements behind uWS, read as healthd reads its
// prepared statements, then healthd's answer to the path,
// read once at start, sent as it is) and the bare pool, and prints req/s, CPU
// µs a request (process under test · PostgreSQL · autocannon) and each one's
// ratio to the bare pool. The floor does less per request than any route can
// (no token, no parameters, no rows shaped); where it stays below 1.2×, so
// does every server that asks PostgreSQL for every answer, here.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeChildren } from './lib/child.js';
import { postmasterPid } from './lib/cpu.js';
import { dbLoad } from './lib/db-load.js';
import { httpLoad } from './lib/http-load.js';
import { medianOf, type Measurement } from './lib/measure.js';
import { openRouteTools } from './lib/route-tools.js';
import { routeLoad } from './lib/routes.js';
import { floorRoute, startFloor, startHealthd, type Baseline, type FloorRoute, type Healthd } from './lib/systems.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = 10;
const SMALL_ROUTES = ['/v1/users', '/v1/profile', 'latest', '/v1/workouts/{uuid}$', '/v1/activity'];
const DATA_DIR = fileURLToPath(new URL('../../bench/data/demo', import.meta.url));
const SYSTEMS = ['healthd', 'floor, folded', 'floor, each'] as const;

const us = (ms: number | undefined) => (ms === undefined ? '–' : (ms * 1000).toFixed(0));
const cpu = (m: Measurement) => `${us(m.cpuMsPerRequest)} · ${us(m.pgCpuMsPerRequest)} · ${us(m.clientCpuMsPerRequest)}`;

async function main(): Promise<void> {
  const fragments = process.argv.slice(2);
  const { dataset, settings, ctx, routes } = await openRouteTools();
  const chosen = routes(fragments.length > 0 ? fragments : SMALL_ROUTES).filter((r) => r.database);
  const postmaster = postmasterPid(join(DATA_DIR, 'pg'));
  const floorFile = join(DATA_DIR, '..', 'floor-routes.json');
  let healthd: Healthd | undefined;
  let folded: Baseline | undefined;
  let each: Baseline | undefined;
  const lines = [
    `${RUNS} runs × ${SECONDS} s, ${CONNECTIONS} connections, interleaved; CPU µs a request: process under test · PostgreSQL · autocannon (bare pool: its own process · PostgreSQL)`,
    '',
    '| Route | healthd req/s | floor, folded | floor, each | bare pool | healthd CPU | floor, folded CPU | floor, each CPU | bare pool CPU | × bare pool: healthd · floor, folded · floor, each |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  try {
    healthd = await startHealthd(settings, 1);
    const floorRoutes: Record<string, FloorRoute> = {};
    for (const route of chosen) floorRoutes[route.path] = await floorRoute(healthd.baseUrl, route, ctx);
    folded = await startFloor(settings, floorRoutes, floorFile, true);
    each = await startFloor(settings, floorRoutes, floorFile, false);
    const servers = { healthd: { baseUrl: healthd.baseUrl, pids: healthd.processes.map((p) => p.pid) }, 'floor, folded': { baseUrl: folded.baseUrl, pids: [folded.process.pid] }, 'floor, each': { baseUrl: each.baseUrl, pids: [each.process.pid] } };
    for (const route of chosen) {
      const runs: Record<(typeof SYSTEMS)[number] | 'bare', Measurement[]> = { healthd: [], 'floor, folded': [], 'floor, each': [], bare: [] };
      for (const system of SYSTEMS) await httpLoad({ ...routeLoad(servers[system].baseUrl, route, CONNECTIONS), seconds: 1 }); // warm-up
      for (let run = 0; run < RUNS; run++) {
        for (const system of SYSTEMS) {
          runs[system].push(await httpLoad({ ...routeLoad(servers[system].baseUrl, route, CONNECTIONS), seconds: SECONDS, serverPids: servers[system].pids, postmasterPid: postmaster }));
        }
        runs.bare.push(await dbLoad({ databaseUrl: settings.databaseUrl, poolSize: settings.poolSize, concurrency: CONNECTIONS, seconds: SECONDS, ctx, route: route.route, postmasterPid: postmaster }));
      }
      const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, medianOf(v)])) as Record<keyof typeof runs, Measurement>;
      const errors = SYSTEMS.reduce((sum, s) => sum + m[s].errors, m.bare.errors);
      if (errors > 0) throw new Error(`${route.name}: ${errors} errors`);
      const ratio = (x: Measurement) => (x.rps / m.bare.rps).toFixed(2);
      lines.push(
        `| ${route.name} | ${m.healthd.rps.toFixed(0)} | ${m['floor, folded'].rps.toFixed(0)} | ${m['floor, each'].rps.toFixed(0)} | ${m.bare.rps.toFixed(0)} | ${cpu(m.healthd)} | ${cpu(m['floor, folded'])} | ${cpu(m['floor, each'])} | ${us(m.bare.cpuMsPerRequest)} · ${us(m.bare.pgCpuMsPerRequest)} | ${ratio(m.healthd)} · ${ratio(m['floor, folded'])} · ${ratio(m['floor, each'])} |`,
      );
      process.stderr.write(`${lines.at(-1)}\n`);
    }
  } finally {
    closeChildren();
    await Promise.allSettled([healthd?.stop(), folded?.process.stop(), each?.process.stop()]);
    await dataset.db.stop();
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`floor failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
