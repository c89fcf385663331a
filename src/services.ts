// What routes may use: resolved settings, the database pools, the worker pool,
// the health probe and the catalog cache. Built once at start by main.ts.
import type pg from 'pg';
import type { Piscina } from 'piscina';
import type { Config } from './config.js';
import type { CatalogCache } from './catalog-cache.js';
import type { HealthProbe } from './health.js';
import type { CatalogTypeT } from './schemas/resources.js';

export interface ResolvedConfig extends Config {
  apiToken: string;
  defaultUserId: string;
}

export interface Services {
  config: ResolvedConfig;
  /** Read-only sessions with the statement timeout. */
  pool: pg.Pool;
  /** Read-only sessions without the statement timeout, for exports. */
  exportPool: pg.Pool;
  workers: Piscina;
  health: HealthProbe;
  catalog: CatalogCache<CatalogTypeT[]>;
  /** Set when the server is shutting down. */
  shutdownSignal: AbortSignal;
}
