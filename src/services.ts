// What routes may use: resolved settings, the database pools, the worker
// pool, the database probe, the per-user catalog and the export runner. Built once at start
// (createServices) and closed on shutdown.
import type pg from 'pg';
import { createCatalogService, type CatalogService } from './catalog/service.js';
import type { Config } from './config.js';
import { createReadOnlyPool } from './db/pool.js';
import { DatabaseProbe, PING_TIMEOUT_MS } from './db/probe.js';
import { ExportRunner } from './export/run.js';
import { EXPORT_SLOTS } from './limits.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';

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
  workers: WorkerPool;
  probe: DatabaseProbe;
  /** Per-user catalog, kept as the serialized `{types}` body. */
  catalog: CatalogService;
  /** Running exports, on the export pool. */
  exports: ExportRunner;
}

export function createServices(config: ResolvedConfig, readUrl: string): Services {
  const pool = createReadOnlyPool({
    connectionString: readUrl,
    max: config.dbPoolSize,
    statementTimeoutMs: config.limits.queryTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    // A request waits for a busy pool within its database time, then 504.
    waitMs: config.limits.queryTimeoutMs,
    applicationName: 'healthd',
  });
  // /healthz asks on a connection of its own: a pool busy with requests is not a database that does not answer,
  // and a ping stuck behind a lock holds no connection of the requests'.
  const probePool = createReadOnlyPool({
    connectionString: readUrl,
    max: 1,
    statementTimeoutMs: PING_TIMEOUT_MS,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    applicationName: 'healthd-probe',
  });
  const exportPool = createReadOnlyPool({
    connectionString: readUrl,
    // One connection per running export, and as many again for claims that find every slot taken (held a moment).
    max: 2 * EXPORT_SLOTS,
    statementTimeoutMs: 0,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    applicationName: 'healthd-export',
  });
  return {
    config,
    pool,
    exportPool,
    workers: createWorkerPool(config.workerThreads),
    probe: new DatabaseProbe(probePool, config.limits.healthCacheMs),
    catalog: createCatalogService(pool, config.timeZone, config.limits),
    exports: new ExportRunner(exportPool, config.limits),
  };
}

/** Ends the pools and the worker threads. pool.end() waits for checked-out clients, so a stuck request bounds it by `waitMs`. */
export async function closeServices(services: Services, waitMs: number): Promise<void> {
  const ended = Promise.allSettled([services.pool.end(), services.exportPool.end(), services.probe.close(), services.workers.destroy()]);
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
}
