// Activity rings per local day, read from activity_summaries by its primary
// key (user_id, day). A ring the device does not track stays null. The answer
// is written by PostgreSQL as JSON text (activityDaysBody), or read as values
// when a number's text would differ from JSON.stringify's (src/db/json-text.ts).
import { exoticNumberSql, jsonNumberSql } from '../json-text.js';
import { prepared, type Db } from '../pool.js';
import type { ActivityDayT } from '../../schemas/resources.js';

/** The rings' columns in the answer's order, with their names there; moveMode is a smallint, the rest float8. */
const RINGS: ReadonlyArray<readonly [column: string, name: string]> = [
  ['move_kcal', 'moveKcal'], ['move_goal_kcal', 'moveGoalKcal'], ['exercise_min', 'exerciseMin'], ['exercise_goal_min', 'exerciseGoalMin'],
  ['stand_hours', 'standHours'], ['stand_goal_hours', 'standGoalHours'], ['move_mode', 'moveMode'], ['move_time_min', 'moveTimeMin'],
  ['move_time_goal_min', 'moveTimeGoalMin'],
];
const FLOATS = RINGS.filter(([column]) => column !== 'move_mode').map(([column]) => column);
const DAYS_WHERE = 'WHERE user_id = $1 AND day >= $2::date AND day <= $3::date';

const ACTIVITY_DAYS = prepared(
  `SELECT day::text AS date, ${RINGS.map(([column, name]) => `${column === 'move_mode' ? 'move_mode::int' : column} AS "${name}"`).join(', ')}
   FROM activity_summaries ${DAYS_WHERE}
   ORDER BY day`,
);

const ACTIVITY_DAYS_TEXT = prepared(
  `SELECT coalesce(bool_or(${FLOATS.map(exoticNumberSql).join(' OR ')}), false) AS exotic,
          coalesce(string_agg('{"date":"' || day::text || '"' || ${RINGS.map(
            ([column, name]) => `',"${name}":' || ${column === 'move_mode' ? `coalesce(move_mode::int::text, 'null')` : jsonNumberSql(column)}`,
          ).join(' || ')} || '}', ',' ORDER BY day), '') AS days
   FROM activity_summaries ${DAYS_WHERE}`,
);

export async function activityDays(db: Db, userId: string, firstDay: string, lastDay: string): Promise<ActivityDayT[]> {
  const { rows } = await db.query<ActivityDayT>(ACTIVITY_DAYS([userId, firstDay, lastDay]));
  return rows;
}

/**
 * The answer's body, {"days":[…]}, as PostgreSQL writes it: the bytes
 * JSON.stringify({ days: activityDays(…) }) would give, without a row or an
 * object per day. Null when a ring's number is one whose text differs (then
 * read the days with activityDays).
 */
export async function activityDaysBody(db: Db, userId: string, firstDay: string, lastDay: string): Promise<string | null> {
  const { rows } = await db.query<{ exotic: boolean; days: string }>(ACTIVITY_DAYS_TEXT([userId, firstDay, lastDay]));
  return rows[0].exotic ? null : `{"days":[${rows[0].days}]}`;
}
