// The export's own SQL: the export-slot advisory locks, and the samples
// dataset's cursor (pg-query-stream on the export's connection, rows as
// arrays of PostgreSQL's text). The other datasets are read with their JSON
// route's own queries (src/export/datasets.ts): at most 366 days of them fit
// in memory, while samples run to millions of rows.
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import { EXPORT_SLOTS } from '../../limits.js';
import { SAMPLE_TYPE_ID_SQL } from './samples.js';

/** First key of the export-slot advisory locks (ASCII "heal"); the second is the slot number. */
export const EXPORT_LOCK_KEY = 0x6865616c;

/** Rows per cursor fetch; the stream fetches the next batch while one is being written. */
const BATCH_ROWS = 2000;

/** Every column as the text PostgreSQL sent. */
const RAW_TEXT = { getTypeParser: () => (text: string) => text };

export type RowCursor = QueryStream;

/** Slot 1, else 2, … else NULL: CASE tries the locks in order and stops at the first it gets. */
const CLAIM_SLOT_SQL = `SELECT set_config('extra_float_digits', '1', false) AS float_digits,
  CASE ${Array.from({ length: EXPORT_SLOTS }, (_, i) => `WHEN pg_try_advisory_lock($1, ${i + 1}) THEN ${i + 1}`).join(' ')} END AS slot`;

/**
 * Claims a free slot as a session advisory lock held until unlocked or the
 * session ends; null when every slot is taken by any server process. The
 * session also gets shortest round-trip float text (extra_float_digits > 0),
 * which the samples encoding relies on whatever the server's default.
 */
export async function claimExportSlot(client: pg.ClientBase): Promise<number | null> {
  const { rows } = await client.query<{ slot: number | null }>(CLAIM_SLOT_SQL, [EXPORT_LOCK_KEY]);
  return rows[0].slot;
}

export async function releaseExportSlot(client: pg.ClientBase, slot: number): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [EXPORT_LOCK_KEY, slot]);
}

/** The type id of an identifier, or null when no writer has stored the type. */
export async function sampleTypeId(client: pg.ClientBase, identifier: string): Promise<number | null> {
  const { rows } = await client.query<{ type_id: number }>(SAMPLE_TYPE_ID_SQL, [identifier]);
  return rows[0]?.type_id ?? null;
}

/**
 * The /v1/samples rows of a whole range, by start then uuid, walking samples
 * (user_id, type_id, start_ms, uuid); the source name is a primary-key probe
 * per row. $1 user id, $2 type id, $3 start (inclusive), $4 end (exclusive).
 */
export const SAMPLES_EXPORT_SQL = `SELECT s.uuid, s.start_ms, s.end_ms, s.value, (SELECT src.name FROM sources src WHERE src.source_id = s.source_id) AS source
  FROM samples s
  WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
  ORDER BY s.start_ms, s.uuid`;

/** Rows [uuid, start, end, value, source] of SAMPLES_EXPORT_SQL, as PostgreSQL text. */
export function samplesTextCursor(client: pg.ClientBase, userId: string, typeId: number, start: number, end: number): RowCursor {
  return client.query(new QueryStream(SAMPLES_EXPORT_SQL, [userId, typeId, start, end], { rowMode: 'array', batchSize: BATCH_ROWS, types: RAW_TEXT }));
}
