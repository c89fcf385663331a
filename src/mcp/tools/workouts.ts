// Workouts: list_workouts (/v1/workouts), get_workout (/v1/workouts/{uuid}),
// get_workout_series (…/series) and get_workout_route (…/route, JSON form).
// Stream and track points carry seconds from the workout's start, which an
// assistant reads as "in minute 12" without date arithmetic.
import type { Static } from '@sinclair/typebox';
import { z } from 'zod';
import { MCP, PAGE } from '../../limits.js';
import type { WorkoutDetailT, WorkoutRouteResponseT, WorkoutSeriesResponse, WorkoutSummaryT, WorkoutsResponse } from '../../schemas/resources.js';
import { compactFreeForm, localTime, roundAll, roundAltitude, roundCoordinate, roundValue, secondsFrom } from '../compact.js';
import { dayBoundMs, dayRange, LocalDate } from '../dates.js';
import { knownType, MaxPoints, NameInput, Offset, TypesInput, UserInput, WorkoutUuid } from '../inputs.js';
import { defineTool } from '../tool.js';

function compactSummary(workout: WorkoutSummaryT, zone: string) {
  return {
    ...workout,
    start: localTime(workout.start, zone),
    end: localTime(workout.end, zone),
    durationS: roundValue(workout.durationS),
    distanceM: roundValue(workout.distanceM),
    energyKcal: roundValue(workout.energyKcal),
  };
}

/** The start/end filter of list_workouts: either date alone, or both. */
/** What a workout's series and track answers open with: the workout, its local times, the points asked for. */
function pointsHeader(body: { uuid: string; start: number; end: number; maxPoints: number }, zone: string) {
  return { uuid: body.uuid, start: localTime(body.start, zone), end: localTime(body.end, zone), maxPoints: body.maxPoints };
}

function startFilter(startDate: string | undefined, endDate: string | undefined, zone: string): { start?: number; end?: number } {
  if (startDate !== undefined && endDate !== undefined) {
    const range = dayRange(startDate, endDate, zone);
    return { start: range.startMs, end: range.endMs };
  }
  return {
    start: startDate === undefined ? undefined : dayBoundMs(startDate, zone),
    end: endDate === undefined ? undefined : dayBoundMs(endDate, zone, true),
  };
}

export const listWorkouts = defineTool({
  name: 'list_workouts',
  title: 'List workouts',
  description:
    'Workouts newest first, optionally only those starting on local days start_date to end_date (inclusive; either may be left out) and of one activity_type. ' +
    'Each gives uuid (for get_workout, get_workout_series, get_workout_route), activityType, start and end (local time), durationS (seconds), distanceM (metres), energyKcal, ' +
    'hasRoute (a GPS track exists) and availableMetrics (streams for get_workout_series). ' +
    `Pages of limit workouts (default ${MCP.defaultWorkouts}, at most ${PAGE.workouts.max}); when a page is full, note says how to get the next one.`,
  input: {
    start_date: LocalDate('Only workouts starting on or after this local day, YYYY-MM-DD.').optional(),
    end_date: LocalDate('Only workouts starting on or before this local day, YYYY-MM-DD.').optional(),
    activity_type: NameInput.optional().describe('Only this activity type, exactly as listed (running, walking, cycling, swimming, hiking, yoga, traditionalStrengthTraining…).'),
    limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(PAGE.workouts.max, `must be at most ${PAGE.workouts.max}`).default(MCP.defaultWorkouts).describe(`Workouts per call: default ${MCP.defaultWorkouts}, at most ${PAGE.workouts.max}.`),
    offset: Offset,
    user: UserInput,
  },
  async run({ start_date, end_date, activity_type, limit, offset, user }, ctx) {
    const zone = ctx.config.timeZone;
    const filter = startFilter(start_date, end_date, zone);
    const body = await ctx.json<Static<typeof WorkoutsResponse>>('listWorkouts', { user, query: { ...filter, activityType: activity_type, limit, offset } });
    const full = body.workouts.length === limit;
    return {
      json: {
        workouts: body.workouts.map((w) => compactSummary(w, zone)),
        nextOffset: body.nextOffset,
        ...(full ? { note: `page full: there may be more; call again with offset ${body.nextOffset}` } : {}),
      },
    };
  },
});

export const getWorkout = defineTool({
  name: 'get_workout',
  title: 'Workout detail',
  description:
    'One workout: everything list_workouts gives plus statisticsDetail (per type: min, avg, max, sum in the canonical unit, e.g. heart rate in count/min), ' +
    'events (pauses, laps, segments) and activities (the legs of a multisport workout).',
  input: { uuid: WorkoutUuid, user: UserInput },
  async run({ uuid, user }, ctx) {
    const zone = ctx.config.timeZone;
    const workout = await ctx.json<WorkoutDetailT>('getWorkout', { user, path: { uuid } });
    const { statisticsDetail, events, activities, ...summary } = workout;
    return {
      json: {
        ...compactSummary(summary, zone),
        statisticsDetail: roundAll(statisticsDetail),
        events: compactFreeForm(events, zone),
        activities: compactFreeForm(activities, zone),
      },
    };
  },
});

export const getWorkoutSeries = defineTool({
  name: 'get_workout_series',
  title: 'Workout streams',
  description:
    'The streams recorded during a workout (heart rate, power, speed, cadence…), each averaged down to at most max_points points ' +
    `(default ${MCP.defaultPoints}); points are [seconds from the workout's start, value] in the type's unit; totalPoints is how many were recorded. ` +
    'types picks streams (default: every stream the workout has, see availableMetrics).',
  input: { uuid: WorkoutUuid, types: TypesInput('Streams').optional(), max_points: MaxPoints('Points per stream'), user: UserInput },
  async run({ uuid, types, max_points, user }, ctx) {
    types?.forEach(knownType);
    const zone = ctx.config.timeZone;
    const body = await ctx.json<Static<typeof WorkoutSeriesResponse>>('getWorkoutSeries', { user, path: { uuid }, query: { types, maxPoints: max_points } });
    return {
      json: {
        ...pointsHeader(body, zone),
        series: body.series.map((stream) => ({
          ...stream,
          points: stream.points.map(([t, v]) => [secondsFrom(body.start, t), roundValue(v)]),
        })),
      },
    };
  },
});

export const getWorkoutRoute = defineTool({
  name: 'get_workout_route',
  title: 'Workout GPS track',
  description:
    `The GPS track of a workout: at most max_points recorded points (default ${MCP.defaultPoints}) picked evenly, first and last kept, as ` +
    "[seconds from the workout's start, latitude, longitude, altitude m or null]; distanceM is the length of the whole track and elevationGainM its total climb " +
    '(both over every recorded point, unsmoothed). totalPoints is how many were recorded; a workout without a track (hasRoute false) has none: totalPoints 0, no points.',
  input: { uuid: WorkoutUuid, max_points: MaxPoints('Track points'), user: UserInput },
  async run({ uuid, max_points, user }, ctx) {
    const zone = ctx.config.timeZone;
    const body = await ctx.json<WorkoutRouteResponseT>('getWorkoutRoute', { user, path: { uuid }, query: { format: 'json', maxPoints: max_points } });
    return {
      json: {
        ...pointsHeader(body, zone),
        totalPoints: body.totalPoints,
        distanceM: roundValue(body.distanceM),
        elevationGainM: roundValue(body.elevationGainM),
        points: body.points.map(([t, lat, lon, alt]) => [secondsFrom(body.start, t), roundCoordinate(lat), roundCoordinate(lon), roundAltitude(alt)]),
      },
    };
  },
});
