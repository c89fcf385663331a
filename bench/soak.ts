// Soak (issue 7): does an unattended healthd keep working under sustained load?
// One server on its own demo cluster (bench/data/soak/), a mix of every data
// route for two users, two exports running back to back the whole time, and
// clients hanging up at random. First the maximum request rate of the mix is
// measured (with the exports and hang-ups already running), then the mix runs
// at a fraction of it (default 80 %) for --minutes, in windows: per window the
// rate achieved, p50/p99 and statuses; RSS sampled every 2 s. Pass: zero 5xx,
// RSS growth under 10 % after warm-up (the first third), p99 stable, and a
// clean SIGTERM (exit 0) with every pool session idle and no export slot held.
// Run after `npx tsc -p .`:
//   node dist/bench/soak.js --minutes 10 [--fraction 0.8] [--connections 16]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { dayAfter, dayStartMs, localDayOf } from '../src/core/local-days.js';
import { freePort, startEmbeddedDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { demoUserId, generateDemo } from '../src/demo/generate.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    fraction: { type: 'string', default: '0.8' },
    connections: { type: 'string', default: '16' },
    'measure-seconds': { type: 'string', default: '20' },
  },
});
const MINUTES = Number(args.minutes);
const FRACTION = Number(args.fraction);
const CONNECTIONS = Number(args.connections);
const MEASURE_SECONDS = Number(args['measure-seconds']);
/** Windows of a minute; shorter runs get four windows so warm-up is one of several. */
const WINDOW_SECONDS = Math.min(60, Math.max(10, Math.round((MINUTES * 60) / 4)));
const WINDOWS = Math.max(2, Math.round((MINUTES * 60) / WINDOW_SECONDS));

const TOKEN = 'soak-token-0123456789abcdef';
const DATA_DIR = fileURLToPath(new URL('../../bench/data/soak', import.meta.url));
const DATASET = { users: 2, days: 90, seed: 23, timeZone: 'Europe/Berlin' };
const DAY_MS = 86_400_000;

const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface AutocannonResult {
  latency: { p50: number; p99: number; p99_9?: number; max: number };
  duration: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// ---- the dataset, generated once -----------------------------------------

async function openDataset(): Promise<{ adminUrl: string; endDay: string; stop(): Promise<void> }> {
  const markerFile = `${DATA_DIR}/dataset.json`;
  const marker = existsSync(markerFile) ? JSON.parse(await readFile(markerFile, 'utf8')) : null;
  const reuse = marker && JSON.stringify(marker.params) === JSON.stringify(DATASET);
  if (!reuse && existsSync(DATA_DIR)) {
    const { rm } = await import('node:fs/promises');
    await rm(DATA_DIR, { recursive: true, force: true });
  }
  const db = await startEmbeddedDatabase({ dir: DATA_DIR, unsafeFast: true, log });
  if (reuse) return { adminUrl: db.adminUrl, endDay: marker.endDay, stop: db.stop };
  await applyMigrations(db.adminUrl);
  const endDay = localDayOf(Date.now(), DATASET.timeZone);
  log(`generating ${DATASET.users} users × ${DATASET.days} days (once)`);
  const result = await generateDemo(db.adminUrl, { ...DATASET, endDay, log });
  await writeFile(markerFile, JSON.stringify({ params: DATASET, endDay, samples: result.samples }) + '\n');
  log(`${result.samples} samples in ${Math.round(result.seconds)} s`);
  return { adminUrl: db.adminUrl, endDay, stop: db.stop };
}

// ---- the server ---------------------------------------------------------------

interface Server {
  pid: number;
  port: number;
  errorLines(): string[];
  stop(): Promise<{ code: number | null; ms: number }>;
}

async function startServer(databaseUrl: string, userId: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(new URL('../src/main.js', import.meta.url))], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SERVICE_API_TOKEN: TOKEN,
      SERVICE_USER_ID: userId,
      SERVICE_MULTI_USER: 'true',
      SERVICE_TIME_ZONE: DATASET.timeZone,
      SERVICE_PORT: String(port),
      SERVICE_MCP_PORT: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.includes('"level":"error"')) errors.push(line);
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`healthd exited ${code} before listening`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    pid: child.pid!,
    port,
    errorLines: () => errors,
    async stop() {
      const t = Date.now();
      child.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(60_000).then(() => 'hung' as const)]);
      if (code === 'hung') {
        child.kill('SIGKILL');
        return { code: null, ms: Date.now() - t };
      }
      return { code, ms: Date.now() - t };
    },
  };
}

function rssMb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

// ---- what the clients ask -------------------------------------------------------

async function requestMix(adminUrl: string, userIds: string[], endDay: string): Promise<{ json: string[]; exports: string[] }> {
  const zone = DATASET.timeZone;
  const dayBefore = (n: number) => {
    const date = new Date(`${endDay}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() - n);
    return date.toISOString().slice(0, 10);
  };
  const end = dayStartMs(dayAfter(endDay), zone);
  const start30 = dayStartMs(dayBefore(29), zone);
  const oneDay = dayStartMs(dayBefore(3), zone);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const json: string[] = [];
  const exports: string[] = [];
  try {
    for (const user of userIds) {
      const { rows } = await client.query<{ uuid: string }>(`SELECT uuid::text FROM workouts WHERE user_id = $1 ORDER BY start_ms DESC LIMIT 3`, [user]);
      const u = `user=${user}`;
      json.push(
        `/v1/users?${u}`,
        `/v1/profile?${u}`,
        `/v1/catalog/types?${u}`,
        `/v1/metrics/latest?types=HKQuantityTypeIdentifierHeartRate,HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierBodyMass&${u}`,
        `/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierActiveEnergyBurned,HKQuantityTypeIdentifierRestingHeartRate&start=${start30}&end=${end}&${u}`,
        `/v1/activity/summary?start=${start30}&end=${end}&${u}`,
        `/v1/workouts?${u}`,
        ...rows.flatMap((w) => [`/v1/workouts/${w.uuid}?${u}`, `/v1/workouts/${w.uuid}/series?${u}`]),
        `/v1/sleep/daily?start=${start30}&end=${end}&${u}`,
        `/v1/samples?type=HKQuantityTypeIdentifierHeartRate&start=${oneDay}&end=${oneDay + DAY_MS}&limit=500&${u}`,
        `/v1/state-of-mind?start=${start30}&end=${end}&${u}`,
        `/v1/summary?range=7d&format=json&${u}`,
        `/v1/summary?range=30d&format=markdown&${u}`,
        '/healthz',
      );
      exports.push(
        `/v1/export?format=csv&dataset=samples&type=HKQuantityTypeIdentifierHeartRate&start=${end - 31 * DAY_MS}&end=${end}&${u}`,
        `/v1/export?format=jsonl&dataset=daily_metrics&types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierHeartRate&start=${end - 90 * DAY_MS}&end=${end}&${u}`,
        `/v1/export?format=csv&dataset=sleep&start=${start30}&end=${end}&${u}`,
        `/v1/export?format=jsonl&dataset=workouts&start=${end - 90 * DAY_MS}&end=${end}&${u}`,
      );
    }
  } finally {
    await client.end();
  }
  return { json, exports };
}

// ---- background traffic: two exports, random hang-ups -----------------------------

interface Background {
  exports: { done: number; bytes: number; statuses: Record<string, number>; cutOff: number };
  hangUps: number;
  stop(): Promise<void>;
}

async function downloadOnce(port: number, path: string): Promise<{ status: number; bytes: number; clean: boolean }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  let bytes = 0;
  try {
    for await (const chunk of response.body!) bytes += (chunk as Uint8Array).byteLength;
    return { status: response.status, bytes, clean: true };
  } catch {
    return { status: response.status, bytes, clean: false };
  }
}

function hangUp(port: number, path: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.on('error', done);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`, () => setTimeout(done, afterMs));
  });
}

function startBackground(port: number, mix: { json: string[]; exports: string[] }): Background {
  let running = true;
  const exports = { done: 0, bytes: 0, statuses: {} as Record<string, number>, cutOff: 0 };
  const loops = [0, 1].map(async (lane) => {
    for (let i = lane; running; i += 2) {
      const result = await downloadOnce(port, mix.exports[i % mix.exports.length]).catch(() => ({ status: 0, bytes: 0, clean: false }));
      exports.done++;
      exports.bytes += result.bytes;
      exports.statuses[result.status] = (exports.statuses[result.status] ?? 0) + 1;
      if (!result.clean) exports.cutOff++;
      if (result.status !== 200) await sleep(1_000);
    }
  });
  const background: Background = {
    exports,
    hangUps: 0,
    async stop() {
      running = false;
      await Promise.all([...loops, hangUps]);
    },
  };
  const hangUps = (async () => {
    while (running) {
      const path = mix.json[Math.floor(Math.random() * mix.json.length)];
      void hangUp(port, path, Math.floor(Math.random() * 30));
      background.hangUps++;
      await sleep(20 + Math.random() * 80);
    }
  })();
  return background;
}

// ---- load --------------------------------------------------------------------

interface Window {
  second: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
  errors: number;
  rssMb: number;
}

async function drive(port: number, paths: string[], seconds: number, rate?: number): Promise<AutocannonResult> {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    headers: { authorization: `Bearer ${TOKEN}` },
    requests: paths.map((path) => ({ method: 'GET', path })),
    ...(rate ? { overallRate: rate } : {}),
  });
}

const statusCounts = (r: AutocannonResult) => Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
const count = (r: AutocannonResult, pick: (code: number) => boolean) =>
  Object.entries(r.statusCodeStats).reduce((sum, [code, s]) => sum + (pick(Number(code)) ? s.count : 0), 0);

async function main(): Promise<void> {
  const dataset = await openDataset();
  const userIds = Array.from({ length: DATASET.users }, (_, i) => demoUserId(DATASET.seed, i));
  const server = await startServer(dataset.adminUrl, userIds[0]);
  const rss: { at: number; mb: number }[] = [];
  const rssTimer = setInterval(() => rss.push({ at: Date.now(), mb: rssMb(server.pid) }), 2_000);
  let background: Background | null = null;
  try {
    const mix = await requestMix(dataset.adminUrl, userIds, dataset.endDay);
    log(`${mix.json.length} JSON requests in the mix, ${mix.exports.length} exports; ${CONNECTIONS} connections`);
    background = startBackground(server.port, mix);
    await drive(server.port, mix.json, 5); // warm caches, JIT, pools
    const max = await drive(server.port, mix.json, MEASURE_SECONDS);
    const maxRate = count(max, (c) => c >= 200 && c < 300) / max.duration;
    const target = Math.max(1, Math.round(maxRate * FRACTION));
    log(`maximum ${maxRate.toFixed(0)} req/s (p99 ${max.latency.p99} ms, statuses ${JSON.stringify(statusCounts(max))}); soaking at ${target} req/s for ${WINDOWS} × ${WINDOW_SECONDS} s`);

    const windows: Window[] = [];
    const started = Date.now();
    for (let w = 0; w < WINDOWS; w++) {
      const result = await drive(server.port, mix.json, WINDOW_SECONDS, target);
      const window: Window = {
        second: Math.round((Date.now() - started) / 1000),
        rps: Math.round((count(result, () => true) / result.duration) * 10) / 10,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        statuses: statusCounts(result),
        errors: result.errors + result.timeouts,
        rssMb: Math.round(rssMb(server.pid) * 10) / 10,
      };
      windows.push(window);
      log(`window ${w + 1}/${WINDOWS}: ${JSON.stringify(window)}`);
    }
    const soakEnded = Date.now();
    await background.stop();
    const bg = background;
    background = null;

    // After the load: sessions and slots back, then a clean SIGTERM.
    const admin = new pg.Client({ connectionString: dataset.adminUrl });
    await admin.connect();
    const sessions = (await admin.query(`SELECT application_name, state, count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'healthd%' GROUP BY 1, 2 ORDER BY 1, 2`)).rows;
    const slots = (await admin.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`)).rows[0].n;
    await admin.end();
    clearInterval(rssTimer);
    const stopped = await server.stop();

    // RSS swings with garbage collection by ±10 %, so growth compares window
    // means: the first window after warm-up against the last one. V8 keeps
    // sizing its heap for a few minutes under this load (measured: a plateau
    // from about minute 4 of 6), so warm-up is the first third of the run.
    const windowMs = WINDOW_SECONDS * 1000;
    const warmUpWindows = Math.max(1, Math.floor(WINDOWS / 3));
    const meanRss = (from: number, to: number) => {
      const samples = rss.filter((s) => s.at >= from && s.at < to && s.mb > 0).map((s) => s.mb);
      return samples.reduce((a, b) => a + b, 0) / samples.length;
    };
    const warmUpEnd = started + warmUpWindows * windowMs;
    const rssAtWarmUp = meanRss(warmUpEnd, warmUpEnd + windowMs);
    const rssEnd = meanRss(soakEnded - windowMs, soakEnded);
    const rssPeak = Math.max(...rss.filter((s) => s.at >= warmUpEnd && s.at <= soakEnded).map((s) => s.mb));
    const growth = (rssEnd - rssAtWarmUp) / rssAtWarmUp;
    const serverErrors = windows.reduce((sum, w) => sum + Object.entries(w.statuses).reduce((s, [code, n]) => s + (Number(code) >= 500 ? n : 0), 0), 0);
    const exportErrors = Object.entries(bg.exports.statuses).reduce((s, [code, n]) => s + (Number(code) >= 500 || Number(code) === 0 ? n : 0), 0);
    const p99s = windows.slice(warmUpWindows).map((w) => w.p99);
    const p99Median = [...p99s].sort((a, b) => a - b)[Math.floor(p99s.length / 2)];
    const p99Stable = p99s.every((p) => p <= Math.max(2 * p99Median, p99Median + 20));

    const report = {
      minutes: MINUTES,
      connections: CONNECTIONS,
      maxRate: Math.round(maxRate),
      targetRate: target,
      windowSeconds: WINDOW_SECONDS,
      warmUpWindows,
      windows,
      rss: {
        firstWindowAfterWarmUpMeanMb: round1(rssAtWarmUp),
        lastWindowMeanMb: round1(rssEnd),
        peakAfterWarmUpMb: round1(rssPeak),
        growthPercent: round1(growth * 100),
        everyTenSecondsMb: rss.filter((_, i) => i % 5 === 0).map((s) => round1(s.mb)),
      },
      p99: { medianMs: p99Median, maxMs: Math.max(...p99s), stable: p99Stable },
      fiveHundreds: { json: serverErrors, exports: exportErrors },
      exports: bg.exports,
      hangUps: bg.hangUps,
      serverErrorLogLines: server.errorLines().length,
      afterLoad: { sessions, exportSlotsHeld: slots },
      sigterm: stopped,
      pass: serverErrors === 0 && exportErrors === 0 && growth < 0.1 && p99Stable && stopped.code === 0 && slots === 0,
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    if (server.errorLines().length) log(`server error lines (first 3):\n${server.errorLines().slice(0, 3).join('\n')}`);
  } finally {
    clearInterval(rssTimer);
    await background?.stop();
    await server.stop().catch(() => {});
    await dataset.stop();
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

main().catch((error) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
