// Mood entries logged in [fromMs, toMs), oldest first, by the index
// state_of_mind (user_id, logged_at_ms, uuid). NULL lists read as [].
import type { Db } from '../pool.js';
import { float8ArrayFromBinary } from '../binary-arrays.js';

export interface StateOfMindRow {
  uuid: string;
  timestamp: number;
  kind: string;
  valence: number | null;
  valenceClassification: string | null;
  labels: string[];
  associations: string[];
}

export async function stateOfMindRows(db: Db, userId: string, fromMs: number, toMs: number): Promise<StateOfMindRow[]> {
  const { rows } = await db.query<StateOfMindRow>(
    `SELECT uuid::text AS uuid, logged_at_ms AS timestamp, kind, valence,
            valence_classification AS "valenceClassification",
            coalesce(labels, '{}') AS labels, coalesce(associations, '{}') AS associations
     FROM state_of_mind
     WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3
     ORDER BY logged_at_ms, uuid`,
    [userId, fromMs, toMs],
  );
  return rows;
}

/**
 * The same entries for /v1/state-of-mind as JSON text written by PostgreSQL
 * (src/db/queries/samples.ts says why a row per entry costs): per entry, the
 * text that follows its date — timestamp, kind, valence, classification and
 * the lists (to_json's text is JSON.stringify's, floats between 1e-4 and 1e15
 * too) — separated by \x01 (never raw in JSON text); the uuids' text run
 * together and the instants as a binary float8 array, from which the route
 * writes each local date. `exotic`: a valence or instant whose text differs
 * from JSON.stringify's; read the rows instead.
 */
const STATE_OF_MIND_TEXT_SQL = `
  SELECT coalesce(string_agg(uuid::text, '' ORDER BY logged_at_ms, uuid), '') AS uuids,
         array_send(coalesce(array_agg(logged_at_ms::float8 ORDER BY logged_at_ms, uuid), '{}')) AS timestamps,
         coalesce(bool_or((valence <> 0 AND valence NOT IN ('NaN', 'Infinity', '-Infinity') AND (abs(valence) < '1e-4'::float8 OR abs(valence) >= '1e15'::float8))
                          OR abs(logged_at_ms) > 9007199254740992), false) AS exotic,
         coalesce(string_agg(
           '","timestamp":' || logged_at_ms::text || ',"kind":' || to_json(kind)::text ||
           ',"valence":' || CASE WHEN valence IS NULL OR valence IN ('NaN', 'Infinity', '-Infinity') THEN 'null' WHEN valence = 0 THEN '0' ELSE valence::text END ||
           ',"valenceClassification":' || coalesce(to_json(valence_classification)::text, 'null') ||
           ',"labels":' || coalesce(to_json(labels)::text, '[]') || ',"associations":' || coalesce(to_json(associations)::text, '[]') || '}',
           E'\\x01' ORDER BY logged_at_ms, uuid), '') AS tails
  FROM state_of_mind
  WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3`;

export interface StateOfMindText {
  uuids: string;
  timestamps: Float64Array;
  /** Per entry, the JSON text after its date's value, separated by \x01. */
  tails: string;
}

export async function stateOfMindText(db: Db, userId: string, fromMs: number, toMs: number): Promise<StateOfMindText | null> {
  const { rows } = await db.query<{ uuids: string; timestamps: Buffer; exotic: boolean; tails: string }>(STATE_OF_MIND_TEXT_SQL, [userId, fromMs, toMs]);
  const row = rows[0];
  return row.exotic ? null : { uuids: row.uuids, timestamps: float8ArrayFromBinary(row.timestamps), tails: row.tails };
}
