// Issue 15, point 6: demo data ends at the moment it is generated — no
// sample, workout, mood entry or upload batch after it, so lastSync is never
// ahead of the clock — and stays reproducible with an explicit end instant
// (here mid-afternoon, so the day's later syncs, walks and mood are cut).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dayStartMs } from '../src/core/local-days.js';
import { generateDemo } from '../src/demo/generate.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';

const ZONE = 'Europe/Berlin';
// 2026-03-12 15:20 in Berlin.
const END_AT = dayStartMs('2026-03-12', ZONE) + 15 * 3_600_000 + 20 * 60_000;

let fixed: TestDatabase;
let now: TestDatabase;

before(async () => {
  [fixed, now] = await Promise.all([createTestDatabase(), createTestDatabase()]);
});

after(async () => {
  await Promise.all([fixed?.drop(), now?.drop()]);
  await stopOwnCluster();
});

/** The latest instant of each kind of row (null when there is none). */
async function latest(db: TestDatabase) {
  const [row] = await db.query<Record<string, string | null>>(
    `SELECT (SELECT max(end_ms) FROM samples) AS samples, (SELECT max(start_ms) FROM samples) AS "sampleStarts",
            (SELECT max(end_ms) FROM workouts) AS workouts, (SELECT max(logged_at_ms) FROM state_of_mind) AS mood,
            (SELECT max(received_at_ms) FROM upload_batches) AS batches, (SELECT max(day)::text FROM activity_summaries) AS rings,
            (SELECT max(day)::text FROM daily_aggregates) AS aggregates`,
  );
  return row;
}

test('with an explicit end instant nothing comes after it, the batches still declare every sample, and the day so far is there', async () => {
  const result = await generateDemo(fixed.url, { users: 1, days: 2, seed: 15, timeZone: ZONE, endAt: END_AT });
  const last = await latest(fixed);
  for (const kind of ['samples', 'workouts', 'mood', 'batches'] as const) {
    if (last[kind] !== null) assert.ok(Number(last[kind]) <= END_AT, `${kind}: ${last[kind]} after ${END_AT}`);
  }
  assert.ok(Number(last.samples) > END_AT - 3_600_000, 'samples run up to the end instant');
  assert.equal(last.rings, '2026-03-12');
  assert.equal(last.aggregates, '2026-03-12');
  const [declared] = await fixed.query<{ declared: string; stored: string }>(
    `SELECT (SELECT sum(sample_count) FROM upload_batches)::text AS declared, (SELECT count(*) FROM samples)::text AS stored`,
  );
  assert.equal(declared.declared, declared.stored, 'the upload batches declare every sample written');
  assert.equal(Number(declared.stored), result.samples);
  // The same end instant gives the same rows.
  const again = await createTestDatabase();
  try {
    await generateDemo(again.url, { users: 1, days: 2, seed: 15, timeZone: ZONE, endAt: END_AT });
    const checksum = (db: TestDatabase) => db.query(`SELECT md5(string_agg(concat_ws('|', uuid, start_ms, end_ms, value), ',' ORDER BY uuid)) AS sum FROM samples`);
    assert.deepEqual(await checksum(again), await checksum(fixed));
  } finally {
    await again.drop();
  }
});

test('by default the data ends at the moment it is generated: lastSync is never ahead of the clock', async () => {
  const before = Date.now();
  await generateDemo(now.url, { users: 1, days: 2, seed: 15, timeZone: ZONE });
  const after = Date.now();
  const last = await latest(now);
  for (const kind of ['samples', 'sampleStarts', 'workouts', 'mood', 'batches'] as const) {
    if (last[kind] !== null) assert.ok(Number(last[kind]) <= after, `${kind}: ${new Date(Number(last[kind])).toISOString()} is after ${new Date(after).toISOString()}`);
  }
  assert.ok(Number(last.batches) >= before - 2 * 86_400_000, 'there are batches');
});
