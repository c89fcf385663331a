// GET /v1/workouts/{uuid} — one workout: its summary plus statistics, events
// and sub-activities as synced.
import { Type } from '@sinclair/typebox';
import { findWorkout } from '../db/queries/workouts.js';
import { errors } from '../errors.js';
import { Uuid } from '../schemas/common.js';
import { WorkoutDetail } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';

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
  responses: [
    { status: 200, description: 'The workout.', schema: WorkoutDetail },
    { status: 404, description: 'The workout does not exist for this user.' },
  ],
  async handler({ services, userId, path }) {
    const workout = await findWorkout(services.pool, userId, path.uuid);
    if (!workout) throw errors.workoutNotFound();
    return json(workout);
  },
});
