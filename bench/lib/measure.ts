// What one load run yields, whatever drove it (autocannon over HTTP, or the
// database loop without HTTP), and the median over runs.

export interface Measurement {
  /** Completed requests (or queries) per second. */
  rps: number;
  p50: number;
  p99: number;
  /** Socket errors, timeouts, and answers with a status other than the expected one. */
  errors: number;
  /** CPU of the system under test per request (all its threads), ms: the figure that stays honest on a shared machine. */
  cpuMsPerRequest?: number;
  /** PostgreSQL's CPU per request (the cluster's backends), ms. */
  pgCpuMsPerRequest?: number;
  /** The load generator's own CPU per request (autocannon parsing answers; for the bare pool it is the system under test), ms. */
  clientCpuMsPerRequest?: number;
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Each figure's median over the runs (errors: the sum). */
export function medianOf(runs: readonly Measurement[]): Measurement {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    ...(runs.every((r) => r.cpuMsPerRequest !== undefined) ? { cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest!)) } : {}),
    ...(runs.every((r) => r.pgCpuMsPerRequest !== undefined) ? { pgCpuMsPerRequest: median(runs.map((r) => r.pgCpuMsPerRequest!)) } : {}),
    ...(runs.every((r) => r.clientCpuMsPerRequest !== undefined) ? { clientCpuMsPerRequest: median(runs.map((r) => r.clientCpuMsPerRequest!)) } : {}),
  };
}
