// Forked generator: drives one URL with autocannon for a fixed time and answers
// with a Measurement. `uniqueForwardedFor` gives each request its own X-Forwarded-For
// address, so the failed-auth bench measures 401s rather than the throttle's
// 429s (the server runs with TRUST_PROXY_HEADERS=true).
import { createRequire } from 'node:module';
import { runChild, serveJobs } from './child.js';
import { clusterCpuMs, processCpuMs } from './cpu.js';
import type { Measurement } from './measure.js';

export interface HttpLoadJob {
  url: string;
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  expectStatus: number;
  uniqueForwardedFor?: boolean;
  /** Paths (and queries) asked in turn on url's host, in place of url's own: requests that differ. */
  paths?: string[];
  /** Server processes whose CPU the run reports (per request, all their threads). */
  serverPids?: number[];
  /** The PostgreSQL cluster's postmaster, whose CPU (with its backends') the run reports per request. */
  postmasterPid?: number;
}

interface AutocannonResult {
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

export const httpLoad = (job: HttpLoadJob): Promise<Measurement> => runChild<Measurement>('./http-load.js', job);

async function load(job: HttpLoadJob): Promise<Measurement> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  let n = 0;
  const paths = job.paths;
  const requests = job.uniqueForwardedFor
    ? [{ setupRequest: (request: { headers: Record<string, string> }) => {
        n++;
        request.headers = { ...job.headers, 'x-forwarded-for': `bench-client-${n}` };
        return request;
      } }]
    : paths
      ? [{ setupRequest: (request: { path: string }) => {
          request.path = paths[n++ % paths.length];
          return request;
        } }]
      : undefined;
  const cpuBefore = (job.serverPids ?? []).map(processCpuMs);
  const pgBefore = job.postmasterPid ? clusterCpuMs(job.postmasterPid) : 0;
  const ownBefore = process.cpuUsage();
  const result = await autocannon({ url: job.url, connections: job.connections, duration: job.seconds, headers: job.headers, requests, timeout: 10 });
  const ok = result.statusCodeStats[String(job.expectStatus)]?.count ?? 0;
  const answered = Object.values(result.statusCodeStats).reduce((sum, s) => sum + s.count, 0);
  const cpuMs = (job.serverPids ?? []).reduce((sum, pid, i) => sum + processCpuMs(pid) - cpuBefore[i], 0);
  const pgMs = job.postmasterPid ? clusterCpuMs(job.postmasterPid) - pgBefore : 0;
  const own = process.cpuUsage(ownBefore);
  return {
    ...(job.postmasterPid ? { pgCpuMsPerRequest: pgMs / Math.max(1, answered) } : {}),
    clientCpuMsPerRequest: (own.user + own.system) / 1000 / Math.max(1, answered),
    ...(job.serverPids?.length ? { cpuMsPerRequest: cpuMs / Math.max(1, answered) } : {}),
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + (answered - ok),
  };
}

serveJobs(import.meta.url, load);
