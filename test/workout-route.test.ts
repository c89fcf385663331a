// /v1/workouts/{uuid}/route on a real server and database: points picked
// evenly with first and last kept, the maxPoints clamp, distance and gain on
// a hand-computed track, altitude nulls, out-of-order storage, GPX 1.1 parsed
// back (well-formed, namespaced, every point), the two 404s, another user's
// workout, the route in /openapi.json and /docs; and a real Apple Watch
// export (644 GPX points) imported with the importer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { readGpx } from '../src/import/gpx.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { DEFAULT_USER, startServer, type TestServer } from './support/server.js';

const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const REAL_USER = '00000000-0000-4000-8000-000000000003';
const T0 = Date.UTC(2026, 2, 1, 7);

const HIKE = 'c0000000-0000-4000-8000-000000000001';
const NO_ROUTE = 'c0000000-0000-4000-8000-000000000002';
const EMPTY_ROUTE = 'c0000000-0000-4000-8000-000000000003';
const LONG = 'c0000000-0000-4000-8000-000000000004';
const SHUFFLED = 'c0000000-0000-4000-8000-000000000005';
const OTHERS = 'd0000000-0000-4000-8000-000000000001';
const UNKNOWN = 'e0000000-0000-4000-8000-000000000001';

// The hike: 10 points a second apart, due north in steps of 0.0001° at 8.5° E.
const HIKE_TIMES = Array.from({ length: 10 }, (_, i) => T0 + i * 1000);
const HIKE_LATS = Array.from({ length: 10 }, (_, i) => 47 + i * 0.0001);
const HIKE_LON = 8.5;
const HIKE_ALTS = [400, 401, 403, null, 402, 405, 405, 404, 406, 410];
// Nine steps of 0.0001° along a meridian on the 6,371,008.8 m sphere: 9 × 11.1195080 = 100.0756 m.
const HIKE_DISTANCE_M = (9 * 0.0001 * Math.PI * 6_371_008.8) / 180;
// Rises 400→401 (1), 401→403 (2), the unknown altitude skipped, 403→402, 402→405 (3), 405→405, 405→404, 404→406 (2), 406→410 (4).
const HIKE_GAIN_M = 12;
const LONG_POINTS = 6001;
const ODD_ACTIVITY = 'a <b> & "c"';

const REAL_EXPORT = join(process.cwd(), '..', 'shared', 'real-exports', 'en-2022-ios16-watch-workout-gpx.zip');
const IMPORT_CLI = join(process.cwd(), 'dist', 'src', 'import', 'cli.js');

let db: TestDatabase;
let server: TestServer;

before(async () => {
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  const workout = `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, $2, $3, $4, $5)`;
  const route = `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES ($1, $2, $3::bigint[], $4::float8[], $5::float8[], $6::float8[])`;
  await db.query(workout, [DEFAULT_USER, HIKE, 'hiking', T0, T0 + 9000]);
  await db.query(route, [DEFAULT_USER, HIKE, HIKE_TIMES, HIKE_LATS, HIKE_LATS.map(() => HIKE_LON), HIKE_ALTS]);
  await db.query(workout, [DEFAULT_USER, NO_ROUTE, 'yoga', T0, T0 + 9000]);
  await db.query(workout, [DEFAULT_USER, EMPTY_ROUTE, 'running', T0, T0 + 9000]);
  await db.query(route, [DEFAULT_USER, EMPTY_ROUTE, [], [], [], []]);
  await db.query(workout, [DEFAULT_USER, LONG, 'cycling', T0, T0 + LONG_POINTS * 1000]);
  await db.query(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m)
     SELECT $1, $2, array_agg($3::bigint + i * 1000 ORDER BY i), array_agg(47 + i * 0.00001 ORDER BY i), array_agg(8.5::float8 ORDER BY i), NULL
     FROM generate_series(0, $4::int - 1) i`,
    [DEFAULT_USER, LONG, T0, LONG_POINTS],
  );
  // Synced out of order (route lines may arrive in any order): stored 3, 1, 2.
  await db.query(workout, [DEFAULT_USER, SHUFFLED, ODD_ACTIVITY, T0, T0 + 3000]);
  await db.query(route, [DEFAULT_USER, SHUFFLED, [T0 + 3000, T0 + 1000, T0 + 2000], [3, 1, 2], [30, 10, 20], [300, 100, 200]]);
  await db.query(workout, [OTHER_USER, OTHERS, 'hiking', T0, T0 + 9000]);
  await db.query(route, [OTHER_USER, OTHERS, HIKE_TIMES, HIKE_LATS, HIKE_LATS.map(() => HIKE_LON), HIKE_ALTS]);

  // The real export goes in through the importer, for a user of its own.
  const run = await runImport(['--user', REAL_USER, REAL_EXPORT], { DATABASE_URL: db.url, SERVICE_TIME_ZONE: 'UTC' });
  assert.equal(run.code, 0, `import failed:\n${run.output.slice(-2000)}`);

  server = await startServer({ databaseUrl: db.url, env: { SERVICE_MULTI_USER: 'true' } });
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

function runImport(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL') base[key] = value;
  const child = spawn(process.execPath, [IMPORT_CLI, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);

test('the whole hike: every point, distance and gain worked out by hand, altitude null where unknown', async () => {
  const { status, body } = await server.getJson(`/v1/workouts/${HIKE}/route`);
  assert.equal(status, 200);
  assert.equal(body.uuid, HIKE);
  assert.equal(body.start, T0);
  assert.equal(body.end, T0 + 9000);
  assert.equal(body.maxPoints, 500);
  assert.equal(body.totalPoints, 10);
  near(body.distanceM, HIKE_DISTANCE_M, 1e-6, 'distance');
  near(body.distanceM, 100.0756, 1e-4, 'distance in metres');
  assert.equal(body.elevationGainM, HIKE_GAIN_M);
  assert.deepEqual(body.points, HIKE_TIMES.map((t, i) => [t, HIKE_LATS[i], HIKE_LON, HIKE_ALTS[i]]));
});

test('maxPoints 4, 3, 2: recorded points picked evenly, first and last kept; distance and gain stay full-resolution', async () => {
  const pick = (indices: number[]) => indices.map((i) => [HIKE_TIMES[i], HIKE_LATS[i], HIKE_LON, HIKE_ALTS[i]]);
  const four = (await server.getJson(`/v1/workouts/${HIKE}/route?maxPoints=4`)).body;
  // round(i · 9 / 3): indices 0, 3, 6, 9 (index 3 has no altitude).
  assert.deepEqual(four.points, pick([0, 3, 6, 9]));
  assert.equal(four.points[1][3], null);
  assert.equal(four.maxPoints, 4);
  assert.equal(four.totalPoints, 10);
  near(four.distanceM, HIKE_DISTANCE_M, 1e-6, 'distance at maxPoints 4');
  assert.equal(four.elevationGainM, HIKE_GAIN_M);
  // round(i · 9 / 2): 0, round(4.5) = 5, 9.
  assert.deepEqual((await server.getJson(`/v1/workouts/${HIKE}/route?maxPoints=3`)).body.points, pick([0, 5, 9]));
  assert.deepEqual((await server.getJson(`/v1/workouts/${HIKE}/route?maxPoints=2`)).body.points, pick([0, 9]));
});

test('maxPoints above 5000 is clamped; the default is 500; below 2 or not an integer is a 400', async () => {
  const clamped = await server.getJson(`/v1/workouts/${LONG}/route?maxPoints=99999`);
  assert.equal(clamped.status, 200);
  assert.equal(clamped.body.maxPoints, 5000);
  assert.equal(clamped.body.totalPoints, LONG_POINTS);
  assert.equal(clamped.body.points.length, 5000);
  const first = [T0, 47, 8.5, null];
  const last = [T0 + (LONG_POINTS - 1) * 1000, clamped.body.points[4999][1], 8.5, null];
  assert.deepEqual(clamped.body.points[0], first);
  assert.deepEqual(clamped.body.points[4999], last);
  near(last[1] as number, 47 + 6000 * 0.00001, 1e-9, 'last latitude');
  // No altitude at all: no gain to report.
  assert.equal(clamped.body.elevationGainM, null);
  // 6000 steps of 0.00001° north: 6000 × 1.1119508 m.
  near(clamped.body.distanceM, (6000 * 0.00001 * Math.PI * 6_371_008.8) / 180, 1e-3, 'long distance');
  const times = clamped.body.points.map((p: number[]) => p[0]);
  assert.ok(times.every((t: number, i: number) => i === 0 || t > times[i - 1]), 'strictly increasing times');

  const byDefault = (await server.getJson(`/v1/workouts/${LONG}/route`)).body;
  assert.equal(byDefault.points.length, 500);
  assert.deepEqual(byDefault.points[0], first);
  assert.deepEqual(byDefault.points[499], last);

  for (const value of ['1', '0', '-3', '2.5', 'x']) {
    const refused = await server.getJson(`/v1/workouts/${HIKE}/route?maxPoints=${value}`);
    assert.equal(refused.status, 400, value);
    assert.match(refused.body.error, /^maxPoints /, value);
  }
  const badFormat = await server.getJson(`/v1/workouts/${HIKE}/route?format=kml`);
  assert.equal(badFormat.status, 400);
  assert.match(badFormat.body.error, /^format /);
});

test('points stored out of order come back ordered by time', async () => {
  const { body } = await server.getJson(`/v1/workouts/${SHUFFLED}/route`);
  assert.deepEqual(body.points, [[T0 + 1000, 1, 10, 100], [T0 + 2000, 2, 20, 200], [T0 + 3000, 3, 30, 300]]);
  assert.equal(body.elevationGainM, 200);
});

/** The elements of a GPX document with their namespace, attributes and text, checked well-formed by saxes. */
function parseXml(xml: string): { name: string; uri: string; attributes: Record<string, string>; text: string; path: string }[] {
  const parser = new SaxesParser({ xmlns: true });
  const elements: { name: string; uri: string; attributes: Record<string, string>; text: string; path: string }[] = [];
  const open: (typeof elements)[number][] = [];
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const [name, attribute] of Object.entries(tag.attributes)) attributes[name] = (attribute as { value: string }).value;
    const element = { name: tag.local!, uri: tag.uri!, attributes, text: '', path: [...open.map((e) => e.name), tag.local].join('/') };
    elements.push(element);
    open.push(element);
  });
  parser.on('text', (text) => {
    if (open.length) open[open.length - 1].text += text;
  });
  parser.on('closetag', () => open.pop());
  parser.write(xml).close();
  return elements;
}

test('format=gpx: a GPX 1.1 download of every point, parsed back', async () => {
  const response = await server.get(`/v1/workouts/${HIKE}/route?format=gpx&maxPoints=2`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/gpx+xml');
  assert.equal(response.headers.get('content-disposition'), `attachment; filename="workout-${HIKE}.gpx"`);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const xml = await response.text();
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>/);
  const elements = parseXml(xml);
  const root = elements[0];
  assert.equal(root.name, 'gpx');
  assert.equal(root.uri, 'http://www.topografix.com/GPX/1/1');
  assert.equal(root.attributes.version, '1.1');
  assert.equal(root.attributes.creator, 'healthd');
  assert.ok(elements.every((e) => e.uri === root.uri), 'every element in the GPX 1.1 namespace');
  // GPX 1.1's sequence: metadata before trk; in trk, name and type before trkseg; in a point, ele before time.
  assert.deepEqual(elements.filter((e) => !e.path.includes('trkpt')).map((e) => e.path), [
    'gpx', 'gpx/metadata', 'gpx/metadata/name', 'gpx/metadata/time', 'gpx/trk', 'gpx/trk/name', 'gpx/trk/type', 'gpx/trk/trkseg',
  ]);
  assert.equal(elements.find((e) => e.path === 'gpx/metadata/time')!.text, new Date(T0).toISOString());
  assert.equal(elements.find((e) => e.path === 'gpx/trk/type')!.text, 'hiking');
  const points = elements.filter((e) => e.name === 'trkpt');
  // Full resolution whatever maxPoints says.
  assert.equal(points.length, 10);
  const children = elements.filter((e) => e.path.startsWith('gpx/trk/trkseg/trkpt/')).map((e) => e.name);
  assert.deepEqual(children, HIKE_ALTS.flatMap((alt) => (alt === null ? ['time'] : ['ele', 'time'])));

  // The importer's own GPX reader gets back exactly what is stored.
  const back = await readGpx('route.gpx', Readable.from([Buffer.from(xml)]));
  assert.deepEqual(back, { timesMs: HIKE_TIMES, latitudes: HIKE_LATS, longitudes: HIKE_LATS.map(() => HIKE_LON), altitudesM: HIKE_ALTS });
});

test('format=gpx escapes text and writes no exponent', async () => {
  const xml = await (await server.get(`/v1/workouts/${SHUFFLED}/route?format=gpx`)).text();
  const elements = parseXml(xml);
  assert.equal(elements.find((e) => e.path === 'gpx/trk/type')!.text, ODD_ACTIVITY);
  assert.doesNotMatch(xml, /\d[eE][-+]?\d/);
  assert.deepEqual(elements.filter((e) => e.name === 'trkpt').map((e) => [e.attributes.lat, e.attributes.lon]), [['1', '10'], ['2', '20'], ['3', '30']]);
});

test("404 'workout not found' for an unknown workout and another user's; a workout without points has an empty track", async () => {
  for (const uuid of [UNKNOWN, OTHERS]) {
    for (const format of ['json', 'gpx']) {
      const { status, body } = await server.getJson(`/v1/workouts/${uuid}/route?format=${format}`);
      assert.equal(status, 404, `${uuid} ${format}`);
      assert.deepEqual(body, { error: 'workout not found' });
    }
  }
  // The other user's workout is there for that user.
  const theirs = await server.getJson(`/v1/workouts/${OTHERS}/route?user=${OTHER_USER}`);
  assert.equal(theirs.status, 200);
  assert.equal(theirs.body.totalPoints, 10);
  // And the default user's hike is not theirs.
  assert.equal((await server.getJson(`/v1/workouts/${HIKE}/route?user=${OTHER_USER}`)).status, 404);
  // api.md: only a missing workout (or profile) is a 404; an empty result is empty.
  for (const [uuid, start, end] of [[NO_ROUTE, T0, T0 + 9000], [EMPTY_ROUTE, T0, T0 + 9000]] as const) {
    const { status, body } = await server.getJson(`/v1/workouts/${uuid}/route?maxPoints=3`);
    assert.equal(status, 200, uuid);
    assert.deepEqual(body, { uuid, start, end, maxPoints: 3, totalPoints: 0, distanceM: 0, elevationGainM: null, points: [] });
    const gpx = await server.get(`/v1/workouts/${uuid}/route?format=gpx`);
    assert.equal(gpx.status, 200, uuid);
    const text = await gpx.text();
    assert.match(text, /<trkseg\/>|<trkseg><\/trkseg>/, uuid);
    assert.doesNotMatch(text, /<trkpt/, uuid);
  }
  assert.equal((await server.getJson(`/v1/workouts/not-a-uuid/route`)).status, 400);
  assert.equal((await server.getJson(`/v1/workouts/${HIKE}/route`, { token: null })).status, 401);
});

test('the route is in /openapi.json and /docs', async () => {
  const doc = (await server.getJson('/openapi.json')).body;
  const operation = doc.paths['/v1/workouts/{uuid}/route']?.get;
  assert.equal(operation?.operationId, 'getWorkoutRoute');
  assert.deepEqual(operation.parameters.map((p: { name: string }) => p.name).sort(), ['format', 'maxPoints', 'user', 'uuid']);
  assert.ok(operation.responses['200'].content['application/gpx+xml'], 'the GPX response is documented');
  assert.ok(operation.responses['404']);
  const docs = await (await server.get('/docs', { token: null })).text();
  assert.match(docs, /\/v1\/workouts\/\{uuid\}\/route/);
  assert.match(docs, /getWorkoutRoute/);
});

test('a real Apple Watch export, imported: 644 GPX points, at the pace of the workout\'s own distance', async () => {
  const list = await server.getJson(`/v1/workouts?user=${REAL_USER}`);
  assert.equal(list.status, 200);
  const withRoute = list.body.workouts.filter((w: { hasRoute: boolean }) => w.hasRoute);
  assert.equal(withRoute.length, 1);
  const workout = withRoute[0];
  assert.ok(workout.distanceM > 1000, 'the workout carries its own distance');
  const { status, body } = await server.getJson(`/v1/workouts/${workout.uuid}/route?user=${REAL_USER}`);
  assert.equal(status, 200);
  assert.equal(body.totalPoints, 644);
  assert.equal(body.points.length, 500);
  assert.ok(body.elevationGainM !== null && body.elevationGainM >= 0);
  // This watch recorded GPS only for the second half of the walk (and lost it for
  // minutes in between), so the track is shorter than the workout's pedometer
  // distance; its pace over the time it has fixes must match the workout's.
  const whole = (await server.getJson(`/v1/workouts/${workout.uuid}/route?user=${REAL_USER}&maxPoints=5000`)).body;
  assert.equal(whole.points.length, 644);
  assert.ok(whole.points[0][0] >= workout.start && whole.points[643][0] <= workout.end, 'the track lies within the workout');
  let trackedS = 0;
  for (let i = 1; i < whole.points.length; i++) {
    const step = (whole.points[i][0] - whole.points[i - 1][0]) / 1000;
    if (step <= 60) trackedS += step;
  }
  const trackPace = body.distanceM / trackedS;
  const workoutPace = workout.distanceM / workout.durationS;
  assert.ok(Math.abs(trackPace / workoutPace - 1) < 0.05, `track ${trackPace.toFixed(3)} m/s vs workout ${workoutPace.toFixed(3)} m/s`);
  const gpx = await server.get(`/v1/workouts/${workout.uuid}/route?format=gpx&user=${REAL_USER}`);
  assert.equal(gpx.status, 200);
  assert.equal(parseXml(await gpx.text()).filter((e) => e.name === 'trkpt').length, 644);
});
