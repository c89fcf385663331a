// Row counts and time bounds per type for one user, raw and aggregate, plus the
// special kinds kept in their own tables. Exact counts: the samples' are kept
// by triggers as they are written (migration 6), the rest are counted — and
// so are the samples of a user marked stale (migration 8: an import is
// writing them, or was killed before it recounted them).
import type { Db } from '../pool.js';

export interface CatalogRow {
  identifier: string;
  rawRows: number;
  aggregateRows: number;
  earliestRaw: number | null;
  latestRaw: number | null;
  firstDay: string | null;
  lastDay: string | null;
}

export async function catalogRows(db: Db, userId: string): Promise<CatalogRow[]> {
  const { rows } = await db.query<CatalogRow>(
    `WITH stale AS (
       SELECT EXISTS (SELECT 1 FROM stale_sample_counts WHERE user_id = $1) AS yes
     ), counts AS (
       -- The counts the writers' triggers keep (migration 6) — or, for a user
       -- marked stale, one (user, type) range of the samples index counted per
       -- type (each branch runs only when it applies).
       SELECT type_id, sum(n) AS n FROM sample_counts
       WHERE user_id = $1 AND NOT (SELECT yes FROM stale) GROUP BY type_id HAVING sum(n) > 0
       UNION ALL
       SELECT t.type_id, c.n FROM sample_types t
       CROSS JOIN LATERAL (SELECT count(*) AS n FROM samples s WHERE s.user_id = $1 AND s.type_id = t.type_id) c
       WHERE (SELECT yes FROM stale) AND c.n > 0
     ), raw AS (
       -- Per counted type the first and last start: one probe each at either
       -- end of the (user_id, type_id, start_ms) index range.
       SELECT c.type_id, c.n,
              (SELECT min(s.start_ms) FROM samples s WHERE s.user_id = $1 AND s.type_id = c.type_id) AS earliest,
              (SELECT max(s.start_ms) FROM samples s WHERE s.user_id = $1 AND s.type_id = c.type_id) AS latest
       FROM counts c
     ), agg AS (
       SELECT type_id, count(*) AS n, min(day)::text AS first_day, max(day)::text AS last_day
       FROM daily_aggregates WHERE user_id = $1 GROUP BY type_id
     )
     SELECT t.identifier, coalesce(raw.n, 0)::bigint AS "rawRows", coalesce(agg.n, 0)::bigint AS "aggregateRows",
            raw.earliest AS "earliestRaw", raw.latest AS "latestRaw", agg.first_day AS "firstDay", agg.last_day AS "lastDay"
     FROM sample_types t
     LEFT JOIN raw ON raw.type_id = t.type_id
     LEFT JOIN agg ON agg.type_id = t.type_id
     WHERE raw.n IS NOT NULL OR agg.n IS NOT NULL
     UNION ALL
     SELECT 'HKWorkoutTypeIdentifier', count(*), 0, min(start_ms), max(start_ms), NULL, NULL
       FROM workouts WHERE user_id = $1 HAVING count(*) > 0
     UNION ALL
     SELECT 'HKDataTypeIdentifierStateOfMind', count(*), 0, min(logged_at_ms), max(logged_at_ms), NULL, NULL
       FROM state_of_mind WHERE user_id = $1 HAVING count(*) > 0
     UNION ALL
     SELECT 'HKActivitySummaryTypeIdentifier', count(*), 0, NULL, NULL, min(day)::text, max(day)::text
       FROM activity_summaries WHERE user_id = $1 HAVING count(*) > 0`,
    [userId],
  );
  return rows;
}
