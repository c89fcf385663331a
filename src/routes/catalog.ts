// GET /v1/catalog/types — every type with at least one row for the user, with
// exact counts and bounds. Served from the per-user catalog cache
// (src/catalog/service.ts).
import { Type } from '@sinclair/typebox';
import { spokenDuration } from '../limits.js';
import { CatalogResponse } from '../schemas/resources.js';
import { defineRoute } from './route.js';

export const catalogRoute = defineRoute({
  operationId: 'listCatalogTypes',
  path: '/v1/catalog/types',
  auth: true,
  summary: 'Catalog of stored types',
  description: (limits) =>
    `Every type with at least one row (raw or aggregate) for the user. Cached per user: fresh for ${spokenDuration(limits.catalogFreshMs)}; afterwards the cached answer is still served for up to ${spokenDuration(limits.catalogStaleMs)} while one background refresh replaces it; only a user's first request waits for the count.`,
  params: Type.Object({}),
  example: {},
  responses: [
    {
      status: 200,
      description: 'The catalog.',
      schema: CatalogResponse,
      example: {
        types: [
          { identifier: 'HKCategoryTypeIdentifierSleepAnalysis', kind: 'category', unit: null, rows: 2468, rawRows: 2468, aggregateRows: 0, earliest: 1_760_000_000_000, latest: 1_768_111_579_330 },
          { identifier: 'HKQuantityTypeIdentifierHeartRate', kind: 'quantity', unit: 'count/min', rows: 61_215, rawRows: 61_125, aggregateRows: 90, earliest: 1_760_000_000_000, latest: 1_768_169_085_769 },
        ],
      },
    },
  ],
  async handler({ services, userId }) {
    return { kind: 'text', contentType: 'application/json', body: await services.catalog.get(userId) };
  },
});
