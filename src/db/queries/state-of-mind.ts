// Mood entries logged in [fromMs, toMs), oldest first, by the index
// state_of_mind (user_id, logged_at_ms, uuid). NULL lists read as [], and a
// NULL element of a list is left out (the lists are of strings: LIST). The
// route reads them as one row of columns with the lists as PostgreSQL's JSON
// text (stateOfMindColumns: no text[] parsed, no row or object per entry);
// the export as objects.
import { float8ArrayFromSql, float8ArraySql } from '../binary-arrays.js';
import { prepared, type Db } from '../pool.js';
import { readPrepared } from '../prepared-read.js';
import { foldedRow, perResult } from '../fold.js';

export interface StateOfMindRow {
  uuid: string;
  timestamp: number;
  kind: string;
  valence: number | null;
  valenceClassification: string | null;
  labels: string[];
  associations: string[];
}

/** A list column as the answer's array of strings: NULL as empty, NULL elements left out. */
const LIST = (column: string) => `coalesce(array_remove(${column}, NULL), '{}')`;

const STATE_OF_MIND = prepared(
  `SELECT uuid::text AS uuid, logged_at_ms AS timestamp, kind, valence,
          valence_classification AS "valenceClassification",
          ${LIST('labels')} AS labels, ${LIST('associations')} AS associations
   FROM state_of_mind
   WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3
   ORDER BY logged_at_ms, uuid`,
);

export async function stateOfMindRows(db: Db, userId: string, fromMs: number, toMs: number): Promise<StateOfMindRow[]> {
  return readPrepared<StateOfMindRow>(db, STATE_OF_MIND([userId, fromMs, toMs]));
}

/**
 * The entries as one row of columns, each in the entries' order (the route's
 * body is built from them): the uuids' texts run together (uuidAt); the
 * instants and valences as float8 arrays (a NULL valence reads as NaN); each
 * entry's kind, and its JSON from valenceClassification's value to the end of
 * its associations, as JSON text PostgreSQL wrote.
 */
export interface StateOfMindColumns {
  uuids: string;
  timestamps: Float64Array;
  valences: Float64Array;
  kinds: string[];
  tails: string[];
}

// PostgreSQL's JSON escapes as JSON.stringify does (" and \, \b \f \n \r \t,
// other control characters as \u00xx: json-bodies.test.ts holds them to it),
// so no item holds a raw U+0001, which therefore separates them. Reading 140
// rows cost the main thread 0.38–0.56 ms; this row 0.13–0.16 ms, for
// 0.06–0.12 ms more of PostgreSQL (bench/RESULTS.md, issue 12).
const SEPARATOR = '\u0001';
const IN_ORDER = 'ORDER BY logged_at_ms, uuid';
// The requests of a turn fold into one statement (src/db/fold.ts).
const stateOfMindRow = foldedRow<string[]>(
  `SELECT coalesce(string_agg(uuid::text, '' ${IN_ORDER}), ''),
          ${float8ArraySql(`coalesce(array_agg(logged_at_ms::float8 ${IN_ORDER}), '{}')`)},
          ${float8ArraySql(`coalesce(array_agg(valence ${IN_ORDER}), '{}')`)},
          coalesce(string_agg(to_json(kind)::text, E'\\x01' ${IN_ORDER}), ''),
          coalesce(string_agg(
            coalesce(to_json(valence_classification)::text, 'null') ||
            ',"labels":' || array_to_json(${LIST('labels')})::text ||
            ',"associations":' || array_to_json(${LIST('associations')})::text,
            E'\\x01' ${IN_ORDER}), '')
   FROM state_of_mind
   WHERE user_id = $1 AND logged_at_ms >= $2 AND logged_at_ms < $3`,
  ['uuid', 'bigint', 'bigint'],
  'array',
);

/** A row's columns, read once for the requests of a turn that share the row (perResult): they get the same object. */
const columnsOf = perResult(([uuids, timestamps, valences, kinds, tails]: string[]): StateOfMindColumns => {
  const none = uuids === '';
  return {
    uuids,
    timestamps: float8ArrayFromSql(timestamps),
    valences: float8ArrayFromSql(valences),
    kinds: none ? [] : kinds.split(SEPARATOR),
    tails: none ? [] : tails.split(SEPARATOR),
  };
});

/** The entries' columns; requests of a turn with the same user and range get the same object, which no one may change. */
export async function stateOfMindColumns(db: Db, userId: string, fromMs: number, toMs: number): Promise<StateOfMindColumns> {
  return columnsOf(await stateOfMindRow(db, [userId, fromMs, toMs]));
}
