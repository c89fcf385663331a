// GET /v1/state-of-mind — mood entries for every local day the range
// touches, oldest first.
import { Type } from '@sinclair/typebox';
import { MAX_LOCAL_DAYS, RANGE_CAP_DAYS } from '../limits.js';
import { checkRange } from '../params/checks.js';
import { End, Start } from '../schemas/common.js';
import { stateOfMindBody } from '../reads/state-of-mind.js';
import { StateOfMindResponse } from '../schemas/resources.js';
import { defineRoute } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

export const stateOfMindRoute = defineRoute({
  operationId: 'getStateOfMind',
  path: '/v1/state-of-mind',
  auth: true,
  summary: 'Mood entries',
  description:
    'Momentary emotions and daily moods logged on any local day (SERVICE_TIME_ZONE) that [start, end) touches, so a range grazing ' +
    'one minute of a day returns the whole day; oldest first (then by uuid). date is the local day of timestamp. ' +
    `The range may span at most ${RANGE_CAP_DAYS.perDay} days (end - start ≤ ${RANGE_CAP_DAYS.perDay} × 24 h) and touch at most ${MAX_LOCAL_DAYS} local days; more is a 400. ` +
    'labels and associations are [] when none were picked.',
  params: Type.Object({ start: Start(), end: End() }),
  example: { query: { start: String(EXAMPLE.start), end: String(EXAMPLE.end) } },
  responses: [
    {
      status: 200,
      description: 'The entries.',
      schema: StateOfMindResponse,
      example: {
        entries: [
          {
            uuid: '201074f3-2133-4017-a606-cf6718bd1c4c',
            date: '2026-01-05',
            timestamp: 1_767_643_788_258,
            kind: 'dailyMood',
            valence: 0.2,
            valenceClassification: 'slightlyPleasant',
            labels: ['amused', 'peaceful'],
            associations: ['family'],
          },
        ],
      },
    },
  ],
  async handler({ db, query, services, userId }) {
    const zone = services.config.timeZone;
    checkRange(query.start, query.end, { capDays: RANGE_CAP_DAYS.perDay, dayGrainedIn: zone });
    return { kind: 'text', contentType: 'application/json', body: await stateOfMindBody(db, userId, query.start, query.end, zone) };
  },
});
