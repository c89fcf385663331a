// The files beside export.xml: electrocardiograms/*.csv become ECG samples,
// workout-routes/*.gpx become the routes of the workouts whose FileReference
// names them. A bad file is skipped with a warning naming it; the import goes
// on. A GPX file no workout refers to is counted, not stored: a route belongs
// to a workout.
import type pg from 'pg';
import type { Readable } from 'node:stream';
import { SPECIAL_IDENTIFIERS } from '../core/registry.js';
import type { CopyRows } from './copy-rows.js';
import { convertEcg } from './ecg.js';
import { ImportInputError, ImportInterrupted } from './errors.js';
import type { Archive } from './archive.js';
import { readGpx } from './gpx.js';
import type { ImportReport } from './report.js';
import type { SampleLoader } from './sample-loader.js';
import { upsertRoute } from '../db/writes/import.js';
import type { RoutePoints } from './workouts.js';

const ECG_MAX_BYTES = 64 << 20;
/** A workout's route files as its HealthData element names them (resolved against the archive later). */
export interface RouteReference {
  workoutUuid: string;
  files: string[];
  line: number;
}

export const ROUTE = 'workout route';

export interface AttachmentDeps {
  files: Archive;
  report: ImportReport;
  warn: (line: string) => void;
  signal?: AbortSignal;
}

function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ImportInterrupted();
}

async function readText(input: Readable, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      input.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function importEcgs(deps: AttachmentDeps, rows: CopyRows, loader: SampleLoader, userId: string): Promise<void> {
  const ecg = SPECIAL_IDENTIFIERS.ecg;
  for (const entry of deps.files.ecgs) {
    checkSignal(deps.signal);
    const text = await readText(await entry.open(), ECG_MAX_BYTES);
    const row = text === null ? 'larger than an ECG recording can be' : convertEcg(text, userId);
    if (typeof row === 'string') {
      if (deps.report.skip(ecg, row)) deps.warn(`warning: ${entry.label}: ECG skipped: ${row}`);
      continue;
    }
    rows.add(row);
    deps.report.took(ecg);
    const chunk = await rows.take();
    if (chunk !== null) await loader.write(chunk);
  }
}

function mergeRoutes(parts: readonly RoutePoints[]): RoutePoints {
  if (parts.length === 1) return parts[0];
  const points = parts.flatMap((part) => part.timesMs.map((time, i) => ({ time, lat: part.latitudes[i], lon: part.longitudes[i], alt: part.altitudesM[i] })));
  points.sort((a, b) => a.time - b.time);
  return {
    timesMs: points.map((p) => p.time),
    latitudes: points.map((p) => p.lat),
    longitudes: points.map((p) => p.lon),
    altitudesM: points.map((p) => p.alt),
  };
}

export async function importRoutes(deps: AttachmentDeps, references: readonly RouteReference[], client: pg.Client, userId: string): Promise<void> {
  const { files, report } = deps;
  const referenced = new Set<string>();
  const skip = (reason: string, where: string) => {
    if (report.skip(ROUTE, reason)) deps.warn(`warning: ${where}: ${ROUTE} skipped: ${reason}`);
  };
  for (const reference of references) {
    checkSignal(deps.signal);
    const parts: RoutePoints[] = [];
    for (const path of reference.files) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      referenced.add(name);
      const entry = files.routes.get(name);
      if (entry === undefined) {
        skip('the GPX file it names is not in the export', `${files.xml.label} line ${reference.line} (${path})`);
        continue;
      }
      try {
        parts.push(await readGpx(entry.label, await entry.open()));
      } catch (error) {
        if (!(error instanceof ImportInputError)) throw error;
        skip('malformed GPX', error.message);
      }
    }
    const points = mergeRoutes(parts);
    if (points.timesMs.length === 0) continue;
    await upsertRoute(client, userId, reference.workoutUuid, points);
    report.took(ROUTE);
  }
  for (const name of files.routes.keys()) if (!referenced.has(name)) report.skip(ROUTE, 'GPX file no workout refers to');
}
