// The export figures come from bench/export.ts (issue 4's bench: its own
// cluster with one heavy user, a 31-day samples export as CSV and as JSONL
// against psql `\copy` of the same query, and server RSS under a client
// reading at 1 MB/s).
// It runs as a child with its working directory in bench/data/export, so its
// cluster (.tmp/bench-export there, kept with --keep) is reused between runs
// and never shared with anyone else's. Shortened to fit `npm run bench`: a
// 20 MB stretch at 1 MB/s for the RSS, 1 s summary runs (measured here anyway).
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { distPath } from './processes.js';

const EXPORT_ENV = { EXPORT_BENCH_SLOW_MB: '20', EXPORT_BENCH_SUMMARY_SECONDS: '1' };

/** The markdown bench/export.js prints, or an explanation when it failed. */
export async function exportSection(workDir: string, log: (line: string) => void): Promise<string> {
  await mkdir(workDir, { recursive: true });
  const script = distPath('../export.js');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, '--keep'], { cwd: workDir, env: { ...process.env, ...EXPORT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk).slice(-4000);
      for (const line of String(chunk).trim().split('\n')) log(`export: ${line}`);
    });
    child.on('error', (error) => resolve(`## Export\n\nbench/export.js could not run: ${error.message}`));
    child.on('exit', (code) => {
      const command = `(cd bench/data/export && ${Object.entries(EXPORT_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} node ../../../dist/bench/export.js --keep)`;
      if (code === 0) resolve(`${out.trim()}\n- Run by \`npm run bench\` as ${command}.`);
      else resolve(`## Export\n\nbench/export.js exited ${code}; its last words:\n\n\`\`\`\n${err.trim()}\n\`\`\``);
    });
  });
}
