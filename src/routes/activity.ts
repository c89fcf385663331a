// GET /v1/activity/summary — activity rings for every local day the range
// touches, as the phone recorded them.
import { Type } from '@sinclair/typebox';
import { localDayOf } from '../core/local-days.js';
import { activityDaysBody } from '../db/queries/activity.js';
import { checkRange } from '../params/checks.js';
import { End, Start } from '../schemas/common.js';
import { ActivitySummaryResponse } from '../schemas/resources.js';
import { defineRoute } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

export const activitySummaryRoute = defineRoute({
  operationId: 'getActivitySummary',
  path: '/v1/activity/summary',
  auth: true,
  summary: 'Activity rings per day',
  description:
    'Move, exercise and stand rings with their goals for every local day (SERVICE_TIME_ZONE) that [start, end) touches and that has a ' +
    'recorded summary, ascending by date; a range grazing one minute of a day returns that whole day; the range has no cap. ' +
    'A ring the device does not track is null. moveMode is 1 (active energy) or 2 (move time); moveTimeMin and moveTimeGoalMin ' +
    'apply to move-time mode only.',
  params: Type.Object({ start: Start(), end: End() }),
  example: { query: { start: String(EXAMPLE.start), end: String(EXAMPLE.end) } },
  responses: [
    {
      status: 200,
      description: 'The activity days.',
      schema: ActivitySummaryResponse,
      example: {
        days: [
          { date: '2026-01-05', moveKcal: 512.3, moveGoalKcal: 500, exerciseMin: 34, exerciseGoalMin: 30, standHours: 11, standGoalHours: 12, moveMode: 1, moveTimeMin: null, moveTimeGoalMin: null },
        ],
      },
    },
  ],
  async handler({ db, query, services, userId }) {
    checkRange(query.start, query.end);
    const zone = services.config.timeZone;
    const [firstDay, lastDay] = [localDayOf(query.start, zone), localDayOf(query.end - 1, zone)];
    return { kind: 'text', contentType: 'application/json', body: await activityDaysBody(db, userId, firstDay, lastDay) };
  },
});
