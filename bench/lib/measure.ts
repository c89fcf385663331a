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
  };
}
