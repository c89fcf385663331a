// Where a route's requests spend the machine's CPU, in µs a request, from
// Linux perf sampling both cores (`perf record -a -e cpu-clock -g`) while the
// bench's load runs: `node dist/bench/machine-profile.js <name fragment …>`
// (after `npx tsc -p .`; needs Linux perf: Debian's linux-perf; root, or
// kernel.perf_event_paranoid ≤ 0). PROFILE_SECONDS (4) of sampling at 1999 Hz
// inside a load of that length plus 2 s, 10 connections, DB_POOL_SIZE=10.
//
// Why beside bench/profile.js: V8's profiler samples the main thread only, and
// a sample lands in whatever call the thread was in, so time it spent
// waiting for a core after a syscall woke a peer reads as that syscall's. perf
// counts what each thread of each process ran, the kernel's part included,
// and what stayed idle, so the figures add up to the machine.
//
// It prints, per route: the machine's CPU a request by process (healthd,
// PostgreSQL, the load generator, idle); healthd's split by thread (main, the
// rest: V8's garbage-collector helpers, libuv, workers) and its kernel part;
// the main thread's time by where the code it ran lives (the kernel, Node's
// binary with V8, compiled JavaScript, libc, uWS); the symbols it spent most
// of its own time in; and V8's slow paths on it, by the JavaScript that
// called them (SLOW_PATH). µs a request: the window's samples over its
// requests (req/s of the load × the window).
//
// MACHINE_PROFILE_FLOOR=1 profiles the floor instead (bench/baselines/uws-floor.ts,
// folded, answering healthd's bytes for the route): the same tables, to set
// healthd's beside the least a server over the same SQL does.
// For what runs inside what, open the data with `perf report -i … --children`
// (the call graphs are there, unwound by frame pointers: roughly, in this VM).
import { execFile, spawn } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { promisify } from 'node:util';
import { closeChildren } from './lib/child.js';
import { httpLoad } from './lib/http-load.js';
import { openRouteTools } from './lib/route-tools.js';
import { routeLoad } from './lib/routes.js';
import { floorRoute, startFloor, startHealthd } from './lib/systems.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 4);
const HZ = 1999;
/** perf samples every core: the machine's time is the window times these. */
const CORES = cpus().length;
const OUT_DIR = fileURLToPath(new URL('../../bench/data/machine-profiles', import.meta.url));
const FLOOR = process.env.MACHINE_PROFILE_FLOOR === '1';
/** perf names compiled JavaScript from the process's map file. */
const PERF_MAP = ['--perf-basic-prof-only-functions'];

/** Where the code a sample ran lives, by perf's dso: the first that matches. */
const CODE_HOMES: Array<[string, RegExp]> = [
  ['the kernel', /\[kernel/],
  ["compiled JavaScript (V8's JIT)", /\[JIT\]|perf-\d+\.map/],
  ["Node's binary (V8's builtins, runtime and GC, Node's C++)", /(^|\s|\/)node\s*$/],
  ['libc (malloc, syscall wrappers)', /libc\.so/],
  ['uWS', /uws_/],
  ['other libraries', /./],
];

/** How many of the main thread's symbols to list, by their own time; how many of its slow paths. */
const TOP_SYMBOLS = 20;
const TOP_SLOW_PATHS = 12;

/**
 * V8's slow paths: calls into its runtime (an inline cache that missed, a
 * property copied one by one, an allocation outside the fast path), inline
 * caches gone megamorphic or slow, and closures compiled on their first call.
 * A handful a request is normal; one that runs every request names the line
 * that sends V8 there (a spread of `{ ...ctx }` did, on 2026-12-07).
 */
const SLOW_PATH = /^(v8::internal::Runtime_\w+|Builtins_\w*(Megamorphic|_Slow)\w*|Builtins_CompileLazy)\b/;

/**
 * The main thread's samples in a slow path, counted by the slow path and the
 * nearest compiled JavaScript above it (from `perf script`: only the frames
 * next to the sample need to unwind).
 */
async function slowPaths(file: string, tid: number): Promise<{ total: number; top: Array<[string, number]> }> {
  // Each sample: a line with its thread, then a line a frame (address and symbol), innermost first.
  const { stdout } = await run('perf', ['script', '-i', file, '--tid', String(tid), '-F', 'tid,ip,sym'], { maxBuffer: 1024 * 1024 * 1024 });
  const counts = new Map<string, number>();
  let total = 0;
  for (const sample of stdout.split(/\n(?=\s*\d+\s*$)/m)) {
    const [head, ...lines] = sample.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    if (Number(head) !== tid) continue;
    const frames = lines.map((line) => line.replace(/^[0-9a-f]+\s+/, ''));
    total++;
    const at = frames.findIndex((frame) => SLOW_PATH.test(frame));
    if (at === -1) continue;
    const slow = SLOW_PATH.exec(frames[at])![1];
    const caller = frames.slice(at + 1).find((frame) => frame.startsWith('JS:')) ?? '(no JavaScript frame)';
    const key = `${slow} ← ${caller.replace(/^JS:[*^~]?/, '')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { total, top: [...counts].sort((a, b) => b[1] - a[1]).slice(0, TOP_SLOW_PATHS) };
}

interface Row {
  share: number;
  key: string;
}

/** perf report's table as rows (`--stdio -g none`): the first share (the own time with --no-children), and the key (everything after the shares). */
async function report(file: string, args: string[]): Promise<Row[]> {
  const { stdout } = await run('perf', ['report', '-i', file, '--stdio', '-g', 'none', ...args], { maxBuffer: 256 * 1024 * 1024 });
  const rows: Row[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^\s+([\d.]+)%\s+(?:([\d.]+)%\s+)?(.+?)\s*$/.exec(line);
    if (match) rows.push({ share: Number(match[1]) / 100, key: match[3] });
  }
  return rows;
}

const sum = (rows: readonly Row[]) => rows.reduce((total, row) => total + row.share, 0);

async function threadsOf(pid: number): Promise<number[]> {
  return (await readdir(`/proc/${pid}/task`)).map(Number);
}

async function main(): Promise<void> {
  try {
    await run('perf', ['--version']);
  } catch {
    throw new Error('Linux perf is needed (Debian: apt-get install linux-perf)');
  }
  await mkdir(OUT_DIR, { recursive: true });
  const { dataset, settings, ctx, routes } = await openRouteTools();
  const name = FLOOR ? 'the floor' : 'healthd';
  try {
    for (const route of routes(process.argv.slice(2))) {
      // A server of its own a route: in the map file, code that was collected leaves its name behind for
      // whatever is compiled at its address next.
      let server: { baseUrl: string; pid: number; stop(): Promise<void> };
      if (FLOOR) {
        const healthd = await startHealthd(settings, 1);
        const answer = await floorRoute(healthd.baseUrl, route, ctx).finally(() => healthd.stop());
        const floor = await startFloor(settings, { [route.path]: answer }, join(OUT_DIR, 'floor-route.json'), true, PERF_MAP);
        server = { baseUrl: floor.baseUrl, pid: floor.process.pid, stop: () => floor.process.stop() };
      } else {
        const healthd = await startHealthd(settings, 1, PERF_MAP);
        server = { baseUrl: healthd.baseUrl, pid: healthd.processes[0].pid, stop: () => healthd.stop() };
      }
      const pid = server.pid;
      try {
        const file = join(OUT_DIR, `${FLOOR ? 'floor-' : ''}${route.route.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}${route.auth === 'wrong' ? '-401' : ''}.data`);
        await rm(file, { force: true });
        const job = routeLoad(server.baseUrl, route, 10);
        await httpLoad({ ...job, seconds: 1 });
        const load = httpLoad({ ...job, seconds: SECONDS + 2 });
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const perf = spawn('perf', ['record', '-a', '-g', '-e', 'cpu-clock', '-F', String(HZ), '-o', file, '--', 'sleep', String(SECONDS)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let perfErr = '';
        perf.stderr.on('data', (chunk: Buffer) => (perfErr += chunk.toString()));
        const threads = new Set(await threadsOf(pid));
        const recorded = await new Promise<number | null>((resolve) => perf.on('exit', resolve));
        const measured = await load;
        if (recorded !== 0) throw new Error(`perf record failed: ${perfErr.trim().split('\n').pop()}`);
        for (const tid of await threadsOf(pid)) threads.add(tid);

        const requests = measured.rps * SECONDS;
        const machineUs = CORES * SECONDS * 1e6; // every core's time over the window, µs
        const perRequest = (share: number) => (share * machineUs) / requests;
        const us = (share: number) => perRequest(share).toFixed(1);

        // perf's `pid` key is a thread: "<tid>:<comm>".
        const byThread = await report(file, ['--no-children', '--sort', 'pid']);
        const tidOf = (row: Row) => Number(/^(\d+):/.exec(row.key)?.[1]);
        const serverRows = byThread.filter((row) => threads.has(tidOf(row)));
        const postgres = byThread.filter((row) => /:postgres\b/.test(row.key));
        const idle = byThread.filter((row) => tidOf(row) === 0);
        const serverShare = sum(serverRows);
        const main = sum(serverRows.filter((row) => tidOf(row) === pid));
        const others = sum(byThread) - serverShare - sum(postgres) - sum(idle);

        // Filtered by thread (--tid), perf leaves the kernel's rows out: every table here is sorted by thread instead.
        const byDso = await report(file, ['--no-children', '--sort', 'pid,dso']);
        const kernel = sum(byDso.filter((row) => threads.has(tidOf(row)) && row.key.includes('[kernel')));
        const mainByHome = new Map<string, number>();
        for (const row of byDso.filter((r) => tidOf(r) === pid)) {
          const dso = row.key.replace(/^\d+:\S+\s+/, '');
          const home = CODE_HOMES.find(([, pattern]) => pattern.test(dso))![0];
          mainByHome.set(home, (mainByHome.get(home) ?? 0) + row.share);
        }

        // Own time only: it needs no call graph, which samples in this virtual machine do not unwind the same way twice.
        // (perf's --tid filter drops rows of the kernel: every thread's rows are read and the main thread's kept.)
        const symbols = (await report(file, ['--no-children', '--sort', 'pid,dso,sym']))
          .filter((row) => tidOf(row) === pid)
          .slice(0, TOP_SYMBOLS)
          .map((row) => ({ ...row, key: row.key.replace(/^\d+:\S+\s+/, '') }));
        const slow = await slowPaths(file, pid);
        // A main-thread sample's share of the machine: one of all the samples perf took on every core.
        const sampleShare = 1 / (HZ * SECONDS * CORES);

        const lines = [
          `### ${route.name} — ${Math.round(measured.rps)} req/s while sampled (${SECONDS} s at ${HZ} Hz, ${CORES} cores)`,
          '',
          '| where | µs a request | share of the machine |',
          '|---|---:|---:|',
          `| ${name}, all threads | ${us(serverShare)} | ${(serverShare * 100).toFixed(1)} % |`,
          `| · its main thread | ${us(main)} | ${(main * 100).toFixed(1)} % |`,
          `| · its other threads (GC helpers, libuv, workers) | ${us(serverShare - main)} | ${((serverShare - main) * 100).toFixed(1)} % |`,
          `| · in the kernel (all threads) | ${us(kernel)} | ${(kernel * 100).toFixed(1)} % |`,
          `| PostgreSQL | ${us(sum(postgres))} | ${(sum(postgres) * 100).toFixed(1)} % |`,
          `| the load generator and the rest | ${us(others)} | ${(others * 100).toFixed(1)} % |`,
          `| idle | ${us(sum(idle))} | ${(sum(idle) * 100).toFixed(1)} % |`,
          '',
          `${name}'s main thread by where the code it ran lives:`,
          '',
          '| code | µs a request |',
          '|---|---:|',
          ...CODE_HOMES.filter(([home]) => mainByHome.has(home)).map(([home]) => `| ${home} | ${us(mainByHome.get(home)!)} |`),
          '',
          `${name}'s main thread: the ${TOP_SYMBOLS} symbols it spent most of its own time in ([k] the kernel; JS: compiled JavaScript):`,
          '',
          '| symbol | µs a request |',
          '|---|---:|',
          ...symbols.map((row) => `| \`${row.key.replace(/\s+/g, ' ').slice(0, 140)}\` | ${us(row.share)} |`),
          '',
          `V8's slow paths on the main thread, by the JavaScript that called them (${slow.top.reduce((n, [, count]) => n + count, 0)} of its ${slow.total} samples in the ${TOP_SLOW_PATHS} most frequent):`,
          '',
          '| slow path ← nearest JavaScript | µs a request |',
          '|---|---:|',
          ...slow.top.map(([key, count]) => `| \`${key.slice(0, 160)}\` | ${us(count * sampleShare)} |`),
          '',
          `perf data: ${file} (perf report -i … ; JIT names from /tmp/perf-<pid>.map)`,
          '',
        ];
        process.stdout.write(lines.join('\n') + '\n');
      } finally {
        await server.stop();
      }
    }
  } finally {
    closeChildren();
    await dataset.db.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`machine-profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
