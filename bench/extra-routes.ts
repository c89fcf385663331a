// The four routes `npm run bench` leaves out of its main table — latest
// metrics, activity rings, workout detail, mood entries — measured the same way
// on the same dataset (one healthd process, autocannon in its own process,
// median of runs after a warm-up) against each route's database ceiling from
// bench/lib/db-ceilings.ts, runs interleaved as bench/run.ts does, printed as a
// Markdown section for bench/RESULTS.md.
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { closeChildren } from './lib/child.js';
import { LATEST_TYPES, type CeilingContext } from './lib/db-ceilings.js';
import { DATASET, openDataset } from './lib/dataset.js';
import { dbLoad } from './lib/db-load.js';
import { httpLoad } from './lib/http-load.js';
import { medianOf, type Measurement } from './lib/measure.js';
import { benchRanges, type BenchContext, type BenchRoute } from './lib/routes.js';
import { BENCH_TOKEN, startHealthd, type Healthd, type SystemSettings } from './lib/systems.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = 10;
const POOL_SIZE = 10;
const WORKER_THREADS = 2;
const DATA_DIR = fileURLToPath(new URL('../../bench/data/demo', import.meta.url));
const HEADERS = { authorization: `Bearer ${BENCH_TOKEN}` };

const log = (line: string) => process.stderr.write(`${line}\n`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
// autocannon reports whole milliseconds: 0 means under one.
const ms = (n: number) => (n === 0 ? '<1' : n < 10 ? n.toFixed(1) : n.toFixed(0));
const loads = (l: number[]) => l.map((x) => x.toFixed(1)).join(', ');

interface Row {
  route: BenchRoute;
  /** What one answer holds: its size and the length of its list. */
  body: string;
  result: Measurement;
  dbCeiling: Measurement;
  peakRssMb: number;
}

/** One checked request: status 200 and a JSON body. */
async function probe(baseUrl: string, path: string): Promise<{ json: unknown; bytes: number }> {
  const response = await fetch(baseUrl + path, { headers: HEADERS });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: expected 200, got ${response.status} ${text.slice(0, 200)}`);
  return { json: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

/** A workout of the bench user other than the long ride the series bench reads. */
async function ordinaryWorkout(baseUrl: string, ctx: BenchContext): Promise<string> {
  const { json } = await probe(baseUrl, '/v1/workouts?limit=5');
  const uuid = (json as { workouts: { uuid: string }[] }).workouts.map((w) => w.uuid).find((u) => u.toLowerCase() !== ctx.longRideUuid.toLowerCase());
  if (!uuid) throw new Error('the bench user has no workout besides the long ride');
  return uuid;
}

function extraRoutes(ctx: BenchContext, workoutUuid: string): BenchRoute[] {
  const { ninety } = benchRanges(ctx);
  const route = (name: string, template: string, path: string): BenchRoute => ({ name, route: template, path, auth: 'token', expectStatus: 200, database: true });
  return [
    route('/v1/metrics/latest (5 types)', '/v1/metrics/latest', `/v1/metrics/latest?types=${LATEST_TYPES.join(',')}`),
    route('/v1/activity/summary (90 d)', '/v1/activity/summary', `/v1/activity/summary?start=${ninety.start}&end=${ninety.end}`),
    route('/v1/workouts/{uuid}', '/v1/workouts/{uuid}', `/v1/workouts/${workoutUuid}`),
    route('/v1/state-of-mind (90 d)', '/v1/state-of-mind', `/v1/state-of-mind?start=${ninety.start}&end=${ninety.end}`),
  ];
}

function describeBody(json: unknown, bytes: number): string {
  const lists = Object.entries(json as Record<string, unknown>).filter(([, v]) => Array.isArray(v)) as [string, unknown[]][];
  const size = bytes < 10_000 ? `${int(bytes)} B` : `${(bytes / 1024).toFixed(0)} KB`;
  return lists.length === 1 && ['metrics', 'days', 'entries'].includes(lists[0][0]) ? `${size}, ${lists[0][1].length} ${lists[0][0]}` : size;
}

/** healthd and the route's database ceiling, run by run in turn (the noise falls on both). */
async function measure(healthd: Healthd, route: BenchRoute, databaseUrl: string, ctx: CeilingContext): Promise<{ result: Measurement; dbCeiling: Measurement; peakRssMb: number }> {
  const job = (seconds: number) => ({ url: healthd.baseUrl + route.path, connections: CONNECTIONS, seconds, headers: HEADERS, expectStatus: route.expectStatus });
  await httpLoad(job(1)); // warm-up, not counted
  healthd.rss.takePeakMb();
  const runs: Measurement[] = [];
  const db: Measurement[] = [];
  let peakRssMb = 0;
  for (let run = 0; run < RUNS; run++) {
    runs.push(await httpLoad(job(SECONDS)));
    peakRssMb = Math.max(peakRssMb, healthd.rss.takePeakMb());
    db.push(await dbLoad({ databaseUrl, poolSize: POOL_SIZE, concurrency: CONNECTIONS, seconds: SECONDS, ctx, route: route.route }));
  }
  return { result: medianOf(runs), dbCeiling: medianOf(db), peakRssMb };
}

function render(rows: Row[], loadBefore: number[], loadAfter: number[], samples: number): string {
  const cpu = cpus();
  return [
    `- Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, Node ${process.version}; server, PostgreSQL and autocannon share these cores (nothing pinned).`,
    `- Command: \`cd /work/main && npx tsc -p . && node dist/bench/extra-routes.js\` (\`BENCH_SECONDS\` and \`BENCH_RUNS\` override the run length and count).`,
    `- Dataset: bench/data/demo/ (${int(samples)} samples, ${DATASET.users} users × ${DATASET.days} days, ${DATASET.timeZone}); requests as the first demo user; 90 d = the 90 local days ending on the dataset's last day, as in the main table.`,
    `- Each figure: median of ${RUNS} runs of ${SECONDS} s after a 1 s warm-up, ${CONNECTIONS} connections, autocannon in its own process. healthd: 1 process, DB_POOL_SIZE=${POOL_SIZE}, WORKER_THREADS=${WORKER_THREADS}. Errors: socket errors, timeouts and non-200 answers, summed over the runs. Peak RSS: highest VmRSS of the server process during the measured runs.`,
    `- DB ceiling: the route's own query functions from src/db/queries/ through a pg pool of the same size, ${CONNECTIONS} concurrent loops, no HTTP (bench/lib/db-ceilings.ts), in its own process; its runs alternate with healthd's (healthd, ceiling, healthd, …).`,
    `- Load average (1, 5, 15 min) at the start ${loads(loadBefore)}, at the end ${loads(loadAfter)}.`,
    '',
    '| Route | answer | req/s | p50 ms | p99 ms | errors | peak RSS MB | × DB ceiling | target |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => {
      const ratio = r.result.rps / r.dbCeiling.rps;
      return `| ${r.route.name} | ${r.body} | ${int(r.result.rps)} | ${ms(r.result.p50)} | ${ms(r.result.p99)} | ${r.result.errors} | ${r.peakRssMb.toFixed(0)} | ${ratio.toFixed(2)} | ≥ 0.8 DB: ${ratio >= 0.8 ? 'met' : '**missed**'} |`;
    }),
    '',
    '| Route | DB ceiling queries/s | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.route.name} | ${int(r.dbCeiling.rps)} | ${ms(r.dbCeiling.p50)} | ${ms(r.dbCeiling.p99)} | ${r.dbCeiling.errors} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const dataset = await openDataset(DATA_DIR, DATASET, log);
  const ctx: BenchContext = { userId: dataset.userIds[0], endDay: dataset.endDay, timeZone: DATASET.timeZone, longRideUuid: dataset.longRideUuid };
  const settings: SystemSettings = { databaseUrl: dataset.db.adminUrl, userId: ctx.userId, timeZone: ctx.timeZone, poolSize: POOL_SIZE, workerThreads: WORKER_THREADS };
  const rows: Row[] = [];
  let healthd: Healthd | undefined;
  try {
    healthd = await startHealthd(settings, 1);
    const workoutUuid = await ordinaryWorkout(healthd.baseUrl, ctx);
    const ceilingCtx: CeilingContext = { ...ctx, detailWorkoutUuid: workoutUuid };
    for (const route of extraRoutes(ctx, workoutUuid)) {
      const { json, bytes } = await probe(healthd.baseUrl, route.path);
      const { result, dbCeiling, peakRssMb } = await measure(healthd, route, settings.databaseUrl, ceilingCtx);
      rows.push({ route, body: describeBody(json, bytes), result, dbCeiling, peakRssMb });
      log(`extra-routes: ${route.name}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms; DB ceiling ${dbCeiling.rps.toFixed(0)} queries/s`);
    }
  } finally {
    closeChildren();
    await healthd?.stop();
    await dataset.db.stop();
  }
  process.stdout.write(render(rows, loadBefore, loadavg(), dataset.samples) + '\n');
}

main().catch((error: unknown) => {
  log(`extra-routes failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
