// Issue 13, the conformance corpus: the protocol's eight fixtures, applied in
// order to an empty store over real HTTP (gzip, as the app sends them), give
// every expected status, count and ring state; each replayed right after
// itself accepts nothing; and the read API then serves the corpus's final
// state on every route it touches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, countMismatches, stopOwnCluster, type TestDatabase } from './support/db.js';
import { fixtures, postBatch, SYNC_USER, UPLOAD_TOKEN } from './support/ingest.js';
import { startServer, type TestServer } from './support/server.js';

const JUNE_10 = Date.UTC(2024, 5, 10);
const JUNE_12 = Date.UTC(2024, 5, 12);
const WORKOUT = '9f86d081-884c-4d7a-9f2e-0b8a6c3d4e5f';

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  server = await startServer({ databaseUrl: db.url, receiver: true, env: { SERVICE_UPLOAD_TOKEN: UPLOAD_TOKEN, SERVICE_USER_ID: SYNC_USER } });
});

after(async () => {
  await server?.stop();
  await db.drop();
  await stopOwnCluster();
});

/** The rings the read API serves, in the protocol's terms (localDate, moveMode 0/1). */
async function ringsAsProtocol(): Promise<Array<Record<string, unknown>>> {
  const { status, body } = await server.getJson(`/v1/activity/summary?start=${JUNE_10}&end=${JUNE_12}`);
  assert.equal(status, 200);
  return body.days.map(({ date, moveMode, ...rings }: Record<string, unknown>) => ({
    localDate: date,
    ...rings,
    moveMode: moveMode === null ? null : (moveMode as number) - 1,
  }));
}

describe('the fixture corpus, in order', () => {
  for (const fixture of fixtures()) {
    test(fixture.name, async () => {
      const first = await postBatch(server.ingestUrl, fixture.ndjson);
      assert.equal(first.status, fixture.expected.status, `${first.text}\n${server.output().slice(-1500)}`);
      assert.deepEqual(first.body, fixture.expected.response);
      assert.equal(first.headers.get('content-type'), 'application/json');

      const replay = await postBatch(server.ingestUrl, fixture.ndjson);
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.body.accepted, 0);
      assert.equal(replay.body.accepted + replay.body.duplicates, fixture.expected.response.accepted + fixture.expected.response.duplicates);

      if (fixture.expected.state) {
        const served = await ringsAsProtocol();
        for (const day of fixture.expected.state.activitySummaries) {
          assert.deepEqual(
            served.find((d) => d.localDate === day.localDate),
            day,
            `rings of ${day.localDate}`,
          );
        }
      }
    });
  }
});

describe('the read API serves the corpus', () => {
  const heartRate = `/v1/samples?type=HKQuantityTypeIdentifierHeartRate&start=${JUNE_10}&end=${JUNE_12}`;

  test('samples: two heart rates (one deleted by 05, one re-sent in lower case kept once), one sleep stage', async () => {
    const hr = await server.getJson(heartRate);
    assert.equal(hr.status, 200);
    assert.deepEqual(
      hr.body.samples.map((s: { uuid: string; value: number; start: number; end: number; source: string }) => [s.uuid, s.value, s.start, s.end, s.source]),
      [
        ['12121212-1212-4121-8121-121212121212', 64, 1718000010000, 1718000010000, 'Apple Watch'],
        ['13131313-1313-4131-8131-131313131313', 66, 1718000020000, 1718000025000, 'Apple Watch'],
      ],
    );
    const sleep = await server.getJson(`/v1/samples?type=HKCategoryTypeIdentifierSleepAnalysis&start=${JUNE_10}&end=${JUNE_12}`);
    assert.deepEqual(
      sleep.body.samples.map((s: { uuid: string; value: number; label: string; start: number; end: number }) => [s.uuid, s.value, s.label, s.start, s.end]),
      [['c47e1d2b-0a9f-4b3c-8d5e-6f7a8b9c0d1e', 3, 'asleepCore', 1718000000000, 1718003600001]],
    );
    for (const [type, uuid] of [
      ['HKDataTypeIdentifierHeartbeatSeries', '55555555-5555-4555-8555-555555555555'],
      ['HKDataTypeIdentifierElectrocardiogram', '66666666-6666-4666-8666-666666666666'],
      ['HKMedicationDoseEventTypeIdentifierMedicationDoseEvent', '88888888-8888-4888-8888-888888888888'],
    ]) {
      const special = await server.getJson(`/v1/samples?type=${type}&start=${JUNE_10}&end=${JUNE_12}`);
      assert.equal(special.status, 200, type);
      assert.deepEqual(special.body.samples.map((s: { uuid: string }) => s.uuid), [uuid], type);
    }
    const [ecg] = await db.query(`SELECT metadata FROM samples WHERE uuid = '66666666-6666-4666-8666-666666666666'`);
    assert.deepEqual(ecg.metadata.voltagesUV, [1.5, -2.25, 3.0]);
    assert.equal(ecg.metadata.classification, 'sinusRhythm');
  });

  test('workouts: the run with statistics, events, activity, its route and its heart-rate series', async () => {
    const list = await server.getJson('/v1/workouts');
    assert.equal(list.status, 200);
    assert.equal(list.body.workouts.length, 1);
    const [w] = list.body.workouts;
    assert.deepEqual(
      { uuid: w.uuid, activityType: w.activityType, start: w.start, end: w.end, durationS: w.durationS, distanceM: w.distanceM, energyKcal: w.energyKcal, hasRoute: w.hasRoute, availableMetrics: w.availableMetrics },
      { uuid: WORKOUT, activityType: 'running', start: 1718000000000, end: 1718003600501, durationS: 3600.5, distanceM: 8046.7, energyKcal: 450.2, hasRoute: true, availableMetrics: ['HKQuantityTypeIdentifierHeartRate'] },
    );
    const detail = await server.getJson(`/v1/workouts/${WORKOUT}`);
    assert.deepEqual(detail.body.statisticsDetail, {
      HKQuantityTypeIdentifierHeartRate: { min: 98, avg: 152, max: 178 },
      HKQuantityTypeIdentifierActiveEnergyBurned: { sum: 450.2 },
    });
    assert.deepEqual(detail.body.events.map((e: { type: string; start: number }) => [e.type, e.start]), [['lap', 1718001800000], ['segment', 1718000000000]]);
    assert.equal(detail.body.activities.length, 1);
    const series = await server.getJson(`/v1/workouts/${WORKOUT}/series`);
    assert.equal(series.status, 200);
    assert.deepEqual(series.body.series, [
      { type: 'HKQuantityTypeIdentifierHeartRate', unit: 'count/min', totalPoints: 2, points: [[1718000001001, 120], [1718000002000, 135.5]] },
    ]);
    const [route] = await db.query(`SELECT times_ms, latitudes, longitudes, altitudes_m FROM workout_routes WHERE workout_uuid = $1`, [WORKOUT]);
    assert.deepEqual(route, { times_ms: ['1718000001001', '1718000002000'], latitudes: [37.3349, 37.335], longitudes: [-122.009, -122.0091], altitudes_m: [12.5, null] });
  });

  test('profile, state of mind and rings', async () => {
    const profile = await server.getJson('/v1/profile');
    assert.deepEqual(profile.body, { userID: SYNC_USER, name: null, email: null, dateOfBirth: 631152000000, biologicalSex: 'male' });
    const moods = await server.getJson(`/v1/state-of-mind?start=${JUNE_10}&end=${JUNE_12}`);
    assert.deepEqual(moods.body.entries, [
      { uuid: '77777777-7777-4777-8777-777777777777', date: '2024-06-10', timestamp: 1718000000000, kind: 'momentaryEmotion', valence: 0.42, valenceClassification: 'pleasant', labels: ['happy'], associations: ['fitness'] },
    ]);
    const rings = await ringsAsProtocol();
    assert.deepEqual(rings.map((d) => [d.localDate, d.moveGoalKcal, d.moveKcal, d.moveMode]), [
      ['2024-06-10', 650, null, 0],
      ['2024-06-11', 600, null, 1],
    ]);
  });

  test('catalog and daily metrics: the emptied step bucket leaves no day; both buckets are stored on the protocol key', async () => {
    assert.deepEqual(await countMismatches(db), [], 'the counts the catalog and /v1/users read are what is stored');
    const catalog = await server.getJson('/v1/catalog/types');
    assert.equal(catalog.status, 200);
    const rows = Object.fromEntries(catalog.body.types.map((t: { identifier: string; rawRows: number }) => [t.identifier, t.rawRows]));
    assert.deepEqual(rows, {
      HKActivitySummaryTypeIdentifier: 2,
      HKCategoryTypeIdentifierSleepAnalysis: 1,
      HKDataTypeIdentifierElectrocardiogram: 1,
      HKDataTypeIdentifierHeartbeatSeries: 1,
      HKDataTypeIdentifierStateOfMind: 1,
      HKMedicationDoseEventTypeIdentifierMedicationDoseEvent: 1,
      HKQuantityTypeIdentifierHeartRate: 2,
      HKWorkoutTypeIdentifier: 1,
    });
    const daily = await server.getJson(`/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount&start=${JUNE_10}&end=${JUNE_12}`);
    assert.equal(daily.status, 200);
    assert.deepEqual(daily.body.metrics, [], 'a day whose bucket was emptied has no value');
    const buckets = await db.query(
      `SELECT t.identifier, b.func, b.interval_value, b.interval_unit, b.device_filter, b.bucket_start_ms::float8 AS start, b.value
       FROM aggregate_buckets b JOIN sample_types t USING (type_id) ORDER BY 1`,
    );
    assert.deepEqual(buckets, [
      { identifier: 'HKQuantityTypeIdentifierHeartRate', func: 'average', interval_value: 1, interval_unit: 'hour', device_filter: 'watch', start: 1718000000000, value: 62.4 },
      { identifier: 'HKQuantityTypeIdentifierStepCount', func: 'sum', interval_value: 1, interval_unit: 'day', device_filter: 'all', start: 1718000000000, value: null },
    ]);
  });

  test('users: the synced user with its last sync, 8 batches and 10 declared samples', async () => {
    const users = await server.getJson('/v1/users');
    assert.equal(users.status, 200);
    assert.equal(users.body.users.length, 1);
    const [user] = users.body.users;
    assert.equal(user.userID, SYNC_USER);
    assert.equal(user.batches, 8);
    assert.equal(user.uploadedSamples, 10);
    assert.ok(Date.now() - user.lastSync < 120_000, 'lastSync is recent');
  });
});
