// One page of raw samples of one type, as synced (never deduplicated): an
// ordered range scan of samples (user_id, type_id, start_ms, uuid) that stops
// after offset + limit rows. The type id is looked up first so the planner
// sees the real id and its row estimate (a deep offset into a dense type then
// still walks the index instead of sorting the whole range); source names are
// looked up for the rows of the page only.
import type { Db } from '../pool.js';

export interface SampleRow {
  uuid: string;
  start: number;
  end: number;
  value: number | null;
  source: string | null;
}

export const SAMPLE_TYPE_ID_SQL = `SELECT type_id FROM sample_types WHERE identifier = $1`;

/** $1 user id, $2 type id, $3 start (inclusive), $4 end (exclusive), $5 limit, $6 offset. */
export const SAMPLES_PAGE_SQL = `
  SELECT page.uuid::text AS uuid, page.start_ms AS start, page.end_ms AS "end", page.value,
         (SELECT src.name FROM sources src WHERE src.source_id = page.source_id) AS source
  FROM (
    SELECT s.uuid, s.start_ms, s.end_ms, s.value, s.source_id
    FROM samples s
    WHERE s.user_id = $1 AND s.type_id = $2 AND s.start_ms >= $3 AND s.start_ms < $4
    ORDER BY s.start_ms, s.uuid
    LIMIT $5 OFFSET $6
  ) page
  ORDER BY page.start_ms, page.uuid`;

export async function samplesPage(
  db: Db,
  userId: string,
  identifier: string,
  start: number,
  end: number,
  limit: number,
  offset: number,
): Promise<SampleRow[]> {
  const type = await db.query<{ type_id: number }>(SAMPLE_TYPE_ID_SQL, [identifier]);
  if (type.rows.length === 0) return [];
  const { rows } = await db.query<SampleRow>(SAMPLES_PAGE_SQL, [userId, type.rows[0].type_id, start, end, limit, offset]);
  return rows;
}
