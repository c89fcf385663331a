// Whether the database answers, for /healthz: one ping per cache window, so a
// flood of health checks costs one query. The ping reads a table the routes
// read, so a login that lost its privileges is down too, not only a database
// that does not answer. A ping that does not answer
// promptly counts as down; the next window pings again, so recovery needs no
// restart.
import type pg from 'pg';

/**
 * How long a ping may take: past it the database counts as down. The probe's
 * sessions carry it as their statement timeout too, so a ping stuck behind a
 * lock is cancelled then rather than holding its connection.
 */
export const PING_TIMEOUT_MS = 1_500;

export class DatabaseProbe {
  private status: { db: boolean; at: number } | null = null;
  private pending: Promise<boolean> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly cacheMs: number,
    private readonly pingTimeoutMs = PING_TIMEOUT_MS,
  ) {}

  /** The status of the current cache window, or undefined when it has none yet. */
  cached(now = Date.now()): boolean | undefined {
    return this.status && now - this.status.at < this.cacheMs ? this.status.db : undefined;
  }

  async databaseUp(now = Date.now()): Promise<boolean> {
    const cached = this.cached(now);
    if (cached !== undefined) return cached;
    this.pending ??= this.ping().then((db) => {
      this.status = { db, at: Date.now() };
      this.pending = null;
      return db;
    });
    return this.pending;
  }

  private async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.pingTimeoutMs);
    });
    const query = this.pool.query('SELECT 1 FROM users LIMIT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the probe's connection. */
  close(): Promise<void> {
    return this.pool.end();
  }
}
