// Mood entries as /v1/state-of-mind and the state_of_mind export show them:
// every entry logged on a local day [start, end) touches, oldest first, each
// dated by its local day.
import { daysSpanMs, localDayOf } from '../core/local-days.js';
import type { Db } from '../db/pool.js';
import { stateOfMindRows, stateOfMindText } from '../db/queries/state-of-mind.js';
import type { StateOfMindEntryT } from '../schemas/resources.js';

export async function readStateOfMind(db: Db, userId: string, start: number, end: number, zone: string): Promise<StateOfMindEntryT[]> {
  const span = daysSpanMs(localDayOf(start, zone), localDayOf(end - 1, zone), zone);
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

/**
 * The /v1/state-of-mind body as text: the bytes of JSON.stringify({ entries })
 * of readStateOfMind's entries, around PostgreSQL's text of each entry (only
 * the local date is written here), or from those entries when a value's text
 * would differ.
 */
export async function stateOfMindBody(db: Db, userId: string, start: number, end: number, zone: string): Promise<string> {
  const span = daysSpanMs(localDayOf(start, zone), localDayOf(end - 1, zone), zone);
  const text = await stateOfMindText(db, userId, span.startMs, span.endMs);
  if (!text) return JSON.stringify({ entries: await readStateOfMind(db, userId, start, end, zone) });
  const { uuids, timestamps, tails } = text;
  if (timestamps.length === 0) return '{"entries":[]}';
  const rest = tails.split('\x01');
  let body = '{"entries":[';
  for (let i = 0; i < timestamps.length; i++) {
    body += `${i === 0 ? '' : ','}{"uuid":"${uuids.slice(i * 36, (i + 1) * 36)}","date":"${localDayOf(timestamps[i], zone)}${rest[i]}`;
  }
  return `${body}]}`;
}
