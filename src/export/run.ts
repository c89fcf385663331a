// Running exports: each holds a slot (a PostgreSQL advisory lock on its own
// connection, slots.ts) from before its first byte until its file is done, and
// is bounded by the three limits of the spec instead of the query timeout —
// EXPORT_TIME_LIMIT_MS in all, EXPORT_IDLE_LIMIT_MS for a client that takes
// nothing, SHUTDOWN_GRACE_MS on shutdown (drain). Passing any of them aborts
// the sink, so a cut-off file always shows as a failed download.
import type pg from 'pg';
import type { Tunables } from '../limits.js';
import { log } from '../log.js';
import { writeDataset } from './datasets.js';
import type { ExportPlan } from './plan.js';
import type { StreamSink } from './sink.js';
import { acquireExportSlot } from './slots.js';

/** A claimed export: write its file once, release always (idempotent). */
export interface ClaimedExport {
  write(sink: StreamSink): Promise<void>;
  release(): Promise<void>;
}

type ExportLimits = Pick<Tunables, 'exportTimeLimitMs' | 'exportIdleLimitMs'>;

const ALWAYS = () => true;

/**
 * The sink with the idle limit: a write the client has not taken within
 * `idleMs` aborts the stream (uWS keeps its own socket timer armed meanwhile).
 */
function idleGuarded(sink: StreamSink, idleMs: number): StreamSink {
  return {
    write(chunk) {
      const written = sink.write(chunk);
      const timer = setTimeout(() => sink.abort(), idleMs);
      return written.finally(() => clearTimeout(timer));
    },
    end: () => sink.end(),
    abort: () => sink.abort(),
    get closed() {
      return sink.closed;
    },
    get signal() {
      return sink.signal;
    },
  };
}

export class ExportRunner {
  /** Each running export's sink, with its request and whether the token it was asked with is still honoured. */
  private readonly running = new Map<StreamSink, { requestId: string; honoured: () => boolean }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: ExportLimits,
  ) {}

  /** Exports writing right now. */
  get active(): number {
    return this.running.size;
  }

  /** Claims a slot for the plan; null when every slot is taken (by any server process). `honoured`: the reader's token, still honoured. */
  async claim(plan: ExportPlan, requestId: string, honoured: () => boolean = ALWAYS): Promise<ClaimedExport | null> {
    const slot = await acquireExportSlot(this.pool);
    if (!slot) return null;
    const { exportTimeLimitMs, exportIdleLimitMs } = this.limits;
    return {
      write: async (sink) => {
        this.running.set(sink, { requestId, honoured });
        const timer = setTimeout(() => {
          log.warn('export stopped at its time limit', { requestId, dataset: plan.dataset, limitMs: exportTimeLimitMs });
          sink.abort();
        }, exportTimeLimitMs);
        try {
          await writeDataset(plan, slot, idleGuarded(sink, exportIdleLimitMs));
          // Free the slot before the file ends, so a client that saw the end can start the next export at once.
          await slot.release();
        } finally {
          clearTimeout(timer);
          this.running.delete(sink);
        }
      },
      release: () => slot.release(),
    };
  }

  /** After the tokens are read again: an export asked with a token since revoked is cut off (a revoked token reads nothing more). */
  cutRevoked(): void {
    for (const [sink, { requestId, honoured }] of this.running) {
      if (honoured()) continue;
      log.warn('export stopped: its token was revoked', { requestId });
      sink.abort();
    }
  }

  /** Shutdown: running exports get `graceMs` to finish, then their connections are aborted. */
  async drain(graceMs: number): Promise<void> {
    const ends = Date.now() + graceMs;
    while (this.running.size > 0 && Date.now() < ends) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const sink of this.running.keys()) sink.abort();
  }
}
