// GET /v1/samples — raw samples of one type as synced (never deduplicated),
// one page at a time, ordered by start then uuid so paging is stable.
import { Type } from '@sinclair/typebox';
import { samplesPage } from '../db/queries/samples.js';
import { PAGE, RANGE_CAP_DAYS } from '../limits.js';
import { checkRange, requireSampleType } from '../params/checks.js';
import { End, Limit, Name, Offset, Start } from '../schemas/common.js';
import { SamplesPage } from '../schemas/resources.js';
import { EXAMPLE } from '../schemas/examples.js';
import { defineRoute } from './route.js';
import { samplesPageBody } from './samples-body.js';
import { knownTypes } from '../reads/types.js';

export const samplesRoute = defineRoute({
  operationId: 'getSamples',
  path: '/v1/samples',
  auth: true,
  summary: 'Raw samples of one type',
  description:
    'Raw records of one type as synced, not deduplicated: watch and phone samples both appear. Samples whose start lies in ' +
    `[start, end) (at most ${RANGE_CAP_DAYS.samples} days, end - start ≤ ${RANGE_CAP_DAYS.samples} × 24 h), ordered by start, then uuid. ` +
    'type is one identifier of a kind stored as samples: quantity, category, heartbeat series, ECG or medication dose; ' +
    'workouts, activity summaries and state of mind have their own routes and are a 400 here, as is an unknown identifier. ' +
    'value is the quantity in the canonical unit, or the integer enum value for a category type (whose label names it); ' +
    'unit is null for category types and kinds without a unit. source is the recording app or device and is free text. ' +
    `limit default ${PAGE.samples.default}, at most ${PAGE.samples.max} (larger values are clamped); nextOffset = offset + the samples on this page, ` +
    'and a page with fewer samples than limit is the last.',
  params: Type.Object({
    type: Name('Exactly one sample type identifier.'),
    start: Start(),
    end: End(),
    limit: Limit(PAGE.samples, 'Samples'),
    offset: Offset(),
  }),
  example: { query: { type: 'HKQuantityTypeIdentifierHeartRate', start: String(EXAMPLE.start), end: String(EXAMPLE.end), limit: '2' } },
  responses: [
    {
      status: 200,
      description: 'One page of samples.',
      schema: SamplesPage,
      example: {
        type: 'HKQuantityTypeIdentifierHeartRate',
        kind: 'quantity',
        unit: 'count/min',
        samples: [
          { uuid: '4707a284-4f2d-418a-931a-a2320b6e033c', start: 1_767_571_401_793, end: 1_767_571_401_793, value: 58, label: null, source: 'Apple Watch' },
          { uuid: '4707a284-4f2d-418a-931a-a232dada04e6', start: 1_767_571_704_793, end: 1_767_571_704_793, value: 57, label: null, source: 'Apple Watch' },
        ],
        nextOffset: 2,
      },
    },
  ],
  async handler({ db, query, services, userId }) {
    const { limit, offset } = query;
    requireSampleType(query.type, await knownTypes(db, userId, [query.type]));
    checkRange(query.start, query.end, { capDays: RANGE_CAP_DAYS.samples });
    const page = await samplesPage(db, userId, query.type, query.start, query.end, limit, offset);
    return { kind: 'text', contentType: 'application/json', body: samplesPageBody(query.type, page, offset) };
  },
});
