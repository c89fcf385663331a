// Writes the generated parts of bench/RESULTS.md: machine, commands, and the
// tables of routes, baselines, connection sweep and process scaling. Only the
// text between a section's markers is replaced, so the hand-written analysis
// and the other benches' sections (import…) survive a new run.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { BareBaseline } from './bare-sql.js';
import type { Measurement } from './measure.js';
import type { BenchRoute } from './routes.js';

export interface RouteResult {
  route: BenchRoute;
  ours: Measurement;
  peakRssMb: number;
  fastify: Measurement | null;
  dbCeiling: Measurement | null;
  httpCeiling: Measurement;
}

export interface SweepRow {
  name: string;
  connections: number;
  result: Measurement;
}

export interface ScalingRow {
  route: BenchRoute;
  one: Measurement;
  two: Measurement;
  peakRssMb: number;
}

export interface BenchReport {
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; loadBefore: number[]; loadAfter: number[] };
  seconds: number;
  runs: number;
  connections: number;
  poolSize: number;
  workerThreads: number;
  dataset: { users: number; days: number; seed: number; timeZone: string; endDay: string; samples: number; generatedIn: number | null };
  results: RouteResult[];
  /** The bare-pool baselines' SQL, by route template. */
  baselineSql: Record<string, BareBaseline>;
  sweep: SweepRow[];
  scaling: ScalingRow[];
  missing: string[];
  wallSeconds: number;
}

const TARGET_BARE_POOL = 1.2;
const TARGET_FASTIFY = 1.5;
const TARGET_HTTP_CEILING = 0.7;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
// autocannon reports whole milliseconds: 0 means under one.
const ms = (n: number) => (n === 0 ? '<1' : n < 10 ? n.toFixed(1) : n.toFixed(0));
const ratio = (n: number) => n.toFixed(2);
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
const msCpu = (n: number | undefined) => (n === undefined ? '–' : n < 0.1 ? n.toFixed(3) : n.toFixed(2));
const cpu = (m: Measurement | null | undefined) => msCpu(m?.cpuMsPerRequest);
/** Server · PostgreSQL · load generator CPU per request. */
const cpus = (m: Measurement | null | undefined) => `${msCpu(m?.cpuMsPerRequest)} · ${msCpu(m?.pgCpuMsPerRequest)} · ${msCpu(m?.clientCpuMsPerRequest)}`;

function targets(r: RouteResult): string {
  if (r.dbCeiling && r.fastify) {
    const bare = r.ours.rps / r.dbCeiling.rps;
    const fastify = r.ours.rps / r.fastify.rps;
    return `≥ ${TARGET_BARE_POOL}× bare pool: ${mark(bare >= TARGET_BARE_POOL)}; ≥ ${TARGET_FASTIFY}× Fastify: ${mark(fastify >= TARGET_FASTIFY)}`;
  }
  const target = r.route.httpTarget ?? TARGET_HTTP_CEILING;
  return `≥ ${target} HTTP: ${mark(r.ours.rps / r.httpCeiling.rps >= target)}`;
}

export function renderRoutes(report: BenchReport): string {
  const { machine, dataset } = report;
  const lines: string[] = [];
  const generated = dataset.generatedIn === null ? 'reused from bench/data/demo/' : `generated in ${dataset.generatedIn} s`;
  lines.push(
    '## Machine, commands, settings',
    '',
    `- Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb.toFixed(0)} GB RAM, Node ${machine.node}; server, PostgreSQL and the load generators share these cores (nothing pinned). Load average (1, 5, 15 min) at the start ${machine.loadBefore.map((l) => l.toFixed(1)).join(', ')}, at the end of the route runs ${machine.loadAfter.map((l) => l.toFixed(1)).join(', ')}: above ~3 other work was running and the figures are noisier.`,
    `- Command: \`npm run bench\` (= \`npm run build --silent && node dist/bench/run.js\`; \`BENCH_SECONDS\` and \`BENCH_RUNS\` override the run length and count). Route part of this run: ${int(report.wallSeconds)} s.`,
    `- Dataset: ${dataset.users} users × ${dataset.days} days (heavy demo scale, seed ${dataset.seed}, ${dataset.timeZone}, ending ${dataset.endDay}): ${int(dataset.samples)} samples, ${generated}; plus one 3 h ride with four 1 Hz streams for the series route. healthd, Fastify and the bare pool all reach its embedded cluster through the same Unix socket (since 2026-11-24; loopback TCP before).`,
    `- Each figure: median of ${report.runs} runs of ${report.seconds} s (after a 1 s warm-up), ${report.connections} connections, each load generator (autocannon, or the database loop) in its own process. healthd: 1 process, DB_POOL_SIZE=${report.poolSize}, WORKER_THREADS=${report.workerThreads}, TRUST_PROXY_HEADERS=true (the 401 row gives every request its own X-Forwarded-For address, so it measures 401s rather than the throttle's 429s). × HTTP ceiling of the routes without a database: the hello-world measured run by run beside the route with the same client (the same headers; for the 401 row also one X-Forwarded-For per request, which slows autocannon itself).`,
    '- Baselines, measured in the same run, runs interleaved (healthd, Fastify, bare pool, healthd, …): **HTTP ceiling** — a uWS hello-world answering /healthz\'s body (bench/baselines/uws-hello.ts); **bare pool** — the cheapest SQL that yields the route\'s rows (below), each statement prepared once per session (healthd prepares its fixed statements: the baseline does as well), through a bare `pg.Pool` with `rowMode: \'array\'` in its own process, the same pool size, as many concurrent loops as connections, no HTTP (bench/lib/bare-sql.ts, bench/lib/db-load.ts); **Fastify + pg** — the peer a Node developer would write: plain SQL (unnamed statements), rows as objects shaped into the same JSON (checked equal at start), fast-json-stringify from the same TypeBox response schemas (bench/baselines/fastify.ts; its summary route reads its rows the same way and hands them to healthd\'s summary builder; until 2026-11-24 21:00Z it read through healthd\'s own summary reader).',
    '- Targets (issue 12): every JSON route ≥ 1.2× its bare-pool baseline and ≥ 1.5× Fastify + pg; /healthz ≥ 0.9 and a 401 ≥ 0.8 of the hello-world; the warm catalog ≥ 0.7 (earlier target). Server CPU ms per request: `/proc/<pid>/task/*/schedstat` of the server process summed over its threads across each measured run (what `process.cpuUsage()` reports inside it), divided by the requests answered.',
    '- Errors: socket errors, timeouts and answers with another status than the row expects. Peak RSS: highest VmRSS of the server process polled every 100 ms during the route\'s runs.',
    '',
    `## Routes (1 process, ${report.connections} connections)`,
    '',
    '| Route | req/s | p50 ms | p99 ms | errors | peak RSS MB | CPU ms/req: server · PG · autocannon | × HTTP ceiling | × bare pool | × Fastify | targets |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const r of report.results) {
    lines.push(
      `| ${r.route.name} | ${int(r.ours.rps)} | ${ms(r.ours.p50)} | ${ms(r.ours.p99)} | ${r.ours.errors} | ${r.peakRssMb.toFixed(0)} | ${cpus(r.ours)} | ${ratio(r.ours.rps / r.httpCeiling.rps)} | ` +
        `${r.dbCeiling ? ratio(r.ours.rps / r.dbCeiling.rps) : '–'} | ${r.fastify ? ratio(r.ours.rps / r.fastify.rps) : '–'} | ${targets(r)} |`,
    );
  }
  const http = report.results[0]?.httpCeiling;
  lines.push('', '### Baselines', '');
  if (http) lines.push(`HTTP ceiling (uWS hello-world): ${int(http.rps)} req/s, p50 ${ms(http.p50)} ms, p99 ${ms(http.p99)} ms, ${http.errors} errors, ${cpu(http)} ms CPU per request.`, '');
  lines.push(
    'CPU ms per request, median of the runs: the process under test (all its threads; for the bare pool the load process itself, which holds the pool), PostgreSQL (the cluster\'s backends, including those of other users of the cluster during the run) and the load generator (autocannon parsing the answers). On 2 shared cores the three add up to what a request costs the machine: the bare pool pays no HTTP and no autocannon.',
    '',
    '| Route | bare pool queries/s | p50 ms | p99 ms | bare pool CPU ms/req: pool · PG | Fastify req/s | p50 ms | p99 ms | Fastify CPU ms/req: server · PG · autocannon | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const r of report.results.filter((x) => x.dbCeiling && x.fastify)) {
    lines.push(
      `| ${r.route.name} | ${int(r.dbCeiling!.rps)} | ${ms(r.dbCeiling!.p50)} | ${ms(r.dbCeiling!.p99)} | ${cpu(r.dbCeiling)} · ${msCpu(r.dbCeiling!.pgCpuMsPerRequest)} | ${int(r.fastify!.rps)} | ${ms(r.fastify!.p50)} | ${ms(r.fastify!.p99)} | ${cpus(r.fastify)} | ${r.dbCeiling!.errors + r.fastify!.errors} |`,
    );
  }
  lines.push('', '### The bare-pool baselines\' SQL', '', 'Each request of a baseline runs these statements (concurrently where the route runs them so), rows as arrays, through `new pg.Pool` of the server\'s size (bench/lib/bare-sql.ts).', '');
  const seen = new Set<string>();
  for (const r of report.results.filter((x) => x.dbCeiling)) {
    if (seen.has(r.route.route)) continue;
    seen.add(r.route.route);
    const baseline = report.baselineSql[r.route.route];
    if (!baseline) continue;
    lines.push(`${r.route.route}${baseline.concurrent ? ' (statements run concurrently)' : ''}:`, '', '```sql', ...baseline.statements.map((st) => `${st.sql.trim()};`), '```', '');
  }
  if (report.missing.length > 0) {
    lines.push('', `Not measured, because the route is not registered yet in src/routes/all.ts: ${report.missing.join(', ')} (the bench measures it as soon as it is).`);
  }

  const levels = [...new Set(report.sweep.map((s) => s.connections))];
  const names = [...new Set(report.sweep.map((s) => s.name))];
  lines.push('', '## Connections: how p99 grows (1 process)', '', `| Route | ${[report.connections, ...levels].map((c) => `${c} conn. req/s · p99 ms`).join(' | ')} |`, `|---|${[report.connections, ...levels].map(() => '---:').join('|')}|`);
  for (const name of names) {
    const at10 = name.startsWith('HTTP ceiling') ? http : report.results.find((r) => r.route.name === name)?.ours;
    const cells = [at10, ...levels.map((c) => report.sweep.find((s) => s.name === name && s.connections === c)?.result)];
    lines.push(`| ${name} | ${cells.map((m) => (m ? `${int(m.rps)} · ${ms(m.p99)}${m.errors ? ` (${m.errors} errors)` : ''}` : '–')).join(' | ')} |`);
  }

  lines.push(
    '',
    `## Scaling: 1 vs 2 healthd processes on one port (${report.connections} connections)`,
    '',
    '| Route | 1 process req/s · p99 ms | 2 processes req/s · p99 ms | 2 ÷ 1 | peak RSS per process MB |',
    '|---|---:|---:|---:|---:|',
  );
  for (const s of report.scaling) {
    lines.push(`| ${s.route.name} | ${int(s.one.rps)} · ${ms(s.one.p99)} | ${int(s.two.rps)} · ${ms(s.two.p99)} | ${ratio(s.two.rps / s.one.rps)} | ${s.peakRssMb.toFixed(0)} |`);
  }
  return lines.join('\n');
}

const SKELETON = `# Benchmarks

Run with \`npm run bench\`. The sections between \`bench:…\` markers are
written by the bench; the rest (the analysis, other benches' sections) is
kept across runs.
`;

/** Replaces the text between the markers of `section` (appending them the first time). */
export async function writeSection(file: string, section: string, markdown: string): Promise<void> {
  const begin = `<!-- bench:${section}:begin (generated by npm run bench; edits here are overwritten) -->`;
  const end = `<!-- bench:${section}:end -->`;
  let text = existsSync(file) ? await readFile(file, 'utf8') : SKELETON;
  if (!text.includes(begin) || !text.includes(end)) text = `${text.trimEnd()}\n\n${begin}\n${end}\n`;
  const before = text.slice(0, text.indexOf(begin) + begin.length);
  const after = text.slice(text.indexOf(end));
  await writeFile(file, `${before}\n${markdown.trim()}\n${after}`);
}
