// Load generators run in processes of their own, so the bench's bookkeeping
// never shares an event loop with the load. Each generator script is forked
// once and kept (starting Node and autocannon for every run would cost the
// bench a minute); jobs go over the IPC channel, one at a time.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const children = new Map<string, ChildProcess>();

export function runChild<T>(script: string, job: object): Promise<T> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  let child = children.get(path);
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    child = fork(path, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.set(path, child);
  }
  const worker = child;
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${script} exited ${code} during a job`));
    worker.once('exit', onExit);
    worker.once('message', (raw) => {
      const message = raw as { result?: T; error?: string };
      worker.removeListener('exit', onExit);
      if (message.error !== undefined) reject(new Error(`${script}: ${message.error}`));
      else resolve(message.result as T);
    });
    worker.send(job);
  });
}

/** Ends the forked generators (they exit when their channel closes). */
export function closeChildren(): void {
  for (const child of children.values()) child.disconnect();
  children.clear();
}

/** Inside a forked generator: answers each job with `work(job)`. */
export function serveJobs<J, R>(moduleUrl: string, work: (job: J) => Promise<R>): void {
  if (process.argv[1] !== fileURLToPath(moduleUrl) || !process.send) return;
  process.on('message', (job) => {
    work(job as J).then(
      (result) => process.send!({ result }),
      (error: unknown) => process.send!({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
