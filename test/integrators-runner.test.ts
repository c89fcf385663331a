// Issue 15, point 8: `npm test` ends with a short summary for a person, and
// errors a test provokes on purpose are labelled as such. The summary
// reporter runs here over three small test files of its own (one passes and
// logs an error on purpose, one fails, one writes to stderr unlabelled): the
// counts, the failure with its file, the slowest files and the labelled lines
// come out, and the closing line is the plain `healthd: N passed, N failed`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SUPPORT = join(process.cwd(), 'dist', 'test', 'support');

test('the summary counts, names failures and slow files, and labels provoked errors; real failures still fail the run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'healthd-summary-'));
  try {
    const provoked = new URL(`file://${join(SUPPORT, 'provoked.js')}`).href;
    writeFileSync(
      join(dir, 'calm.test.mjs'),
      `import { test } from 'node:test';
import { provokingErrors } from '${provoked}';
test('logs an error on purpose', async () => { await provokingErrors('a fault drill', async () => { process.stderr.write('{"level":"error","msg":"request failed"}\\n'); }); });
test('waits a little', async () => { await new Promise((r) => setTimeout(r, 1000)); });`,
    );
    writeFileSync(join(dir, 'broken.test.mjs'), `import { test } from 'node:test';\ntest('adds up', () => { throw new Error('1 + 1 is not 3'); });\ntest('fine', () => {});`);
    writeFileSync(join(dir, 'noisy.test.mjs'), `import { test } from 'node:test';\ntest('talks', () => { process.stderr.write('a warning nobody asked for\\n'); });`);
    const child = spawn(
      process.execPath,
      ['--test', `--test-reporter=${join(SUPPORT, 'summary-reporter.js')}`, '--test-reporter-destination=stdout', ...['calm', 'broken', 'noisy'].map((f) => join(dir, `${f}.test.mjs`))],
      // Without the outer runner's context, or the child would report to it instead of running on its own.
      { stdio: ['ignore', 'pipe', 'pipe'], env: Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_TEST_CONTEXT')) },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 1, 'a failing test still fails the run');
    const lines = output.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'healthd: 4 passed, 1 failed');
    assert.match(output, /── healthd test summary ──\n5 tests in 3 files: 4 passed, 1 failed, 0 skipped, 0 cancelled; [\d.]+ s\n/);
    // The three files, longest first; calm waits 1 s (which of them is slowest is the machine's to say: starting a file can take longer).
    const slowest = /slowest files: (\w+) ([\d.]+) s, (\w+) ([\d.]+) s, (\w+) ([\d.]+) s\n/.exec(output);
    assert.ok(slowest, output);
    const files = [1, 3, 5].map((i) => ({ name: slowest[i], seconds: Number(slowest[i + 1]) }));
    assert.deepEqual(files.map((f) => f.name).sort(), ['broken', 'calm', 'noisy']);
    assert.deepEqual(files.map((f) => f.seconds), files.map((f) => f.seconds).sort((a, b) => b - a), 'longest first');
    assert.ok(files.find((f) => f.name === 'calm')!.seconds >= 1, 'calm took its 1 s wait');
    assert.match(output, /errors provoked on purpose: 1 log line labelled "provoked on purpose" \(calm 1\); they are expected\n/);
    assert.match(output, /other stderr output \(lines per file\): noisy 1\n/);
    assert.match(output, /failed:\n {2}✗ broken: adds up — 1 \+ 1 is not 3\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
