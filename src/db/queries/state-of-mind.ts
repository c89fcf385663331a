// Mood entries logged in [fromMs, toMs), oldest first, by the index
// state_of_mind (user_id, logged_at_ms, uuid). NULL lists read as [].
import { prepared, type Db } from '../pool.js';

export interface StateOfMindRow {
  uuid: string;
  timestamp: number;
  kind: string;
  valence: number | null;
  valenceClassification: string | null;
  labels: string[];
  associations: string[];
}

const STATE_OF_MIND = prepared(
  `SELECT uuid::text AS uuid, logged_at_ms AS timestamp, kind, valence,
          valence_classification AS "valenceClassification",
          coalesce(labels, '{}') AS labels, coalesce(associations, '{}') AS associations
   FROM state_of_mind
   WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3
   ORDER BY logged_at_ms, uuid`,
);

export async function stateOfMindRows(db: Db, userId: string, fromMs: number, toMs: number): Promise<StateOfMindRow[]> {
  const { rows } = await db.query<StateOfMindRow>(STATE_OF_MIND([userId, fromMs, toMs]));
  return rows;
}
