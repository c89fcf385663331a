// Runs `npm run import`'s compiled CLI as a child process, with only the
// settings a test gives (none of the machine's SERVICE_* or DATABASE_URL), and
// reads back the per-type report it prints.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const IMPORT_CLI = join(process.cwd(), 'dist', 'src', 'import', 'cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function importCli(args: string[], env: Record<string, string>, onSpawn?: (kill: (signal?: NodeJS.Signals) => void) => void): Promise<CliRun> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL' && !key.startsWith('HEALTHD_') && key !== 'EMBEDDED_PG_PORT') base[key] = value;
  }
  const child = spawn(process.execPath, [IMPORT_CLI, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  onSpawn?.((signal = 'SIGKILL') => child.kill(signal));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

export interface ReportLine {
  what: string;
  records: number;
  skipped: number;
  /** Skip reasons and notes, with their counts. */
  reasons: Map<string, number>;
}

const count = (text: string) => Number(text.replace(/,/g, ''));

/** The report's table (`type  records  skipped  (reason: n; …)`), by type. */
export function reportLines(stdout: string): Map<string, ReportLine> {
  const lines = new Map<string, ReportLine>();
  const all = stdout.split('\n');
  const header = all.findIndex((line) => /^type\s+records\s+skipped$/.test(line));
  for (const line of all.slice(header + 1)) {
    const match = /^(\S.*?)\s{2,}([\d,]+)\s+([\d,]+)(?:\s+\((.*)\))?$/.exec(line);
    if (match === null) continue;
    const reasons = new Map<string, number>();
    for (const part of (match[4] ?? '').split('; ').filter((p) => p !== '')) {
      const colon = part.lastIndexOf(': ');
      reasons.set(part.slice(0, colon), count(part.slice(colon + 2)));
    }
    lines.set(match[1], { what: match[1], records: count(match[2]), skipped: count(match[3]), reasons });
  }
  return lines;
}
