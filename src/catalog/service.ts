// The per-user type catalog of /v1/catalog/types: exact counts and bounds per
// type (src/db/queries/catalog.ts), shaped as CatalogType entries and kept
// serialized in the per-user cache (a warm hit then costs no JSON.stringify,
// 45 % of that route's profile), with the freshness the settings give.
import type pg from 'pg';
import { dayStartMs } from '../core/local-days.js';
import { kindOfIdentifier, unitOf } from '../core/registry.js';
import { catalogRows } from '../db/queries/catalog.js';
import { CATALOG_CACHE_USERS, type Tunables } from '../limits.js';
import { describeError, log } from '../log.js';
import type { CatalogTypeT } from '../schemas/resources.js';
import { CatalogCache } from './cache.js';

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
const maxOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/** Every type with at least one row for the user, sorted by identifier. */
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

/** The cache of serialized `{types}` bodies, per user. */
export type CatalogService = CatalogCache<string>;

export function createCatalogService(pool: pg.Pool, timeZone: string, limits: Pick<Tunables, 'catalogFreshMs' | 'catalogStaleMs'>): CatalogService {
  return new CatalogCache({
    freshMs: limits.catalogFreshMs,
    staleMs: limits.catalogStaleMs,
    maxUsers: CATALOG_CACHE_USERS,
    compute: (user) => computeCatalog(pool, user, timeZone).then((types) => JSON.stringify({ types })),
    onRefreshError: (error) => log.error('catalog refresh failed', describeError(error)),
  });
}
