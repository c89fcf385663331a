// Mood entries as /v1/state-of-mind and the state_of_mind export show them:
// every entry logged on a local day [start, end) touches, oldest first, each
// dated by its local day.
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { daysSpanMs, localDayOf } from '../core/local-days.js';
import type { Db } from '../db/pool.js';
import { stateOfMindRows, stateOfMindTextRows } from '../db/queries/state-of-mind.js';
import type { StateOfMindEntryT } from '../schemas/resources.js';

/** [start of the first local day [start, end) touches, start of the day after its last). */
const daySpan = (start: number, end: number, zone: string) => daysSpanMs(localDayOf(start, zone), localDayOf(end - 1, zone), zone);

export async function readStateOfMind(db: Db, userId: string, start: number, end: number, zone: string): Promise<StateOfMindEntryT[]> {
  const span = daySpan(start, end, zone);
  const rows = await stateOfMindRows(db, userId, span.startMs, span.endMs);
  return rows.map((row) => ({
    uuid: row.uuid,
    date: localDayOf(row.timestamp, zone),
    timestamp: row.timestamp,
    kind: row.kind,
    valence: row.valence,
    valenceClassification: row.valenceClassification,
    labels: row.labels,
    associations: row.associations,
  }));
}

/** The route's body, {"entries":[…]}: the bytes JSON.stringify({ entries: readStateOfMind(…) }) gives, built as text. */
export async function stateOfMindBody(db: Db, userId: string, start: number, end: number, zone: string): Promise<string> {
  const span = daySpan(start, end, zone);
  const rows = await stateOfMindTextRows(db, userId, span.startMs, span.endMs);
  let body = '{"entries":[';
  for (let i = 0; i < rows.length; i++) {
    const [uuid, timestamp, kind, valence, classification, labels, associations] = rows[i];
    body +=
      (i === 0 ? '{"uuid":"' : ',{"uuid":"') +
      uuid +
      '","date":"' + localDayOf(timestamp, zone) +
      '","timestamp":' + jsonNumber(timestamp) +
      ',"kind":' + JSON.stringify(kind) +
      ',"valence":' + jsonNumber(valence) +
      ',"valenceClassification":' + jsonStringOrNull(classification) +
      ',"labels":' + labels +
      ',"associations":' + associations +
      '}';
  }
  return body + ']}';
}
