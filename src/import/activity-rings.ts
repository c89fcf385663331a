// export.xml `ActivitySummary` → an `activity_summaries` row (one local day of
// rings). The export names no move mode: a day with a move-time goal and no
// energy goal is in move-time mode (2), any other day in active-energy mode
// (1), and the move-time columns are kept for move-time days only. A ring
// whose attributes are absent is null. Older exports spell move time
// `appleMoveMinutes`.
import { convertToCanonical } from '../core/units.js';
import { calendarDay } from './apple-dates.js';
import type { ActivitySummaryRow } from '../db/writes/rows.js';
import type { Attributes } from './health-data-reader.js';

export type ActivityRow = ActivitySummaryRow & { moveMode: 1 | 2 };

const ACTIVE_ENERGY = 'HKQuantityTypeIdentifierActiveEnergyBurned';

function amount(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

function kcal(text: string | undefined, unit: string | undefined): number | null {
  const value = amount(text);
  return value === null ? null : (convertToCanonical(ACTIVE_ENERGY, value, unit ?? 'kcal') ?? null);
}

export function convertActivitySummary(attrs: Attributes): ActivityRow | string {
  const day = calendarDay(attrs.dateComponents ?? '');
  if (day === null) return 'dateComponents is not a day';
  const energyUnit = attrs.activeEnergyBurnedUnit;
  const moveGoalKcal = kcal(attrs.activeEnergyBurnedGoal, energyUnit);
  const moveTimeGoalMin = amount(attrs.appleMoveTimeGoal ?? attrs.appleMoveMinutesGoal);
  const moveMode = (moveTimeGoalMin ?? 0) > 0 && !((moveGoalKcal ?? 0) > 0) ? 2 : 1;
  return {
    day,
    moveKcal: kcal(attrs.activeEnergyBurned, energyUnit),
    moveGoalKcal,
    exerciseMin: amount(attrs.appleExerciseTime),
    exerciseGoalMin: amount(attrs.appleExerciseTimeGoal),
    standHours: amount(attrs.appleStandHours),
    standGoalHours: amount(attrs.appleStandHoursGoal),
    moveTimeMin: moveMode === 2 ? amount(attrs.appleMoveTime ?? attrs.appleMoveMinutes) : null,
    moveTimeGoalMin: moveMode === 2 ? moveTimeGoalMin : null,
    moveMode,
  };
}
