// GET /v1/state-of-mind — mood entries for every local day the range
// touches, oldest first.
import { Type } from '@sinclair/typebox';
import { daysSpanMs, localDayOf } from '../core/local-days.js';
import { stateOfMindRows } from '../db/queries/state-of-mind.js';
import { End, Start } from '../schemas/common.js';
import { StateOfMindResponse, type StateOfMindEntryT } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { checkRange } from './rules.js';

const RANGE_CAP_DAYS = 366;

export const stateOfMindRoute = defineRoute({
  operationId: 'getStateOfMind',
  path: '/v1/state-of-mind',
  auth: true,
  summary: 'Mood entries',
  description:
    'Momentary emotions and daily moods logged on any local day (SERVICE_TIME_ZONE) that [start, end) touches, so a range grazing ' +
    'one minute of a day returns the whole day; oldest first (then by uuid). date is the local day of timestamp. ' +
    'The range may span at most 366 days (end - start ≤ 366 × 24 h) and touch at most 366 local days; more is a 400. ' +
    'labels and associations are [] when none were picked.',
  params: Type.Object({ start: Start(), end: End() }),
  responses: [{ status: 200, description: 'The entries.', schema: StateOfMindResponse }],
  async handler({ query, services, userId }) {
    const zone = services.config.timeZone;
    checkRange(query.start, query.end, { capDays: RANGE_CAP_DAYS, dayGrained: true, timeZone: zone });
    const span = daysSpanMs(localDayOf(query.start, zone), localDayOf(query.end - 1, zone), zone);
    const rows = await stateOfMindRows(services.pool, userId, span.startMs, span.endMs);
    const entries: StateOfMindEntryT[] = rows.map((row) => ({
      uuid: row.uuid,
      date: localDayOf(row.timestamp, zone),
      timestamp: row.timestamp,
      kind: row.kind,
      valence: row.valence,
      valenceClassification: row.valenceClassification,
      labels: row.labels,
      associations: row.associations,
    }));
    return json({ entries });
  },
});
