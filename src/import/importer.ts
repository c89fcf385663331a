// One import of an Apple Health export for one user, start to finish:
//
//  1. check the stored time zone (an embedded database that holds only the
//     demo data is emptied first: the first real import replaces the demo
//     and claims its zone), create the user;
//  2. stream export.xml through the XML worker: records → samples (COPY in
//     committed batches), workouts, rings and the profile upserted as they
//     come, daily buckets computed in-stream when the user had no samples;
//  3. the ECG files → samples; the GPX files → routes of their workouts;
//  4. workout streams from the samples recorded during each workout;
//  5. daily_aggregates by read-back for the types the stream could not do;
//  6. the upload_batches row, last, marking the import complete.
//
// Every step writes idempotently (see src/db/writes/import.ts and sample-loader.ts), so a
// re-run after a crash, Ctrl-C or bad input converges on one complete import.
import pg from 'pg';
import { typeInfo } from '../core/registry.js';
import { importEcgs, importRoutes } from './attachments.js';
import { NameIds } from './name-ids.js';
import { CopyRows } from './copy-rows.js';
import { readBackDailyAggregates } from './daily-aggregates.js';
import { ImportInterrupted, ImportUsageError } from './errors.js';
import { openArchive } from './archive.js';
import { Progress, type ProgressOutput } from './progress.js';
import { ImportReport } from './report.js';
import { DEFAULT_BATCH_ROWS, SampleLoader, type LoadTotals } from './sample-loader.js';
import { analyzeSamples, buildWorkoutStreams, recordUploadBatch, userHasSamples } from '../db/writes/import.js';
import { beginUncountedWrites, endUncountedWrites, recountSamples, recoverStaleCounts } from '../db/writes/sample-counts.js';
import { replaceOnlyUsers } from '../db/writes/demo.js';
import { claimTimeZone, ensureUsers, releaseUnusedTimeZone, storedTimeZone, zoneMismatch } from '../db/writes/setup.js';
import { streamXml } from './xml-stream.js';
import { preferredSources, typedName } from './sources.js';
import { sameZone } from '../core/local-days.js';

export interface ImportOptions {
  /** export.zip, an export.xml, or the extracted folder. */
  path: string;
  userId: string;
  timeZone: string;
  databaseUrl: string;
  /** Source names to trust first where cumulative samples overlap, most trusted first. */
  preferredSources: readonly string[];
  /** Where progress and warnings go (stderr). */
  out: ProgressOutput;
  /** Samples per committed batch (default 50,000; a batch also ends at 4 MB). */
  batchRows?: number;
  /** Skip malformed XML elements (counted in the report) instead of stopping at the first. */
  lenient?: boolean;
  /**
   * The embedded database's demo users: when they are all the database holds,
   * this import drops them and claims its own zone. Empty with DATABASE_URL.
   */
  demoUsers?: readonly string[];
  /** Whether the database is the embedded one of a data directory (the refusal of another zone names the ways out: zoneMismatch). */
  embeddedDatabase?: boolean;
  signal?: AbortSignal;
}

export interface ImportResult {
  report: ImportReport;
  samples: LoadTotals;
  exportVersion: number | null;
  /** Elements read from export.xml (records, workouts, summaries…). */
  elements: number;
  /** How messages name the main XML file (`export.zip:apple_health_export/导出.xml`). */
  mainFile: string;
  lenient: boolean;
  /** Malformed elements skipped (lenient reading): how many, the lines of the first ones. */
  malformed: { count: number; lines: number[] };
  /** The embedded demo's users were dropped to make room for this import. */
  replacedDemo: boolean;
  seconds: number;
}

/** The types whose samples make a workout's streams (heart rate, power, speed, cadence, running form). */
const STREAM_TYPES = [
  'HKQuantityTypeIdentifierHeartRate',
  'HKQuantityTypeIdentifierRunningPower',
  'HKQuantityTypeIdentifierRunningSpeed',
  'HKQuantityTypeIdentifierCyclingPower',
  'HKQuantityTypeIdentifierCyclingSpeed',
  'HKQuantityTypeIdentifierCyclingCadence',
  'HKQuantityTypeIdentifierRunningStrideLength',
  'HKQuantityTypeIdentifierRunningVerticalOscillation',
  'HKQuantityTypeIdentifierRunningGroundContactTime',
];
const STREAM_WORKOUTS_PER_QUERY = 200;

async function buildStreams(client: pg.Client, nameIds: NameIds, userId: string, workoutUuids: readonly string[]): Promise<void> {
  const typeIds = STREAM_TYPES.map((identifier) => nameIds.knownTypeId(identifier)).filter((id): id is number => id !== undefined);
  for (let i = 0; i < workoutUuids.length; i += STREAM_WORKOUTS_PER_QUERY) {
    await buildWorkoutStreams(client, userId, workoutUuids.slice(i, i + STREAM_WORKOUTS_PER_QUERY), typeIds);
  }
}

export async function importAppleHealthExport(options: ImportOptions): Promise<ImportResult> {
  const started = performance.now();
  const preferred = preferredSources(options.preferredSources);
  const { userId, signal } = options;
  const files = await openArchive(options.path);
  const client = new pg.Client({ connectionString: options.databaseUrl });
  // A session that ends under it (the database shut down, as on a terminal's Ctrl-C, which reaches PostgreSQL too)
  // fails the query running on it, which unwinds the import: not an unhandled event that kills the process.
  client.on('error', () => {});
  let loader: SampleLoader | null = null;
  const report = new ImportReport();
  const progress = new Progress(options.out, files.xml.label, files.xml.size);
  const warn = (line: string) => progress.note(line);
  let claimedZone = false;
  let marked = false;
  try {
    await client.connect();
    const demoUsers = options.demoUsers ?? [];
    const replacedDemo = demoUsers.length > 0 && !demoUsers.includes(userId) && (await replaceOnlyUsers(client, demoUsers, options.timeZone));
    if (replacedDemo) warn(`import: the embedded database held only the demo data: replaced by this import (days cut in ${options.timeZone})`);
    claimedZone = !replacedDemo && (await storedTimeZone(client)) === null;
    const storedZone = await claimTimeZone(client, options.timeZone);
    if (!sameZone(storedZone, options.timeZone)) {
      throw new ImportUsageError(await zoneMismatch(client, options.timeZone, storedZone, options.embeddedDatabase === true));
    }
    await ensureUsers(client, [userId], Date.now());
    // The counts of users whose import was killed before it recounted them, now; then this user's marked stale
    // while its samples go in uncounted (the lanes skip the counting triggers).
    const recovered = await recoverStaleCounts(client);
    if (recovered.length > 0) warn(`import: recounted the samples of ${recovered.length} user(s) an earlier import left uncounted`);
    await beginUncountedWrites(client, userId);
    marked = true;
    const nameIds = await NameIds.load(client);
    const firstImport = !(await userHasSamples(client, userId));
    loader = await SampleLoader.open(options.databaseUrl, { batchRows: options.batchRows ?? DEFAULT_BATCH_ROWS, userHasNoSamples: firstImport });

    const xml = await streamXml(
      {
        label: files.xml.label,
        userId,
        timeZone: options.timeZone,
        preferredSources: preferred,
        firstImport,
        nameIds: nameIds.entries(),
        lenient: options.lenient === true,
      },
      { entry: files.xml, client, nameIds, loader, progress, report, signal },
    );
    progress.done();
    report.absorb(xml.summary.report);

    const attachments = { files, report, warn, signal };
    await importEcgs(attachments, new CopyRows(userId, nameIds), loader, userId);
    warn('import: committing the last samples…');
    const samples = await loader.finish();
    loader = null;

    await recountSamples(client, [userId]);
    await endUncountedWrites(client, userId);
    marked = false;
    await analyzeSamples(client);
    warn('import: workout routes and streams…');
    await importRoutes(attachments, xml.routeReferences, client, userId);
    await buildStreams(client, nameIds, userId, xml.workoutUuids);

    const quantities = nameIds.identifiersOf(new Set(xml.summary.typeIds)).filter((identifier) => typeInfo(identifier)?.kind === 'quantity');
    const outOfOrder = new Set(xml.summary.outOfOrder);
    const readBack = firstImport ? quantities.filter((identifier) => outOfOrder.has(identifier)) : quantities;
    warn(`import: daily statistics${readBack.length > 0 ? ` (reading ${readBack.length} types back)` : ''}…`);
    await readBackDailyAggregates({ ...options, preferredSources: preferred }, client, nameIds, readBack);
    // A name no source has ranks nothing: said, rather than the import quietly counting both overlapping sources.
    const sourceNames = new Set(nameIds.knownSources().map((source) => typedName(source.name)));
    for (const [i, name] of preferred.entries()) {
      if (!sourceNames.has(name)) warn(`import: --source-priority: no source is named "${options.preferredSources[i]}" (compared without case, typographic quotes or invisible marks); it ranks nothing`);
    }

    if (signal?.aborted) throw new ImportInterrupted();
    await recordUploadBatch(client, userId, xml.summary.exportedAtMs ?? xml.summary.newestEndMs ?? Date.now(), samples.written);
    return {
      report,
      samples,
      exportVersion: xml.summary.version,
      elements: xml.summary.elements,
      mainFile: files.xml.label,
      lenient: options.lenient === true,
      malformed: xml.summary.malformed,
      replacedDemo,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    // Its unfinished batch ends first, so that what follows sees everything stored.
    if (loader !== null) await loader.abort(client);
    loader = null;
    // A first import stopped before it stored anything leaves no zone behind: the next try may choose another.
    if (claimedZone) await releaseUnusedTimeZone(client, options.timeZone).catch(() => false);
    // The samples it did store are counted (its lanes skip the counting triggers); a re-run counts again when done.
    // A recount that failed leaves the mark: the catalog counts this user itself until the next import recounts.
    const recounted = await recountSamples(client, [userId]).then(() => true, () => false);
    if (marked && recounted) await endUncountedWrites(client, userId).catch(() => {});
    throw error;
  } finally {
    if (loader !== null) await loader.abort();
    await client.end().catch(() => {});
    files.close();
  }
}

