// Mood entries logged in [fromMs, toMs), oldest first, by the index
// state_of_mind (user_id, logged_at_ms, uuid). NULL lists read as []. The
// route reads them as rows of values with the lists as PostgreSQL's JSON text
// (stateOfMindTextRows: no text[] parsed, no object per entry); the export
// as objects.
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

/** An entry as the route's body writes it: uuid, timestamp, kind, valence (null), classification (null), labels and associations as JSON text. */
export type StateOfMindTextRow = [uuid: string, timestamp: number, kind: string, valence: number | null, classification: string | null, labels: string, associations: string];

// array_to_json escapes as JSON.stringify does (" and \, \b \f \n \r \t, other control characters as \u00xx): json-bodies.test.ts holds them to it.
const STATE_OF_MIND_TEXT = prepared(
  `SELECT uuid::text, logged_at_ms, kind, valence, valence_classification,
          coalesce(array_to_json(labels)::text, '[]'), coalesce(array_to_json(associations)::text, '[]')
   FROM state_of_mind
   WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3
   ORDER BY logged_at_ms, uuid`,
);

export async function stateOfMindTextRows(db: Db, userId: string, fromMs: number, toMs: number): Promise<StateOfMindTextRow[]> {
  const { rows } = await db.query<StateOfMindTextRow>({ ...STATE_OF_MIND_TEXT([userId, fromMs, toMs]), rowMode: 'array' });
  return rows;
}
