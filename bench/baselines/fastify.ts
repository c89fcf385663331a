// The peer a Node developer would write: the bench's routes on Fastify + pg
// the obvious way — plain SQL whose rows arrive as objects, shaped into the
// same JSON healthd answers, serialized the Fastify way (fast-json-stringify
// from the same TypeBox response schemas) — not healthd's optimized reads
// (column arrays, binary arrays, caches of names, prepared statements). It
// shares healthd's pure domain code (local days, sleep nights, downsampling,
// the summary's numbers, which take their daily values and sleep samples as
// columns: the rows are copied into them) so the answers are the same. Kept small: parameters are read, not
// validated, and there is no throttle or worker pool (series downsample
// inline).
// Env: DATABASE_URL, SERVICE_API_TOKEN, SERVICE_USER_ID, SERVICE_TIME_ZONE,
// PORT, DB_POOL_SIZE. Prints `fastify listening on <port>`.
import Fastify, { type FastifyRequest } from 'fastify';
import { CatalogCache } from '../../src/catalog/cache.js';
import { computeCatalog } from '../../src/catalog/service.js';
import { downsampleStream } from '../../src/core/downsample.js';
import { localDayOf } from '../../src/core/local-days.js';
import { categoryLabel, dailyMetricTypes, kindOfIdentifier, typeInfo, unitOf } from '../../src/core/registry.js';
import { buildSummary, SUMMARY_RANGES, SUMMARY_TYPES, type SummaryInput } from '../../src/core/summary.js';
import { createReadOnlyPool } from '../../src/db/pool.js';
import { assembleSleepNights, nightsInWindow, sleepWindow, INITIAL_SLEEP_LOOKBACK_MS } from '../../src/core/sleep-nights.js';
import { SLEEP_ANALYSIS } from '../../src/core/registry.js';
import { daysSpanMs, lastNDays } from '../../src/core/local-days.js';
import { ALL_USERS_SQL } from '../../src/db/queries/users.js';
import { DatabaseProbe } from '../../src/db/probe.js';
import * as schemas from '../../src/schemas/resources.js';
import type { DailyMetricT } from '../../src/schemas/resources.js';

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

// healthd's statement, sent unnamed as every route here does (until 2026-11-25 healthd's own read: a prepared statement).
app.get('/v1/users', response(schemas.UsersResponse), async () => ({ users: (await pool.query(ALL_USERS_SQL)).rows, default: userId, multiUser: true, timeZone }));

app.get('/v1/catalog/types', response(schemas.CatalogResponse), async () => ({ types: await catalog.get(userId) }));

const typeId = (param: string) => `(SELECT type_id FROM sample_types WHERE identifier = ${param})`;

app.get('/v1/metrics/daily', response(schemas.DailyMetricsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const q = request.query;
  const types = (q.types ?? '').split(',').flatMap((identifier) => {
    const info = typeInfo(identifier);
    return info?.kind === 'quantity' ? [{ identifier, cumulative: info.aggregation === 'cumulative' }] : [];
  });
  const offset = num(q.offset, 0);
  const { rows } = await pool.query<{ identifier: string; date: string; value: number }>(
    `SELECT r.identifier, a.day::text AS date, CASE WHEN r.cumulative THEN a.sum ELSE a.avg END AS value
     FROM unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS r (identifier, cumulative, position)
     JOIN daily_aggregates a ON a.user_id = $1 AND a.type_id = ${typeId('r.identifier')} AND a.day BETWEEN $4::date AND $5::date
     WHERE CASE WHEN r.cumulative THEN a.sum ELSE a.avg END IS NOT NULL
     ORDER BY r.position, a.day LIMIT $6 OFFSET $7`,
    [userId, types.map((t) => t.identifier), types.map((t) => t.cumulative), localDayOf(Number(q.start), timeZone), localDayOf(Number(q.end) - 1, timeZone), Math.min(num(q.limit, 10_000), 50_000), offset],
  );
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
  const { rows } = await pool.query<{ uuid: string; start: number; end: number; value: number | null; source: string | null }>(
    `SELECT s.uuid, s.start_ms AS start, s.end_ms AS "end", s.value, src.name AS source
     FROM samples s LEFT JOIN sources src ON src.source_id = s.source_id
     WHERE s.user_id = $1 AND s.type_id = ${typeId('$2')} AND s.start_ms >= $3 AND s.start_ms < $4
     ORDER BY s.start_ms, s.uuid LIMIT $5 OFFSET $6`,
    [userId, type, Number(q.start), Number(q.end), Math.min(num(q.limit, 1000), 5000), offset],
  );
  const samples = rows.map((row) => ({ uuid: row.uuid, start: row.start, end: row.end, value: row.value, label: categoryLabel(type, row.value), source: row.source }));
  return { type, kind: kindOfIdentifier(type), unit: unitOf(type), samples, nextOffset: offset + samples.length };
});

// A workout's summary columns as a developer would write them against the
// schema: the route flag as stored, the stream identifiers joined in.
const WORKOUT_COLUMNS = `w.uuid::text AS uuid, w.activity_type AS "activityType", w.start_ms AS start, w.end_ms AS "end",
  w.duration_s AS "durationS", w.distance_m AS "distanceM", w.energy_kcal AS "energyKcal",
  coalesce((SELECT r.has_points FROM workout_routes r WHERE r.workout_uuid = w.uuid AND r.user_id = w.user_id), false) AS "hasRoute",
  ARRAY(SELECT t.identifier FROM workout_streams s JOIN sample_types t USING (type_id) WHERE s.workout_uuid = w.uuid AND s.user_id = w.user_id ORDER BY t.identifier COLLATE "C") AS "availableMetrics"`;

app.get('/v1/workouts', response(schemas.WorkoutsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const q = request.query;
  const offset = num(q.offset, 0);
  const start = q.start === undefined ? undefined : Number(q.start);
  const end = q.end === undefined ? undefined : Number(q.end);
  const { rows: workouts } = await pool.query(
    `SELECT ${WORKOUT_COLUMNS} FROM workouts w
     WHERE w.user_id = $1 AND ($2::bigint IS NULL OR w.start_ms >= $2) AND ($3::bigint IS NULL OR w.start_ms < $3) AND ($4::text IS NULL OR w.activity_type = $4)
     ORDER BY w.start_ms DESC, w.uuid LIMIT $5 OFFSET $6`,
    [userId, start ?? null, end ?? null, q.activityType ?? null, Math.min(num(q.limit, 50), 200), offset],
  );
  return { workouts, nextOffset: offset + workouts.length };
});

app.get('/v1/workouts/:uuid', response(schemas.WorkoutDetail), async (request: FastifyRequest<{ Params: { uuid: string } }>, reply) => {
  const { rows } = await pool.query(
    `SELECT ${WORKOUT_COLUMNS}, w.statistics, w.events, w.activities FROM workouts w WHERE w.uuid = $2 AND w.user_id = $1`,
    [userId, request.params.uuid.toLowerCase()],
  );
  if (rows.length === 0) return reply.code(404).send({ error: 'workout not found' });
  const { statistics, events, activities, ...summary } = rows[0];
  return { ...summary, statisticsDetail: statistics ?? {}, events: events ?? [], activities: activities ?? [] };
});

app.get('/v1/workouts/:uuid/series', response(schemas.WorkoutSeriesResponse), async (request: FastifyRequest<{ Querystring: Query; Params: { uuid: string } }>, reply) => {
  const maxPoints = Math.min(num(request.query.maxPoints, 500), 5000);
  const { rows } = await pool.query<{ uuid: string; start: number; end: number; identifier: string | null; times: number[] | null; values: number[] | null }>(
    `SELECT w.uuid::text AS uuid, w.start_ms AS start, w.end_ms AS "end", t.identifier, s.times_ms::float8[] AS times, s."values"
     FROM workouts w LEFT JOIN workout_streams s ON s.workout_uuid = w.uuid AND s.user_id = w.user_id LEFT JOIN sample_types t ON t.type_id = s.type_id
     WHERE w.uuid = $2 AND w.user_id = $1 ORDER BY t.identifier COLLATE "C"`,
    [userId, request.params.uuid.toLowerCase()],
  );
  if (rows.length === 0) return reply.code(404).send({ error: 'workout not found' });
  const series = rows.filter((row) => row.identifier !== null).map((row) => {
    const reduced = downsampleStream({ times: Float64Array.from(row.times!), values: Float64Array.from(row.values!, (v) => v ?? NaN) }, maxPoints);
    const points = Array.from(reduced.times, (time, i): [number, number] => [time, reduced.values[i]]);
    return { type: row.identifier!, unit: unitOf(row.identifier!), totalPoints: row.times!.length, points };
  });
  return { uuid: rows[0].uuid, start: rows[0].start, end: rows[0].end, maxPoints, series };
});

// Sleep nights from the window's samples with the usual 48 h lookback (the
// bench's nights never reach further back), assembled by healthd's own rules.
app.get('/v1/sleep/daily', response(schemas.SleepNightsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const window = sleepWindow(Number(request.query.start), Number(request.query.end), timeZone);
  const { rows } = await pool.query<{ start: number; end: number; value: number | null; source: number | null }>(
    `SELECT start_ms AS start, end_ms AS "end", value, source_id AS source FROM samples
     WHERE user_id = $1 AND type_id = ${typeId('$2')} AND start_ms >= $3 AND start_ms < $4 ORDER BY start_ms, uuid`,
    [userId, SLEEP_ANALYSIS, window.startMs - INITIAL_SLEEP_LOOKBACK_MS, window.readUntilMs],
  );
  const columns = {
    startMs: Float64Array.from(rows, (r) => r.start),
    endMs: Float64Array.from(rows, (r) => r.end),
    value: Float64Array.from(rows, (r) => r.value ?? NaN),
    sourceId: Float64Array.from(rows, (r) => r.source ?? 0),
  };
  return { nights: nightsInWindow(assembleSleepNights(columns, timeZone), window) };
});

app.get('/v1/state-of-mind', response(schemas.StateOfMindResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const span = daysSpanMs(localDayOf(Number(request.query.start), timeZone), localDayOf(Number(request.query.end) - 1, timeZone), timeZone);
  const { rows } = await pool.query(
    `SELECT uuid::text AS uuid, logged_at_ms AS timestamp, kind, valence, valence_classification AS "valenceClassification",
            coalesce(labels, '{}') AS labels, coalesce(associations, '{}') AS associations
     FROM state_of_mind WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3 ORDER BY logged_at_ms, uuid`,
    [userId, span.startMs, span.endMs],
  );
  return { entries: rows.map((row) => ({ uuid: row.uuid, date: localDayOf(row.timestamp, timeZone), timestamp: row.timestamp, kind: row.kind, valence: row.valence, valenceClassification: row.valenceClassification, labels: row.labels, associations: row.associations })) };
});

app.get('/v1/activity/summary', response(schemas.ActivitySummaryResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const { rows } = await pool.query(
    `SELECT day::text AS date, move_kcal AS "moveKcal", move_goal_kcal AS "moveGoalKcal", exercise_min AS "exerciseMin", exercise_goal_min AS "exerciseGoalMin",
            stand_hours AS "standHours", stand_goal_hours AS "standGoalHours", move_mode::int AS "moveMode", move_time_min AS "moveTimeMin", move_time_goal_min AS "moveTimeGoalMin"
     FROM activity_summaries WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    [userId, localDayOf(Number(request.query.start), timeZone), localDayOf(Number(request.query.end) - 1, timeZone)],
  );
  return { days: rows };
});

app.get('/v1/profile', response(schemas.Profile), async (_request, reply) => {
  const { rows } = await pool.query(
    `SELECT user_id::text AS "userID", name, email, date_of_birth_ms AS "dateOfBirth", biological_sex AS "biologicalSex" FROM profiles WHERE user_id = $1`,
    [userId],
  );
  if (rows.length === 0) return reply.code(404 as 200).send({ error: 'profile not found' } as never);
  return rows[0];
});

app.get('/v1/metrics/latest', response(schemas.LatestMetricsResponse), async (request: FastifyRequest<{ Querystring: Query }>) => {
  const identifiers = (request.query.types ?? '').split(',');
  const { rows } = await pool.query<{ identifier: string; value: number | null; timestamp: number }>(
    `SELECT r.identifier, n.value, n.start_ms AS timestamp FROM unnest($2::text[]) WITH ORDINALITY AS r (identifier, position)
     CROSS JOIN LATERAL (SELECT value, start_ms FROM samples WHERE user_id = $1 AND type_id = ${typeId('r.identifier')} ORDER BY start_ms DESC, uuid DESC LIMIT 1) n
     ORDER BY r.position`,
    [userId, identifiers],
  );
  return { metrics: rows.map((row) => ({ identifier: row.identifier, unit: unitOf(row.identifier), value: row.value, timestamp: row.timestamp })) };
});

// The summary's reads as plain SQL, rows as objects, gathered into the input
// of healthd's own summary builder (the same numbers). The bench asks for
// range=90d&format=json only.
const SUMMARY_DAILY = dailyMetricTypes([SUMMARY_TYPES.steps, SUMMARY_TYPES.activeEnergy, SUMMARY_TYPES.exercise, SUMMARY_TYPES.restingHeartRate, SUMMARY_TYPES.hrvSDNN]);

async function summaryInput(): Promise<SummaryInput> {
  const generatedAt = Date.now();
  const days = lastNDays(SUMMARY_RANGES['90d'], timeZone, generatedAt);
  const [firstDay, lastDay] = [days[0], days[days.length - 1]];
  const span = daysSpanMs(firstDay, lastDay, timeZone);
  const window = sleepWindow(span.startMs, span.endMs, timeZone);
  const [header, daily, rings, workouts, latestBody, sleep] = await Promise.all([
    pool.query(`SELECT (SELECT name FROM profiles WHERE user_id = $1) AS name, (SELECT max(received_at_ms) FROM upload_batches WHERE user_id = $1) AS "lastSync"`, [userId]),
    pool.query<{ position: number; date: string; value: number }>(
      `SELECT r.position::int AS position, a.day::text AS date, CASE WHEN r.cumulative THEN a.sum ELSE a.avg END AS value
       FROM unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS r (identifier, cumulative, position)
       JOIN daily_aggregates a ON a.user_id = $1 AND a.type_id = ${typeId('r.identifier')} AND a.day BETWEEN $4::date AND $5::date
       WHERE CASE WHEN r.cumulative THEN a.sum ELSE a.avg END IS NOT NULL
       ORDER BY r.position, a.day`,
      [userId, SUMMARY_DAILY.map((t) => t.identifier), SUMMARY_DAILY.map((t) => t.cumulative), firstDay, lastDay],
    ),
    pool.query(
      `SELECT day::text AS date, move_kcal AS "moveKcal", exercise_min AS "exerciseMin", stand_hours AS "standHours"
       FROM activity_summaries WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
      [userId, firstDay, lastDay],
    ),
    pool.query(
      `SELECT activity_type AS "activityType", start_ms AS start, duration_s AS "durationS", distance_m AS "distanceM"
       FROM workouts WHERE user_id = $1 AND start_ms >= $2 AND start_ms < $3 ORDER BY start_ms, uuid`,
      [userId, span.startMs, span.endMs],
    ),
    pool.query(
      `SELECT r.identifier, n.value, n.start_ms AS timestamp FROM unnest($2::text[]) WITH ORDINALITY AS r (identifier, position)
       CROSS JOIN LATERAL (SELECT value, start_ms FROM samples WHERE user_id = $1 AND type_id = ${typeId('r.identifier')} ORDER BY start_ms DESC, uuid DESC LIMIT 1) n
       ORDER BY r.position`,
      [userId, [SUMMARY_TYPES.weight, SUMMARY_TYPES.bodyFat]],
    ),
    pool.query<{ start: number; end: number; value: number | null; source: number | null }>(
      `SELECT start_ms AS start, end_ms AS "end", value, source_id AS source FROM samples
       WHERE user_id = $1 AND type_id = ${typeId('$2')} AND start_ms >= $3 AND start_ms < $4 ORDER BY start_ms, uuid`,
      [userId, SLEEP_ANALYSIS, window.startMs - INITIAL_SLEEP_LOOKBACK_MS, window.readUntilMs],
    ),
  ]);
  return {
    userId, name: header.rows[0].name, range: '90d', days, timeZone, generatedAt,
    daily: {
      positions: Float64Array.from(daily.rows, (r) => r.position),
      dates: daily.rows.map((r) => r.date).join(','),
      values: Float64Array.from(daily.rows, (r) => r.value),
    },
    dailyTypes: SUMMARY_DAILY.map((t) => t.identifier),
    rings: rings.rows,
    sleep: {
      startMs: Float64Array.from(sleep.rows, (r) => r.start),
      endMs: Float64Array.from(sleep.rows, (r) => r.end),
      value: Float64Array.from(sleep.rows, (r) => r.value ?? NaN),
      sourceId: Float64Array.from(sleep.rows, (r) => r.source ?? 0),
    },
    sleepWindow: window,
    workouts: workouts.rows,
    latestBody: latestBody.rows,
    lastSync: header.rows[0].lastSync,
  };
}

app.get('/v1/summary', response(schemas.Summary), async () => buildSummary(await summaryInput()));

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
