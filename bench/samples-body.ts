// The /v1/samples page's body written from its COPY bytes, alone: `node
// dist/bench/samples-body.js [other build's dist/src/routes/samples-body.js]`
// (after `npx tsc -p .`). Builds the binary COPY of a page of 1000 heart-rate
// samples as the bench's dataset holds them (instants of 13 digits, start =
// end, whole values, one source), then times samplesPageBody(…).writeInto
// over 5000 pages, 5 rounds, and prints µs a page per round and the median.
// Given another build's module (one that also writes from COPY bytes, from
// 60ceeee on), it times both, round by round in turn. No database, no HTTP:
// the writer's own cost, for a change to it.
import { randomFillSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { BINARY_COPY_HEADER } from '../src/db/writes/sample-copy.js';
import { median } from './lib/measure.js';
import type { SamplesPageData } from '../src/db/queries/samples.js';
import type { BodyBytes } from '../src/routes/route.js';

type Writer = (type: string, page: SamplesPageData, offset: number) => BodyBytes;

const ROWS = 1000;
const PAGES = 5000;
const ROUNDS = 5;
const HEART_RATE = 'HKQuantityTypeIdentifierHeartRate';

function pageData(): Buffer {
  const rows = [BINARY_COPY_HEADER];
  let t = 1_767_571_401_793;
  for (let i = 0; i < ROWS; i++) {
    const row = Buffer.alloc(2 + (4 + 16) + (4 + 8) * 3 + (4 + 4));
    let o = row.writeInt16BE(5, 0);
    o = row.writeInt32BE(16, o);
    randomFillSync(row, o, 16);
    o += 16;
    for (const instant of [t, t]) o = row.writeBigInt64BE(BigInt(instant), row.writeInt32BE(8, o));
    o = row.writeDoubleBE(50 + (i % 90), row.writeInt32BE(8, o));
    row.writeInt32BE(1, row.writeInt32BE(4, o));
    rows.push(row);
    t += 2000 + ((i * 7919) % 3000);
  }
  rows.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(rows);
}

function timePages(write: Writer, data: Buffer, out: Buffer): number {
  const sources = new Map([[1, 'Apple Watch']]);
  const started = process.hrtime.bigint();
  for (let k = 0; k < PAGES; k++) write(HEART_RATE, { data, count: ROWS, sourceIds: [1], sourceRows: [ROWS], sources, release() {} }, 0).writeInto(out);
  return Number(process.hrtime.bigint() - started) / PAGES / 1000;
}

async function main(): Promise<void> {
  const builds: [string, Writer][] = [['this', (await import('../src/routes/samples-body.js')).samplesPageBody]];
  const other = process.argv[2];
  if (other) builds.push(['other', ((await import(pathToFileURL(other).href)) as { samplesPageBody: Writer }).samplesPageBody]);
  const data = pageData();
  const out = Buffer.allocUnsafe(1 << 20);
  const times = builds.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    builds.forEach(([name, write], b) => {
      times[b].push(timePages(write, data, out));
      console.log(`${name}  round ${round + 1}: ${times[b].at(-1)!.toFixed(1)} µs a page`);
    });
  }
  builds.forEach(([name], b) => console.log(`${name}: median ${median(times[b]).toFixed(1)} µs a page of ${ROWS} (${times[b].map((t) => t.toFixed(1)).join(', ')})`));
}

await main();
