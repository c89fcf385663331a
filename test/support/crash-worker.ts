// Piscina tasks that fail on purpose, run on the service's own worker pool
// (piscina's per-task `filename`) by test/faults.test.ts: the production task
// file holds no fault switch, and these run only where a test asks for them.

/** Throws inside the task. */
export function throwInTask(): never {
  throw new Error('worker task failed on purpose');
}

/** Ends the worker thread (process.exit in a worker stops only that thread). */
export function exitThread(): Promise<never> {
  process.exit(3);
}

/** Throws outside any task, which kills the thread; the task never settles by itself. */
export function crashThread(): Promise<never> {
  setImmediate(() => {
    throw new Error('uncaught in worker, on purpose');
  });
  return new Promise<never>(() => {});
}
