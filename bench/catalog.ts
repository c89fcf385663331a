// The cold catalog (issue 12): what /v1/catalog/types costs when its cache
// holds nothing for the user — after a start, for a new user, or past the
// stale window — on the bench dataset's heavy users (bench/lib/dataset.ts).
// healthd reads the samples' counts that the writers keep (migration 6) and
// two index probes per type; the baseline is the cheapest SQL that yields the
// same rows without them: one index range per type, counted. Both run on one
// connection, alternating, each time's median over the runs; the rows are
// checked equal first. Then /v1/users' statement the same way, against
// summing every upload_batches row (its statement before migration 7), on
// the dataset plus, inside a transaction rolled back after, as many users
// and batches as a study would hold (--users, --batches per user). Writes
// the `catalog` section of bench/RESULTS.md (`--no-write`: print only).
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { catalogRows } from '../src/db/queries/catalog.js';
import { listAllUsers } from '../src/db/queries/users.js';
import '../src/db/pool.js';
import { DATASET, openDataset } from './lib/dataset.js';
import { writeSection } from './lib/report.js';

const args = parseArgs({
  options: { runs: { type: 'string', default: '5' }, users: { type: 'string', default: '100' }, batches: { type: 'string', default: '10000' }, 'no-write': { type: 'boolean', default: false } },
}).values;
const RUNS = Number(args.runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
const STUDY_USERS = Number(args.users);
const STUDY_BATCHES = Number(args.batches);

/** /v1/users' rows summed from every batch: its statement before migration 7. */
const SUMMED_USERS_SQL = `SELECT u.user_id::text AS "userID", p.name, p.email, u.created_at_ms AS "createdAt",
    b.last_sync AS "lastSync", coalesce(b.batches, 0)::bigint AS batches, coalesce(b.uploaded, 0)::bigint AS "uploadedSamples"
  FROM users u
  LEFT JOIN profiles p ON p.user_id = u.user_id
  LEFT JOIN (SELECT user_id, max(received_at_ms) AS last_sync, count(*) AS batches, sum(sample_count) AS uploaded FROM upload_batches GROUP BY user_id) b ON b.user_id = u.user_id
  ORDER BY u.created_at_ms, u.user_id`;

/** Medians of `runs` alternating timings of two reads (one unmeasured run of each first), after checking they give the same rows. */
async function alternate(ours: () => Promise<unknown>, theirs: () => Promise<unknown>, what: string): Promise<{ ours: number; theirs: number }> {
  if (JSON.stringify(await ours()) !== JSON.stringify(await theirs())) throw new Error(`the rows differ: ${what}`);
  const times = { ours: [] as number[], theirs: [] as number[] };
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    await ours();
    times.ours.push(performance.now() - t);
    t = performance.now();
    await theirs();
    times.theirs.push(performance.now() - t);
  }
  return { ours: median(times.ours), theirs: median(times.theirs) };
}

/** The catalog's rows counted from the samples themselves: its statement before migration 6. */
const COUNTED_SQL = `WITH raw AS (
    SELECT t.type_id, c.n, c.earliest, c.latest
    FROM sample_types t
    CROSS JOIN LATERAL (SELECT count(*) AS n, min(s.start_ms) AS earliest, max(s.start_ms) AS latest FROM samples s WHERE s.user_id = $1 AND s.type_id = t.type_id) c
    WHERE c.n > 0
  ), agg AS (
    SELECT type_id, count(*) AS n, min(day)::text AS first_day, max(day)::text AS last_day FROM daily_aggregates WHERE user_id = $1 GROUP BY type_id
  )
  SELECT t.identifier, coalesce(raw.n, 0)::bigint AS "rawRows", coalesce(agg.n, 0)::bigint AS "aggregateRows",
         raw.earliest AS "earliestRaw", raw.latest AS "latestRaw", agg.first_day AS "firstDay", agg.last_day AS "lastDay"
  FROM sample_types t LEFT JOIN raw ON raw.type_id = t.type_id LEFT JOIN agg ON agg.type_id = t.type_id
  WHERE raw.n IS NOT NULL OR agg.n IS NOT NULL
  UNION ALL SELECT 'HKWorkoutTypeIdentifier', count(*), 0, min(start_ms), max(start_ms), NULL, NULL FROM workouts WHERE user_id = $1 HAVING count(*) > 0
  UNION ALL SELECT 'HKDataTypeIdentifierStateOfMind', count(*), 0, min(logged_at_ms), max(logged_at_ms), NULL, NULL FROM state_of_mind WHERE user_id = $1 HAVING count(*) > 0
  UNION ALL SELECT 'HKActivitySummaryTypeIdentifier', count(*), 0, NULL, NULL, min(day)::text, max(day)::text FROM activity_summaries WHERE user_id = $1 HAVING count(*) > 0`;


async function main(): Promise<void> {
  const dataset = await openDataset(join(process.cwd(), 'bench', 'data', 'demo'), DATASET, (line) => console.error(line));
  const client = new pg.Client({ connectionString: dataset.db.adminUrl });
  await client.connect();
  const rows: string[] = [];
  const userRows: string[] = [];
  try {
    for (const user of dataset.userIds) {
      const [{ samples }] = (await client.query<{ samples: number }>('SELECT count(*) AS samples FROM samples WHERE user_id = $1', [user])).rows;
      const types = (await catalogRows(client, user)).length;
      const { ours: o, theirs: c } = await alternate(() => catalogRows(client, user), () => client.query(COUNTED_SQL, [user]).then((r) => r.rows), `the catalog of ${user}`);
      rows.push(`| ${user} | ${Number(samples).toLocaleString('en-US')} | ${types} | **${fmt(o)}** | ${fmt(c)} | ${(c / o).toFixed(0)}× |`);
      console.error(`catalog: ${user}: ${fmt(o)} ms against ${fmt(c)} ms counted`);
    }
    const batchesNow = async () => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM upload_batches')).rows[0].n);
    const usersNow = async () => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0].n);
    const usersRow = async (label: string) => {
      const t = await alternate(() => listAllUsers(client), () => client.query(SUMMED_USERS_SQL).then((r) => r.rows), label);
      userRows.push(`| ${label} | ${(await usersNow()).toLocaleString('en-US')} | ${(await batchesNow()).toLocaleString('en-US')} | **${fmt(t.ours)}** | ${fmt(t.theirs)} | ${(t.theirs / t.ours).toFixed(0)}× |`);
      console.error(`users: ${label}: ${fmt(t.ours)} ms against ${fmt(t.theirs)} ms summed`);
    };
    await usersRow('the bench dataset');
    await client.query('BEGIN');
    try {
      await client.query(
        `INSERT INTO users (user_id, created_at_ms) SELECT ('20000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 1000 + u FROM generate_series(1, $1) u`,
        [STUDY_USERS],
      );
      await client.query(
        `INSERT INTO upload_batches (user_id, received_at_ms, sample_count)
         SELECT ('20000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 1700000000000 + b::bigint * 900000, 1 + b % 1000
         FROM generate_series(1, $1) u CROSS JOIN generate_series(1, $2) b`,
        [STUDY_USERS, STUDY_BATCHES],
      );
      await client.query('ANALYZE users, upload_batches, upload_totals');
      await usersRow(`plus ${STUDY_USERS.toLocaleString('en-US')} users × ${STUDY_BATCHES.toLocaleString('en-US')} batches (rolled back after)`);
    } finally {
      await client.query('ROLLBACK');
      // The rolled-back rows are dead tuples until vacuumed, and their index
      // entries leave the indexes a hundred times their size (a vacuum does
      // not shrink a btree): the planner then reads /v1/users' newest upload
      // by a scan of the table instead of the index. The route bench reads
      // these tables next.
      await client.query('VACUUM ANALYZE users, upload_batches, upload_totals');
      await client.query('REINDEX TABLE users');
      await client.query('REINDEX TABLE upload_batches');
      await client.query('REINDEX TABLE upload_totals');
    }
  } finally {
    await client.end();
    await dataset.db.stop();
  }
  const markdown = `## The cold catalog and the users list (issue 12, bench/catalog.ts)

- Command: \`npm run bench:catalog\` (\`--runs ${RUNS}\`); the bench dataset (bench/lib/dataset.ts), one connection, the two statements alternating, median of ${RUNS} runs each, after one run of each unmeasured; the rows checked equal first. Load average at the end ${loadavg().map((x) => x.toFixed(1)).join(', ')}.
- healthd: the catalog's statement (src/db/queries/catalog.ts): the samples' counts the writers keep (migration 6, src/db/writes/sample-counts.ts) and per type two index probes for the first and last start. Baseline: the cheapest SQL yielding the same rows without kept counts, one (user, type) range of the samples index counted per type (its statement before migration 6).
- This is the cost of a catalog answer when the per-user cache (\`CATALOG_FRESH_MS\`, \`CATALOG_STALE_MS\`) holds nothing: a user's first request after a start, or after an hour without one. The warm catalog is in the route table above.

| User | samples | types | healthd ms (median) | counted ms (median) | ratio |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

/v1/users' statement the same way: healthd's (src/db/queries/users.ts) sums each user's rows of the upload totals the triggers keep (migration 7, a few rows a user) and takes the newest upload from the (user_id, received_at_ms) index; the baseline sums every upload_batches row (its statement before migration 7). A phone that syncs every 15 minutes adds ~35,000 batches a year.

| Data | users | upload batches | healthd ms (median) | summed ms (median) | ratio |
|---|---:|---:|---:|---:|---:|
${userRows.join('\n')}`;
  console.log(markdown);
  if (!args['no-write']) await writeSection(join(process.cwd(), 'bench', 'RESULTS.md'), 'catalog', markdown);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
