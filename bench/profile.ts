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
import { httpLoad } from './lib/http-load.js';
import { openRouteTools } from './lib/route-tools.js';
import { routeLoad } from './lib/routes.js';
import { startHealthd } from './lib/systems.js';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 5);
const PROFILE_DIR = fileURLToPath(new URL('../../bench/data/profiles', import.meta.url));
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const { dataset, settings, routes } = await openRouteTools();
  try {
    for (const route of routes(process.argv.slice(2))) {
      const dir = join(PROFILE_DIR, route.route.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') + (route.auth === 'wrong' ? '-401' : ''));
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const healthd = await startHealthd(settings, 1, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
      const job = routeLoad(healthd.baseUrl, route, 10);
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
