// Folded reads (src/db/fold.ts) when the requests of a turn differ. The route
// bench asks one URL again and again, so a turn's requests there are the same
// and fold into one lookup; here each connection asks in turn for another
// user (profile, latest and daily metrics, workouts, activity, state of mind) or another workout, so a
// turn's statement looks up several keys. This build against another, runs
// interleaved, median of BENCH_RUNS (3) runs of BENCH_SECONDS (2) s at 10
// connections, with server and PostgreSQL CPU per request:
// `node dist/bench/fold.js <other build>/dist/src/main.js`.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { closeChildren } from './lib/child.js';
import { postmasterPid } from './lib/cpu.js';
import { DATASET, openDataset } from './lib/dataset.js';
import { httpLoad } from './lib/http-load.js';
import { median, medianOf, type Measurement } from './lib/measure.js';
import { distPath } from './lib/processes.js';
import { benchRanges, DAILY_TYPES, LATEST_TYPES } from './lib/routes.js';
import { BENCH_TOKEN, startHealthd, type Healthd } from './lib/systems.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const DATA_DIR = fileURLToPath(new URL('../../bench/data/demo', import.meta.url));

async function main(): Promise<void> {
  const other = process.argv[2];
  if (!other) throw new Error('usage: node dist/bench/fold.js <other build>/dist/src/main.js');
  const dataset = await openDataset(DATA_DIR, DATASET, (line) => process.stderr.write(line + '\n'));
  const users = dataset.userIds;
  const settings = { databaseUrl: dataset.db.adminUrl, userId: users[0], timeZone: DATASET.timeZone, poolSize: 10, workerThreads: 2 };
  const postmaster = postmasterPid(join(DATA_DIR, 'pg'));
  const builds: Array<[string, string]> = [['this build', distPath('../../src/main.js')], ['other build', other]];
  const servers: Healthd[] = [];
  try {
    for (const [, main] of builds) {
      process.env.BENCH_HEALTHD_MAIN = main;
      servers.push(await startHealthd(settings, 1));
    }
    const { ninety } = benchRanges({ userId: users[0], endDay: dataset.endDay, timeZone: DATASET.timeZone, longRideUuid: dataset.longRideUuid });
    const headers = { authorization: `Bearer ${BENCH_TOKEN}` };
    // The demo leaves one user without a profile (a 404).
    const profiled: string[] = [];
    for (const user of users) if ((await fetch(`${servers[0].baseUrl}/v1/profile?user=${user}`, { headers })).status === 200) profiled.push(user);
    const listed = await fetch(`${servers[0].baseUrl}/v1/workouts?limit=30`, { headers }).then((r) => r.json() as Promise<{ workouts: Array<{ uuid: string }> }>);
    const cases: Array<[string, string[]]> = [
      [`/v1/profile, ${profiled.length} users in turn`, profiled.map((u) => `/v1/profile?user=${u}`)],
      [`/v1/metrics/latest (5 types), ${users.length} users in turn`, users.map((u) => `/v1/metrics/latest?types=${LATEST_TYPES.join(',')}&user=${u}`)],
      [`/v1/workouts, ${users.length} users in turn`, users.map((u) => `/v1/workouts?user=${u}`)],
      [`/v1/workouts/{uuid}, ${listed.workouts.length} workouts in turn`, listed.workouts.map((w) => `/v1/workouts/${w.uuid}`)],
      [`/v1/metrics/daily (5 types × 90 d), ${users.length} users in turn`, users.map((u) => `/v1/metrics/daily?types=${DAILY_TYPES.join(',')}&start=${ninety.start}&end=${ninety.end}&user=${u}`)],
      [`/v1/activity/summary (90 d), ${users.length} users in turn`, users.map((u) => `/v1/activity/summary?start=${ninety.start}&end=${ninety.end}&user=${u}`)],
      [`/v1/state-of-mind (90 d), ${users.length} users in turn`, users.map((u) => `/v1/state-of-mind?start=${ninety.start}&end=${ninety.end}&user=${u}`)],
    ];
    const lines = ['| Requests | build | req/s | CPU ms/req: server · PG | p99 ms |', '|---|---|---:|---:|---:|'];
    for (const [name, paths] of cases) {
      const runs: Measurement[][] = builds.map(() => []);
      for (let run = 0; run < RUNS; run++) {
        for (let b = 0; b < servers.length; b++) {
          const job = { url: servers[b].baseUrl, paths, connections: 10, headers, expectStatus: 200, serverPids: servers[b].processes.map((p) => p.pid), postmasterPid: postmaster };
          await httpLoad({ ...job, seconds: 1 });
          runs[b].push(await httpLoad({ ...job, seconds: SECONDS }));
        }
      }
      runs.forEach((measured, b) => {
        const m = medianOf(measured);
        if (m.errors > 0) throw new Error(`${name}, ${builds[b][0]}: ${m.errors} errors`);
        lines.push(`| ${name} | ${builds[b][0]} | ${Math.round(m.rps).toLocaleString('en')} | ${m.cpuMsPerRequest!.toFixed(3)} · ${m.pgCpuMsPerRequest!.toFixed(3)} | ${m.p99} |`);
      });
      const ratios = runs[0].map((m, i) => m.rps / runs[1][i].rps);
      lines.push(`| ${name} | ratio, run by run (median) | ${median(ratios).toFixed(2)} | | |`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    closeChildren();
    await dataset.db.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
