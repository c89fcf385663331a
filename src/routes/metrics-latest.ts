// GET /v1/metrics/latest — the newest raw sample of each requested quantity
// type, in request order; types without data are left out.
import { Type } from '@sinclair/typebox';
import { unitOf } from '../core/registry.js';
import { latestSamples } from '../db/queries/metrics.js';
import { requireQuantityTypes } from '../params/checks.js';
import { TypeList } from '../schemas/common.js';
import { LatestMetricsResponse, type LatestMetricT } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { knownTypes } from '../reads/types.js';

export const latestMetricsRoute = defineRoute({
  operationId: 'getLatestMetrics',
  path: '/v1/metrics/latest',
  auth: true,
  summary: 'Newest sample per quantity type',
  description:
    'The newest raw sample (by start; on a tie the greatest uuid) of each requested quantity type, in request order. ' +
    'Types without data are left out, so the list can be shorter than the request. `timestamp` is the start of the sample; ' +
    '`unit` is the type\'s canonical unit. Raw samples are not deduplicated across devices. ' +
    'An unknown identifier or one that is not a quantity type is a 400 naming it.',
  params: Type.Object({ types: TypeList('Quantity type identifiers, e.g. HKQuantityTypeIdentifierHeartRate.') }),
  example: { query: { types: 'HKQuantityTypeIdentifierBodyMass,HKQuantityTypeIdentifierHeartRate' } },
  responses: [
    {
      status: 200,
      description: 'The newest sample per type.',
      schema: LatestMetricsResponse,
      example: {
        metrics: [
          { identifier: 'HKQuantityTypeIdentifierBodyMass', unit: 'kg', value: 62.4, timestamp: 1_768_115_700_000 },
          { identifier: 'HKQuantityTypeIdentifierHeartRate', unit: 'count/min', value: 64, timestamp: 1_768_169_085_769 },
        ],
      },
    },
  ],
  async handler({ db, query, services, userId }) {
    requireQuantityTypes(query.types, await knownTypes(db, userId, query.types));
    const rows = await latestSamples(db, userId, query.types);
    const metrics: LatestMetricT[] = rows.map((row) => ({
      identifier: row.identifier,
      unit: unitOf(row.identifier),
      value: row.value,
      timestamp: row.timestamp,
    }));
    return json({ metrics });
  },
});
