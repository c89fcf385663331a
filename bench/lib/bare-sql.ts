// The bare-pool baseline of each database route: the cheapest SQL that
// yields the rows the route's answer holds — no join the rows do not need,
// the type id by a subquery, the source name by a join only where the answer
// names it — each a statement prepared once per session — fetched through a
// bare pg.Pool with rowMode 'array' (pg's own
// row parsing and nothing else: no objects, no shaping, no JSON), in its own
// process, with the server's pool size and as many concurrent loops as the
// HTTP bench has connections (bench/lib/db-load.ts). A route that runs
// several statements runs them as the route does (concurrently where it
// does). The SQL text goes into bench/RESULTS.md beside the figures.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { readPrepared } from '../../src/db/prepared-read.js';
import { daysSpanMs, localDayOf } from '../../src/core/local-days.js';
import { SLEEP_ANALYSIS, typeInfo } from '../../src/core/registry.js';
import { INITIAL_SLEEP_LOOKBACK_MS, sleepWindow } from '../../src/core/sleep-nights.js';
import { benchRanges, DAILY_TYPES, LATEST_TYPES, SAMPLES_TYPE, type BenchContext } from './routes.js';

export interface BareStatement {
  sql: string;
  params: unknown[];
}

export interface BareBaseline {
  /** The statements of one request; `concurrent` ones run at once, as the route runs them. */
  statements: BareStatement[];
  concurrent?: boolean;
}

const typeId = (param: string) => `(SELECT type_id FROM sample_types WHERE identifier = ${param})`;
const cumulative = (identifier: string) => {
  const info = typeInfo(identifier);
  return info?.kind === 'quantity' && info.aggregation === 'cumulative';
};

/** Keyed by the route's path template. */
export function bareBaselines(ctx: BenchContext): Record<string, BareBaseline> {
  const { ninety, samples } = benchRanges(ctx);
  const user = ctx.userId;
  const firstDay = localDayOf(ninety.start, ctx.timeZone);
  const lastDay = localDayOf(ninety.end - 1, ctx.timeZone);
  const window = sleepWindow(ninety.start, ninety.end, ctx.timeZone);
  const moodSpan = daysSpanMs(firstDay, lastDay, ctx.timeZone);
  const sleepRows: BareStatement = {
    sql: `SELECT start_ms, end_ms, value, source_id FROM samples WHERE user_id = $1 AND type_id = ${typeId('$2')} AND start_ms >= $3 AND start_ms < $4 ORDER BY start_ms, uuid`,
    params: [user, SLEEP_ANALYSIS, window.startMs - INITIAL_SLEEP_LOOKBACK_MS, window.readUntilMs],
  };
  const dailyRows = (identifiers: readonly string[], first: string, last: string, limit: number | null): BareStatement => ({
    sql: `SELECT r.identifier, a.day::text, CASE WHEN r.cumulative THEN a.sum ELSE a.avg END AS value
FROM unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS r (identifier, cumulative, position)
JOIN daily_aggregates a ON a.user_id = $1 AND a.type_id = ${typeId('r.identifier')} AND a.day BETWEEN $4::date AND $5::date
WHERE CASE WHEN r.cumulative THEN a.sum ELSE a.avg END IS NOT NULL
ORDER BY r.position, a.day LIMIT $6`,
    params: [user, identifiers, identifiers.map(cumulative), first, last, limit],
  });
  const baselines: Record<string, BareBaseline> = {
    '/v1/users': {
      statements: [{
        sql: `SELECT u.user_id, p.name, p.email, u.created_at_ms, (SELECT max(received_at_ms) FROM upload_batches WHERE user_id = u.user_id), coalesce(b.batches, 0), coalesce(b.uploaded, 0)
FROM users u LEFT JOIN profiles p USING (user_id)
LEFT JOIN (SELECT user_id, sum(batches) AS batches, sum(samples) AS uploaded FROM upload_totals GROUP BY user_id) b USING (user_id)
ORDER BY u.created_at_ms, u.user_id`,
        params: [],
      }],
    },
    '/v1/metrics/daily': { statements: [dailyRows(DAILY_TYPES, firstDay, lastDay, 10_000)] },
    '/v1/samples': {
      statements: [{
        sql: `SELECT s.uuid, s.start_ms, s.end_ms, s.value, src.name
FROM samples s LEFT JOIN sources src ON src.source_id = s.source_id
WHERE s.user_id = $1 AND s.type_id = ${typeId('$2')} AND s.start_ms >= $3 AND s.start_ms < $4
ORDER BY s.start_ms, s.uuid LIMIT 1000`,
        params: [user, SAMPLES_TYPE, samples.start, samples.end],
      }],
    },
    '/v1/workouts': {
      statements: [{
        sql: `SELECT w.uuid, w.activity_type, w.start_ms, w.end_ms, w.duration_s, w.distance_m, w.energy_kcal,
  (SELECT r.has_points FROM workout_routes r WHERE r.workout_uuid = w.uuid AND r.user_id = w.user_id),
  ARRAY(SELECT t.identifier FROM workout_streams s JOIN sample_types t USING (type_id) WHERE s.workout_uuid = w.uuid AND s.user_id = w.user_id ORDER BY t.identifier COLLATE "C")
FROM workouts w WHERE w.user_id = $1 ORDER BY w.start_ms DESC, w.uuid LIMIT 50`,
        params: [user],
      }],
    },
    '/v1/workouts/{uuid}/series': {
      statements: [{
        sql: `SELECT w.start_ms, w.end_ms, t.identifier, s.times_ms, s."values"
FROM workouts w JOIN workout_streams s ON s.workout_uuid = w.uuid AND s.user_id = w.user_id JOIN sample_types t USING (type_id)
WHERE w.uuid = $2 AND w.user_id = $1 ORDER BY t.identifier COLLATE "C"`,
        params: [user, ctx.longRideUuid],
      }],
    },
    '/v1/sleep/daily': { statements: [sleepRows] },
    '/v1/summary': {
      concurrent: true,
      statements: [
        { sql: `SELECT (SELECT name FROM profiles WHERE user_id = $1), (SELECT max(received_at_ms) FROM upload_batches WHERE user_id = $1)`, params: [user] },
        dailyRows(['HKQuantityTypeIdentifierStepCount', 'HKQuantityTypeIdentifierActiveEnergyBurned', 'HKQuantityTypeIdentifierAppleExerciseTime', 'HKQuantityTypeIdentifierRestingHeartRate', 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN'], firstDay, lastDay, null),
        { sql: `SELECT day, move_kcal, exercise_min, stand_hours FROM activity_summaries WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`, params: [user, firstDay, lastDay] },
        { sql: `SELECT activity_type, start_ms, duration_s, distance_m FROM workouts WHERE user_id = $1 AND start_ms >= $2 AND start_ms < $3 ORDER BY start_ms, uuid`, params: [user, ninety.start, ninety.end] },
        {
          sql: `SELECT r.identifier, n.value, n.start_ms FROM unnest($2::text[]) AS r (identifier)
CROSS JOIN LATERAL (SELECT value, start_ms FROM samples WHERE user_id = $1 AND type_id = ${typeId('r.identifier')} ORDER BY start_ms DESC, uuid DESC LIMIT 1) n`,
          params: [user, ['HKQuantityTypeIdentifierBodyMass', 'HKQuantityTypeIdentifierBodyFatPercentage']],
        },
        sleepRows,
      ],
    },
    '/v1/state-of-mind': {
      statements: [{
        sql: `SELECT uuid, logged_at_ms, kind, valence, valence_classification, labels, associations FROM state_of_mind WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3 ORDER BY logged_at_ms, uuid`,
        params: [user, moodSpan.startMs, moodSpan.endMs],
      }],
    },
    '/v1/activity/summary': {
      statements: [{
        sql: `SELECT day::text, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours, move_mode, move_time_min, move_time_goal_min FROM activity_summaries WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
        params: [user, firstDay, lastDay],
      }],
    },
    '/v1/profile': {
      statements: [{ sql: `SELECT user_id, name, email, date_of_birth_ms, biological_sex FROM profiles WHERE user_id = $1`, params: [user] }],
    },
    '/v1/metrics/latest': {
      statements: [{
        sql: `SELECT r.identifier, n.value, n.start_ms FROM unnest($2::text[]) WITH ORDINALITY AS r (identifier, position)
CROSS JOIN LATERAL (SELECT value, start_ms FROM samples WHERE user_id = $1 AND type_id = ${typeId('r.identifier')} ORDER BY start_ms DESC, uuid DESC LIMIT 1) n ORDER BY r.position`,
        params: [user, LATEST_TYPES],
      }],
    },
  };
  if (ctx.detailWorkoutUuid) {
    baselines['/v1/workouts/{uuid}'] = {
      statements: [{
        sql: `SELECT w.uuid, w.activity_type, w.start_ms, w.end_ms, w.duration_s, w.distance_m, w.energy_kcal,
  (SELECT r.has_points FROM workout_routes r WHERE r.workout_uuid = w.uuid AND r.user_id = w.user_id),
  ARRAY(SELECT t.identifier FROM workout_streams s JOIN sample_types t USING (type_id) WHERE s.workout_uuid = w.uuid AND s.user_id = w.user_id ORDER BY t.identifier COLLATE "C"),
  w.statistics, w.events, w.activities
FROM workouts w WHERE w.uuid = $2 AND w.user_id = $1`,
        params: [user, ctx.detailWorkoutUuid],
      }],
    };
  }
  return baselines;
}

/** Statement names by SQL text: every statement is prepared once per session (healthd prepares its fixed statements: the baseline may do as well). */
const names = new Map<string, string>();
const nameOf = (sql: string): string => {
  let name = names.get(sql);
  if (name === undefined) names.set(sql, (name = `bare_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`));
  return name;
};

/**
 * One request of a baseline through the pool, rows as arrays: through pg's
 * Query (the bare pool), or with `lean` as healthd reads its prepared
 * statements (src/db/prepared-read.ts: the floor, bench/baselines/uws-floor.ts).
 */
export async function runBare(pool: pg.Pool, baseline: BareBaseline, lean = false): Promise<void> {
  const run = (s: BareStatement) =>
    lean
      ? readPrepared(pool, { name: nameOf(s.sql), text: s.sql, values: s.params }, 'array')
      : pool.query({ name: nameOf(s.sql), text: s.sql, values: s.params, rowMode: 'array' });
  if (baseline.concurrent) await Promise.all(baseline.statements.map(run));
  else for (const statement of baseline.statements) await run(statement);
}
