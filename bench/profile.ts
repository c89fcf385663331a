// CPU profiles of healthd under the bench's load, one route at a time:
// `node dist/bench/profile.js [name fragment …]` (after `npx tsc -p .`; a
// fragment ending in `$` is a whole name).
// Starts healthd with --cpu-prof, drives the route for PROFILE_SECONDS (5 s)
// at 10 connections, stops it (the profile is written at exit) and prints
// where the server's main thread spent its time, as markdown. Profiles are
// kept in bench/data/profiles/ for a closer look (Chrome DevTools).
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeChildren } from './lib/child.js';
import { summarizeProfile } from './lib/cpu-profile.js';
import { DATASET, openDataset } from './lib/dataset.js';
import { httpLoad } from './lib/http-load.js';
import { benchRoutes, nameMatches, ordinaryWorkout, type BenchContext } from './lib/routes.js';
import { BENCH_TOKEN, startHealthd } from './lib/systems.js';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 5);
const DATA_DIR = fileURLToPath(new URL('../../bench/data/demo', import.meta.url));
const PROFILE_DIR = fileURLToPath(new URL('../../bench/data/profiles', import.meta.url));
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const fragments = process.argv.slice(2);
  const dataset = await openDataset(DATA_DIR, DATASET, (line) => process.stderr.write(line + '\n'));
  const ctx: BenchContext = { userId: dataset.userIds[0], endDay: dataset.endDay, timeZone: DATASET.timeZone, longRideUuid: dataset.longRideUuid };
  const settings = { databaseUrl: dataset.db.adminUrl, userId: ctx.userId, timeZone: ctx.timeZone, poolSize: 10, workerThreads: 2 };
  try {
    const finder = await startHealthd(settings, 1);
    ctx.detailWorkoutUuid = await ordinaryWorkout(finder.baseUrl, ctx.longRideUuid).finally(() => finder.stop());
    const routes = benchRoutes(ctx).filter((r) => fragments.length === 0 || fragments.some((f) => nameMatches(r.name, f)));
    for (const route of routes) {
      const dir = join(PROFILE_DIR, route.route.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') + (route.auth === 'wrong' ? '-401' : ''));
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const healthd = await startHealthd(settings, 1, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
      const headers: Record<string, string> = route.auth === 'none' ? {} : { authorization: `Bearer ${route.auth === 'token' ? BENCH_TOKEN : 'not-the-token-0000000000'}` };
      const job = { url: healthd.baseUrl + route.path, connections: 10, headers, expectStatus: route.expectStatus, uniqueForwardedFor: route.auth === 'wrong' };
      await httpLoad({ ...job, seconds: 1 });
      const measured = await httpLoad({ ...job, seconds: SECONDS });
      await healthd.stop();
      const file = (await readdir(dir)).find((name) => name.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no profile written in ${dir}`);
      const summary = await summarizeProfile(join(dir, file));
      const lines = [
        `### ${route.name} — ${Math.round(measured.rps)} req/s under the profiler; main thread busy ${pct(summary.busy)} of ${(summary.totalMs / 1000).toFixed(1)} s`,
        '',
        `By area (share of busy time): ${summary.areas.map((a) => `${a.name} ${pct(a.share)}`).join(', ')}.`,
        '',
        'Top functions by self time:',
        '',
        ...summary.functions.map((f) => `- ${pct(f.share)} \`${f.name}\``),
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    }
  } finally {
    closeChildren();
    await dataset.db.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
