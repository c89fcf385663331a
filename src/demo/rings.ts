// Activity rings of a demo day. Move kcal is the day's deduplicated active
// energy, known only once the aggregator releases that day, so the rest of
// the row is planned up front and completed later. Whole weeks at a time run
// in move-time mode (minutes instead of kcal, no kcal goal).
import { randomFor, round, type DemoDay, type Interval } from './day.js';
import { Random } from './random.js';
import type { Walk } from './activity.js';
import { exerciseMinutes, type PlannedWorkout } from './workouts.js';

export interface RingsPlan {
  day: string;
  moveMode: 1 | 2;
  moveGoalKcal: number | null;
  exerciseMin: number;
  exerciseGoalMin: number;
  standHours: number;
  standGoalHours: number;
  moveTimeMin: number | null;
  moveTimeGoalMin: number | null;
}

export function planRings(day: DemoDay, awake: Interval, walks: Walk[], workouts: PlannedWorkout[]): RingsPlan {
  const random = randomFor(day, 'rings');
  const week = Math.floor((Date.parse(day.day) / 86_400_000 + 3) / 7); // Monday-based weeks since 1970
  const moveTime = Random.named(`${day.seed}/${day.persona.index}/week-${week}/move-mode`).chance(0.15);
  const walkMinutes = (w: Walk) => (w.endMs - w.startMs) / 60_000;
  const workoutMinutes = workouts.reduce((sum, w) => sum + w.durationS / 60, 0);
  const briskMinutes = walks.filter((w) => w.stepsPerMinute >= 110).reduce((sum, w) => sum + walkMinutes(w), 0);
  const exerciseMin = Math.round(workouts.reduce((sum, w) => sum + exerciseMinutes(w), 0) + briskMinutes);
  const awakeHours = Math.floor((awake.endMs - awake.startMs) / 3_600_000);
  return {
    day: day.day,
    moveMode: moveTime ? 2 : 1,
    moveGoalKcal: moveTime ? null : day.persona.moveGoalKcal,
    exerciseMin,
    exerciseGoalMin: 30,
    standHours: Math.min(awakeHours, random.int(7, 14) + (workouts.length > 0 ? 1 : 0)),
    standGoalHours: 12,
    moveTimeMin: moveTime ? round(workoutMinutes + walks.reduce((sum, w) => sum + walkMinutes(w), 0), 0) : null,
    moveTimeGoalMin: moveTime ? 45 : null,
  };
}
