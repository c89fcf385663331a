// Routes that build their JSON as text from column arrays answer the bytes
// the routes answered before: each old path — its SQL read row by row, the
// objects it built, JSON.stringify — is kept here as the reference and
// compared with the new body on fixtures of edge cases: nulls, -0, NaN and
// ±Infinity, floats in exponent ranges (1e21, 1e-7, 5e-324), unicode, quotes
// and line breaks in source names, samples without a source, category labels
// (unknown and fractional values too), empty results, page boundaries inside
// a type, deep offsets, and DST days.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { categoryLabel, dailyMetricTypes, kindOfIdentifier, unitOf } from '../src/core/registry.js';
import '../src/db/pool.js'; // the int8 parser the routes read with
import { activityDays, activityDaysBody } from '../src/db/queries/activity.js';
import { readStateOfMind, stateOfMindBody } from '../src/reads/state-of-mind.js';
import { dailyFirstPageColumns, dailyValueColumns, dailyValuesText } from '../src/db/queries/metrics.js';
import { samplesPage } from '../src/db/queries/samples.js';
import { listWorkouts, workoutsPageBody, type WorkoutFilter } from '../src/db/queries/workouts.js';
import { dailyMetricsBody, dailyMetricsTextBody } from '../src/routes/metrics-daily-body.js';
import { samplesPageBody } from '../src/routes/samples-body.js';
import { wholeText } from '../src/routes/route.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';

const USER = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const Q = 'HKQuantityTypeIdentifier';
const HEART = `${Q}HeartRate`;
const STEPS = `${Q}StepCount`;
const RHR = `${Q}RestingHeartRate`;
const MASS = `${Q}BodyMass`;
const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const BEATS = 'HKDataTypeIdentifierHeartbeatSeries';
const UNSTORED = `${Q}FlightsClimbed`;
const BREATHS = `${Q}RespiratoryRate`;
const T0 = Date.UTC(2026, 2, 28); // the weekend Europe moves to summer time
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let db: TestDatabase;
let pool: pg.Pool;

const EDGE_VALUES = ['72', 'NULL', '0.30000000000000004', '1e21', '1e-7', "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", '1e300', '5e-324', '3.5', '9', '0', '2', '123456789012345.6', '1e15', '-1.5e-10', '999', '1000', '100', '10', '99', '-1', '-72', '99.5', '0.1', '-999.9', '9007199254740991', '9007199254740992'];
const EDGE_INSTANTS = ['-9223372036854775808', '-9007199254740993', '-9007199254740991', '-1', '0', '7', '999999999999', '1000000000000', T0, '9999999999999', '10000000000000', '9007199254740991', '9007199254740993', '9223372036854775807'];
const E_ESCAPES = `E'tab\\t nl\\n ctl \\x01 back\\\\slash'`;
const SOURCES = ['Apple Watch', 'Watch, "Series 9"', '=HYPERLINK("x")', 'Zürich ⌚', '', 'line\nbreak\r\n', 'tab\t\u0001\u001f\u007f', 'sep\u2028\u2029', '😀 \\ /', 'iPhone'];

before(async () => {
  db = await createTestDatabase();
  const q = db.query;
  await q(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (2, $2), (3, $3), (4, $4), (5, $5), (6, $6), (7, $7)`, [HEART, STEPS, RHR, SLEEP, BEATS, MASS, BREATHS]);
  await q(`INSERT INTO sources (source_id, name) SELECT k, name FROM unnest($1::text[]) WITH ORDINALITY AS u (name, k)`, [SOURCES]);
  // Every edge value with every source and none, for four types, some sharing a start (ordered by uuid then).
  let n = 0;
  const rows: string[] = [];
  for (const typeId of [1, 4, 5, 6]) {
    EDGE_VALUES.forEach((value, v) => {
      for (let s = 0; s <= SOURCES.length; s++) {
        n++;
        const start = T0 + v * 60_000 + (s % 3) * 1000;
        rows.push(`('${USER}', '${uuid(n)}', ${typeId}, ${start}, ${start + 1000 * s}, ${value}, ${s === SOURCES.length ? 'NULL' : s + 1})`);
      }
    });
  }
  rows.push(`('${OTHER}', '${uuid(++n)}', 1, ${T0}, ${T0}, 1, 1)`);
  // Instants of every length around the 13 digits most have (2001-09-09 to 2286-11-20), as start and as end.
  // (A start is a bound of the query: a safe integer below the largest. An end may be any bigint.)
  const starts = EDGE_INSTANTS.filter((instant) => Math.abs(Number(instant)) < Number.MAX_SAFE_INTEGER);
  EDGE_INSTANTS.forEach((end, i) => {
    const start = starts[i % starts.length];
    rows.push(`('${USER}', '${uuid(++n)}', 7, ${start}, ${end}, ${i}, ${(i % SOURCES.length) + 1})`);
  });
  await q(`INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES ${rows.join(',\n')}`);
  // Daily aggregates over the DST change: steps (sums), resting heart rate (means, one day without), body mass (edge values).
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg)
     SELECT $1::uuid, 2, d::date, 1000 + extract(day FROM d), NULL FROM generate_series('2026-03-01'::date, '2026-04-30'::date, '1 day') AS d
     UNION ALL SELECT $1::uuid, 3, d::date, NULL, CASE WHEN extract(day FROM d) = 29 THEN NULL ELSE 50.25 + extract(day FROM d) / 3 END FROM generate_series('2026-03-20'::date, '2026-04-05'::date, '1 day') AS d
     UNION ALL SELECT $2::uuid, 2, '2026-03-29', 5, NULL`,
    [USER, OTHER],
  );
  const massValues = ['1e21', '1e-7', "'-0'", "'NaN'", '70.5', '0.1', '1e300'];
  await q(`INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg) VALUES ${massValues.map((v, i) => `($1, 6, '2026-03-${String(25 + i).padStart(2, '0')}', NULL, ${v})`).join(', ')}`, [USER]);
  // Activity rings: March in plain numbers (nulls, -0, NaN and ±Infinity among them), April with numbers PostgreSQL writes otherwise.
  const plain = ['NULL', "'-0'", '0', '0.1', '512.3', '0.30000000000000004', "'NaN'", "'Infinity'", "'-Infinity'", '123456789012345.6', '0.0001', '30'];
  const exotic = ['1e-7', '1e21', '5e-324', '1e15'];
  const ringRows = (values: string[], month: string) =>
    Array.from({ length: 20 }, (_, d) => {
      const v = (k: number) => values[(d + k) % values.length];
      return `($1, '2026-${month}-${String(d + 1).padStart(2, '0')}', ${v(0)}, ${v(1)}, ${v(2)}, ${v(3)}, ${v(4)}, ${v(5)}, ${d % 3 === 0 ? 'NULL' : 1 + (d % 2)}, ${v(6)}, ${v(7)})`;
    });
  await q(
    `INSERT INTO activity_summaries (user_id, day, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours, move_mode, move_time_min, move_time_goal_min)
     VALUES ${[...ringRows(plain, '03'), ...ringRows(exotic.concat(plain), '04')].join(',\n')}`,
    [USER],
  );
  // Mood entries over the DST change: odd labels (quotes, controls, unicode, NULL elements), NULL lists, edge valences.
  const LABELS = ["'{}'", 'NULL', `ARRAY['amused', 'say "hi"', 'back\\slash', E'tab\\t nl\\n cr\\r bs\\b ff\\f', E'ctl \\x01\\x1f del \\x7f', 'Zürich ⌚ 😀', E'sep \\u2028\\u2029', NULL]`, `ARRAY['calm']`];
  const VALENCES = ['0.2', 'NULL', "'-0'", "'NaN'", '1e-7', '-1', '0.30000000000000004'];
  // Kinds and classifications are the phone's strings: odd ones too (the route separates entries' JSON by U+0001).
  const KINDS = ["'momentaryEmotion'", "'dailyMood'", E_ESCAPES, `'say "hi" 😀'`];
  const CLASSIFICATIONS = ["'slightlyPleasant'", 'NULL', E_ESCAPES, "''"];
  await q(
    `INSERT INTO state_of_mind (user_id, uuid, logged_at_ms, kind, valence, valence_classification, labels, associations) VALUES ${Array.from(
      { length: 24 },
      (_, i) => `($1, '${uuid(900_000 + i)}', ${T0 - 86_400_000 + i * 7_200_000 + (i % 5) * 1000}, ${KINDS[i % KINDS.length]}, ${VALENCES[i % VALENCES.length]}, ${CLASSIFICATIONS[i % CLASSIFICATIONS.length]}, ${LABELS[i % LABELS.length]}, ${LABELS[(i + 1) % LABELS.length]})`,
    ).join(',\n')}`,
    [USER],
  );
  // Workouts: edge numbers, odd activity types, some sharing a start (ordered by uuid then); route rows with points,
  // without (empty or NULL arrays), with only one array filled; streams stored out of identifier order.
  const ACTIVITIES = ["'running'", `'say "hi"'`, "'Zürich ⌚ 😀'", E_ESCAPES, "'cycling'"];
  const ROUTES = [
    null,
    `'{1,2}', '{48.1,48.2}', '{11.5,11.6}', '{500,NULL}'`,
    `'{}', '{}', '{}', '{}'`,
    'NULL, NULL, NULL, NULL',
    `'{}', '{48.1}', '{}', NULL`,
    `NULL, NULL, '{11.5}', NULL`,
  ];
  const STREAM_TYPES = [[], [2, 1], [6, 5, 3, 1], [4]];
  for (let i = 0; i < 30; i++) {
    const w = uuid(800_000 + i);
    const v = (k: number) => EDGE_VALUES[(i + k) % EDGE_VALUES.length];
    const start = T0 + Math.floor(i / 2) * 3_600_000;
    await q(
      `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal) VALUES ($1, $2, ${ACTIVITIES[i % ACTIVITIES.length]}, ${start}, ${start + 1_800_000}, ${v(0)}, ${v(5)}, ${v(11)})`,
      [i === 29 ? OTHER : USER, w],
    );
    const route = ROUTES[i % ROUTES.length];
    if (route) await q(`INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES ($1, $2, ${route})`, [USER, w]);
    for (const typeId of STREAM_TYPES[i % STREAM_TYPES.length]) {
      await q(`INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values") VALUES ($1, $2, $3, '{1}', '{1}')`, [USER, w, typeId]);
    }
  }
  await q('ANALYZE');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});

after(async () => {
  await pool?.end();
  await db?.drop();
  await stopOwnCluster();
});

// ---- the old paths, as they were in src/ ----

const OLD_SAMPLES_PAGE_SQL = `
  SELECT page.uuid::text AS uuid, page.start_ms AS start, page.end_ms AS "end", page.value,
         (SELECT src.name FROM sources src WHERE src.source_id = page.source_id) AS source
  FROM (
    SELECT s.uuid, s.start_ms, s.end_ms, s.value, s.source_id
    FROM samples s
    WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
    ORDER BY s.start_ms, s.uuid
    LIMIT $5 OFFSET $6
  ) page
  ORDER BY page.start_ms, page.uuid`;

async function oldSamplesBody(type: string, start: number, end: number, limit: number, offset: number): Promise<string> {
  const typeRows = (await pool.query<{ type_id: number }>(`SELECT type_id FROM sample_types WHERE identifier = $1`, [type])).rows;
  const rows = typeRows.length === 0 ? [] : (await pool.query(OLD_SAMPLES_PAGE_SQL, [USER, typeRows[0].type_id, start, end, limit, offset])).rows;
  const samples = rows.map((row) => ({ uuid: row.uuid, start: row.start, end: row.end, value: row.value, label: categoryLabel(type, row.value), source: row.source }));
  return JSON.stringify({ type, kind: kindOfIdentifier(type), unit: unitOf(type), samples, nextOffset: offset + samples.length });
}

const OLD_DAILY_METRICS_SQL = `
  SELECT requested.identifier, bucket.day::text AS date, bucket.value
  FROM unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS requested (identifier, cumulative, position)
  CROSS JOIN LATERAL (
    SELECT a.day, CASE WHEN requested.cumulative THEN a.sum ELSE a.avg END AS value
    FROM daily_aggregates a
    WHERE a.user_id = $1
      AND a.type_id = (SELECT t.type_id FROM sample_types t WHERE t.identifier = requested.identifier)
      AND a.day >= $4::date AND a.day <= $5::date
  ) bucket
  -- Since 2026-11-25 a NaN or infinite bucket is no value either (src/core/values.ts): its day is left out.
  WHERE bucket.value IS NOT NULL AND bucket.value NOT IN ('NaN', 'Infinity', '-Infinity')
  ORDER BY requested.position, bucket.day
  LIMIT $6 OFFSET $7`;

async function oldDailyBody(identifiers: string[], firstDay: string, lastDay: string, limit: number, offset: number): Promise<string> {
  const types = dailyMetricTypes(identifiers);
  const rows =
    types.length === 0
      ? []
      : (await pool.query(OLD_DAILY_METRICS_SQL, [USER, types.map((t) => t.identifier), types.map((t) => t.cumulative), firstDay, lastDay, limit, offset])).rows;
  const metrics: { identifier: string; unit: string | null; days: { date: string; value: number }[] }[] = [];
  for (const row of rows) {
    let current = metrics[metrics.length - 1];
    if (current?.identifier !== row.identifier) {
      current = { identifier: row.identifier, unit: unitOf(row.identifier), days: [] };
      metrics.push(current);
    }
    current.days.push({ date: row.date, value: row.value });
  }
  return JSON.stringify({ metrics, nextOffset: offset + rows.length });
}

// The workout list before hasRoute was stored (migration 5) and the streams named in the server.
const OLD_WORKOUTS_SQL = `
  SELECT w.uuid::text AS uuid, w.activity_type AS "activityType", w.start_ms AS start, w.end_ms AS "end",
    w.duration_s AS "durationS", w.distance_m AS "distanceM", w.energy_kcal AS "energyKcal",
    coalesce((
      SELECT greatest(cardinality(r.times_ms), cardinality(r.latitudes), cardinality(r.longitudes)) > 0
      FROM workout_routes r WHERE r.workout_uuid = w.uuid AND r.user_id = w.user_id
    ), false) AS "hasRoute",
    ARRAY(
      SELECT t.identifier FROM workout_streams s JOIN sample_types t ON t.type_id = s.type_id
      WHERE s.workout_uuid = w.uuid AND s.user_id = w.user_id
      ORDER BY t.identifier COLLATE "C"
    ) AS "availableMetrics"
  FROM workouts w
  WHERE w.user_id = $1
    AND ($2::bigint IS NULL OR w.start_ms >= $2)
    AND ($3::bigint IS NULL OR w.start_ms < $3)
    AND ($4::text IS NULL OR w.activity_type = $4)
  ORDER BY w.start_ms DESC, w.uuid
  LIMIT $5 OFFSET $6`;

async function oldWorkouts(filter: WorkoutFilter): Promise<object[]> {
  const { start, end, activityType, limit, offset } = filter;
  return (await pool.query(OLD_WORKOUTS_SQL, [USER, start ?? null, end ?? null, activityType ?? null, limit, offset])).rows;
}

// ---- the comparisons ----

describe('bodies built from columns (or COPY bytes) are the bytes of JSON.stringify of the old objects', () => {
  test('/v1/samples: every edge value and source, four kinds of type, pages of every size and offset', async () => {
    const total = EDGE_VALUES.length * (SOURCES.length + 1);
    const pages: [number, number][] = [[1000, 0], [1, 0], [1, 5], [7, 3], [total, 0], [total - 1, 1], [5, total - 2], [5, total], [1000, total + 10]];
    const minute = (v: number) => T0 + v * 60_000;
    const ranges = [[T0, T0 + 86_400_000], [minute(1), minute(5) + 1], [T0 - 1000, T0], [minute(3) + 1000, minute(3) + 1001], [T0, minute(1)], [minute(6), minute(9)], [minute(12), minute(16)], [minute(13), minute(14)]];
    let compared = 0;
    for (const type of [HEART, SLEEP, BEATS, MASS, STEPS, UNSTORED]) {
      for (const [start, end] of ranges) {
        for (const [limit, offset] of pages) {
          const expected = await oldSamplesBody(type, start, end, limit, offset);
          const what = `${type} [${start}, ${end}) limit ${limit} offset ${offset}`;
          const page = await samplesPage(pool, USER, type, start, end, limit, offset);
          assert.equal(wholeText(samplesPageBody(type, page, offset)), expected, `bytes: ${what}`);
          compared++;
        }
      }
    }
    assert.ok(compared > 200);
  });

  test('/v1/samples: instants of every length and sign, as start and as end', async () => {
    const [from, to] = [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    assert.equal((await samplesPage(pool, USER, BREATHS, from, to, 1000, 0)).count, EDGE_INSTANTS.length);
    for (const [limit, offset] of [[1000, 0], [5, 4], [1, 13]]) {
      const expected = await oldSamplesBody(BREATHS, from, to, limit, offset);
      assert.equal(wholeText(samplesPageBody(BREATHS, await samplesPage(pool, USER, BREATHS, from, to, limit, offset), offset)), expected, `limit ${limit} offset ${offset}`);
    }
  });

  test('/v1/metrics/daily: types in request order with gaps, page boundaries inside a type, DST days, edge values', async () => {
    const lists = [
      [STEPS, RHR, MASS],
      [MASS, STEPS],
      [RHR],
      [UNSTORED, STEPS, UNSTORED, RHR],
      [STEPS, STEPS],
      [HEART, SLEEP, STEPS],
      [UNSTORED],
      [SLEEP],
    ];
    const pages: [number, number][] = [[10_000, 0], [1, 0], [3, 2], [30, 29], [31, 40], [100, 60], [5, 1000], [2, 77]];
    let textPath = 0;
    let firstPages = 0;
    for (const identifiers of lists) {
      for (const [firstDay, lastDay] of [['2026-03-01', '2026-04-30'], ['2026-03-29', '2026-03-29'], ['2026-03-28', '2026-03-30'], ['2025-01-01', '2025-01-31']]) {
        // First pages that end just before, on and just after the last day (the text path reads a first page that fits whole by itself).
        const all = (JSON.parse(await oldDailyBody(identifiers, firstDay, lastDay, 10_000, 0)) as { nextOffset: number }).nextOffset;
        const edges: [number, number][] = all > 1 ? [[all - 1, 0], [all, 0], [all + 1, 0]] : [];
        for (const [limit, offset] of [...pages, ...edges]) {
          const expected = await oldDailyBody(identifiers, firstDay, lastDay, limit, offset);
          const types = dailyMetricTypes(identifiers);
          const what = `${identifiers.join(',')} ${firstDay}…${lastDay} limit ${limit} offset ${offset}`;
          const columns = types.length === 0 ? { positions: new Float64Array(0), dates: '', values: new Float64Array(0) } : await dailyValueColumns(pool, { userId: USER, types, firstDay, lastDay, limit, offset });
          assert.equal(dailyMetricsBody(types, columns, offset), expected, `columns: ${what}`);
          const text = types.length === 0 ? [] : await dailyValuesText(pool, { userId: USER, types, firstDay, lastDay, limit, offset });
          if (text) {
            assert.equal(dailyMetricsTextBody(text, offset), expected, `text: ${what}`);
            textPath++;
          }
          if (offset === 0 && types.length > 0) {
            // The first page's own read answers only a page that holds every day of the types (then the page is read as above).
            const first = await dailyFirstPageColumns(pool, { userId: USER, types, firstDay, lastDay, limit, offset: 0 });
            assert.equal(first !== null, limit >= all, `first page read: ${what}`);
            if (first) {
              assert.equal(dailyMetricsBody(types, first, 0), expected, `first page: ${what}`);
              firstPages++;
            }
          }
        }
      }
    }
    assert.ok(textPath > 100, `${textPath} pages by PostgreSQL's text`);
    assert.ok(firstPages > 20, `${firstPages} first pages read whole`);
  });

  test('/v1/state-of-mind: the body built from rows and PostgreSQL\'s JSON of the lists is JSON.stringify of the entries', async () => {
    const zone = 'Europe/Berlin';
    for (const [start, end] of [[T0 - 86_400_000, T0 + 2 * 86_400_000], [T0, T0 + 1], [T0 + 40 * 86_400_000, T0 + 41 * 86_400_000]]) {
      const entries = await readStateOfMind(pool, USER, start, end, zone);
      assert.equal(wholeText(await stateOfMindBody(pool, USER, start, end, zone)), JSON.stringify({ entries }), `${start}…${end}`);
    }
    assert.equal((await readStateOfMind(pool, USER, T0 - 86_400_000, T0 + 2 * 86_400_000, zone)).length, 24);
  });

  test('/v1/workouts: the body built from one row of columns is JSON.stringify of the old objects, for every filter and page', async () => {
    const filters: WorkoutFilter[] = [];
    for (const start of [undefined, T0 + 3 * 3_600_000])
      for (const end of [undefined, T0 + 11 * 3_600_000])
        for (const activityType of [undefined, 'running', 'Zürich ⌚ 😀', 'nothing'])
          for (const [limit, offset] of [[50, 0], [1, 0], [7, 3], [7, 28], [null, 0]] as const) filters.push({ start, end, activityType, limit, offset });
    let workouts = 0;
    for (const filter of filters) {
      const old = await oldWorkouts(filter);
      workouts += old.length;
      assert.equal(await workoutsPageBody(pool, USER, filter), JSON.stringify({ workouts: old, nextOffset: filter.offset + old.length }), JSON.stringify(filter));
      assert.deepEqual(await listWorkouts(pool, USER, filter), old, JSON.stringify(filter));
    }
    assert.ok(workouts > 200, `the filters find workouts (${workouts})`);
    // Each route shape and stream set is on a page, and the stored flag agrees with the arrays on every route row.
    const all = await oldWorkouts({ limit: null, offset: 0 });
    assert.deepEqual(new Set(all.map((w) => (w as { hasRoute: boolean }).hasRoute)), new Set([true, false]));
    const { rows: disagreeing } = await pool.query(
      `SELECT workout_uuid FROM workout_routes WHERE has_points IS DISTINCT FROM coalesce(greatest(cardinality(times_ms), cardinality(latitudes), cardinality(longitudes)) > 0, false)`,
    );
    assert.deepEqual(disagreeing, []);
  });

  test('/v1/activity/summary: the body from columns is the bytes JSON.stringify writes of the rows as objects', async () => {
    for (const [firstDay, lastDay] of [['2026-03-01', '2026-03-31'], ['2026-03-05', '2026-03-05'], ['2026-02-01', '2026-02-28'], ['2026-03-15', '2026-04-02'], ['2026-04-01', '2026-04-30']]) {
      const expected = JSON.stringify({ days: await activityDays(pool, USER, firstDay, lastDay) });
      assert.equal(wholeText(await activityDaysBody(pool, USER, firstDay, lastDay)), expected, `${firstDay}…${lastDay}`);
    }
  });
});
