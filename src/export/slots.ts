// At most two exports at once across every server process sharing the
// database: a slot is a PostgreSQL session advisory lock, taken on the
// export's own connection and held for the export's life (a per-process
// counter would allow two per process). The connection then runs the
// export's COPY (a COPY cut short is cancelled from another connection).
// Releasing unlocks and returns the connection; when that fails or hangs, the
// connection was already closed, or it is still inside a transaction, the
// connection is destroyed instead, and its session's end frees the lock.
import type pg from 'pg';
import { cancelSession, claimExportSlot, releaseExportSlot } from '../db/queries/export.js';
import { describeError, log } from '../log.js';

const RELEASE_TIMEOUT_MS = 5_000;

export interface ExportSlot {
  readonly slot: number;
  /** The export's connection; its session holds the slot. */
  readonly client: pg.PoolClient;
  /** Cancels what the connection runs (a COPY cut short), from another connection of the pool; the session lives on. */
  cancel(): Promise<void>;
  /** Frees the slot and the connection; runs once, later calls are no-ops. */
  release(): Promise<void>;
}

/** A free slot with its connection, or null when both slots are taken. */
export async function acquireExportSlot(pool: pg.Pool): Promise<ExportSlot | null> {
  const client = await pool.connect();
  let slot: number | null;
  let pid: number;
  try {
    ({ slot, pid } = await claimExportSlot(client));
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  if (slot === null) {
    client.release();
    return null;
  }
  const held = slot;
  let released: Promise<void> | null = null;
  let closed = false;
  /** A cancel on its way: the connection goes back only once it has arrived, so it cannot hit the next export's query. */
  let cancelling: Promise<void> = Promise.resolve();
  const onEnd = () => (closed = true);
  client.once('end', onEnd);
  return {
    slot: held,
    client,
    cancel: () => (cancelling = cancelSession(pool, pid)),
    release() {
      if (!released) {
        client.off('end', onEnd);
        released = closed ? Promise.resolve(client.release(new Error('the export connection was closed'))) : unlockAndReturn(client, held, cancelling);
      }
      return released;
    },
  };
}

async function unlockAndReturn(client: pg.PoolClient, slot: number, cancelling: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const unlock = cancelling.catch(() => {}).then(() => releaseExportSlot(client, slot));
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('releasing the export slot timed out')), RELEASE_TIMEOUT_MS);
  });
  try {
    await Promise.race([unlock, timeout]);
    // An export cut short between its BEGIN and COMMIT (the client gone once the COPY had ended, so there was
    // nothing to cancel) left its transaction open: such a connection never goes back to the pool, where it
    // would sit idle in transaction and hand its old snapshot to the next export.
    if (client.getTransactionStatus() !== 'I') {
      client.release(new Error('the export ended inside its transaction'));
      return;
    }
    client.release();
  } catch (error) {
    unlock.catch(() => {});
    log.warn('export slot released by closing its connection', describeError(error));
    client.release(error as Error);
  } finally {
    clearTimeout(timer);
  }
}
