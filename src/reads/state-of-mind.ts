// Mood entries as /v1/state-of-mind and the state_of_mind export show them:
// every entry logged on a local day [start, end) touches, oldest first, each
// dated by its local day.
import { jsonNumber } from '../core/json-text.js';
import { daysSpanMs, localDayOf } from '../core/local-days.js';
import { uuidAt } from '../core/uuid-text.js';
import type { Db } from '../db/pool.js';
import { perResult } from '../db/fold.js';
import { stateOfMindColumns, stateOfMindRows, type StateOfMindColumns } from '../db/queries/state-of-mind.js';
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

/** The route's body, {"entries":[…]}: the UTF-8 of JSON.stringify({ entries: readStateOfMind(…) }), built as text. */
export async function stateOfMindBody(db: Db, userId: string, start: number, end: number, zone: string): Promise<Buffer> {
  const span = daySpan(start, end, zone);
  const columns = await stateOfMindColumns(db, userId, span.startMs, span.endMs);
  // Requests of a turn with the same user and range share the columns (perResult), and so their body, built and encoded once.
  const byZone = bodiesOf(columns);
  let body = byZone.get(zone);
  if (body === undefined) byZone.set(zone, (body = Buffer.from(bodyOf(columns, zone), 'utf8')));
  return body;
}

/** The bodies built of a row's columns, by time zone. */
const bodiesOf = perResult((_: StateOfMindColumns) => new Map<string, Buffer>());

function bodyOf({ uuids, timestamps, valences, kinds, tails }: StateOfMindColumns, zone: string): string {
  let body = '{"entries":[';
  for (let i = 0; i < timestamps.length; i++) {
    body +=
      (i === 0 ? '{"uuid":"' : ',{"uuid":"') +
      uuidAt(uuids, i) +
      '","date":"' + localDayOf(timestamps[i], zone) +
      '","timestamp":' + jsonNumber(timestamps[i]) +
      ',"kind":' + kinds[i] +
      ',"valence":' + jsonNumber(valences[i]) +
      ',"valenceClassification":' + tails[i] +
      '}';
  }
  return body + ']}';
}
