// Type ids are smallints (storage.md): a store has 32,767 of them. A name
// already stored takes none — not from a receiver started afresh, whose cache
// is empty — and the receiver registers identifiers its registry does not
// know only while the store holds fewer than INGEST.typesHeldMax types. Past
// that, such lines are dropped and the batch still answered 200 (FACTS §7: a
// receiver that cannot store a valid line may drop it), while the registry's
// types go on being stored for every user.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INGEST } from '../src/limits.js';
import { fileDatabase } from './support/db.js';
import { batch, heartRate, postBatch, SYNC_USER, UPLOAD_TOKEN } from './support/ingest.js';
import { startServer, type TestServer } from './support/server.js';

const T = 1718000000000;
const MADE_UP = 'HKQuantityTypeIdentifierMadeUpByAPhone';
const STEPS = 'HKQuantityTypeIdentifierStepCount';
const OTHER_USER = '5ea4d000-0000-4000-8000-000000000002';

const file = fileDatabase();

const receiver = () => startServer({ databaseUrl: file.db.url, receiver: true, env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN } });

/** The identity sequence's next id, without taking one. */
async function nextTypeId(): Promise<number> {
  const [{ name }] = await file.db.query(`SELECT pg_get_serial_sequence('sample_types', 'type_id') AS name`);
  const [sequence] = await file.db.query(`SELECT last_value, is_called FROM ${name}`);
  return Number(sequence.last_value) + (sequence.is_called ? 1 : 0);
}

async function stored(identifier: string): Promise<number> {
  const [row] = await file.db.query('SELECT count(*)::int AS n FROM samples s JOIN sample_types t USING (type_id) WHERE t.identifier = $1', [identifier]);
  return row.n;
}

test('a type already stored takes no id, from a receiver started afresh too', async () => {
  let server: TestServer = await receiver();
  try {
    const first = await postBatch(server.ingestUrl, batch({ samples: [heartRate(crypto.randomUUID(), T, 60)] }));
    assert.equal(first.status, 200, first.text);
  } finally {
    await server.stop();
  }
  const next = await nextTypeId();
  server = await receiver();
  try {
    const again = await postBatch(server.ingestUrl, batch({ samples: [heartRate(crypto.randomUUID(), T + 1000, 61)] }));
    assert.equal(again.status, 200, again.text);
  } finally {
    await server.stop();
  }
  assert.equal(await nextTypeId(), next, 'the sequence moved for a name already stored');
});

test('past INGEST.typesHeldMax types, lines of a made-up identifier are dropped with a 200; the registry\'s types are still stored, for every user', async () => {
  const [held] = await file.db.query('SELECT count(*)::int AS n FROM sample_types');
  await file.db.query(`INSERT INTO sample_types (identifier) SELECT 'HKQuantityTypeIdentifierFiller' || i FROM generate_series(1, $1::int) AS i`, [INGEST.typesHeldMax - held.n]);
  const server = await receiver();
  try {
    const madeUp = { ...heartRate(crypto.randomUUID(), T, 1), type: MADE_UP, unit: 'count' };
    const steps = { ...heartRate(crypto.randomUUID(), T, 1234), type: STEPS, unit: 'count' };
    const bucket = { type: MADE_UP, func: 'sum', intervalValue: 1, intervalUnit: 'day', deviceFilter: 'all', bucketStart: T, bucketEnd: T + 86_400_000, value: 5 };
    const answer = await postBatch(server.ingestUrl, batch({ samples: [madeUp, steps], aggregates: [bucket] }));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.accepted, 1);
    assert.equal(answer.body.aggregateSamples, 0);
    assert.equal(await stored(STEPS), 1);
    const [madeUpTypes] = await file.db.query('SELECT count(*)::int AS n FROM sample_types WHERE identifier = $1', [MADE_UP]);
    assert.equal(madeUpTypes.n, 0, 'the made-up identifier took an id past the limit');
    // Another user's phone: a registry type new to the store is stored, a made-up one dropped the same way.
    const hrv = { ...heartRate(crypto.randomUUID(), T, 42), type: 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN', unit: 'ms' };
    const other = await postBatch(server.ingestUrl, batch({ samples: [hrv, { ...madeUp, uuid: crypto.randomUUID() }] }), { headers: { 'x-user-id': OTHER_USER } });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.accepted, 1);
    assert.equal(await stored('HKQuantityTypeIdentifierHeartRateVariabilitySDNN'), 1);
    assert.match(server.output(), /batch lines dropped: their types are unknown and the store holds its most types/);
    // Once another writer (an import) has stored the identifier, the receiver stores its lines: no refusal is remembered.
    await file.db.query('INSERT INTO sample_types (identifier) VALUES ($1)', [MADE_UP]);
    const later = await postBatch(server.ingestUrl, batch({ samples: [{ ...madeUp, uuid: crypto.randomUUID() }] }));
    assert.equal(later.status, 200, later.text);
    assert.equal(later.body.accepted, 1);
    assert.equal(await stored(MADE_UP), 1);
  } finally {
    await server.stop();
  }
  const users = await file.db.query('SELECT user_id FROM users ORDER BY user_id');
  assert.deepEqual(users.map((u) => u.user_id), [SYNC_USER, OTHER_USER]);
});

test('batches registering new identifiers at once stop exactly at the limit', async () => {
  // Room for three more, whatever the tests before left.
  await file.db.query('DELETE FROM sample_types WHERE identifier LIKE $1 AND type_id NOT IN (SELECT type_id FROM samples)', ['HKQuantityTypeIdentifierFiller%']);
  const [left] = await file.db.query('SELECT count(*)::int AS n FROM sample_types');
  await file.db.query(`INSERT INTO sample_types (identifier) SELECT 'HKQuantityTypeIdentifierRefill' || i FROM generate_series(1, $1::int) AS i`, [INGEST.typesHeldMax - 3 - left.n]);
  const server = await receiver();
  try {
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, b) =>
        postBatch(server.ingestUrl, batch({ samples: [0, 1, 2, 3, 4, 5].map((i) => ({ ...heartRate(crypto.randomUUID(), T + i, 1), type: `HKQuantityTypeIdentifierConcurrent${b}x${i}`, unit: 'count' })) })),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    assert.equal(answers.reduce((sum, answer) => sum + answer.body.accepted, 0), 3);
  } finally {
    await server.stop();
  }
  const [after] = await file.db.query('SELECT count(*)::int AS n FROM sample_types');
  assert.equal(after.n, INGEST.typesHeldMax);
});
