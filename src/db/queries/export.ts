// The export's own SQL: the export-slot advisory locks (the samples
// dataset's COPY is in export-copy.ts). The other datasets are
// read with their JSON route's own queries (src/export/datasets.ts): at most
// 366 days of them fit in memory, while samples run to millions of rows.
import type pg from 'pg';
import { EXPORT_SLOTS } from '../../limits.js';

/** First key of the export-slot advisory locks (ASCII "heal"); the second is the slot number. */
export const EXPORT_LOCK_KEY = 0x6865616c;

/** Slot 1, else 2, … else NULL: CASE tries the locks in order and stops at the first it gets. */
const CLAIM_SLOT_SQL = `SELECT set_config('extra_float_digits', '1', false) AS float_digits, pg_backend_pid() AS pid,
  CASE ${Array.from({ length: EXPORT_SLOTS }, (_, i) => `WHEN pg_try_advisory_lock($1, ${i + 1}) THEN ${i + 1}`).join(' ')} END AS slot`;

/**
 * Claims a free slot as a session advisory lock held until unlocked or the
 * session ends; null when every slot is taken by any server process. The
 * session also gets shortest round-trip float text (extra_float_digits > 0),
 * so the datasets read as rows get their floats back exactly whatever the
 * server's default.
 */
export async function claimExportSlot(client: pg.ClientBase): Promise<{ slot: number | null; pid: number }> {
  const { rows } = await client.query<{ slot: number | null; pid: number }>(CLAIM_SLOT_SQL, [EXPORT_LOCK_KEY]);
  return rows[0];
}

/** Asks PostgreSQL to cancel what the session `pid` runs (an export's COPY): it ends with an error, the session lives on. */
export async function cancelSession(pool: pg.Pool, pid: number): Promise<void> {
  await pool.query('SELECT pg_cancel_backend($1)', [pid]);
}

export async function releaseExportSlot(client: pg.ClientBase, slot: number): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [EXPORT_LOCK_KEY, slot]);
}

