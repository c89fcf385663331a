// Baseline 3, what a user would pick instead: the bench's routes on Fastify +
// pg, calling the same query functions of src/db/queries/ and answering the
// same JSON, serialized the Fastify way (fast-json-stringify from the same
// TypeBox response schemas). Kept small: parameters are read, not validated,
// and there is no throttle or worker pool (series downsample inline).
// Env: DATABASE_URL, SERVICE_API_TOKEN, SERVICE_USER_ID, SERVICE_TIME_ZONE,
// PORT, DB_POOL_SIZE. Prints `fastify listening on <port>`.
import Fastify, { type FastifyRequest } from 'fastify';
import { CatalogCache } from '../../src/catalog/cache.js';
import { computeCatalog } from '../../src/catalog/service.js';
import { downsampleStream } from '../../src/core/downsample.js';
import { localDayOf } from '../../src/core/local-days.js';
import { categoryLabel, kindOfIdentifier, typeInfo, unitOf } from '../../src/core/registry.js';
import { buildSummary } from '../../src/core/summary.js';
import { createReadOnlyPool } from '../../src/db/pool.js';
import { dailyValues } from '../../src/db/queries/metrics.js';
import { samplesPage } from '../../src/db/queries/samples.js';
import { readSleepNights } from '../../src/reads/sleep.js';
import { listAllUsers } from '../../src/db/queries/users.js';
import { findWorkoutBounds, listWorkouts, workoutStreams } from '../../src/db/queries/workouts.js';
import { DatabaseProbe } from '../../src/db/probe.js';
import * as schemas from '../../src/schemas/resources.js';
import type { DailyMetricT } from '../../src/schemas/resources.js';
import { summaryInput } from '../lib/summary-reads.js';

const env = process.env as Record<string, string>;
const token = env.SERVICE_API_TOKEN;
const userId = env.SERVICE_USER_ID;
const timeZone = env.SERVICE_TIME_ZONE;
const pool = createReadOnlyPool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE ?? 10), statementTimeoutMs: 30_000, connectTimeoutMs: 3_000, applicationName: 'bench-fastify' });
const health = new DatabaseProbe(pool, 2_000);
const catalog = new CatalogCache({ freshMs: 300_000, staleMs: 3_600_000, maxUsers: 10_000, compute: (user: string) => computeCatalog(pool, user, timeZone), onRefreshError: () => {} });

type Query = Record<string, string | undefined>;
const num = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
// Plain JSON Schema without the TypeBox $ids: a schema that nests one twice
// (Summary's SummaryStat) would otherwise resolve the id to two schemas.
const plain = (schema: object): object => JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value)));
const response = (schema: object) => ({ schema: { response: { 200: plain(schema) } } });

const app = Fastify({ logger: false });

app.addHook('onRequest', async (request, reply) => {
  if (!request.url.startsWith('/v1/')) return;
  reply.header('cache-control', 'no-store');
  if (request.headers.authorization !== `Bearer ${token}`) {
    reply.code(401).header('www-authenticate', 'Bearer');
    return reply.send({ error: 'missing or invalid bearer token' });
  }
});

app.get('/healthz', { schema: { response: { 200: plain(schemas.Health), 503: plain(schemas.Health) } } }, async (_request, reply) => {
  const db = await health.databaseUp();
  reply.code(db ? 200 : 503);
  return { ok: db, db };
});

app.get('/v1/users', response(schemas.UsersResponse), async () => ({ users: await listAllUsers(pool), default: userId, multiUser: true, timeZone }));

app.get('/v1/catalog/types', response(schemas.CatalogResponse), async () => ({ types: await catalog.get(userId) }));

app.get('/v1/metrics/daily', response(schemas.DailyMetricsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const q = request.query;
  const types = (q.types ?? '').split(',').flatMap((identifier) => {
    const info = typeInfo(identifier);
    return info?.kind === 'quantity' ? [{ identifier, cumulative: info.aggregation === 'cumulative' }] : [];
  });
  const start = Number(q.start);
  const end = Number(q.end);
  const offset = num(q.offset, 0);
  const rows = await dailyValues(pool, userId, types, localDayOf(start, timeZone), localDayOf(end - 1, timeZone), Math.min(num(q.limit, 10_000), 50_000), offset);
  const metrics: DailyMetricT[] = [];
  for (const row of rows) {
    let current = metrics[metrics.length - 1];
    if (current?.identifier !== row.identifier) metrics.push((current = { identifier: row.identifier, unit: unitOf(row.identifier), days: [] }));
    current.days.push({ date: row.date, value: row.value });
  }
  return { metrics, nextOffset: offset + rows.length };
});

app.get('/v1/samples', response(schemas.SamplesPage), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const q = request.query;
  const type = q.type ?? '';
  const offset = num(q.offset, 0);
  const rows = await samplesPage(pool, userId, type, Number(q.start), Number(q.end), Math.min(num(q.limit, 1000), 5000), offset);
  const samples = rows.map((row) => ({ uuid: row.uuid, start: row.start, end: row.end, value: row.value, label: categoryLabel(type, row.value), source: row.source }));
  return { type, kind: kindOfIdentifier(type), unit: unitOf(type), samples, nextOffset: offset + samples.length };
});

app.get('/v1/workouts', response(schemas.WorkoutsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const q = request.query;
  const offset = num(q.offset, 0);
  const start = q.start === undefined ? undefined : Number(q.start);
  const end = q.end === undefined ? undefined : Number(q.end);
  const workouts = await listWorkouts(pool, userId, { start, end, activityType: q.activityType, limit: Math.min(num(q.limit, 50), 200), offset });
  return { workouts, nextOffset: offset + workouts.length };
});

app.get('/v1/workouts/:uuid/series', response(schemas.WorkoutSeriesResponse), async (request: FastifyRequest<{ Querystring: Query; Params: { uuid: string } }>, reply) => {
  const maxPoints = Math.min(num(request.query.maxPoints, 500), 5000);
  const workout = await findWorkoutBounds(pool, userId, request.params.uuid.toLowerCase());
  if (!workout) return reply.code(404).send({ error: 'workout not found' });
  const rows = await workoutStreams(pool, userId, workout.uuid);
  const series = rows.map((row) => {
    const reduced = downsampleStream({ times: Float64Array.from(row.times), values: Float64Array.from(row.values) }, maxPoints);
    const points = Array.from(reduced.times, (time, i): [number, number] => [time, reduced.values[i]]);
    return { type: row.identifier, unit: unitOf(row.identifier), totalPoints: row.times.length, points };
  });
  return { uuid: workout.uuid, start: workout.start, end: workout.end, maxPoints, series };
});

app.get('/v1/sleep/daily', response(schemas.SleepNightsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  return { nights: await readSleepNights(pool, userId, Number(request.query.start), Number(request.query.end), timeZone) };
});

// The bench asks for range=90d&format=json only.
app.get('/v1/summary', response(schemas.Summary), async () => buildSummary(await summaryInput(pool, userId, timeZone, '90d')));

app.listen({ host: '127.0.0.1', port: Number(env.PORT) }).then(
  () => process.stdout.write(`fastify listening on ${env.PORT}\n`),
  (error: unknown) => {
    process.stderr.write(`fastify: ${String(error)}\n`);
    process.exit(1);
  },
);

process.on('SIGTERM', () => {
  void app.close().then(() => pool.end()).then(() => process.exit(0));
});
