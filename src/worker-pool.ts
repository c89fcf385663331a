// The piscina pool for CPU-heavy work (series downsampling, GPX documents).
// Task functions are the named exports of workers/tasks.ts. The pool starts
// on its first task, so a server never asked for a long series or a GPX track
// holds no thread; the threads' lifetimes: WORKER_IDLE_MS (src/limits.ts).
import { Piscina } from 'piscina';
import { WORKER_IDLE_MS } from './limits.js';
import { describeError, log } from './log.js';

type RunOptions = Parameters<Piscina['run']>[1];

function startPiscina(threads: number): Piscina {
  const pool = new Piscina({
    filename: new URL('../workers/tasks.js', import.meta.url).href,
    minThreads: 1,
    maxThreads: threads,
    idleTimeout: WORKER_IDLE_MS,
    // piscina loads the task file with require() first. On Node 20.19+ that
    // loads ESM synchronously, and a worker terminated in the middle of it
    // (a stop right after start, while the first thread still loads) aborts
    // the whole process (SIGABRT: "v8::Module::IsGraphAsync must be used on
    // an instantiated module"). Without require(esm), piscina falls back to
    // import(), which a termination simply ends. Only this option: the
    // server's own (a V8 flag such as --max-old-space-size, which applies to
    // every thread anyway) would make Worker refuse to start.
    execArgv: ['--no-experimental-require-module'],
  });
  // A worker that dies is replaced by piscina; its task's promise rejects (→ 500).
  pool.on('error', (error) => log.error('worker pool error', describeError(error)));
  return pool;
}

export class WorkerPool {
  private pool: Piscina | null = null;
  private closed = false;

  constructor(private readonly maxThreads: number) {}

  /** Runs the task on a pool thread (the pool started now if this is its first); rejects once the pool is destroyed. */
  run(task: unknown, options: RunOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    this.pool ??= startPiscina(this.maxThreads);
    return this.pool.run(task, options);
  }

  /** Tasks completed so far. */
  get completed(): number {
    return this.pool?.completed ?? 0;
  }

  /** Threads running now (none before the first task). */
  get threads(): number {
    return this.pool?.threads.length ?? 0;
  }

  /** Ends the threads; tasks still queued reject. */
  async destroy(): Promise<void> {
    this.closed = true;
    await this.pool?.destroy();
  }
}

export function createWorkerPool(threads: number): WorkerPool {
  return new WorkerPool(threads);
}
