// The receiver's optional read endpoints (FACTS.md §1), for one user: per-type
// counts and upload recency (GET /v1/stats), the sample uuids of one type in
// a range (GET /v1/uuids) and per-UTC-month XOR digests of them (GET
// /v1/digest), with which the app checks what the server holds.
import { SPECIAL_IDENTIFIERS } from '../../core/registry.js';
import type { Db } from '../pool.js';

export interface TypeStats {
  type: string;
  rows: number;
  earliest: number | null;
  latest: number | null;
  lastBatchAt: number | null;
  batches: number;
}

export async function uploadStats(db: Db, userId: string): Promise<TypeStats[]> {
  const { rows } = await db.query<TypeStats>(
    `WITH raw AS (
       SELECT t.identifier, c.n, c.earliest, c.latest
       FROM sample_types t
       CROSS JOIN LATERAL (
         SELECT count(*) AS n, min(s.start_ms) AS earliest, max(s.start_ms) AS latest FROM samples s WHERE s.user_id = $1 AND s.type_id = t.type_id
       ) c
       WHERE c.n > 0
       UNION ALL
       SELECT '${SPECIAL_IDENTIFIERS.workout}', count(*), min(start_ms), max(start_ms) FROM workouts WHERE user_id = $1 HAVING count(*) > 0
       UNION ALL
       SELECT '${SPECIAL_IDENTIFIERS.stateOfMind}', count(*), min(logged_at_ms), max(logged_at_ms) FROM state_of_mind WHERE user_id = $1 HAVING count(*) > 0
     ), uploads AS (
       SELECT t.identifier, u.batches, u.last_batch_at_ms FROM upload_type_stats u JOIN sample_types t USING (type_id) WHERE u.user_id = $1
     )
     SELECT identifier AS type, coalesce(raw.n, 0)::bigint AS rows, raw.earliest, raw.latest,
            uploads.last_batch_at_ms AS "lastBatchAt", coalesce(uploads.batches, 0)::bigint AS batches
     FROM raw FULL JOIN uploads USING (identifier)
     ORDER BY identifier COLLATE "C"`,
    [userId],
  );
  return rows;
}

/** Where a type's rows live: `samples` (with its type id looked up), or a table of its own. */
function source(identifier: string): { table: string; time: string; typed: boolean } {
  if (identifier === SPECIAL_IDENTIFIERS.workout) return { table: 'workouts', time: 'start_ms', typed: false };
  if (identifier === SPECIAL_IDENTIFIERS.stateOfMind) return { table: 'state_of_mind', time: 'logged_at_ms', typed: false };
  return { table: 'samples', time: 'start_ms', typed: true };
}

/** The rows of the type in [from, to) and their parameters. */
function rangeOf(userId: string, identifier: string, fromMs: number, toMs: number): { table: string; time: string; where: string; params: unknown[] } {
  const { table, time, typed } = source(identifier);
  if (!typed) return { table, time, where: `user_id = $1 AND ${time} >= $2 AND ${time} < $3`, params: [userId, fromMs, toMs] };
  return {
    table,
    time,
    where: `user_id = $1 AND type_id = (SELECT type_id FROM sample_types WHERE identifier = $2) AND ${time} >= $3 AND ${time} < $4`,
    params: [userId, identifier, fromMs, toMs],
  };
}

/** The type's uuids (upper-case, as the app writes them) starting in [from, to), oldest first. */
export async function sampleUuids(db: Db, userId: string, identifier: string, fromMs: number, toMs: number): Promise<string[]> {
  const { table, time, where, params } = rangeOf(userId, identifier, fromMs, toMs);
  const { rows } = await db.query<{ uuid: string }>(`SELECT upper(uuid::text) AS uuid FROM ${table} WHERE ${where} ORDER BY ${time}, uuid`, params);
  return rows.map((row) => row.uuid);
}

export interface MonthDigest {
  window: number;
  rows: number;
  digest: string;
}

const half = (from: number) => `lpad(to_hex(bit_xor(('x' || substr(replace(uuid::text, '-', ''), ${from}, 16))::bit(64)::bigint)), 16, '0')`;

/** Per UTC month with rows in [from, to): its first instant, the row count and the XOR of the 16-byte uuids as 32 hex digits. */
export async function monthDigests(db: Db, userId: string, identifier: string, fromMs: number, toMs: number): Promise<MonthDigest[]> {
  const { table, time, where, params } = rangeOf(userId, identifier, fromMs, toMs);
  const { rows } = await db.query<MonthDigest>(
    `SELECT (extract(epoch FROM date_trunc('month', to_timestamp(${time} / 1000.0) AT TIME ZONE 'UTC')) * 1000)::bigint AS window,
            count(*)::bigint AS rows, ${half(1)} || ${half(17)} AS digest
     FROM ${table} WHERE ${where}
     GROUP BY 1 ORDER BY 1`,
    params,
  );
  return rows;
}
