// Server CPU a request, this build against another, one route: `node
// dist/bench/cpu-ab.js <other build's dist/src/main.js> <route name fragment>
// [pairs]` (after `npx tsc -p .`; a fragment ending in `$` is a whole name).
// Starts each build in turn (this one first, then the other, `pairs` times,
// 4 by default), drives the route as the bench does (10 connections, 1 s of
// warm-up, then CPU_AB_SECONDS, 5 by default) and prints, per run and as
// medians, req/s and the server's CPU µs a request (every thread, as the
// bench's tables count it). Finer than `dist/bench/run.js` for a change of a
// few µs: no baselines between the runs, longer runs, the CPU figure whole.
import { closeChildren } from './lib/child.js';
import { httpLoad } from './lib/http-load.js';
import { median } from './lib/measure.js';
import { openRouteTools } from './lib/route-tools.js';
import { routeLoad } from './lib/routes.js';
import { startHealthd } from './lib/systems.js';

const SECONDS = Number(process.env.CPU_AB_SECONDS ?? 5);

async function main(): Promise<void> {
  const [other, fragment, pairsArg] = process.argv.slice(2);
  if (!other || !fragment) throw new Error('usage: node dist/bench/cpu-ab.js <other dist/src/main.js> <route name fragment> [pairs]');
  const pairs = Number(pairsArg ?? 4);
  const { dataset, settings, routes } = await openRouteTools();
  const own = process.env.BENCH_HEALTHD_MAIN;
  const use = (main: string | undefined) => {
    if (main === undefined) delete process.env.BENCH_HEALTHD_MAIN;
    else process.env.BENCH_HEALTHD_MAIN = main;
  };
  try {
    const [route] = routes([fragment]);
    if (!route) throw new Error(`no bench route matches ${fragment}`);
    const runs: Record<'this' | 'other', Array<{ rps: number; us: number }>> = { this: [], other: [] };
    for (let i = 0; i < pairs; i++) {
      for (const build of ['this', 'other'] as const) {
        use(build === 'this' ? own : other);
        const healthd = await startHealthd(settings, 1);
        const job = routeLoad(healthd.baseUrl, route, 10);
        await httpLoad({ ...job, seconds: 1 });
        const measured = await httpLoad({ ...job, seconds: SECONDS, serverPids: healthd.processes.map((p) => p.pid) });
        await healthd.stop();
        const run = { rps: measured.rps, us: (measured.cpuMsPerRequest ?? NaN) * 1000 };
        runs[build].push(run);
        process.stdout.write(`${build.padEnd(5)} ${Math.round(run.rps)} req/s, server ${run.us.toFixed(1)} µs a request\n`);
      }
    }
    for (const build of ['this', 'other'] as const) {
      const rs = runs[build];
      process.stdout.write(`${route.name}, ${build}: median ${Math.round(median(rs.map((r) => r.rps)))} req/s, server ${median(rs.map((r) => r.us)).toFixed(1)} µs a request (${rs.map((r) => r.us.toFixed(1)).join(', ')})\n`);
    }
  } finally {
    use(own);
    closeChildren();
    await dataset.db.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
