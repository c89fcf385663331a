// Activity rings per local day, read from activity_summaries by its primary
// key (user_id, day). A ring the device does not track stays null.
import { prepared, type Db } from '../pool.js';
import type { ActivityDayT } from '../../schemas/resources.js';

const ACTIVITY_DAYS = prepared(
  `SELECT day::text AS date,
          move_kcal AS "moveKcal", move_goal_kcal AS "moveGoalKcal",
          exercise_min AS "exerciseMin", exercise_goal_min AS "exerciseGoalMin",
          stand_hours AS "standHours", stand_goal_hours AS "standGoalHours",
          move_mode::int AS "moveMode",
          move_time_min AS "moveTimeMin", move_time_goal_min AS "moveTimeGoalMin"
   FROM activity_summaries
   WHERE user_id = $1 AND day >= $2::date AND day <= $3::date
   ORDER BY day`,
);

export async function activityDays(db: Db, userId: string, firstDay: string, lastDay: string): Promise<ActivityDayT[]> {
  const { rows } = await db.query<ActivityDayT>(ACTIVITY_DAYS([userId, firstDay, lastDay]));
  return rows;
}
