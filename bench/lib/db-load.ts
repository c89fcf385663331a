// Forked generator: the bare-pool baseline of one route — the cheapest SQL
// yielding its rows (bench/lib/bare-sql.ts) through a bare pg.Pool with
// rowMode 'array', the server's pool size, driven by as many concurrent loops
// as the HTTP bench has connections, for a fixed time. Its own CPU per
// request (process.cpuUsage of this process) comes back with the figures.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { bareBaselines, runBare } from './bare-sql.js';
import type { BenchContext } from './routes.js';
import { runChild, serveJobs } from './child.js';
import { clusterCpuMs } from './cpu.js';
import { median, type Measurement } from './measure.js';

export interface DbLoadJob {
  databaseUrl: string;
  poolSize: number;
  concurrency: number;
  seconds: number;
  ctx: BenchContext;
  route: string;
  postmasterPid?: number;
}

export const dbLoad = (job: DbLoadJob): Promise<Measurement> => runChild<Measurement>('./db-load.js', job);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function drive(query: () => Promise<unknown>, concurrency: number, ms: number): Promise<{ latencies: number[]; errors: number; elapsed: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const endAt = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < endAt) {
        const t0 = performance.now();
        try {
          await query();
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies, errors, elapsed: performance.now() - started };
}

async function load(job: DbLoadJob): Promise<Measurement> {
  const baseline = bareBaselines(job.ctx)[job.route];
  if (!baseline) throw new Error(`no bare-pool baseline for ${job.route}`);
  const pool = new pg.Pool({ connectionString: job.databaseUrl, max: job.poolSize, application_name: 'bench-bare-pool' });
  try {
    await drive(() => runBare(pool, baseline), job.concurrency, 500); // open the connections, warm the plans
    const cpu = process.cpuUsage();
    const pgBefore = job.postmasterPid ? clusterCpuMs(job.postmasterPid) : 0;
    const { latencies, errors, elapsed } = await drive(() => runBare(pool, baseline), job.concurrency, job.seconds * 1000);
    const used = process.cpuUsage(cpu);
    latencies.sort((a, b) => a - b);
    return {
      rps: latencies.length / (elapsed / 1000),
      p50: median(latencies),
      p99: percentile(latencies, 99),
      errors,
      cpuMsPerRequest: (used.user + used.system) / 1000 / Math.max(1, latencies.length),
      ...(job.postmasterPid ? { pgCpuMsPerRequest: (clusterCpuMs(job.postmasterPid) - pgBefore) / Math.max(1, latencies.length) } : {}),
    };
  } finally {
    await pool.end();
  }
}

serveJobs(import.meta.url, load);
