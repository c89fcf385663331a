// Prompts a client offers its person as ready-made requests: weekly_summary
// (this week against the one before) and compare_workouts (two workouts side
// by side). Each is one user message naming the tools and the exact local
// dates to use, so the assistant spends no call finding out what day it is.
import { z } from 'zod';
import { lastNDays } from '../core/local-days.js';
import { isUuid } from '../core/uuid.js';
import { NameInput } from './inputs.js';

export interface PromptMessage {
  role: 'user';
  content: { type: 'text'; text: string };
}

export interface PromptSpec {
  name: string;
  title: string;
  description: string;
  args: z.ZodRawShape;
  messages(args: Record<string, string | undefined>, zone: string, nowMs: number): PromptMessage[];
}

const say = (text: string): PromptMessage[] => [{ role: 'user', content: { type: 'text', text } }];
const forUser = (user: string | undefined) => (user ? ` Pass user "${user}" to every tool.` : '');
const optionalUuid = (what: string) => z.string().refine(isUuid, 'must be a uuid').optional().describe(what);

export const weeklySummary: PromptSpec = {
  name: 'weekly_summary',
  title: 'Weekly health summary',
  description: 'A short review of the last 7 days against the 7 before: activity, sleep, heart, workouts.',
  args: { user: optionalUuid('The user (from list_users); the default user when left out.') },
  messages({ user }, zone, nowMs) {
    const days = lastNDays(14, zone, nowMs);
    const [prevStart, prevEnd, thisStart, thisEnd] = [days[0], days[6], days[7], days[13]];
    return say(
      `Write my weekly health summary from healthd. This week is ${thisStart} to ${thisEnd} (local days in ${zone}); the week before is ${prevStart} to ${prevEnd}.${forUser(user)}\n` +
        '1. get_summary with range 7d for the overview.\n' +
        // Two calls over the two windows: group_by week cuts Monday-to-Sunday weeks, which match these only on a Sunday.
        `2. get_metric_stats twice, with group_by none: start_date ${thisStart}, end_date ${thisEnd}, then start_date ${prevStart}, end_date ${prevEnd}; ` +
        'both for HKQuantityTypeIdentifierStepCount, HKQuantityTypeIdentifierActiveEnergyBurned, HKQuantityTypeIdentifierRestingHeartRate and HKQuantityTypeIdentifierHeartRateVariabilitySDNN, to compare the two weeks.\n' +
        `3. get_sleep and get_activity_rings for ${thisStart} to ${thisEnd}; list_workouts with start_date ${thisStart}.\n` +
        'Then write at most 12 lines: what went well, what changed from the week before (with the numbers), one or two suggestions. ' +
        'Say which days had no data rather than guessing. Figures are deduplicated across devices. No medical diagnoses.',
    );
  },
};

export const compareWorkouts: PromptSpec = {
  name: 'compare_workouts',
  title: 'Compare two workouts',
  description: 'Two workouts side by side: duration, distance, pace, heart rate, power, route and climb. Give two uuids; one uuid, to compare it with the latest other workout of its activity type; or an activity type, to compare its latest two.',
  args: {
    first: optionalUuid('One workout (uuid from list_workouts).'),
    second: optionalUuid('The other workout.'),
    activity_type: NameInput.optional().describe('Without uuids: compare the two most recent workouts of this activity type (running, cycling…).'),
  },
  messages({ first, second, activity_type }) {
    // One uuid given is one of the two: never dropped for the two most recent.
    const one = first ?? second;
    const which =
      first && second
        ? `workouts ${first} and ${second}`
        : one
          ? `workout ${one} and my most recent other ${activity_type ? `${activity_type} workout (find it with list_workouts and activity_type ${activity_type})` : 'workout of the same activity type (its activityType from get_workout, then list_workouts with that activity_type)'}`
          : `my two most recent ${activity_type ? `${activity_type} ` : ''}workouts (find them with list_workouts${activity_type ? ` and activity_type ${activity_type}` : ''}, limit 2)`;
    return say(
      `Compare ${which} from healthd.\n` +
        '1. get_workout for each: duration, distance, energy, statisticsDetail (heart rate avg/max, power, cadence), events (pauses, laps).\n' +
        '2. get_workout_series for each with the streams both have in availableMetrics (max_points 60 is enough to see how they went).\n' +
        '3. When hasRoute is true, get_workout_route (max_points 50) for distance and elevation gain.\n' +
        'Then a compact table of the two, pace per km where there is a distance, and three sentences on what differed (effort, pacing, heart rate at similar pace). ' +
        'Durations are in seconds, distances in metres, speeds in m/s: convert for reading.',
    );
  },
};

export const prompts: readonly PromptSpec[] = [weeklySummary, compareWorkouts];
