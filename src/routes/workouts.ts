// GET /v1/workouts — the user's workouts, newest first, one page at a time.
import { Type } from '@sinclair/typebox';
import { workoutsPageBody } from '../db/queries/workouts.js';
import { PAGE } from '../limits.js';
import { checkRange } from '../params/checks.js';
import { End, Limit, Name, Offset, Start } from '../schemas/common.js';
import { WorkoutsResponse } from '../schemas/resources.js';
import { defineRoute } from './route.js';
import { EXAMPLE, EXAMPLE_WORKOUT } from '../schemas/examples.js';

export const workoutsRoute = defineRoute({
  operationId: 'listWorkouts',
  path: '/v1/workouts',
  auth: true,
  summary: 'Workouts',
  description:
    'The user\'s workouts, newest first (by start time descending, then uuid). start and end are optional and filter on each workout\'s start time: at or after start, before end; ' +
    'with both, end must be after start. No range cap. activityType keeps only workouts of exactly that activity type (such as running). ' +
    `Paging: limit (default ${PAGE.workouts.default}, at most ${PAGE.workouts.max}; larger values are clamped) and offset; nextOffset is offset plus the workouts on this page, and a page shorter than limit is the last. ` +
    'hasRoute says whether route points were synced; availableMetrics lists, sorted, the identifiers that have a stream in the series endpoint.',
  params: Type.Object({
    start: Type.Optional(Start('Only workouts starting at or after this instant, epoch ms.')),
    end: Type.Optional(End('Only workouts starting before this instant, epoch ms; must be after start when both are given.')),
    activityType: Type.Optional(Name('Only workouts of this activity type (exact match), such as running.')),
    limit: Limit(PAGE.workouts, 'Workouts'),
    offset: Offset(),
  }),
  example: { query: { start: String(EXAMPLE.start), end: String(EXAMPLE.end), limit: '10' } },
  responses: [
    {
      status: 200,
      description: 'A page of workouts.',
      schema: WorkoutsResponse,
      example: {
        workouts: [EXAMPLE_WORKOUT],
        nextOffset: 1,
      },
    },
  ],
  async handler({ db, userId, query }) {
    const { start, end, activityType, limit, offset } = query;
    if (start !== undefined && end !== undefined) checkRange(start, end);
    return { kind: 'text', contentType: 'application/json', body: await workoutsPageBody(db, userId, { start, end, activityType, limit, offset }) };
  },
});
