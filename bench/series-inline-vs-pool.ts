// Micro-measurement behind two choices: below how many points a workout's
// series is downsampled inline rather than in the piscina pool (the constant
// INLINE_SERIES_POINTS in src/routes/workout-series.ts), and whether sleep
// nights for a 366-day range are worth a trip to a worker (src/routes/sleep.ts).
// Run after `npx tsc -p .`: node dist/bench/series-inline-vs-pool.js
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { downsampleStream, type Stream } from '../src/core/downsample.js';
import { assembleSleepNights, type SleepColumns } from '../src/core/sleep-nights.js';

interface SleepSample {
  startMs: number;
  endMs: number;
  value: number;
  sourceId: number;
}
import { createWorkerPool } from '../src/worker-pool.js';

const MAX_POINTS = 500;
const ROUNDS = 1000;

function makeStreams(count: number, points: number): Stream[] {
  return Array.from({ length: count }, (_, s) => {
    const times = new Float64Array(points);
    const values = new Float64Array(points);
    for (let i = 0; i < points; i++) {
      times[i] = 1_767_225_600_000 + i * 1000;
      values[i] = 120 + 30 * Math.sin(i / 97 + s);
    }
    return { times, values };
  });
}

const copyOf = (streams: Stream[]): Stream[] => streams.map((s) => ({ times: s.times.slice(), values: s.values.slice() }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

async function seriesCase(pool: ReturnType<typeof createWorkerPool>, count: number, points: number): Promise<void> {
  const streams = makeStreams(count, points);
  // Inputs are copied before timing: the route builds fresh Float64Arrays from
  // the query rows on either path, so the copy is not part of the choice.
  const inputs = Array.from({ length: ROUNDS }, () => copyOf(streams));
  const inline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = performance.now();
    for (const stream of streams) downsampleStream(stream, MAX_POINTS);
    inline.push(performance.now() - t0);
  }
  // The pool's latency, and the main thread's share of it (event-loop active
  // time: posting the task, taking the result back).
  const pooled: number[] = [];
  const before = performance.eventLoopUtilization();
  for (const input of inputs) {
    const t0 = performance.now();
    const transferList = input.flatMap((s) => [s.times.buffer, s.values.buffer]) as ArrayBuffer[];
    await pool.run({ streams: input, maxPoints: MAX_POINTS }, { name: 'downsampleSeries', transferList });
    pooled.push(performance.now() - t0);
  }
  const busy = performance.eventLoopUtilization(before).active / ROUNDS;
  console.log(
    `series ${count} × ${String(points).padStart(6)} = ${String(count * points).padStart(6)} points: inline ${us(median(inline)).padStart(8)}   pool ${us(median(pooled)).padStart(8)} (main thread busy ${us(busy)})`,
  );
}

/** 366 nights: a phone in-bed block and ~30 watch stage samples each. */
function makeSleepSamples(): SleepSample[] {
  const samples: SleepSample[] = [];
  const first = Date.UTC(2025, 0, 1, 22);
  for (let night = 0; night < 366; night++) {
    const bed = first + night * 86_400_000;
    samples.push({ startMs: bed, endMs: bed + 8.5 * 3_600_000, value: 0, sourceId: 1 });
    let at = bed + 15 * 60_000;
    for (let i = 0; i < 30; i++) {
      const end = at + 15 * 60_000;
      samples.push({ startMs: at, endMs: end, value: [3, 4, 3, 5, 2][i % 5], sourceId: 2 });
      at = end;
    }
  }
  return samples.sort((a, b) => a.startMs - b.startMs);
}

function columnsOf(samples: readonly SleepSample[]): SleepColumns {
  return {
    startMs: Float64Array.from(samples, (s) => s.startMs),
    endMs: Float64Array.from(samples, (s) => s.endMs),
    value: Float64Array.from(samples, (s) => s.value),
    sourceId: Float64Array.from(samples, (s) => s.sourceId),
  };
}

async function sleepCase(): Promise<void> {
  const samples = makeSleepSamples();
  const zone = 'America/New_York';
  const inline: number[] = [];
  for (let round = 0; round < 60; round++) {
    const t0 = performance.now();
    assembleSleepNights(columnsOf(samples), zone);
    if (round >= 10) inline.push(performance.now() - t0);
  }
  // A worker that assembles the nights it is sent: the round trip clones the
  // sample objects there and the night objects back.
  const moduleUrl = new URL('../src/core/sleep-nights.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     import(${JSON.stringify(moduleUrl)}).then(({ assembleSleepNights }) =>
       parentPort.on('message', ({ samples, zone }) => parentPort.postMessage(assembleSleepNights(samples, zone))));`,
    { eval: true },
  );
  const roundTrip = () =>
    new Promise<number>((resolve) => {
      const t0 = performance.now();
      worker.once('message', () => resolve(performance.now() - t0));
      worker.postMessage({ samples: columnsOf(samples), zone });
    });
  const pooled: number[] = [];
  const posting: number[] = [];
  for (let round = 0; round < 60; round++) {
    const t0 = performance.now();
    const done = roundTrip();
    const posted = performance.now() - t0;
    const total = await done;
    if (round >= 10) {
      pooled.push(total);
      posting.push(posted);
    }
  }
  await worker.terminate();
  console.log(
    `sleep 366 nights (${samples.length} samples): inline ${median(inline).toFixed(2)} ms   worker round trip ${median(pooled).toFixed(2)} ms (of which posting the samples blocks ${median(posting).toFixed(2)} ms)`,
  );
}

/** Starts the worker and lets both paths reach optimized code before anything is timed. */
async function warmUp(pool: ReturnType<typeof createWorkerPool>): Promise<void> {
  const streams = makeStreams(4, 2_000);
  for (let round = 0; round < 300; round++) {
    for (const stream of streams) downsampleStream(stream, MAX_POINTS);
    const input = copyOf(streams);
    const transferList = input.flatMap((s) => [s.times.buffer, s.values.buffer]) as ArrayBuffer[];
    await pool.run({ streams: input, maxPoints: MAX_POINTS }, { name: 'downsampleSeries', transferList });
  }
}

const pool = createWorkerPool(1);
try {
  await warmUp(pool);
  for (const [count, points] of [
    [1, 10],
    [4, 100],
    [4, 500],
    [4, 1_000],
    [4, 2_500],
    [4, 5_000],
    [4, 10_800],
    [8, 10_800],
  ] as const) {
    await seriesCase(pool, count, points);
  }
  await sleepCase();
} finally {
  await pool.destroy();
}
