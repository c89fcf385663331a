// Activity rings per local day, read from activity_summaries by its primary
// key (user_id, day). A ring the device does not track stays null. The route's
// answer is built as text from one row of columns (activityDaysBody); the
// export reads the days as values (activityDays).
import { DayReader, dayListSql } from '../../core/daily-columns.js';
import { jsonNumber } from '../../core/json-text.js';
import { float8ArrayFromSql, float8ArraySql } from '../binary-arrays.js';
import { prepared, type Db } from '../pool.js';
import { readPrepared } from '../prepared-read.js';
import { foldedRow, perResult } from '../fold.js';
import type { ActivityDayT } from '../../schemas/resources.js';

/** A move-time figure, which api.md gives in move-time mode only: null on a day in active-energy mode (1), whatever a writer stored. */
const moveTimeOnly = (column: string): string => `CASE WHEN move_mode = 1 THEN NULL ELSE ${column} END`;

/** The rings as read, in the answer's order, with their names there; moveMode is a smallint, the rest float8. */
const RINGS: ReadonlyArray<readonly [expression: string, name: string]> = [
  ['move_kcal', 'moveKcal'], ['move_goal_kcal', 'moveGoalKcal'], ['exercise_min', 'exerciseMin'], ['exercise_goal_min', 'exerciseGoalMin'],
  ['stand_hours', 'standHours'], ['stand_goal_hours', 'standGoalHours'], ['move_mode', 'moveMode'], [moveTimeOnly('move_time_min'), 'moveTimeMin'],
  [moveTimeOnly('move_time_goal_min'), 'moveTimeGoalMin'],
];
const DAYS_WHERE = 'WHERE user_id = $1 AND day >= $2::date AND day <= $3::date';

const ACTIVITY_DAYS = prepared(
  `SELECT day::text AS date, ${RINGS.map(([expression, name]) => `${expression === 'move_mode' ? 'move_mode::int' : expression} AS "${name}"`).join(', ')}
   FROM activity_summaries ${DAYS_WHERE}
   ORDER BY day`,
);

// The days as columns: the dates run together, each ring a binary float8
// array (moveMode too: a smallint is exact there), NULL read as NaN — both
// JSON null, as JSON.stringify writes them.
// The requests of a turn fold into one statement (src/db/fold.ts).
const activityDaysColumns = foldedRow<Record<string, string>>(
  `SELECT ${dayListSql('day', 'ORDER BY day')} AS dates,
          ${RINGS.map(([expression, name]) => `${float8ArraySql(`coalesce(array_agg((${expression})::float8 ORDER BY day), '{}')`)} AS "${name}"`).join(',\n          ')}
   FROM activity_summaries ${DAYS_WHERE}`,
  ['uuid', 'date', 'date'],
);

/** Each ring's `,"name":`, in the answer's order. */
const MEMBERS = RINGS.map(([, name]) => `,"${name}":`);

export async function activityDays(db: Db, userId: string, firstDay: string, lastDay: string): Promise<ActivityDayT[]> {
  return readPrepared<ActivityDayT>(db, ACTIVITY_DAYS([userId, firstDay, lastDay]));
}

/** The body of a row of columns, built and encoded once for the requests of a turn that share the row (perResult). */
const bodyOf = perResult((row: Record<string, string>): Buffer => {
  const columns = RINGS.map(([, name]) => float8ArrayFromSql(row[name]));
  const dates = new DayReader(row.dates);
  const days = columns[0].length;
  let body = '{"days":[';
  for (let i = 0; i < days; i++) {
    body += `${i === 0 ? '' : ','}{"date":"${dates.next()}"`;
    for (let k = 0; k < MEMBERS.length; k++) body += MEMBERS[k] + jsonNumber(columns[k][i]);
    body += '}';
  }
  // ASCII only: dates, numbers and the members' names.
  return Buffer.from(body + ']}', 'latin1');
});

/**
 * The answer's body, {"days":[…]}: the bytes JSON.stringify({ days:
 * activityDays(…) }) gives, built from one row of columns instead of a row
 * and an object per day. PostgreSQL writing each day's JSON itself cost it
 * twice the CPU of reading the rows (bench/RESULTS.md, issue 12).
 */
export async function activityDaysBody(db: Db, userId: string, firstDay: string, lastDay: string): Promise<Buffer> {
  return bodyOf(await activityDaysColumns(db, [userId, firstDay, lastDay]));
}
