// One writer per export dataset: open the dataset's cursor on the export's
// connection and pump its rows through the encoder, after the CSV header row
// (written before any row is read). Rows are what the dataset's JSON route
// shows for the same range, one row per JSON record, nested fields flattened
// (open-details.md "Export columns"). Only the samples dataset, which runs to
// millions of rows, is encoded from PostgreSQL's text; the others go through
// csvLine / jsonlLine.
import type pg from 'pg';
import { csvLine, EXPORT_COLUMNS, jsonlLine, type Cell, type ExportDataset } from '../core/export-encoding.js';
import { daysSpanMs, localDayOf } from '../core/local-days.js';
import { unitOf } from '../core/registry.js';
import { assembleSleepNights, SLEEP_SESSION_GAP_MS, type SleepNight, type SleepSample } from '../core/sleep-nights.js';
import {
  activityCursor, dailyMetricsCursor, sampleTypeId, samplesTextCursor, sleepSamplesCursor, stateOfMindCursor, workoutsCursor,
} from '../db/queries/export.js';
import type { DailyRequestType } from '../db/queries/metrics.js';
import type { StreamSink } from '../http/stream-sink.js';
import { pumpRows, type RowEncoder } from './pump.js';
import { sampleTextEncoder, type ExportFormat } from './sample-encoding.js';

export interface ExportJob {
  dataset: ExportDataset;
  format: ExportFormat;
  userId: string;
  timeZone: string;
  /** The range as given, epoch ms, [start, end). */
  start: number;
  end: number;
  /** daily_metrics: the quantity types asked for, in request order. */
  dailyTypes: readonly DailyRequestType[];
  /** samples: the one type. */
  sampleType: string;
  /** workouts: only this activity type, when given. */
  activityType: string | null;
  /** sleep: where sample reading starts, so a night that ends in the range comes back whole. */
  sleepReadFrom: () => Promise<number>;
}

/**
 * Writes the dataset's file (header row included) to the sink. Rejects as soon
 * as the export's connection fails: a cursor on a connection that died waits
 * for a reply that never comes, so its own stream never ends or errors.
 */
export async function writeDataset(job: ExportJob, client: pg.ClientBase, sink: StreamSink): Promise<void> {
  let onLost: (error?: Error) => void = () => {};
  const lost = new Promise<never>((_, reject) => {
    onLost = (error) => reject(error ?? new Error('the export\'s database connection ended'));
  });
  client.once('error', onLost).once('end', onLost);
  try {
    await Promise.race([writeRows(job, client, sink), lost]);
  } finally {
    client.off('error', onLost).off('end', onLost);
  }
}

async function writeRows(job: ExportJob, client: pg.ClientBase, sink: StreamSink): Promise<void> {
  const columns = EXPORT_COLUMNS[job.dataset];
  if (job.format === 'csv') await sink.write(csvLine(columns));
  const encode = <R>(toCells: (row: R) => Cell[]): ((row: R) => string) =>
    job.format === 'csv' ? (row) => csvLine(toCells(row)) : (row) => jsonlLine(columns, toCells(row));
  const cells = (toCells: (row: any[]) => Cell[]): RowEncoder => ({ row: encode(toCells) });
  const asIs = (row: Cell[]) => row;
  const firstDay = localDayOf(job.start, job.timeZone);
  const lastDay = localDayOf(job.end - 1, job.timeZone);

  switch (job.dataset) {
    case 'daily_metrics': {
      if (job.dailyTypes.length === 0) return;
      const rows = dailyMetricsCursor(client, job.userId, job.dailyTypes, firstDay, lastDay);
      return pumpRows(rows, cells(([identifier, date, value]) => [identifier, unitOf(identifier), date, value]), sink);
    }
    case 'samples': {
      const typeId = await sampleTypeId(client, job.sampleType);
      if (typeId === null) return;
      return pumpRows(samplesTextCursor(client, job.userId, typeId, job.start, job.end), sampleTextEncoder(job.format, job.sampleType), sink);
    }
    case 'workouts':
      return pumpRows(workoutsCursor(client, job.userId, job.start, job.end, job.activityType), cells(asIs), sink);
    case 'activity':
      return pumpRows(activityCursor(client, job.userId, firstDay, lastDay), cells(asIs), sink);
    case 'state_of_mind': {
      const span = daysSpanMs(firstDay, lastDay, job.timeZone);
      const rows = stateOfMindCursor(client, job.userId, span.startMs, span.endMs);
      return pumpRows(
        rows,
        cells(([uuid, timestamp, ...rest]) => [uuid, localDayOf(timestamp, job.timeZone), timestamp, ...rest]),
        sink,
      );
    }
    case 'sleep': {
      const window = daysSpanMs(firstDay, lastDay, job.timeZone);
      const rows = sleepSamplesCursor(client, job.userId, await job.sleepReadFrom(), window.endMs + SLEEP_SESSION_GAP_MS);
      return pumpRows(rows, sleepNightsEncoder(encode(nightCells), job.timeZone, window.startMs, window.endMs), sink);
    }
  }
}

function nightCells(night: SleepNight): Cell[] {
  const { stages } = night;
  return [night.date, night.start, night.end, night.inBedMinutes, night.asleepMinutes, stages.core, stages.deep, stages.rem, stages.unspecified, stages.awake, night.sources];
}

/**
 * Sleep samples in start order → one row per night that ends in
 * [windowStartMs, windowEndMs). Sessions split exactly as splitSleepSessions
 * does, so only the open session's samples are held; each closed session is
 * assembled on its own (assembleSleepNights of one session is its night).
 */
function sleepNightsEncoder(encodeNight: (night: SleepNight) => string, timeZone: string, windowStartMs: number, windowEndMs: number): RowEncoder {
  let session: SleepSample[] = [];
  let latestEndMs = -Infinity;
  const closeSession = (): string => {
    if (session.length === 0) return '';
    const [night] = assembleSleepNights(session, timeZone);
    session = [];
    latestEndMs = -Infinity;
    return night.end >= windowStartMs && night.end < windowEndMs ? encodeNight(night) : '';
  };
  return {
    row([startMs, endMs, value, sourceId]) {
      const sample = { startMs, endMs, value, sourceId } as SleepSample;
      const out = session.length > 0 && sample.startMs - latestEndMs > SLEEP_SESSION_GAP_MS ? closeSession() : '';
      session.push(sample);
      latestEndMs = Math.max(latestEndMs, sample.endMs);
      return out;
    },
    end: closeSession,
  };
}
