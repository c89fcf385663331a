// The last lines of `npm test`, for a person: how many tests ran, passed,
// failed and were skipped, how long it took, the slowest files, which tests
// failed (with their files), and how many log lines were errors the tests
// provoked on purpose (labelled by support/provoked.ts) or other stderr
// output. The closing line is the plain `healthd: N passed, N failed`.
// A node:test reporter; test/run.ts adds it after the usual one.
import { basename } from 'node:path';
import { PROVOKED_LABEL } from './provoked.js';

interface TestEvent {
  type: string;
  data: {
    file?: string;
    name?: string;
    nesting?: number;
    message?: string;
    details?: { duration_ms?: number; type?: string; error?: { message?: string } };
  };
}

const SLOWEST = 5;

const fileName = (file: string | undefined) => (file ? basename(file).replace(/\.test\.[cm]?[jt]s$/, '') : '(runner)');

/** Seconds (one decimal below ten), or minutes and seconds: 0.3 s, 42 s, 3 min 46 s. */
export function spokenSeconds(ms: number): string {
  if (ms < 9_950) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

export default async function* summaryReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const totals = new Map<string, number>();
  const files = new Map<string, number>();
  const failures: string[] = [];
  const provoked = new Map<string, number>();
  const otherStderr = new Map<string, number>();
  const count = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n);

  for await (const { type, data } of source) {
    if (type === 'test:diagnostic' && data.file === undefined && data.nesting === 0) {
      // The runner's own totals: "tests 325", "pass 323", "duration_ms 219713.4"…
      const match = /^(\w+) ([\d.]+)$/.exec(data.message ?? '');
      if (match) totals.set(match[1], Number(match[2]));
    } else if (type === 'test:complete' && data.name === data.file && data.file) {
      files.set(fileName(data.file), data.details?.duration_ms ?? 0);
    } else if (type === 'test:fail' && data.details?.type !== 'suite') {
      failures.push(`${fileName(data.file)}: ${data.name}${data.details?.error?.message ? ` — ${data.details.error.message.split('\n')[0].slice(0, 160)}` : ''}`);
    } else if (type === 'test:stderr') {
      const lines = (data.message ?? '').split('\n').filter((line) => line.trim() !== '');
      const labelled = lines.filter((line) => line.includes(`[${PROVOKED_LABEL}`)).length;
      if (labelled) count(provoked, fileName(data.file), labelled);
      if (lines.length > labelled) count(otherStderr, fileName(data.file), lines.length - labelled);
    }
  }

  const n = (key: string) => totals.get(key) ?? 0;
  const slowest = [...files].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST).map(([file, ms]) => `${file} ${spokenSeconds(ms)}`);
  const perFile = (map: Map<string, number>) => [...map].map(([file, lines]) => `${file} ${lines}`).join(', ');
  const lines = [
    '',
    '── healthd test summary ──',
    `${n('tests')} tests in ${files.size} files: ${n('pass')} passed, ${n('fail')} failed, ${n('skipped') + n('todo')} skipped, ${n('cancelled')} cancelled; ${spokenSeconds(n('duration_ms'))}`,
    `slowest files: ${slowest.join(', ') || 'none'}`,
  ];
  const provokedLines = [...provoked.values()].reduce((a, b) => a + b, 0);
  if (provokedLines) lines.push(`errors provoked on purpose: ${provokedLines} log line${provokedLines === 1 ? '' : 's'} labelled "${PROVOKED_LABEL}" (${perFile(provoked)}); they are expected`);
  if (otherStderr.size) lines.push(`other stderr output (lines per file): ${perFile(otherStderr)}`);
  if (failures.length) lines.push('failed:', ...failures.map((f) => `  ✗ ${f}`));
  lines.push(`healthd: ${n('pass')} passed, ${n('fail')} failed${n('skipped') ? `, ${n('skipped')} skipped` : ''}`, '');
  yield lines.join('\n');
}
