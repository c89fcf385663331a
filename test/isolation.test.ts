// Issue 7, isolation: two people with data in every table, each value
// traceable to its owner (test/support/faults.ts markersOf). With multi-user
// on, an answer for A — every route, both formats of the summary, every export
// dataset — carries nothing of B, and B's workout is not found for A; with it
// off, no parameter spelling, header or path reaches B at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { bearer, DAY, getRequest, markersOf, person, rawRequest, seedCommon, seedPerson, T0, validPaths, type PersonData } from './support/faults.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './support/server.js';

const A = person(1, { userId: DEFAULT_USER });
const B = person(2);
const END = T0 + 7 * DAY;
/** Export datasets, each with what it needs, over the seeded week. */
const EXPORTS = [
  `dataset=samples&type=HKQuantityTypeIdentifierStepCount`,
  `dataset=samples&type=HKCategoryTypeIdentifierSleepAnalysis`,
  `dataset=daily_metrics&types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierRestingHeartRate`,
  `dataset=workouts`,
  `dataset=routes`,
  `dataset=sleep`,
  `dataset=activity`,
  `dataset=state_of_mind`,
];

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  await seedCommon(db.query);
  await seedPerson(db.query, A);
  await seedPerson(db.query, B);
  // Only B has active energy, and recent daily steps for the summary (which ends today).
  await db.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value) VALUES ($1, gen_random_uuid(), (SELECT type_id FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierActiveEnergyBurned'), $2::bigint, $2::bigint, 5)`,
    [B.userId, T0],
  );
  for (const who of [A, B]) {
    await db.query(
      `INSERT INTO daily_aggregates (user_id, type_id, day, sum)
       SELECT $1, (SELECT type_id FROM sample_types WHERE identifier = 'HKQuantityTypeIdentifierStepCount'), current_date - d, $2
       FROM generate_series(0, 6) AS d`,
      [who.userId, who.daySum],
    );
  }
});

after(async () => {
  await db.drop();
  await stopOwnCluster();
});

/** Every answer an owner can get: each route (summary in both formats) and each export dataset. */
function requestsFor(who: PersonData, user?: string): { what: string; path: string }[] {
  const u = user === undefined ? '' : `&user=${user}`;
  const routes = validPaths(who, user)
    .filter((r) => r.operationId !== 'listUsers' && r.operationId !== 'exportDataset' && r.operationId !== 'getSummary')
    .map((r) => ({ what: r.operationId, path: r.path }));
  routes.push({ what: 'sleep samples', path: `/v1/samples?type=HKCategoryTypeIdentifierSleepAnalysis&start=${T0}&end=${END + DAY}${u}` });
  for (const format of ['json', 'markdown']) routes.push({ what: `summary ${format}`, path: `/v1/summary?range=7d&format=${format}${u}` });
  for (const format of ['csv', 'jsonl']) {
    for (const dataset of EXPORTS) routes.push({ what: `export ${format} ${dataset}`, path: `/v1/export?format=${format}&${dataset}&start=${T0}&end=${END + DAY}${u}` });
  }
  return routes;
}

async function read(server: TestServer, path: string): Promise<{ status: number; text: string }> {
  const response = await rawRequest(server.port, getRequest(path, bearer(TEST_TOKEN)));
  assert.ok(response?.complete, path);
  return { status: response.status, text: response.body.toString() };
}

function assertNothingOf(owner: PersonData, text: string, what: string): void {
  for (const marker of markersOf(owner)) assert.ok(!text.includes(marker), `${what}: holds ${owner.name}'s ${marker}`);
}

describe('multi-user on', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true' } });
  });
  after(async () => {
    await server.stop();
  });

  for (const [reader, other, label] of [[A, B, 'A (the default user)'], [B, A, 'B (named by user=)']] as const) {
    test(`every answer for ${label} holds their own data and nothing of the other`, async () => {
      const explicit = requestsFor(reader, reader.userId);
      const requests = reader === A ? [...requestsFor(A), ...explicit] : explicit;
      const withoutOwn = new Set<string>();
      for (const { what, path } of requests) {
        const { status, text } = await read(server, path);
        assert.equal(status, 200, `${what}: ${text.slice(0, 200)}`);
        assertNothingOf(other, text, what);
        if (!markersOf(reader).some((m) => text.includes(m))) withoutOwn.add(what);
      }
      // The check is not vacuous: every answer but the catalog (identifiers and counts)
      // and the markdown summary (rounded figures) shows something of the reader's own.
      assert.deepEqual([...withoutOwn].filter((what) => what !== 'listCatalogTypes' && what !== 'summary markdown'), []);
    });
  }

  test('the catalog counts only the reader\'s rows', async () => {
    const counts = async (user: string) =>
      Object.fromEntries(JSON.parse((await read(server, `/v1/catalog/types?user=${user}`)).text).types.map((t: { identifier: string; rawRows: number; aggregateRows: number }) => [t.identifier, [t.rawRows, t.aggregateRows]]));
    // Seeded per person: steps 7 × 24 samples + 7 daily sums this January + 7 recent ones; heart rate 7 × 144 samples;
    // sleep 2 samples a night × 7; body mass 7; resting heart rate 7 aggregates. Only B has active energy (1 sample).
    const a = await counts(A.userId);
    const b = await counts(B.userId);
    assert.deepEqual(a.HKQuantityTypeIdentifierStepCount, [168, 14]);
    assert.deepEqual(a.HKQuantityTypeIdentifierHeartRate, [1008, 0]);
    assert.deepEqual(a.HKCategoryTypeIdentifierSleepAnalysis, [14, 0]);
    assert.deepEqual(a.HKQuantityTypeIdentifierRestingHeartRate, [0, 7]);
    assert.equal(a.HKQuantityTypeIdentifierActiveEnergyBurned, undefined);
    assert.deepEqual(b.HKQuantityTypeIdentifierActiveEnergyBurned, [1, 0]);
    assert.deepEqual(b.HKQuantityTypeIdentifierStepCount, [168, 14]);
    assert.deepEqual(await counts(A.userId), a, 'cached per user');
  });

  test("another user's workout is not found, whichever uuid spelling", async () => {
    for (const [reader, other] of [[A, B], [B, A]] as const) {
      for (const uuid of [other.workoutUuid, other.workoutUuid.toUpperCase()]) {
        for (const path of [`/v1/workouts/${uuid}`, `/v1/workouts/${uuid}/series`]) {
          const { status, text } = await read(server, `${path}?user=${reader.userId}`);
          assert.equal(status, 404, path);
          assert.deepEqual(JSON.parse(text), { error: 'workout not found' });
        }
      }
    }
  });

  test('a user with no data reads as empty everywhere, never as someone else', async () => {
    const stranger = person(99);
    const empty: Record<string, unknown> = {
      getProfile: { error: 'profile not found' },
      listCatalogTypes: { types: [] },
      getLatestMetrics: { metrics: [] },
      getDailyMetrics: { metrics: [], nextOffset: 0 },
      getActivitySummary: { days: [] },
      listWorkouts: { workouts: [], nextOffset: 0 },
      getWorkout: { error: 'workout not found' },
      getWorkoutSeries: { error: 'workout not found' },
      getWorkoutRoute: { error: 'workout not found' },
      getSleepNights: { nights: [] },
      getStateOfMind: { entries: [] },
    };
    const checked = new Set<string>();
    for (const { what, path } of requestsFor(stranger, stranger.userId)) {
      const { status, text } = await read(server, path);
      assertNothingOf(A, text, what);
      assertNothingOf(B, text, what);
      checked.add(what);
      if (what in empty) {
        assert.equal(status, 'error' in (empty[what] as object) ? 404 : 200, what);
        assert.deepEqual(JSON.parse(text), empty[what], what);
      } else if (what === 'getSamples' || what === 'sleep samples') {
        assert.equal(status, 200, what);
        assert.deepEqual(JSON.parse(text).samples, [], what);
        assert.equal(JSON.parse(text).nextOffset, 0, what);
      } else if (what === 'summary json') {
        const summary = JSON.parse(text);
        assert.deepEqual(
          Object.keys(summary).sort(),
          ['coverage', 'days', 'endDate', 'generatedAt', 'name', 'range', 'startDate', 'timeZone', 'userID'],
          'no section but coverage',
        );
        assert.deepEqual(summary.coverage, { lastSync: null, daysWithData: 0 });
        assert.equal(summary.name, null);
      } else if (what === 'summary markdown') {
        assert.equal(status, 200);
        assert.deepEqual(text.split('\n').filter((line) => line.startsWith('## ')), ['## Coverage'], 'no section but coverage');
      } else if (what.startsWith('export csv')) {
        assert.equal(status, 200, what);
        assert.equal(text.split('\r\n').filter((line) => line !== '').length, 1, `${what}: the header row only`);
      } else if (what.startsWith('export jsonl')) {
        assert.equal(status, 200, what);
        assert.equal(text, '', `${what}: no rows`);
      } else {
        assert.fail(`no expectation for ${what}`);
      }
    }
    assert.equal(checked.size, requestsFor(stranger, stranger.userId).length, 'every answer checked');
  });
});

describe('multi-user off', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ databaseUrl: db.url });
  });
  after(async () => {
    await server.stop();
  });

  test('user= naming B is a 403 on every route, before any of B is read', async () => {
    for (const { what, path } of requestsFor(B, B.userId)) {
      const { status, text } = await read(server, path);
      assert.equal(status, 403, what);
      assert.deepEqual(JSON.parse(text), { error: 'multi-user reads are disabled' });
    }
  });

  test('no other spelling of the parameter, header or path reaches B', async () => {
    const base = `/v1/samples?type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${END}`;
    const attempts: [string, string, Record<string, string>, number | number[]][] = [
      ['%75ser (decodes to user)', `${base}&%75ser=${B.userId}`, {}, 403],
      ['upper-case B', `${base}&user=${B.userId.toUpperCase()}`, {}, 403],
      ['A then B', `${base}&user=${A.userId}&user=${B.userId}`, {}, 400],
      ['B then A', `${base}&user=${B.userId}&user=${A.userId}`, {}, 400],
      ['B with a NUL', `${base}&user=${B.userId}%00`, {}, 400],
      ['B with a space', `${base}&user=${B.userId}%20`, {}, 400],
      ['B in braces', `${base}&user=%7B${B.userId}%7D`, {}, 400],
      ['USER (another name)', `${base}&USER=${B.userId}`, {}, 200],
      ['user[]', `${base}&user[]=${B.userId}`, {}, 200],
      ['userId', `${base}&userId=${B.userId}&user_id=${B.userId}`, {}, 200],
      ['headers', base, { 'X-User': B.userId, 'X-User-Id': B.userId, 'X-Forwarded-User': B.userId, Cookie: `user=${B.userId}` }, 200],
      ['user in the path', `/v1/samples/${B.userId}?type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${END}`, {}, 404],
    ];
    attempts.push(['B\'s workout by uuid', `/v1/workouts/${B.workoutUuid}`, {}, 404]);
    attempts.push(['B\'s workout with user=A', `/v1/workouts/${B.workoutUuid}?user=${A.userId}`, {}, 404]);
    for (const [what, path, headers, expected] of attempts) {
      const response = await rawRequest(server.port, getRequest(path, { ...bearer(TEST_TOKEN), ...headers }));
      assert.ok(response, what);
      assert.deepEqual(response.status, expected, what);
      const text = response.body.toString();
      assertNothingOf(B, text, what);
      if (expected === 200) assert.ok(text.includes(A.source), `${what}: the default user's samples`);
    }
  });

  test('users lists only the default user', async () => {
    const { status, text } = await read(server, '/v1/users');
    assert.equal(status, 200);
    assert.deepEqual(JSON.parse(text).users.map((u: { userID: string }) => u.userID), [A.userId]);
    assertNothingOf(B, text, 'users');
  });
});
