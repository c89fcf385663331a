// The resources an assistant reads before it calls anything: the guide
// (healthd://guide: units, deduplication, local days, how answers are
// written, which tool answers which question) and the type catalog
// (healthd://types: every identifier the server knows, its kind, unit and
// daily aggregation), plus the short instructions the server hands over at
// initialization.
import { allTypes } from '../core/registry.js';
import { MCP, PAGE, POINTS, RANGE_CAP_DAYS } from '../limits.js';
import { errors } from '../errors.js';
import { NOTATION_WORDS } from './compact.js';

export const GUIDE_URI = 'healthd://guide';
export const TYPES_URI = 'healthd://types';

export interface GuideFacts {
  timeZone: string;
  /** Whose data the token reads: anyone (multi-user reads on), the default user, or its own user (a per-user read token). */
  reads: 'anyone' | 'default' | 'own';
}

const WHOSE: Readonly<Record<GuideFacts['reads'], string>> = {
  anyone: 'multi-user reads are on: pass `user` to read another person',
  default: 'multi-user reads are off: only the default user can be read',
  own: errors.otherUserForbidden().message,
};

export function instructions(timeZone: string): string {
  return (
    `healthd serves one person's (or a family's) Apple Health data, read-only. Dates are local days in ${timeZone}, written YYYY-MM-DD, both ends inclusive. ` +
    'Start with get_summary for an overview or list_available_types to see what exists; read the healthd://guide resource for units, deduplication and which tool answers which question. ' +
    'These are measurements, not diagnoses: suggest a clinician for medical concerns.'
  );
}

export function guideMarkdown(facts: GuideFacts): string {
  return `# healthd: a guide for assistants

healthd holds the health data an iPhone and Apple Watch recorded, synced to the person's own server. Every tool only reads.

## Days, dates and times
- Days are **local days in ${facts.timeZone}** (the server's zone, not yours). Dates are \`YYYY-MM-DD\`; \`start_date\` and \`end_date\` are both included.
  A day on which the clock changes (DST) has 23 or 25 hours, and is covered exactly.
- Times in answers are local ISO 8601 with their offset, e.g. \`2026-03-08T07:12:05-04:00\`. Workout stream and GPS points carry **seconds from the workout's start**.
- A sleep night is dated by the day its session **ended** (the wake-up day).

## Units (canonical, never the device's)
- Energy kcal, distance and altitude m, duration s (workouts) or min (sleep, exercise), heart rate count/min, HRV (SDNN) ms, weight kg, temperature degC.
- **Fractions, not percentages**: blood oxygen 0.97 means 97 %, body fat 0.21 means 21 %.
- Every answer names the unit of each type (\`unit\`).

## Deduplication
- **Deduplicated across devices**: get_daily_metrics, get_metric_stats, get_activity_rings, get_sleep, get_summary. Watch and phone are never double-counted; prefer these.
- **Not deduplicated**: get_samples (raw records as synced: the same walk can appear from the watch and the phone) and get_latest_metrics (one raw sample).
  Never add raw samples up for a total; use get_daily_metrics.
- A daily value is the day's **total** for cumulative types (steps, energy, distance, exercise minutes; \`aggregation: "total"\`) and the day's **mean** for the others (heart rate, weight, HRV; \`"mean"\`).
- Days without data are left out, never shown as zero.

## Which tool answers which question
| question | tool |
|---|---|
| How am I doing lately? | get_summary (7d, 14d, 30d, 90d) |
| What data is there at all? | list_available_types |
| My weight / resting heart rate now? | get_latest_metrics |
| Steps (or any metric) per day | get_daily_metrics |
| Average or total per week, month, year; trends; comparing periods | get_metric_stats |
| Did I close my rings? | get_activity_rings |
| How did I sleep? | get_sleep |
| My workouts; a run's pace, heart rate, splits | list_workouts, then get_workout, get_workout_series |
| Where did I run, how far, how much climbing? | get_workout_route |
| Individual readings (each heart-rate sample, each blood-pressure reading) | get_samples |
| Mood | get_state_of_mind |
| Age, sex | get_profile |
| Whose data? (${WHOSE[facts.reads]}) | list_users |

## Sizes and paging
- Ranges per call: get_samples ${RANGE_CAP_DAYS.samples} days; get_daily_metrics, get_activity_rings, get_sleep, get_state_of_mind ${RANGE_CAP_DAYS.perDay} days; get_metric_stats ${MCP.statsDays} days. Longer questions: split the range, or use get_metric_stats.
- At most ${MCP.typesPerCall} types per call.
- list_workouts (default ${MCP.defaultWorkouts}, at most ${PAGE.workouts.max}) and get_samples (default ${MCP.defaultSamples}, at most ${PAGE.samples.max}) return pages: when a page is full the answer has a \`note\`; pass \`offset\` = \`nextOffset\` for the next.
- Workout streams and tracks are averaged down to \`max_points\` points (default ${MCP.defaultPoints}, at most ${POINTS.max}); \`totalPoints\` is how many were recorded.
- ${NOTATION_WORDS}

## Refusals
A tool answers an error (not data) naming the problem: a malformed or impossible date, end_date before start_date, a range over its cap, an unknown type, a workout that does not exist. Fix the input and call again.

## Type identifiers
HealthKit identifiers, e.g. \`HKQuantityTypeIdentifierStepCount\`, \`HKQuantityTypeIdentifierRestingHeartRate\`, \`HKQuantityTypeIdentifierHeartRateVariabilitySDNN\`,
\`HKQuantityTypeIdentifierBodyMass\`, \`HKQuantityTypeIdentifierActiveEnergyBurned\`, \`HKQuantityTypeIdentifierAppleExerciseTime\`, \`HKCategoryTypeIdentifierSleepAnalysis\`.
The resource ${TYPES_URI} lists every known identifier with its unit; list_available_types lists those with data.
`;
}

/** Every identifier the server knows: kind, canonical unit, and for quantities whether a day's value is a total or a mean. */
export function typeCatalog(): string {
  return JSON.stringify({
    types: allTypes.map((t) => ({
      identifier: t.identifier,
      kind: t.kind,
      unit: t.unit,
      ...(t.kind === 'quantity' ? { aggregation: t.aggregation === 'cumulative' ? 'total' : 'mean' } : {}),
    })),
  });
}
