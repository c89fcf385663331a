// Mood entries as /v1/state-of-mind and the state_of_mind export show them:
// every entry logged on a local day [start, end) touches, oldest first, each
// dated by its local day.
import { daysSpanMs, localDayOf } from '../core/local-days.js';
import type { Db } from '../db/pool.js';
import { stateOfMindRows } from '../db/queries/state-of-mind.js';
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
