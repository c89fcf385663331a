// GET /v1/catalog/types — every type with at least one row for the user, with
// exact counts and bounds. Served from the per-user CatalogCache.
import { Type } from '@sinclair/typebox';
import type pg from 'pg';
import { dayStartMs } from '../core/local-days.js';
import { kindOfIdentifier, unitOf } from '../core/registry.js';
import { catalogRows } from '../db/queries/catalog.js';
import { CatalogResponse, type CatalogTypeT } from '../schemas/resources.js';
import { defineRoute } from './route.js';

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
const maxOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

export async function computeCatalog(pool: pg.Pool, userId: string, timeZone: string): Promise<CatalogTypeT[]> {
  const rows = await catalogRows(pool, userId);
  const types: CatalogTypeT[] = [];
  for (const row of rows) {
    const kind = kindOfIdentifier(row.identifier);
    if (!kind) continue;
    const firstDay = row.firstDay === null ? null : dayStartMs(row.firstDay, timeZone);
    const lastDay = row.lastDay === null ? null : dayStartMs(row.lastDay, timeZone);
    types.push({
      identifier: row.identifier,
      kind,
      unit: unitOf(row.identifier),
      rows: row.rawRows + row.aggregateRows,
      rawRows: row.rawRows,
      aggregateRows: row.aggregateRows,
      earliest: minOf(row.earliestRaw, firstDay),
      latest: maxOf(row.latestRaw, lastDay),
    });
  }
  return types.sort((a, b) => (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0));
}

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
