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
  responses: [{ status: 200, description: 'The catalog.', schema: CatalogResponse }],
  async handler({ services, userId }) {
    return { kind: 'text', contentType: 'application/json', body: await services.catalog.get(userId) };
  },
});
