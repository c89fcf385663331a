// Errors a test provokes on purpose still reach the log: a server process's
// log is captured by its test (support/server.ts), but a server run inside the
// test process writes to this process's stderr, which `npm test` prints. Such
// lines are labelled here, so a reader of the output tells them from real
// trouble, and the run's summary (support/summary-reporter.ts) counts them.

export const PROVOKED_LABEL = 'provoked on purpose';

/** Runs `work` with every line this process writes to stderr meanwhile labelled as provoked on purpose (`why`). */
export async function provokingErrors<T>(why: string, work: () => Promise<T>): Promise<T> {
  const original = process.stderr.write;
  const label = `[${PROVOKED_LABEL}: ${why}] `;
  process.stderr.write = function (this: NodeJS.WriteStream, chunk: string | Uint8Array, ...rest: unknown[]) {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return (original as (...args: unknown[]) => boolean).call(this, text.replace(/^(?=.)/gm, label), ...rest);
  } as typeof process.stderr.write;
  try {
    return await work();
  } finally {
    process.stderr.write = original;
  }
}
