// The worker pool's threads start whatever Node options the server runs
// with. They get one option of their own (src/worker-pool.ts: load the task
// file by import(), as a thread stopped while loading it by require() aborted
// the process); passing the server's options on as well would make Worker
// refuse to start whenever one is a V8 flag such as --max-old-space-size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const POOL = pathToFileURL(join(process.cwd(), 'dist', 'src', 'worker-pool.js')).href;

/** Downsamples 0..999 s to 3 points in a pool thread and prints the times; exits 1 with the error otherwise. */
const SCRIPT = `
import { createWorkerPool } from ${JSON.stringify(POOL)};
const pool = createWorkerPool(1);
const times = Float64Array.from({ length: 1000 }, (_, i) => i * 1000);
try {
  const [stream] = await pool.run({ streams: [{ times, values: times.slice() }], maxPoints: 3 }, { name: 'downsampleSeries' });
  console.log(JSON.stringify([...stream.times]));
} catch (error) {
  console.log('failed: ' + error.message);
  process.exitCode = 1;
}
await pool.destroy();
`;

for (const flags of [[], ['--max-old-space-size=512'], ['--max-semi-space-size=4', '--enable-source-maps']]) {
  test(`a pool thread runs its task when the server runs with ${flags.length ? flags.join(' ') : 'no options'}`, () => {
    const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', SCRIPT], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(run.stdout.trim(), '[0,499500,999000]');
  });
}

test('the pool starts its thread on its first task, keeps it, and refuses tasks once destroyed', async () => {
  const { createWorkerPool } = await import('../src/worker-pool.js');
  const pool = createWorkerPool(1);
  try {
    assert.equal(pool.threads, 0, 'no thread before a task');
    const times = Float64Array.from({ length: 1000 }, (_, i) => i * 1000);
    const [stream] = (await pool.run({ streams: [{ times, values: times.slice() }], maxPoints: 3 }, { name: 'downsampleSeries' })) as { times: Float64Array }[];
    assert.deepEqual([...stream.times], [0, 499_500, 999_000]);
    assert.equal(pool.threads, 1, 'the thread stays after its task');
    assert.equal(pool.completed, 1);
  } finally {
    await pool.destroy();
  }
  await assert.rejects(pool.run(null, { name: 'downsampleSeries' }), /the worker pool is closed/);
  assert.equal(pool.threads, 0);
});
