// A prepared statement's rows through pg's Query against readPrepared
// (src/db/prepared-read.ts), with nothing else around them: `node
// dist/bench/prepared-read.js` (after `npx tsc -p .`). On the bench dataset
// (bench/lib/dataset.ts), a pg.Pool of 10 connections and 10 loops, each
// checking a connection out, reading, releasing it, as a folded read does.
// Three ways in turn, BENCH_RUNS (5) rounds of BENCH_SECONDS (3) each, the
// order turned every round: pg's Query as healthd read before (rows as
// objects), pg's Query with rowMode 'array' (as the bare pool reads), and
// readPrepared (objects, as healthd reads now). Per way, the medians of
// statements a second, this process's CPU µs a statement (pg's part: the
// loops cost next to nothing) and PostgreSQL's.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { prepared } from '../src/db/pool.js';
import { readPrepared } from '../src/db/prepared-read.js';
import { ALL_USERS_SQL, PROFILES_SQL } from '../src/db/queries/users.js';
import { clusterCpuMs, postmasterPid } from './lib/cpu.js';
import { DATASET, openDataset } from './lib/dataset.js';
import { median } from './lib/measure.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const LOOPS = 10;
const DATA_DIR = fileURLToPath(new URL('../../bench/data/demo', import.meta.url));

type Way = 'pg Query, objects' | 'pg Query, arrays' | 'readPrepared, objects';
const WAYS: Way[] = ['pg Query, objects', 'pg Query, arrays', 'readPrepared, objects'];

async function main(): Promise<void> {
  const dataset = await openDataset(DATA_DIR, DATASET, (line) => process.stderr.write(line + '\n'));
  const pool = new pg.Pool({ connectionString: dataset.db.adminUrl, max: LOOPS, application_name: 'bench-prepared-read' });
  // The cluster stops right after the pool ends: a connection still closing then says so, which is no failure.
  pool.on('error', () => {});
  const postmaster = postmasterPid(join(DATA_DIR, 'pg'));
  try {
    const statements = [
      { name: 'the users list (3 rows × 7 columns)', statement: prepared(ALL_USERS_SQL)([]), rows: dataset.userIds.length },
      { name: 'one profile (1 row × 5 columns)', statement: prepared(PROFILES_SQL)([[dataset.userIds[0]]]), rows: 1 },
    ];
    for (const { name, statement, rows } of statements) {
      const read: Record<Way, (client: pg.PoolClient) => Promise<unknown[]>> = {
        'pg Query, objects': async (client) => (await client.query(statement)).rows,
        'pg Query, arrays': async (client) => (await client.query({ ...statement, rowMode: 'array' })).rows,
        'readPrepared, objects': (client) => readPrepared(client, statement),
      };
      const run = async (way: Way, ms: number) => {
        let done = 0;
        const endAt = performance.now() + ms;
        const cpu = process.cpuUsage();
        const pgBefore = clusterCpuMs(postmaster);
        await Promise.all(
          Array.from({ length: LOOPS }, async () => {
            while (performance.now() < endAt) {
              const client = await pool.connect();
              try {
                const got = await read[way](client);
                if (got.length !== rows) throw new Error(`${way}: ${got.length} rows, not ${rows}`);
              } finally {
                client.release();
              }
              done++;
            }
          }),
        );
        const used = process.cpuUsage(cpu);
        return { perSecond: done / (ms / 1000), clientUs: (used.user + used.system) / done, pgUs: ((clusterCpuMs(postmaster) - pgBefore) * 1000) / done };
      };
      for (const way of WAYS) await run(way, 500); // connections open, statements prepared and described, code warm
      const results = new Map<Way, Array<Awaited<ReturnType<typeof run>>>>(WAYS.map((way) => [way, []]));
      for (let i = 0; i < RUNS; i++) {
        const order = i % 2 === 0 ? WAYS : [...WAYS].reverse();
        for (const way of order) results.get(way)!.push(await run(way, SECONDS * 1000));
      }
      const lines = [
        `### ${name}: ${RUNS} runs of ${SECONDS} s each way, ${LOOPS} loops, medians`,
        '',
        '| way | statements/s | this process, CPU µs a statement | PostgreSQL, CPU µs a statement |',
        '|---|---:|---:|---:|',
        ...WAYS.map((way) => {
          const runs = results.get(way)!;
          const m = (pick: (r: (typeof runs)[number]) => number) => median(runs.map(pick));
          return `| ${way} | ${Math.round(m((r) => r.perSecond)).toLocaleString('en-US')} | ${m((r) => r.clientUs).toFixed(1)} | ${m((r) => r.pgUs).toFixed(1)} |`;
        }),
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    }
  } finally {
    await pool.end();
    await dataset.db.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`prepared-read bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
