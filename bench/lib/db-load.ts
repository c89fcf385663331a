// Forked generator: the database ceiling of one route — its own query functions
// through a pg pool (the server's pool settings and size), driven by as many
// concurrent loops as the HTTP bench has connections, for a fixed time.
import { performance } from 'node:perf_hooks';
import { createReadOnlyPool } from '../../src/db/pool.js';
import { runChild, serveJobs } from './child.js';
import { ceilings } from './db-ceilings.js';
import { median, type Measurement } from './measure.js';
import type { BenchContext } from './routes.js';

export interface DbLoadJob {
  databaseUrl: string;
  poolSize: number;
  concurrency: number;
  seconds: number;
  ctx: BenchContext;
  route: string;
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
  const ceiling = ceilings(job.ctx)[job.route];
  if (!ceiling) throw new Error(`no database ceiling for ${job.route}`);
  const pool = createReadOnlyPool({ connectionString: job.databaseUrl, max: job.poolSize, statementTimeoutMs: 30_000, connectTimeoutMs: 3_000, applicationName: 'bench-ceiling' });
  try {
    await drive(() => ceiling(pool), job.concurrency, 500); // open the connections, warm the plans
    const { latencies, errors, elapsed } = await drive(() => ceiling(pool), job.concurrency, job.seconds * 1000);
    latencies.sort((a, b) => a - b);
    return {
      rps: latencies.length / (elapsed / 1000),
      p50: median(latencies),
      p99: percentile(latencies, 99),
      errors,
    };
  } finally {
    await pool.end();
  }
}

serveJobs(import.meta.url, load);
