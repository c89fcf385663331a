// Servers under test as child processes: healthd (one or more processes on one
// port), and the baselines of bench/baselines/. Each is ready when it prints
// its listening line; its stderr tail is kept for the error message when it
// dies. Peak RSS comes from polling /proc/<pid>/status.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ServerProcess {
  pid: number;
  stop(): Promise<void>;
}

/** Node options for the healthd server alone (BENCH_HEALTHD_NODE_ARGS, space-separated: an A/B of a V8 flag, the baselines left as they are). */
const healthdNodeArgs = (script: string): string[] => (script === healthdMain() ? (process.env.BENCH_HEALTHD_NODE_ARGS ?? '').split(' ').filter(Boolean) : []);

export function startProcess(script: string, env: Record<string, string>, ready: RegExp, nodeArgs: string[] = []): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...healthdNodeArgs(script), script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not start within 30 s: ${stderr}`)), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const early = (code: number | null) => fail(new Error(`${script} exited ${code} before listening: ${stderr}`));
    child.once('exit', early);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (!ready.test(stdout)) return;
      clearTimeout(timer);
      child.removeListener('exit', early);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        pid: child.pid!,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

export const distPath = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/**
 * The healthd server a bench starts: this build's, or another build's
 * dist/src/main.js named by BENCH_HEALTHD_MAIN (an A/B against an older
 * commit on the same data, with this build's bench and baselines).
 */
export const healthdMain = (): string => process.env.BENCH_HEALTHD_MAIN ?? distPath('../../src/main.js');

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Polls the RSS of some processes every 100 ms; peak is the highest
 * single-process RSS seen since the last reset, or with `sum` the highest
 * total of them all (what a deployment of several processes holds).
 */
export class RssSampler {
  private peakKb = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pids: readonly number[],
    private readonly combine: 'max' | 'sum' = 'max',
  ) {
    this.timer = setInterval(() => this.sample(), 100);
  }

  private sample(): void {
    const kbs = this.pids.map((pid) => statusKb(pid, 'VmRSS'));
    this.peakKb = Math.max(this.peakKb, this.combine === 'sum' ? kbs.reduce((a, b) => a + b, 0) : Math.max(...kbs));
  }

  /** Peak RSS in MB since the last reset, then starts a new window. */
  takePeakMb(): number {
    this.sample();
    const mb = this.peakKb / 1024;
    this.peakKb = 0;
    return mb;
  }

  /** The kernel's lifetime high-water mark (VmHWM) of each process, MB. */
  highWaterMb(): number[] {
    return this.pids.map((pid) => statusKb(pid, 'VmHWM') / 1024);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
