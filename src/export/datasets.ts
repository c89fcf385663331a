// One writer per export dataset: the CSV header row first (written before any
// row is read), then the dataset's rows through the encoder. Rows are what the
// dataset's JSON route shows for the same range, read with that route's own
// queries, one row per JSON record, nested fields flattened
// (open-details.md "Export columns"). Every dataset but samples is bounded by
// its 366-day cap and read whole; samples, which run to millions of rows,
// are written by PostgreSQL itself through COPY (src/db/queries/export-copy.ts)
// and forwarded chunk by chunk. Routes are
// read a workout at a time (one primary-key probe each), so a year of tracks
// never sits in memory at once.
//
// Routes are rows (one per recorded point), not a zip of GPX files: every
// dataset then keeps one contract — CSV or JSONL, the same columns, the header
// first, streamed with backpressure — and the rows load as they are into a
// spreadsheet, pandas or a database. A map tool takes a workout's GPX from
// /v1/workouts/{uuid}/route?format=gpx.
import { csvLine, EXPORT_COLUMNS, jsonlLine, type Cell } from '../core/export-encoding.js';
import { localDayOf } from '../core/local-days.js';
import { unitOf } from '../core/registry.js';
import { normalizeTrack } from '../core/route-track.js';
import type { SleepNight } from '../core/sleep-nights.js';
import { activityDays } from '../db/queries/activity.js';
import { sampleTypeId } from '../db/names.js';
import { copyOut } from '../db/copy-out.js';
import { allSourceNames, samplesCopySql } from '../db/queries/export-copy.js';
import { SampleLineWriter } from './sample-lines.js';
import { dailyValues } from '../db/queries/metrics.js';
import { findWorkoutRoute, listWorkouts } from '../db/queries/workouts.js';
import { readSleepNights } from '../reads/sleep.js';
import { readStateOfMind } from '../reads/state-of-mind.js';
import type { ExportPlan } from './plan.js';
import { pumpCopy, writeChunked } from './pump.js';
import type { StreamSink } from './sink.js';
import type { ExportSlot } from './slots.js';

/**
 * Writes the dataset's file (header row included) to the sink. Rejects as soon
 * as the export's connection fails: a cursor on a connection that died waits
 * for a reply that never comes, so its own stream never ends or errors.
 */
export async function writeDataset(plan: ExportPlan, slot: Pick<ExportSlot, 'client' | 'cancel'>, sink: StreamSink): Promise<void> {
  const { client } = slot;
  let onLost: (error?: Error) => void = () => {};
  const lost = new Promise<never>((_, reject) => {
    onLost = (error) => reject(error ?? new Error("the export's database connection ended"));
  });
  client.once('error', onLost).once('end', onLost);
  try {
    await Promise.race([writeRows(plan, slot, sink), lost]);
  } finally {
    client.off('error', onLost).off('end', onLost);
  }
}

async function writeRows(plan: ExportPlan, { client, cancel }: Pick<ExportSlot, 'client' | 'cancel'>, sink: StreamSink): Promise<void> {
  const columns = EXPORT_COLUMNS[plan.dataset];
  if (plan.format === 'csv') await sink.write(csvLine(columns));
  const encode = plan.format === 'csv' ? (cells: Cell[]) => csvLine(cells) : (cells: Cell[]) => jsonlLine(columns, cells);
  const write = <R>(rows: readonly R[], toCells: (row: R) => Cell[]) => writeChunked(rows, (row) => encode(toCells(row)), sink);
  const { userId, timeZone: zone, start, end } = plan;
  const firstDay = localDayOf(start, zone);
  const lastDay = localDayOf(end - 1, zone);

  switch (plan.dataset) {
    case 'daily_metrics': {
      if (plan.dailyTypes.length === 0) return;
      const rows = await dailyValues(client, { userId, types: plan.dailyTypes, firstDay, lastDay, limit: null, offset: 0 });
      return write(rows, (row) => [row.identifier, unitOf(row.identifier), row.date, row.value]);
    }
    case 'samples': {
      const typeId = await sampleTypeId(client, plan.sampleType);
      if (typeId === null) return;
      // The names and the rows from one snapshot: a source written meanwhile has its name.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const lines = new SampleLineWriter(plan.format, plan.sampleType, await allSourceNames(client));
        await pumpCopy(copyOut(client, samplesCopySql(userId, typeId, start, end)), cancel, (chunk, emit) => lines.push(chunk, emit), sink);
        await client.query('COMMIT');
      } catch (error) {
        // A file cut short (its client gone, a limit): the transaction ends here, queued behind the cancelled
        // COPY and before the slot's release, which then gives the connection back. Not awaited: when it
        // cannot end, the release closes the connection instead (src/export/slots.ts).
        client.query('ROLLBACK').catch(() => {});
        throw error;
      }
      return;
    }
    case 'workouts': {
      const rows = await listWorkouts(client, userId, { start, end, activityType: plan.activityType ?? undefined, limit: null, offset: 0 });
      return write(rows, (w) => [w.uuid, w.activityType, w.start, w.end, w.durationS, w.distanceM, w.energyKcal, w.hasRoute, w.availableMetrics]);
    }
    case 'routes': {
      const workouts = await listWorkouts(client, userId, { start, end, activityType: plan.activityType ?? undefined, limit: null, offset: 0 });
      for (const { uuid, hasRoute } of workouts) {
        if (!hasRoute) continue;
        const workout = await findWorkoutRoute(client, userId, uuid);
        if (!workout) continue;
        const { times, latitudes, longitudes, altitudes } = normalizeTrack(workout);
        // A point without an altitude holds NaN, which the encoder writes as a null (src/core/values.ts).
        await write(Array.from(times.keys()), (i) => [workout.uuid, workout.activityType, times[i], latitudes[i], longitudes[i], altitudes[i]]);
      }
      return;
    }
    case 'activity': {
      const rows = await activityDays(client, userId, firstDay, lastDay);
      return write(rows, (d) => [d.date, d.moveKcal, d.moveGoalKcal, d.exerciseMin, d.exerciseGoalMin, d.standHours, d.standGoalHours, d.moveMode, d.moveTimeMin, d.moveTimeGoalMin]);
    }
    case 'state_of_mind': {
      const rows = await readStateOfMind(client, userId, start, end, zone);
      return write(rows, (e) => [e.uuid, e.date, e.timestamp, e.kind, e.valence, e.valenceClassification, e.labels, e.associations]);
    }
    case 'sleep':
      return write(await readSleepNights(client, userId, start, end, zone), nightCells);
  }
}

function nightCells(night: SleepNight): Cell[] {
  const { stages } = night;
  return [night.date, night.start, night.end, night.inBedMinutes, night.asleepMinutes, stages.core, stages.deep, stages.rem, stages.unspecified, stages.awake, night.sources];
}
