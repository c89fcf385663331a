// The main thread's half of reading export.xml: inflates and decodes the
// file (the zip entry is a stream, never loaded whole) and sends the XML
// worker the text in large chunks, at most TEXTS_IN_FLIGHT unparsed; stores
// what the worker sends back — COPY rows through the sample loader, workouts
// (and inline routes), rings, the profile, daily buckets — one message at a
// time, in order, granting the worker a credit per chunk of rows written.
// Names the worker meets for the first time are registered at once.
import type pg from 'pg';
import { StringDecoder } from 'node:string_decoder';
import { Worker } from 'node:worker_threads';
import { ROUTE } from './attachments.js';
import type { Catalog } from './catalog.js';
import { ImportInputError, ImportInterrupted } from './errors.js';
import type { ExportEntry } from './export-files.js';
import type { Progress } from './progress.js';
import type { ImportReport } from './report.js';
import type { SampleLoader } from './sample-loader.js';
import { upsertActivitySummaries, upsertDailyBuckets, upsertProfile, upsertRoute, upsertWorkouts } from './store.js';
import type { FromWorker, ToWorker, XmlSummary, XmlWorkerInput } from './xml-messages.js';

export interface RouteReference {
  workoutUuid: string;
  files: string[];
  line: number;
}

export interface XmlOutcome {
  summary: XmlSummary;
  workoutUuids: string[];
  routeReferences: RouteReference[];
}

export interface XmlStreamDeps {
  entry: ExportEntry;
  client: pg.Client;
  catalog: Catalog;
  loader: SampleLoader;
  progress: Progress;
  report: ImportReport;
  signal?: AbortSignal;
}

const TEXTS_IN_FLIGHT = 2;
/** Text sent to the worker in pieces at least this long. */
const TEXT_CHUNK = 256 << 10;

export function streamXml(input: XmlWorkerInput, deps: XmlStreamDeps): Promise<XmlOutcome> {
  const { client, catalog, loader, progress, report } = deps;
  // The worker's live data is a few tens of MB; without limits V8 lets its heap
  // grow with garbage, and the process must stay under 300 MB.
  const worker = new Worker(new URL('./xml-worker.js', import.meta.url), {
    workerData: input,
    resourceLimits: { maxYoungGenerationSizeMb: 32, maxOldGenerationSizeMb: 128 },
  });
  const send = (message: ToWorker) => worker.postMessage(message);
  const workoutUuids: string[] = [];
  const routeReferences: RouteReference[] = [];

  async function store(message: FromWorker): Promise<void> {
    switch (message.kind) {
      case 'rows':
        await loader.write({ bytes: Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength), rows: message.rows });
        send({ kind: 'credit' });
        return;
      case 'workouts': {
        for (const row of message.rows) catalog.sourceId(row.sourceName, row.device);
        await catalog.resolve();
        await upsertWorkouts(
          client,
          input.userId,
          message.rows.map((row) => ({ row, sourceId: catalog.sourceId(row.sourceName, row.device) as number })),
        );
        for (const row of message.rows) {
          workoutUuids.push(row.uuid);
          if (row.routeFiles.length > 0) routeReferences.push({ workoutUuid: row.uuid, files: row.routeFiles, line: row.line });
          if (row.inlineRoute !== null) {
            await upsertRoute(client, input.userId, row.uuid, row.inlineRoute);
            report.took(ROUTE);
          }
        }
        return;
      }
      case 'activity':
        await upsertActivitySummaries(client, input.userId, message.rows);
        return;
      case 'profile':
        await upsertProfile(client, input.userId, message.row, message.exportedAtMs ?? Date.now());
        return;
      case 'days':
        for (const { identifier, buckets } of message.settled) {
          const typeId = catalog.knownTypeId(identifier);
          if (typeId !== undefined) await upsertDailyBuckets(client, input.userId, typeId, buckets);
        }
        return;
    }
  }

  async function register(message: Extract<FromWorker, { kind: 'names' }>): Promise<void> {
    for (const identifier of message.identifiers) catalog.typeId(identifier);
    for (const source of message.sources) catalog.sourceId(source.name, source.device);
    await catalog.resolve();
    send({
      kind: 'names',
      id: message.id,
      entries: {
        types: message.identifiers.map((identifier) => [identifier, catalog.knownTypeId(identifier) as number]),
        sources: message.sources.map((source) => ({ ...source, sourceId: catalog.sourceId(source.name, source.device) as number })),
      },
    });
  }

  let textCredits = TEXTS_IN_FLIGHT;
  let textCreditGranted: (() => void) | null = null;
  let parsedLine = 1;
  let elements = 0;

  /** Reads, decodes and sends the text; resolves once the worker has it all. */
  async function feed(isSettled: () => boolean): Promise<void> {
    const stream = await deps.entry.open();
    const chunks = stream[Symbol.asyncIterator]();
    const decoder = new StringDecoder('utf8');
    const waitForCredit = async (wanted: number) => {
      while (textCredits < wanted && !isSettled()) await new Promise<void>((resolve) => (textCreditGranted = resolve));
    };
    const sendText = async (text: string) => {
      await waitForCredit(1);
      textCredits--;
      send({ kind: 'text', text });
    };
    let bytes = 0;
    let text = '';
    try {
      while (!isSettled()) {
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (error) {
          // Parse what did arrive, so the message names the line where the data stops.
          await sendText(text);
          await waitForCredit(TEXTS_IN_FLIGHT);
          throw new ImportInputError(`${input.label} line ${parsedLine}: cannot be read to the end (${(error as Error).message}); the export is damaged or truncated: export it again`);
        }
        if (next.done) break;
        bytes += next.value.length;
        text += decoder.write(next.value);
        if (text.length >= TEXT_CHUNK) {
          await sendText(text);
          text = '';
          progress.update(bytes, elements);
        }
      }
    } finally {
      stream.destroy();
    }
    if (isSettled()) return;
    await sendText(text + decoder.end());
    send({ kind: 'end' });
    progress.update(bytes, elements);
  }

  return new Promise((resolve, reject) => {
    let queue = Promise.resolve();
    let settled = false;
    const finish = (error: Error | null, outcome?: XmlOutcome) => {
      if (settled) return;
      settled = true;
      deps.signal?.removeEventListener('abort', interrupt);
      textCreditGranted?.();
      void worker.terminate();
      if (error) reject(error);
      else resolve(outcome as XmlOutcome);
    };
    const interrupt = () => finish(new ImportInterrupted());
    deps.signal?.addEventListener('abort', interrupt, { once: true });
    worker.on('message', (message: FromWorker) => {
      if (settled) return;
      switch (message.kind) {
        case 'parsed':
          parsedLine = message.line;
          elements = message.elements;
          textCredits++;
          textCreditGranted?.();
          textCreditGranted = null;
          return;
        case 'warning':
          progress.note(message.line);
          return;
        case 'failed':
          finish(message.input ? new ImportInputError(message.message) : new Error(message.message));
          return;
        case 'names':
          register(message).catch((error: Error) => finish(error));
          return;
        case 'done':
          queue = queue.then(() => finish(null, { summary: message.summary, workoutUuids, routeReferences }));
          return;
        default:
          queue = queue.then(() => (settled ? undefined : store(message))).catch((error: Error) => finish(error));
      }
    });
    worker.on('error', (error) => finish(error));
    worker.on('exit', (code) => finish(new Error(`the XML worker stopped unexpectedly (exit code ${code})`)));
    feed(() => settled).catch((error: Error) => finish(error));
  });
}
