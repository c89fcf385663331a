// Issue 15, as an integrator meets the API, on a real server and database:
// - every operation's example (request and trimmed responses) is in
//   /openapi.json, valid against its own schema (Ajv 2020 and Ajv draft-07, the
//   dialect Prism validates with), and the example request answers 200;
// - Prism's validating proxy (a real third-party validator, the one that
//   refused the series tuples and clamped limits) sees no violation in real
//   answers of every route — examples, the walk over every /v1 operation, both
//   media types of each route, clamped and repeated-list requests, errors;
// - list parameters given comma-separated, repeated or mixed; the cap counts
//   every identifier; a repeated scalar stays a 400; clamps documented without
//   a maximum;
// - refusals name epoch milliseconds and suggest a type identifier;
// - the routes export dataset, against a real Apple Watch export imported
//   with the importer and a hand-made track.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { EXAMPLE } from '../src/schemas/examples.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { person, seedCommon, seedPerson, T0, DAY, validPaths } from './support/faults.js';
import { OPERATIONS } from './support/operations.js';
import { startServer, type TestServer } from './support/server.js';

const ME = person(1, { userId: EXAMPLE.user, workoutUuid: EXAMPLE.workout });
const REAL_USER = '00000000-0000-4000-8000-0000000000e1';
const HAND = 'c1500000-0000-4000-8000-000000000001';
const HEART = 'HKQuantityTypeIdentifierHeartRate';
const STEPS = 'HKQuantityTypeIdentifierStepCount';
const REAL_EXPORT = join(process.cwd(), '..', 'shared', 'real-exports', 'en-2022-ios16-watch-workout-gpx.zip');
const IMPORT_CLI = join(process.cwd(), 'dist', 'src', 'import', 'cli.js');
const PRISM = join(process.cwd(), 'node_modules', '.bin', 'prism');

let db: TestDatabase;
let server: TestServer;
let doc: any;

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'DATABASE_URL') base[key] = value;
  const child = spawn(command, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

before(async () => {
  db = await createTestDatabase();
  await seedCommon(db.query);
  await seedPerson(db.query, ME);
  // A hand-made track in the example week: stored out of order, one point without an altitude.
  const start = T0 + 4 * DAY;
  await db.query(`INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms) VALUES ($1, $2, 'hiking', $3::bigint, $3::bigint + 3000)`, [ME.userId, HAND, start]);
  await db.query(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES ($1, $2, $3::bigint[], $4::float8[], $5::float8[], $6::float8[])`,
    [ME.userId, HAND, [start + 2000, start, start + 1000], [47.0002, 47, 47.0001], [8.5, 8.5, 8.5], [402, 400, null]],
  );
  const imported = await run(process.execPath, [IMPORT_CLI, '--user', REAL_USER, REAL_EXPORT], { DATABASE_URL: db.url, SERVICE_TIME_ZONE: 'UTC' });
  assert.equal(imported.code, 0, `import failed:\n${imported.output.slice(-2000)}`);
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_USER_ID: ME.userId, SERVICE_MULTI_USER: 'true' } });
  doc = await (await server.get('/openapi.json', { token: null })).json();
});

after(async () => {
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

// CommonJS modules: under NodeNext their class or function is the default import's .default.
const Ajv = AjvModule.default;
const Ajv2020 = Ajv2020Module.default;
const addFormats = formatsModule.default;

/** Validators of a schema of the document: Ajv 2020 (the document's dialect) and Ajv draft-07 as Prism runs it. */
function validators(schema: object): { name: string; validate: (value: unknown) => boolean; errors: () => unknown }[] {
  return [new Ajv2020({ strict: false, allErrors: true }), new Ajv({ strict: false, allErrors: true })].map((ajv, i) => {
    addFormats(ajv as never);
    const compiled = ajv.compile({ ...schema, components: doc.components });
    return { name: i === 0 ? 'Ajv 2020' : 'Ajv draft-07', validate: (value) => compiled(value) as boolean, errors: () => compiled.errors };
  });
}

/** Every operation's example request (its curl sample) as a path and query. */
function exampleRequests(): { operationId: string; path: string }[] {
  return Object.values(doc.paths as Record<string, any>).map(({ get }) => {
    const source: string = get['x-codeSamples'][0].source;
    const url = /"(https?:\/\/[^"]+)"/.exec(source)![1];
    return { operationId: get.operationId, path: url.slice(server.baseUrl.length) };
  });
}

describe('examples', () => {
  test('every operation has a request example and a trimmed example for each 2xx media type, each valid against its own schema', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), Object.values(OPERATIONS).sort());
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      const op = item.get;
      const sample = op['x-codeSamples']?.[0];
      assert.equal(sample?.lang, 'Shell', `${path}: a curl sample`);
      assert.match(sample.source, /^curl /, path);
      for (const parameter of op.parameters) {
        if (parameter.in === 'path') assert.notEqual(parameter.example, undefined, `${path}: path parameter ${parameter.name} has an example`);
        if (parameter.example === undefined) continue;
        for (const v of validators(parameter.schema)) assert.ok(v.validate(parameter.example), `${path} ${parameter.name} example (${v.name}): ${JSON.stringify(v.errors())}`);
        checked++;
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) >= 300) continue;
        for (const [type, media] of Object.entries(response.content as Record<string, any>)) {
          assert.notEqual(media.example, undefined, `${path} ${status} ${type} has an example`);
          for (const v of validators(media.schema)) assert.ok(v.validate(media.example), `${path} ${status} ${type} example (${v.name}): ${JSON.stringify(v.errors())}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `${checked} examples checked`);
  });

  test('every example request answers 200 against data seeded for it', async () => {
    for (const { operationId, path } of exampleRequests()) {
      const response = await server.get(path);
      await response.arrayBuffer();
      assert.equal(response.status, 200, `${operationId} ${path}`);
    }
  });

  test('/docs shows each example request and response', async () => {
    const html = await (await server.get('/docs', { token: null })).text();
    assert.ok(html.includes(`curl -H &quot;Authorization: Bearer $TOKEN&quot; &quot;$H/v1/workouts/${EXAMPLE.workout}/series?types=${HEART}&amp;maxPoints=3&quot;`));
    assert.ok(html.includes('&quot;totalPoints&quot;: 3482'), 'the series example response');
    assert.ok(html.includes('uuid,activityType,time,latitude,longitude,altitude'), 'the CSV example');
  });
});

/** A free port on the loopback address (closed again; Prism binds it next). */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

describe("Prism's validating proxy over real answers of every route", () => {
  let prism: ChildProcess;
  let prismUrl: string;
  let prismOutput = '';
  const dir = mkdtempSync(join(tmpdir(), 'healthd-prism-'));

  before(async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const port = await freePort();
    prismUrl = `http://127.0.0.1:${port}`;
    prism = spawn(PRISM, ['proxy', file, server.baseUrl, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    prism.stdout!.on('data', (chunk) => (prismOutput += chunk));
    prism.stderr!.on('data', (chunk) => (prismOutput += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start in 60 s:\n${prismOutput}`)), 60_000);
      const check = () => {
        if (prismOutput.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      prism.stdout!.on('data', check);
      prism.once('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${prismOutput}`)));
    });
  });

  after(async () => {
    if (prism && prism.exitCode === null) {
      prism.kill();
      await once(prism, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The request through Prism: its status (the same as the server's) and Prism's violations, if any. */
  async function throughPrism(path: string, token: string | null = server.token) {
    const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    const [proxied, direct] = await Promise.all([fetch(prismUrl + path, { headers }), fetch(server.baseUrl + path, { headers })]);
    await Promise.all([proxied.arrayBuffer(), direct.arrayBuffer()]);
    const violations = proxied.headers.get('sl-violations');
    return { status: proxied.status, directStatus: direct.status, violations: violations ? JSON.parse(violations) : [] };
  }

  test('a request the document refuses is reported (the validator is live)', async () => {
    const refused = await throughPrism(`/v1/workouts?limit=0`);
    assert.equal(refused.directStatus, 400);
    assert.ok(refused.violations.some((v: any) => v.location.join('.') === 'request.query.limit'), JSON.stringify(refused.violations));
  });

  test('no violation in any answer: examples, every /v1 operation, both media types, clamps, lists, errors', async () => {
    const { workouts } = (await server.getJson(`/v1/workouts?user=${REAL_USER}`)).body;
    const real = workouts.find((w: { hasRoute: boolean }) => w.hasRoute);
    assert.ok(real, 'the real export has a workout with a route');
    const range = `start=${T0}&end=${T0 + 7 * DAY}`;
    const paths = [
      ...exampleRequests().map((r) => r.path),
      ...validPaths(ME).map((r) => r.path),
      // Both media types of each route that has two, and the real track.
      `/v1/workouts/${EXAMPLE.workout}/route?format=gpx`,
      `/v1/workouts/${real.uuid}/route?user=${REAL_USER}&maxPoints=100`,
      `/v1/workouts/${real.uuid}/series?user=${REAL_USER}`,
      '/v1/summary?format=markdown&range=30d',
      `/v1/export?format=jsonl&dataset=routes&${range}`,
      `/v1/export?format=csv&dataset=daily_metrics&types=${STEPS}&types=${HEART}&${range}`,
      // Clamped parameters, and lists given the way generated clients send them.
      '/v1/workouts?limit=1000',
      `/v1/metrics/daily?types=${STEPS}&${range}&limit=999999`,
      `/v1/samples?type=${HEART}&${range}&limit=100000`,
      `/v1/workouts/${EXAMPLE.workout}/series?maxPoints=99999`,
      `/v1/workouts/${EXAMPLE.workout}/route?maxPoints=99999`,
      `/v1/metrics/latest?types=${STEPS}&types=${HEART}`,
      `/v1/metrics/latest?types=${STEPS},${HEART}&types=HKQuantityTypeIdentifierBodyMass`,
      `/v1/workouts/${EXAMPLE.workout}/series?types=${HEART}&types=${STEPS}`,
      // Documented errors: a 400, a 404 of each kind.
      `/v1/metrics/latest?types=HeartRate`,
      `/v1/workouts/${HAND.replace('c15', 'd15')}`,
      `/v1/workouts/${HAND.replace('c15', 'd15')}/route`,
    ];
    const statuses = new Map<number, number>();
    for (const path of paths) {
      const { status, directStatus, violations } = await throughPrism(path);
      assert.equal(status, directStatus, `${path}: Prism passes the answer through`);
      assert.deepEqual(violations, [], `${path}: ${status}`);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    assert.deepEqual([...statuses.keys()].sort(), [200, 400, 404], JSON.stringify(Object.fromEntries(statuses)));
  });
});

describe('list parameters, clamps and refusals', () => {
  const latest = async (query: string) => server.getJson(`/v1/metrics/latest?${query}`);

  test('a list given comma-separated, repeated or both answers the same; order kept, repeats once', async () => {
    const comma = await latest(`types=${STEPS},${HEART}`);
    assert.equal(comma.status, 200);
    assert.deepEqual(comma.body.metrics.map((m: { identifier: string }) => m.identifier), [STEPS, HEART]);
    for (const query of [`types=${STEPS}&types=${HEART}`, `types=${STEPS}&types=${HEART},${STEPS}`, `types=${STEPS},${STEPS}&types=${HEART}`]) {
      const answer = await latest(query);
      assert.deepEqual([answer.status, answer.body], [200, comma.body], query);
    }
    const daily = (q: string) => server.getJson(`/v1/metrics/daily?${q}&start=${T0}&end=${T0 + 7 * DAY}`);
    assert.deepEqual((await daily(`types=${HEART}&types=${STEPS}`)).body, (await daily(`types=${HEART},${STEPS}`)).body);
  });

  test('the cap of 50 counts every identifier sent, however given; a repeated scalar is still a 400', async () => {
    const ids = (n: number) => Array.from({ length: n }, () => STEPS);
    assert.equal((await latest(`types=${ids(25).join(',')}&types=${ids(25).join(',')}`)).status, 200);
    const over = await latest(`types=${ids(25).join(',')}&types=${ids(26).join(',')}`);
    assert.deepEqual(over.body, { error: 'types must name at most 50 identifiers' });
    const repeatedOne = await latest(ids(51).map((id) => `types=${id}`).join('&'));
    assert.equal(repeatedOne.status, 400);
    assert.deepEqual((await server.getJson(`/v1/workouts?limit=5&limit=6`)).body, { error: 'limit must be given once' });
    assert.deepEqual((await server.getJson(`/v1/samples?type=${HEART}&type=${STEPS}&start=${T0}&end=${T0 + DAY}`)).body, { error: 'type must be given once' });
  });

  test('clamped parameters: no maximum a validator would refuse, the clamp in x-clamp and in words', async () => {
    for (const [path, name, clamp] of [['/v1/workouts', 'limit', 200], ['/v1/metrics/daily', 'limit', 50_000], ['/v1/samples', 'limit', 5000], ['/v1/workouts/{uuid}/series', 'maxPoints', 5000], ['/v1/workouts/{uuid}/route', 'maxPoints', 5000]] as const) {
      const parameter = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
      assert.equal(parameter.schema.maximum, undefined, `${path} ${name}`);
      assert.equal(parameter.schema['x-clamp'], clamp, `${path} ${name}`);
      assert.match(parameter.description, new RegExp(`clamped to ${clamp}|clamped\\)`), `${path} ${name}`);
    }
    const { body } = await server.getJson('/v1/workouts?limit=1000');
    assert.equal(body.workouts.length, 2, 'every workout of the user, no refusal');
    const types = doc.paths['/v1/metrics/latest'].get.parameters.find((p: { name: string }) => p.name === 'types');
    assert.deepEqual([types.style, types.explode], ['form', true], 'lists as generated clients send them');
    const tuple = doc.components.schemas.SeriesStream.properties.points.items;
    assert.equal(tuple.minItems, 2);
    assert.equal(tuple.maxItems, 2);
    assert.deepEqual(tuple.items, { type: 'number' }, 'items: the union of the positions, never false');
  });

  test('every timestamp refusal names epoch milliseconds', async () => {
    const refusals = [
      `/v1/sleep/daily?start=2026-01-05&end=${T0 + DAY}`,
      `/v1/sleep/daily?start=${T0}&end=253402300800000`,
      `/v1/sleep/daily?start=${T0}&end=${T0}`,
      `/v1/sleep/daily?start=${T0 / 1000}&end=${T0}`,
      `/v1/samples?type=${HEART}&start=${T0}&end=${T0 + 32 * DAY}`,
      `/v1/workouts?start=${T0}&end=1`,
    ];
    for (const path of refusals) {
      const { status, body } = await server.getJson(path);
      assert.equal(status, 400, path);
      assert.match(body.error, /epoch milliseconds/, `${path}: ${body.error}`);
    }
  });

  test('an unknown type suggests the identifier meant and points at the catalog', async () => {
    const { body } = await latest('types=HeartRate');
    assert.equal(body.error, 'unknown type: HeartRate; did you mean HKQuantityTypeIdentifierHeartRate? (the types stored for a user are listed at /v1/catalog/types)');
    for (const [given, meant] of [['sleepanalysis', 'HKCategoryTypeIdentifierSleepAnalysis'], ['HKQuantityTypeIdentifierStepcount', STEPS]]) {
      assert.match((await server.getJson(`/v1/samples?type=${given}&start=${T0}&end=${T0 + DAY}`)).body.error, new RegExp(`did you mean ${meant}\\?`));
    }
    assert.equal((await latest('types=Nonsense')).body.error, 'unknown type: Nonsense (the types stored for a user are listed at /v1/catalog/types)');
  });
});

describe('the routes export dataset', () => {
  const exportText = async (query: string) => {
    const response = await server.get(`/v1/export?${query}`);
    assert.equal(response.status, 200, query);
    return { text: await response.text(), type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition') };
  };

  test('one row per recorded point, workouts newest first, points by time, altitude empty or null where unknown', async () => {
    const range = `start=${T0}&end=${T0 + 7 * DAY}`;
    const csv = await exportText(`format=csv&dataset=routes&${range}`);
    assert.equal(csv.type, 'text/csv');
    assert.equal(csv.disposition, `attachment; filename="service-routes-${T0}-${T0 + 7 * DAY}.csv"`);
    const start = T0 + 4 * DAY;
    const seeded = T0 + 2 * DAY + 18 * 3_600_000; // seedPerson's workout: one point
    assert.equal(
      csv.text,
      'uuid,activityType,time,latitude,longitude,altitude\r\n' +
        `${HAND},hiking,${start},47,8.5,400\r\n${HAND},hiking,${start + 1000},47.0001,8.5,\r\n${HAND},hiking,${start + 2000},47.0002,8.5,402\r\n` +
        `${EXAMPLE.workout},${ME.activityType},${seeded},52.5,13.4,40\r\n`,
    );
    const jsonl = await exportText(`format=jsonl&dataset=routes&${range}&activityType=hiking`);
    assert.equal(jsonl.type, 'application/x-ndjson');
    assert.deepEqual(jsonl.text.trimEnd().split('\n').map((line) => JSON.parse(line)), [
      { uuid: HAND, activityType: 'hiking', time: start, latitude: 47, longitude: 8.5, altitude: 400 },
      { uuid: HAND, activityType: 'hiking', time: start + 1000, latitude: 47.0001, longitude: 8.5, altitude: null },
      { uuid: HAND, activityType: 'hiking', time: start + 2000, latitude: 47.0002, longitude: 8.5, altitude: 402 },
    ]);
    assert.equal((await exportText(`format=csv&dataset=routes&start=${T0}&end=${T0 + 1}`)).text, 'uuid,activityType,time,latitude,longitude,altitude\r\n', 'no workout: the header alone');
    const capped = await server.getJson(`/v1/export?format=csv&dataset=routes&start=${T0}&end=${T0 + 367 * DAY}`);
    assert.deepEqual(capped.body, { error: 'range must not exceed 366 days (start and end are epoch milliseconds)' });
  });

  test('a real Apple Watch export, imported: the rows are the route endpoint\'s points at full resolution and the GPX file\'s', async () => {
    const { workouts } = (await server.getJson(`/v1/workouts?user=${REAL_USER}`)).body;
    const real = workouts.find((w: { hasRoute: boolean }) => w.hasRoute);
    const route = (await server.getJson(`/v1/workouts/${real.uuid}/route?user=${REAL_USER}&maxPoints=5000`)).body;
    assert.ok(route.totalPoints > 100 && route.points.length === route.totalPoints, `${route.totalPoints} points, all returned`);
    const range = `start=${real.start}&end=${real.start + 1}&user=${REAL_USER}`;
    const rows = (await exportText(`format=jsonl&dataset=routes&${range}`)).text.trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(rows, route.points.map(([time, latitude, longitude, altitude]: number[]) => ({ uuid: real.uuid, activityType: real.activityType, time, latitude, longitude, altitude })));
    const csv = (await exportText(`format=csv&dataset=routes&${range}`)).text.trimEnd().split('\r\n');
    assert.equal(csv.length, route.totalPoints + 1);
    const gpx = await (await server.get(`/v1/workouts/${real.uuid}/route?user=${REAL_USER}&format=gpx`)).text();
    const trkpts = [...gpx.matchAll(/<trkpt lat="([^"]+)" lon="([^"]+)">(?:<ele>([^<]+)<\/ele>)?<time>([^<]+)<\/time>/g)];
    assert.equal(trkpts.length, rows.length);
    trkpts.forEach(([, lat, lon, ele, time], i) => {
      assert.deepEqual([Date.parse(time), Number(lat), Number(lon), ele === undefined ? null : Number(ele)], [rows[i].time, rows[i].latitude, rows[i].longitude, rows[i].altitude], `point ${i}`);
    });
  });
});
