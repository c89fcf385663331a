// What routes may use: resolved settings, the database pools, the worker pool,
// the health probe and the catalog cache. Built once at start by main.ts.
import type pg from 'pg';
import type { Piscina } from 'piscina';
import type { Config } from './config.js';
import type { CatalogCache } from './catalog-cache.js';
import type { HealthProbe } from './health.js';

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
  /** Per-user catalog, kept as the serialized `{types}` body. */
  catalog: CatalogCache<string>;
  /** Set when the server is shutting down. */
  shutdownSignal: AbortSignal;
}
