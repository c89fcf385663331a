// GET /v1/workouts/{uuid} — one workout: its summary plus statistics, events
// and sub-activities as synced.
import { Type } from '@sinclair/typebox';
import { workoutDetailBody } from '../db/queries/workouts.js';
import { errors } from '../errors.js';
import { Uuid } from '../schemas/common.js';
import { WorkoutDetail } from '../schemas/resources.js';
import { defineRoute, jsonText } from './route.js';
import { EXAMPLE, EXAMPLE_WORKOUT } from '../schemas/examples.js';

export const workoutDetailRoute = defineRoute({
  operationId: 'getWorkout',
  path: '/v1/workouts/{uuid}',
  auth: true,
  summary: 'Workout detail',
  description:
    'Every WorkoutSummary field plus statisticsDetail (per type identifier: min, avg, max, sum in the canonical unit; {} when none were synced), ' +
    'events (pauses, laps, segments as reported; [] when none) and activities (sub-activities of a multisport workout; [] otherwise). ' +
    'The uuid compares case-insensitively. 404 when the workout does not exist for this user.',
  params: Type.Object({}),
  pathParams: Type.Object({ uuid: Uuid('The workout.') }),
  example: { path: { uuid: EXAMPLE.workout } },
  responses: [
    {
      status: 200,
      description: 'The workout.',
      schema: WorkoutDetail,
      example: {
        ...EXAMPLE_WORKOUT,
        statisticsDetail: {
          HKQuantityTypeIdentifierHeartRate: { min: 76, avg: 155.5, max: 167 },
          HKQuantityTypeIdentifierStepCount: { sum: 10_121 },
        },
        events: [{ type: 'pause', start: 1_767_638_015_875, end: 1_767_638_102_875 }],
        activities: [],
      },
    },
    { status: 404, description: 'The workout does not exist for this user.' },
  ],
  async handler({ db, userId, path }) {
    const body = await workoutDetailBody(db, userId, path.uuid);
    if (!body) throw errors.workoutNotFound();
    return jsonText(body);
  },
});
