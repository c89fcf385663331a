// MCP tool calls against the REST routes they run (issue 14): latency of
// get_daily_metrics and get_summary through the SDK's client over Streamable
// HTTP, and of /v1/metrics/daily and /v1/summary over HTTP, on the same data
// (the demo: one user, 90 days) from the same real server. One request in
// flight at a time, the four kinds interleaved (the order rotating every
// round) so drift and noise fall on all alike; p50 and p99 per run, the
// median of the runs reported. Then the server process's CPU time per call
// (user + system, all its threads, from /proc; PostgreSQL's not included), a
// block of calls of each kind (the blocks' order rotating every run): less
// swayed by a busy machine than latency.
// Prints markdown tables and the load average.
// Run: npm run build && node dist/bench/mcp.js [runs, default 3] [rounds per run, default 300]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { DateTime } from 'luxon';
import { generateDemo, demoUserId } from '../src/demo/generate.js';
import { createTestDatabase, stopOwnCluster } from '../test/support/db.js';
import { connectHttp } from '../test/support/mcp.js';
import { startServer } from '../test/support/server.js';

const RUNS = Number(process.argv[2] ?? 3);
const ROUNDS = Number(process.argv[3] ?? 300);
const WARMUP = 50;
const ZONE = 'Europe/Berlin';
const DEMO = { users: 1, days: 90, seed: 1 };
const TYPES = ['HKQuantityTypeIdentifierStepCount', 'HKQuantityTypeIdentifierActiveEnergyBurned', 'HKQuantityTypeIdentifierRestingHeartRate', 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN'];

const load = () => loadavg().map((l) => l.toFixed(2)).join(', ');
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** CPU time of a process so far, ms (utime + stime, in clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const db = await createTestDatabase();
await generateDemo(db.url, { ...DEMO, timeZone: ZONE });
const server = await startServer({ databaseUrl: db.url, mcp: true, env: { SERVICE_USER_ID: demoUserId(DEMO.seed, 0), SERVICE_TIME_ZONE: ZONE, WORKER_THREADS: '2', DB_POOL_SIZE: '10' } });
// A client per run: the SDK's client hands one AbortSignal to all its fetches,
// and past 1,500 calls node warns of the listeners piled up on it.
let client = await connectHttp(server.mcpUrl, server.token);
async function reconnect(): Promise<void> {
  await client.close();
  client = await connectHttp(server.mcpUrl, server.token);
}

// The last 30 local days, as the tool takes them and as the route does.
const today = DateTime.now().setZone(ZONE).startOf('day');
const first = today.minus({ days: 29 });
const dailyArgs = { types: TYPES, start_date: first.toISODate()!, end_date: today.toISODate()! };
const dailyPath = `/v1/metrics/daily?types=${TYPES.join(',')}&start=${first.toMillis()}&end=${today.plus({ days: 1 }).toMillis()}`;

async function rest(path: string): Promise<void> {
  const response = await server.get(path);
  if (response.status !== 200) throw new Error(`${path} → ${response.status}`);
  await response.text();
}

async function tool(name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} → ${JSON.stringify(result.content)}`);
}

// The same tool call as one plain POST, no SDK client: what the server and transport cost, apart from the client's.
const rawCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_daily_metrics', arguments: dailyArgs } });
async function rawPost(): Promise<void> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: rawCall,
  });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"isError":true')) throw new Error(`raw tools/call → ${response.status} ${text.slice(0, 200)}`);
}

const kinds: Array<[label: string, run: () => Promise<void>]> = [
  ['get_daily_metrics (MCP, SDK client)', () => tool('get_daily_metrics', dailyArgs)],
  ['get_daily_metrics (MCP, one plain POST)', rawPost],
  ['/v1/metrics/daily (REST)', () => rest(dailyPath)],
  ['get_summary (MCP, SDK client)', () => tool('get_summary', { range: '7d' })],
  ['/v1/summary (REST)', () => rest('/v1/summary?range=7d')],
];

try {
  const loadBefore = load();
  for (let i = 0; i < WARMUP; i++) for (const [, run] of kinds) await run();
  const perRun = kinds.map(() => ({ p50: [] as number[], p99: [] as number[] }));
  for (let run = 0; run < RUNS; run++) {
    await reconnect();
    const times = kinds.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < kinds.length; k++) {
        const index = (k + round) % kinds.length;
        const started = performance.now();
        await kinds[index][1]();
        times[index].push(performance.now() - started);
      }
    }
    times.forEach((t, i) => {
      perRun[i].p50.push(percentile(t, 50));
      perRun[i].p99.push(percentile(t, 99));
    });
  }
  console.log(`| ${RUNS} runs × ${ROUNDS} calls each, one in flight | p50 ms | p99 ms | p50 of each run |\n|---|---:|---:|---|`);
  kinds.forEach(([label], i) => {
    const { p50, p99 } = perRun[i];
    console.log(`| ${label} | ${median(p50).toFixed(2)} | ${median(p99).toFixed(2)} | ${p50.map((x) => x.toFixed(2)).join(', ')} |`);
  });
  const pid = server.child.pid!;
  const cpu = kinds.map(() => [] as number[]);
  for (let run = 0; run < RUNS; run++) {
    await reconnect();
    for (let j = 0; j < kinds.length; j++) {
      const k = (j + run) % kinds.length;
      const before = cpuMs(pid);
      for (let round = 0; round < ROUNDS; round++) await kinds[k][1]();
      cpu[k].push(((cpuMs(pid) - before) / ROUNDS) * 1000);
    }
  }
  console.log(`\n| server CPU per call, ${RUNS} blocks of ${ROUNDS} | µs (median) | each block |\n|---|---:|---|`);
  kinds.forEach(([label], i) => console.log(`| ${label} | ${median(cpu[i]).toFixed(0)} | ${cpu[i].map((x) => x.toFixed(0)).join(', ')} |`));
  console.log(`\nget_daily_metrics: 4 types × 30 days; get_summary: 7d (markdown). Load average before: ${loadBefore}; after: ${load()} (2 cores).`);
} finally {
  await client.close();
  await server.stop();
  await db.drop();
  await stopOwnCluster();
}
