// GET /v1/catalog/types — every type with at least one row for the user, with
// exact counts and bounds. Served from the per-user catalog cache
// (src/catalog/service.ts).
import { Type } from '@sinclair/typebox';
import { CatalogResponse } from '../schemas/resources.js';
import { defineRoute } from './route.js';

export const catalogRoute = defineRoute({
  operationId: 'listCatalogTypes',
  path: '/v1/catalog/types',
  auth: true,
  summary: 'Catalog of stored types',
  description:
    'Every type with at least one row (raw or aggregate) for the user. Cached per user: fresh for 5 minutes; afterwards the cached answer is still served for up to one hour while one background refresh replaces it; only a user\'s first request waits for the count.',
  params: Type.Object({}),
  responses: [{ status: 200, description: 'The catalog.', schema: CatalogResponse }],
  async handler({ services, userId }) {
    return { kind: 'text', contentType: 'application/json', body: await services.catalog.get(userId) };
  },
});
