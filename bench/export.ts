// Export and summary bench (issue 4), on a throwaway embedded cluster holding
// one heavy user: 31 days of 1 Hz heart rate (2,678,400 rows, inserted with
// INSERT … SELECT generate_series) plus 120 days of daily aggregates, rings,
// sleep, workouts and body readings.
//
// 1. Throughput of a 31-day `samples` export (curl → /dev/null), CSV and
//    JSONL, side by side with psql on the same database (→ /dev/null), runs
//    alternating which goes first; MB/s and rows/s, median of the runs.
//    Target: healthd ≥ 0.8 × psql. CSV against `\copy (<the same query>) to
//    stdout with csv`. psql has no JSONL, so JSONL is held against two: rows/s
//    against that same CSV \copy (the same rows fetched and written), and MB/s
//    against a \copy of row_to_json over the same query, which writes the very
//    JSON lines healthd does (same bytes: checked by size in every run).
// 2. Server RSS during the same export to a client reading at 1 MB/s, for a
//    shorter stretch than the full 1 GB (the rate and memory are steady state;
//    the stretch is printed). Target: peak < 200 MB.
// 3. /v1/summary?range=90d p50 latency with autocannon (1 and 10 connections),
//    median of the runs.
//
// Usage: npm run build && node dist/bench/export.js [--profile] [--keep]
//   --profile  runs the server under node --cpu-prof and prints where its CPU went
//   --keep     keeps (and on the next run reuses) the cluster in .tmp/bench-export
// Env: EXPORT_BENCH_RUNS (3), EXPORT_BENCH_SLOW_MB (150), EXPORT_BENCH_SUMMARY_SECONDS (10).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { SLEEP_ANALYSIS } from '../src/core/registry.js';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { summarizeProfile } from './lib/cpu-profile.js';
import { clusterCpuMs, processCpuMs } from './lib/cpu.js';
import { healthdMain, RssSampler, startProcess, type ServerProcess } from './lib/processes.js';

const RUNS = Number(process.env.EXPORT_BENCH_RUNS ?? 3);
const SLOW_MB = Number(process.env.EXPORT_BENCH_SLOW_MB ?? 150);
const SLOW_RATE = 1_000_000;
const SUMMARY_SECONDS = Number(process.env.EXPORT_BENCH_SUMMARY_SECONDS ?? 10);
const PROFILE = process.argv.includes('--profile');
const KEEP = process.argv.includes('--keep');

const ZONE = 'Europe/Berlin';
const USER = '00000000-0000-4000-8000-0000000000be';
const TOKEN = 'bench-token-0123456789abcdef';
const HEART = 'HKQuantityTypeIdentifierHeartRate';
const DAY = 86_400_000;
const ROWS = 31 * 86_400;
const DIR = join(process.cwd(), '.tmp', 'bench-export');
const MARKER = join(DIR, 'seeded');
const PROFILE_DIR = join(process.cwd(), '.tmp', 'bench-export-profile');

/**
 * The psql baseline: the cheapest SQL that yields the samples file's rows and
 * columns — one ordered walk of the samples (user_id, type_id, start_ms, uuid)
 * index, the source name looked up per row in one jsonb object of the sources
 * table (PostgreSQL spent 5.3–5.5 s on the 31-day file with a primary-key probe
 * per row instead, 3.3–3.4 s with this; measured 2026-11-24).
 */
const CHEAPEST_SAMPLES_SQL = `SELECT s.uuid, s.start_ms, s.end_ms, s.value, names.by_id ->> s.source_id::text AS source
  FROM samples s, (SELECT jsonb_object_agg(source_id, name) AS by_id FROM sources) AS names
  WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
  ORDER BY s.start_ms, s.uuid`;

const log = (line: string) => process.stderr.write(line + '\n');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** Midnight UTC 40 days ago: the heart-rate month ends before today. */
const T0 = Math.floor(Date.now() / DAY) * DAY - 40 * DAY;

async function seed(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  const type = (identifier: string) => `(SELECT type_id FROM sample_types WHERE identifier = '${identifier}')`;
  const started = Date.now();
  try {
    await q(`INSERT INTO settings VALUES ('time_zone', $1)`, [ZONE]);
    await q(`INSERT INTO users VALUES ($1, 0)`, [USER]);
    await q(`INSERT INTO profiles (user_id, name) VALUES ($1, 'Heavy Bench')`, [USER]);
    await q(`INSERT INTO upload_batches SELECT $1, $2::bigint + i::bigint * 3600000, 500 FROM generate_series(0, 999) i`, [USER, T0]);
    const quantities = ['HeartRate', 'StepCount', 'ActiveEnergyBurned', 'AppleExerciseTime', 'RestingHeartRate', 'HeartRateVariabilitySDNN', 'BodyMass', 'BodyFatPercentage', 'DistanceWalkingRunning', 'FlightsClimbed', 'OxygenSaturation', 'RespiratoryRate'];
    await q(`INSERT INTO sample_types (identifier) SELECT unnest($1::text[])`, [[...quantities.map((n) => 'HKQuantityTypeIdentifier' + n), SLEEP_ANALYSIS]]);
    await q(`INSERT INTO sources (name, device) VALUES ('Apple Watch', 'Watch7,1'), ('iPhone', 'iPhone16,1')`);
    log(`seed: ${ROWS} heart-rate rows at 1 Hz …`);
    await q(
      `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
       SELECT $1, gen_random_uuid(), ${type(HEART)}, $2::bigint + i * 1000, $2::bigint + i * 1000 + 1000, 55 + (i % 61) * 0.5, 1
       FROM generate_series(0::bigint, $3 - 1) AS i`,
      [USER, T0, ROWS],
    );
    const days = `generate_series(0, 119) AS d`;
    const today = `(now() AT TIME ZONE '${ZONE}')::date`;
    await q(
      `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg, min, max)
       SELECT $1, t.type_id, ${today} - d,
              CASE WHEN t.identifier ~ '(StepCount|ActiveEnergy|Exercise|Distance|Flights)' THEN 1000 + d * 3.5 END,
              CASE WHEN t.identifier !~ '(StepCount|ActiveEnergy|Exercise|Distance|Flights)' THEN 40 + d % 13 END, 1, 100
       FROM ${days} CROSS JOIN sample_types t WHERE t.identifier LIKE 'HKQuantity%'`,
      [USER],
    );
    await q(`INSERT INTO activity_summaries SELECT $1, ${today} - d, 500 + d, 600, 30 + d % 9, 30, 10 + d % 4, 12, NULL, NULL, 1 FROM ${days}`, [USER]);
    // A night per day from two sources: 24 stage samples of 20 min (core, deep, rem), the phone in bed throughout.
    await q(
      `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
       SELECT $1::uuid, gen_random_uuid(), ${type(SLEEP_ANALYSIS)}, night + k * 1200000, night + (k + 1) * 1200000, 3 + k % 3, 1
       FROM (SELECT extract(epoch FROM (${today} - d)::timestamp AT TIME ZONE '${ZONE}')::bigint * 1000 - 7200000 AS night FROM ${days}) n, generate_series(0, 23) k
       UNION ALL
       SELECT $1::uuid, gen_random_uuid(), ${type(SLEEP_ANALYSIS)}, night, night + 8 * 3600000, 0, 2
       FROM (SELECT extract(epoch FROM (${today} - d)::timestamp AT TIME ZONE '${ZONE}')::bigint * 1000 - 7200000 AS night FROM ${days}) n`,
      [USER],
    );
    await q(
      `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal)
       SELECT $1, gen_random_uuid(), (ARRAY['running','cycling','walking','yoga','swimming'])[1 + i % 5], $2::bigint - i::bigint * 43200000, $2::bigint - i::bigint * 43200000 + 2400000, 2400, CASE WHEN i % 5 < 3 THEN 5000 + i END, 300
       FROM generate_series(1, 240) i`,
      [USER, Date.now()],
    );
    await q(
      `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
       SELECT $1::uuid, gen_random_uuid(), ${type('HKQuantityTypeIdentifierBodyMass')}, $2::bigint - i::bigint * 86400000, $2::bigint - i::bigint * 86400000, 70 + (i % 10) * 0.1, 2 FROM generate_series(1, 120) i
       UNION ALL
       SELECT $1::uuid, gen_random_uuid(), ${type('HKQuantityTypeIdentifierBodyFatPercentage')}, $2::bigint - i::bigint * 86400000, $2::bigint - i::bigint * 86400000, 0.2 + (i % 10) * 0.001, 2 FROM generate_series(1, 120) i`,
      [USER, Date.now()],
    );
    await q('VACUUM ANALYZE');
    await q('CHECKPOINT');
  } finally {
    await client.end();
  }
  log(`seed: done in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Runs a command under /usr/bin/time: its wall time and its own CPU (user + system), ms. */
function run(command: string, args: string[], stdout: 'ignore' | 'pipe' = 'ignore'): Promise<{ code: number | null; out: string; seconds: number; cpuMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args], { stdio: ['ignore', stdout, 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    child.stderr!.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => {
      if (code !== 0) log(`${command} exited ${code}: ${err.slice(0, 500)}`);
      const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(err);
      resolve({ code, out, seconds: (performance.now() - started) / 1000, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN });
    });
  });
}

/** Bytes of psql's output for the query, counted once (the timed runs write to /dev/null), and the seconds that took. */
function countedPsql(url: string, copy: string): Promise<Timed> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('/usr/bin/psql', [url, '-c', copy], { stdio: ['ignore', 'pipe', 'inherit'] });
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.on('exit', () => resolve({ bytes, seconds: (performance.now() - started) / 1000 }));
  });
}

/** Reads an export at `rate` bytes/s until `limit` bytes, then hangs up; resolves with the bytes read. */
function slowClient(port: number, path: string, rate: number, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const started = performance.now();
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes >= limit) return socket.destroy();
      const aheadMs = (bytes / rate) * 1000 - (performance.now() - started);
      if (aheadMs > 0) {
        socket.pause();
        setTimeout(() => socket.resume(), aheadMs);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(bytes));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
  });
}

type ExportFormat = 'csv' | 'jsonl';
type Contender = `${'healthd' | 'psql'} ${ExportFormat}`;

/** One export run: bytes written, the wall time, and the CPU it took (ms): the server's, PostgreSQL's, the client's. */
interface Timed {
  bytes: number;
  seconds: number;
  cpu?: { server: number; postgres: number; client: number };
}

interface AutocannonResult {
  latency: { p50: number; p99: number };
  requests: { average: number };
  non2xx: number;
  errors: number;
}

async function main(): Promise<void> {
  const reuse = KEEP && existsSync(MARKER);
  if (!reuse) await rm(DIR, { recursive: true, force: true });
  const db = await startEmbeddedDatabase({ dir: DIR, unsafeFast: true });
  let server: ServerProcess | null = null;
  try {
    if (!reuse) {
      await applyMigrations(db.adminUrl);
      await seed(db.adminUrl);
      await writeFile(MARKER, `${T0}\n`);
    } else {
      await applyMigrations(db.adminUrl, () => {});
      log('seed: reusing .tmp/bench-export');
    }
    const client = new pg.Client({ connectionString: db.adminUrl });
    await client.connect();
    const { rows } = await client.query<{ type_id: number; first: number; n: number }>(
      `SELECT type_id, (SELECT min(start_ms) FROM samples WHERE user_id = $1 AND type_id = t.type_id)::float8 AS first,
              (SELECT count(*) FROM samples WHERE user_id = $1 AND type_id = t.type_id)::int AS n
       FROM sample_types t WHERE identifier = $2`,
      [USER, HEART],
    );
    await client.end();
    const [{ type_id: typeId, first, n }] = rows;
    const start = first;
    const end = first + 31 * DAY;

    if (PROFILE) {
      await rm(PROFILE_DIR, { recursive: true, force: true });
      await mkdir(PROFILE_DIR, { recursive: true });
    }
    const port = await freePort();
    server = await startProcess(
      healthdMain(),
      { DATABASE_URL: db.adminUrl, SERVICE_API_TOKEN: TOKEN, SERVICE_USER_ID: USER, SERVICE_TIME_ZONE: ZONE, SERVICE_PORT: String(port), SERVICE_MCP_PORT: 'off', WORKER_THREADS: '2', DB_POOL_SIZE: '10' },
      /listening on http:\/\/[^:]+:\d+/,
      PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
    );
    const base = `http://127.0.0.1:${port}`;
    const rss = new RssSampler([server.pid]);
    const exportPath = (format: ExportFormat) => `/v1/export?format=${format}&dataset=samples&type=${HEART}&start=${start}&end=${end}`;
    const exportQuery = CHEAPEST_SAMPLES_SQL.replace(/\s+/g, ' ')
      .replace('$1', `'${USER}'`)
      .replace('$2', String(typeId))
      .replace('$3', String(start))
      .replace('$4', String(end));
    // The export's query plus the constant cells the encoder adds (type, unit, label).
    const cells = `SELECT '${HEART}' AS type, 'count/min' AS unit, e.uuid, e.start_ms AS start, e.end_ms AS "end", e.value, NULL AS label, e.source FROM (${exportQuery}) AS e`;
    const copies: Record<ExportFormat, string> = {
      // The same file but for LF line ends.
      csv: `\\copy (${cells}) to stdout with csv header`,
      // row_to_json writes the members in column order with no spaces, as the
      // encoder does. COPY's text format would double every backslash of a JSON
      // escape, and plain csv would quote each line; csv with a delimiter and a
      // quote character that JSON text never holds raw writes the line as is.
      jsonl: `\\copy (SELECT row_to_json(j) FROM (${cells}) AS j) to stdout with (format csv, delimiter E'\\x1f', quote E'\\x1e')`,
    };

    log(`throughput: ${RUNS} runs of a ${n}-row export as CSV and JSONL, healthd and psql alternating`);
    const counted = { csv: await countedPsql(db.adminUrl, copies.csv), jsonl: await countedPsql(db.adminUrl, copies.jsonl) };
    const idleMb = rss.takePeakMb();
    const runs: Record<Contender, Timed[]> = { 'healthd csv': [], 'psql csv': [], 'healthd jsonl': [], 'psql jsonl': [] };
    let fastPeakMb = 0;
    const postmaster = Number(readFileSync(join(DIR, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const timed = async (who: Contender): Promise<Timed> => {
      const [system, format] = who.split(' ') as ['healthd' | 'psql', ExportFormat];
      const pgBefore = clusterCpuMs(postmaster);
      if (system === 'psql') {
        const result = await run('/usr/bin/psql', [db.adminUrl, '-c', copies[format]]);
        return { bytes: counted[format].bytes, seconds: result.seconds, cpu: { server: 0, postgres: clusterCpuMs(postmaster) - pgBefore, client: result.cpuMs } };
      }
      rss.takePeakMb();
      const serverBefore = processCpuMs(server!.pid);
      const result = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{size_download} %{time_total}', '-H', `Authorization: Bearer ${TOKEN}`, base + exportPath(format)], 'pipe');
      const cpu = { server: processCpuMs(server!.pid) - serverBefore, postgres: clusterCpuMs(postmaster) - pgBefore, client: result.cpuMs };
      fastPeakMb = Math.max(fastPeakMb, rss.takePeakMb());
      const [bytes, seconds] = result.out.split(' ').map(Number);
      return { bytes, seconds, cpu };
    };
    const pairs: [Contender, Contender][] = [['healthd csv', 'psql csv'], ['healthd jsonl', 'psql jsonl']];
    for (let i = 0; i < RUNS; i++) {
      for (const pair of pairs) {
        for (const who of i % 2 === 0 ? pair : [...pair].reverse()) {
          const result = await timed(who);
          runs[who].push(result);
          log(`  ${who.padEnd(13)} ${fmt(result.bytes / 1e6)} MB in ${fmt(result.seconds, 2)} s`);
        }
      }
    }
    const cpuPerGb = (who: Contender, part: 'server' | 'postgres' | 'client' | 'total') =>
      median(runs[who].map((r) => (part === 'total' ? r.cpu!.server + r.cpu!.postgres + r.cpu!.client : r.cpu![part]) / 1000 / (r.bytes / 1e9)));
    const cpuText = (who: Contender) =>
      `CPU per GB ${fmt(cpuPerGb(who, 'total'), 2)} s (${who.startsWith('healthd') ? `server ${fmt(cpuPerGb(who, 'server'), 2)} s, ` : ''}PostgreSQL ${fmt(cpuPerGb(who, 'postgres'), 2)} s, ${who.startsWith('healthd') ? 'curl' : 'psql'} ${fmt(cpuPerGb(who, 'client'), 2)} s)`;
    const rate = (who: Contender) => ({
      mbs: median(runs[who].map((r) => r.bytes / 1e6 / r.seconds)),
      rows: median(runs[who].map((r) => n / r.seconds)),
      mb: fmt(runs[who][0].bytes / 1e6),
      seconds: runs[who].map((r) => fmt(r.seconds, 2)).join(', '),
    });
    const jsonlSeconds = counted.jsonl.seconds + [...runs['healthd jsonl'], ...runs['psql jsonl']].reduce((sum, r) => sum + r.seconds, 0);
    const sameJsonBytes = runs['healthd jsonl'].every((r) => r.bytes === counted.jsonl.bytes);

    const slowLimit = SLOW_MB * 1e6;
    log(`slow client: ${SLOW_MB} MB at ${SLOW_RATE / 1e6} MB/s (${Math.round(slowLimit / SLOW_RATE)} s) …`);
    rss.takePeakMb();
    const rssSamples: number[] = [];
    const sampler = setInterval(() => rssSamples.push(rss.takePeakMb()), 5_000);
    const slowStarted = performance.now();
    const slowBytes = await slowClient(port, exportPath('csv'), SLOW_RATE, slowLimit);
    clearInterval(sampler);
    rssSamples.push(rss.takePeakMb());
    const slowSeconds = (performance.now() - slowStarted) / 1000;

    const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;
    const summaryRuns: Record<string, { p50: number[]; p99: number[]; rps: number[] }> = {};
    for (const [format, connections] of [['json', 1], ['markdown', 1], ['json', 10]] as const) {
      const key = `${format}, ${connections} connection${connections === 1 ? '' : 's'}`;
      summaryRuns[key] = { p50: [], p99: [], rps: [] };
      for (let i = 0; i < RUNS; i++) {
        const result = await autocannon({ url: `${base}/v1/summary?range=90d&format=${format}`, connections, duration: SUMMARY_SECONDS, headers: { authorization: `Bearer ${TOKEN}` } });
        if (result.non2xx || result.errors) throw new Error(`summary run failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
        summaryRuns[key].p50.push(result.latency.p50);
        summaryRuns[key].p99.push(result.latency.p99);
        summaryRuns[key].rps.push(result.requests.average);
        log(`  summary ${key}: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${fmt(result.requests.average)} req/s`);
      }
    }
    const summaryPeakMb = rss.takePeakMb();
    const [hwm] = rss.highWaterMb();
    rss.stop();
    await server.stop();
    server = null;

    const csv = { ours: rate('healthd csv'), psql: rate('psql csv') };
    const jsonl = { ours: rate('healthd jsonl'), psql: rate('psql jsonl') };
    const verdict = (ratio: number) => (ratio >= 1.0 ? 'met' : '**missed**');
    const csvRowsRatio = csv.ours.rows / csv.psql.rows;
    const cpuRatio = { csv: cpuPerGb('healthd csv', 'total') / cpuPerGb('psql csv', 'total'), jsonl: cpuPerGb('healthd jsonl', 'total') / cpuPerGb('psql jsonl', 'total') };
    const mbsRatio = { csv: csv.ours.mbs / csv.psql.mbs, jsonl: jsonl.ours.mbs / jsonl.psql.mbs };
    const jsonlRowsRatio = jsonl.ours.rows / csv.psql.rows;
    const figures = (r: ReturnType<typeof rate>) => `**${fmt(r.mbs)} MB/s, ${Math.round(r.rows).toLocaleString('en')} rows/s** (${r.mb} MB)`;
    const lines = [
      `## Export and summary (bench/export.ts)`,
      '',
      `- Command: \`npm run build && node dist/bench/export.js${PROFILE ? ' --profile' : ''}\` (EXPORT_BENCH_RUNS=${RUNS}, EXPORT_BENCH_SLOW_MB=${SLOW_MB}, EXPORT_BENCH_SUMMARY_SECONDS=${SUMMARY_SECONDS}).`,
      `- Data: one user, ${n.toLocaleString('en')} heart-rate rows at 1 Hz over 31 days, 120 days of daily aggregates (12 types), rings, nights (25 samples, 2 sources), 240 workouts, body readings; zone ${ZONE}. Embedded PostgreSQL, fsync off. healthd: WORKER_THREADS=2, DB_POOL_SIZE=10.`,
      `- Throughput, 31-day \`samples\` CSV export, median of ${RUNS}: healthd (curl -o /dev/null) ${figures(csv.ours)}; psql \`\\copy (the cheapest SQL yielding the file's rows and columns: one ordered walk of the samples index, the source name looked up per row in one jsonb object of the sources table) to stdout with csv header\` (> /dev/null; the same bytes but LF line ends) ${figures(csv.psql)}. Ratio MB/s **${fmt(mbsRatio.csv, 2)}**, rows/s **${fmt(csvRowsRatio, 2)}**, target ≥ 1.0: ${verdict(Math.min(mbsRatio.csv, csvRowsRatio))}. Runs: healthd ${csv.ours.seconds} s; psql ${csv.psql.seconds} s. ${cpuText('healthd csv')} against psql's ${cpuText('psql csv')}: **${fmt(cpuRatio.csv, 2)}×** its CPU for the same file.`,
      `- Throughput, the same rows as JSONL (\`format=jsonl\`), median of ${RUNS}, runs alternating with the CSV ones: healthd ${figures(jsonl.ours)}; psql \`\\copy (SELECT row_to_json(j) FROM (same query) j) to stdout with (format csv, delimiter E'\\x1f', quote E'\\x1e')\` ${figures(jsonl.psql)}, ${sameJsonBytes ? 'the same number of bytes as healthd in every run' : '**not the same number of bytes as healthd**'} (row_to_json writes healthd's JSON lines; csv with control characters as delimiter and quote, which JSON text never holds raw, leaves each line as it is, where COPY's text format would double the backslash of every JSON escape). Ratio MB/s against that JSON \\copy **${fmt(mbsRatio.jsonl, 2)}**; rows/s against the CSV \\copy of the same query (psql has no JSONL: the same rows fetched and written) **${fmt(jsonlRowsRatio, 2)}**; target ≥ 1.0: ${verdict(Math.min(mbsRatio.jsonl, jsonlRowsRatio))}. ${cpuText('healthd jsonl')} against psql's JSON ${cpuText('psql jsonl')}: **${fmt(cpuRatio.jsonl, 2)}×**. Runs: healthd ${jsonl.ours.seconds} s; psql ${jsonl.psql.seconds} s. JSONL part of this bench: ${fmt(jsonlSeconds, 0)} s.`,
      `- Server RSS: idle ${fmt(idleMb, 0)} MB; peak during the fast exports ${fmt(fastPeakMb, 0)} MB; during ${fmt(slowBytes / 1e6, 0)} MB read at ${SLOW_RATE / 1e6} MB/s (${fmt(slowSeconds, 0)} s), peak per 5 s window: ${rssSamples.map((mb) => fmt(mb, 0)).join(', ')} MB → peak **${fmt(Math.max(...rssSamples), 0)} MB** (target < 150 MB: ${Math.max(fastPeakMb, ...rssSamples) < 150 ? 'met' : '**missed**'}). Flat over the stretch, so a full 1 GB at 1 MB/s (17 min) is expected to stay there: the export holds a socket read of COPY data and a few 64 KB chunks, whatever its length. Lifetime VmHWM ${fmt(hwm, 0)} MB (summary runs peak ${fmt(summaryPeakMb, 0)} MB).`,
      ...Object.entries(summaryRuns).map(
        ([key, r]) => `- /v1/summary?range=90d (${key}), autocannon ${SUMMARY_SECONDS} s × ${RUNS}: p50 **${median(r.p50)} ms**, p99 ${median(r.p99)} ms, ${fmt(median(r.rps))} req/s (p50 runs: ${r.p50.join(', ')} ms).`,
      ),
    ];
    process.stdout.write(lines.join('\n') + '\n');

    if (PROFILE) {
      for (const file of (await readdir(PROFILE_DIR)).filter((f) => f.endsWith('.cpuprofile'))) {
        const profile = await summarizeProfile(join(PROFILE_DIR, file), 15);
        if (profile.busy < 0.01) continue;
        process.stdout.write(`\n### CPU profile ${file}: ${fmt(profile.totalMs / 1000)} s, busy ${fmt(profile.busy * 100)} %\n`);
        for (const area of profile.areas) process.stdout.write(`- ${fmt(area.share * 100)} % ${area.name}\n`);
        process.stdout.write('Top functions (share of busy time):\n');
        for (const fn of profile.functions) process.stdout.write(`- ${fmt(fn.share * 100)} % ${fn.name}\n`);
      }
    }
  } finally {
    await server?.stop();
    await db.stop();
    if (!KEEP) await rm(DIR, { recursive: true, force: true });
  }
}

main().catch((error) => {
  log(String(error?.stack ?? error));
  process.exit(1);
});
