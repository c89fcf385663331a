// The piscina pool for CPU-heavy work (series downsampling, GPX
// documents). Task functions are the named exports of workers/tasks.ts.
// One thread always; more start when tasks wait and stop when idle (WORKER_IDLE_MS).
import { Piscina } from 'piscina';
import { WORKER_IDLE_MS } from './limits.js';
import { describeError, log } from './log.js';

export function createWorkerPool(threads: number): Piscina {
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
