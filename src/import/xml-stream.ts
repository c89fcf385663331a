// The main thread's half of reading export.xml: inflates the file (the zip
// entry is a stream, never loaded whole) and moves its bytes to the XML worker
// in large chunks cut after a line's end (so the tokenizer rarely has to join
// a half tag to the next chunk), at most PIECES_IN_FLIGHT unparsed; stores
// what the worker sends back — COPY rows through the sample loader, workouts
// (and inline routes), rings, the profile, daily buckets — one message at a
// time, in order, granting the worker a credit per chunk of rows written.
// Names the worker meets for the first time are registered at once.
import type pg from 'pg';
import { Worker } from 'node:worker_threads';
import { ROUTE, type RouteReference } from './attachments.js';
import type { NameIds } from './name-ids.js';
import { ImportInputError, ImportInterrupted } from './errors.js';
import type { ArchiveEntry } from './archive.js';
import type { Progress } from './progress.js';
import type { ImportReport } from './report.js';
import type { SampleLoader } from './sample-loader.js';
import { upsertActivitySummaries, upsertDailyBuckets, upsertProfile, upsertRoute, upsertWorkouts } from '../db/writes/import.js';
import type { FromWorker, ToWorker, XmlSummary, XmlWorkerInput } from './xml-messages.js';

export interface XmlOutcome {
  summary: XmlSummary;
  workoutUuids: string[];
  routeReferences: RouteReference[];
}

export interface XmlStreamDeps {
  entry: ArchiveEntry;
  client: pg.Client;
  nameIds: NameIds;
  loader: SampleLoader;
  progress: Progress;
  report: ImportReport;
  signal?: AbortSignal;
}

const PIECES_IN_FLIGHT = 2;
/** Bytes sent to the worker in pieces of about this many. */
const TEXT_CHUNK = 256 << 10;
const NEWLINE = 10;

export function streamXml(input: XmlWorkerInput, deps: XmlStreamDeps): Promise<XmlOutcome> {
  const { client, nameIds, loader, progress, report } = deps;
  // The worker's live data is a few tens of MB; without limits V8 lets its heap
  // grow with garbage, and the process must stay under 300 MB.
  const worker = new Worker(new URL('./xml-worker.js', import.meta.url), {
    workerData: input,
    resourceLimits: { maxYoungGenerationSizeMb: 32, maxOldGenerationSizeMb: 128 },
  });
  const send = (message: ToWorker, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer);
  const workoutUuids: string[] = [];
  const committed: Buffer[] = [];
  /** Piece buffers the worker gave back. */
  const spare: Buffer[] = [];
  const routeReferences: RouteReference[] = [];

  async function store(message: FromWorker): Promise<void> {
    switch (message.kind) {
      case 'rows': {
        const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
        await loader.write({ bytes, rows: message.rows, release: () => committed.push(bytes) });
        // Buffers of committed batches go back with the credit, to be filled again.
        const spent = committed.splice(0);
        send({ kind: 'credit', spent }, spent.map((each) => each.buffer as ArrayBuffer));
        return;
      }
      case 'workouts': {
        for (const row of message.rows) nameIds.sourceId(row.sourceName, row.device);
        await nameIds.resolve();
        await upsertWorkouts(
          client,
          input.userId,
          message.rows.map((row) => ({ row, sourceId: nameIds.sourceId(row.sourceName, row.device) as number })),
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
          const typeId = nameIds.knownTypeId(identifier);
          if (typeId !== undefined) await upsertDailyBuckets(client, input.userId, typeId, buckets);
        }
        return;
    }
  }

  async function register(message: Extract<FromWorker, { kind: 'names' }>): Promise<void> {
    for (const identifier of message.identifiers) nameIds.typeId(identifier);
    for (const source of message.sources) nameIds.sourceId(source.name, source.device);
    await nameIds.resolve();
    send({
      kind: 'names',
      id: message.id,
      entries: {
        types: message.identifiers.map((identifier) => [identifier, nameIds.knownTypeId(identifier) as number]),
        sources: message.sources.map((source) => ({ ...source, sourceId: nameIds.sourceId(source.name, source.device) as number })),
      },
    });
  }

  let pieceCredits = PIECES_IN_FLIGHT;
  let pieceCreditGranted: (() => void) | null = null;
  let parsedLine = 1;
  let elements = 0;

  /** Reads and sends the bytes; resolves once the worker has them all. */
  async function feed(isSettled: () => boolean): Promise<void> {
    const stream = await deps.entry.open();
    const chunks = stream[Symbol.asyncIterator]();
    const waitForCredit = async (wanted: number) => {
      while (pieceCredits < wanted && !isSettled()) await new Promise<void>((resolve) => (pieceCreditGranted = resolve));
    };
    // Each piece gets a buffer of its own, so it moves to the worker instead of being copied.
    let piece: Buffer = Buffer.allocUnsafeSlow(2 * TEXT_CHUNK);
    let used = 0;
    const sendPiece = async (length: number) => {
      await waitForCredit(1);
      pieceCredits--;
      const wanted = Math.max(2 * TEXT_CHUNK, used - length);
      const reused = spare.pop();
      const next = reused !== undefined && reused.length >= wanted ? reused : Buffer.allocUnsafeSlow(wanted);
      piece.copy(next, 0, length, used);
      send({ kind: 'bytes', bytes: piece.subarray(0, length) }, [piece.buffer as ArrayBuffer]);
      piece = next;
      used -= length;
    };
    let bytes = 0;
    try {
      while (!isSettled()) {
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (error) {
          // Parse what did arrive, so the message names the line where the data stops.
          await sendPiece(used);
          await waitForCredit(PIECES_IN_FLIGHT);
          throw new ImportInputError(`${input.label} line ${parsedLine}: cannot be read to the end (${(error as Error).message}); the export is damaged or truncated: export it again`);
        }
        if (next.done) break;
        const chunk = next.value;
        bytes += chunk.length;
        if (used + chunk.length > piece.length) {
          const larger = Buffer.allocUnsafeSlow(2 * (used + chunk.length));
          piece.copy(larger, 0, 0, used);
          piece = larger;
        }
        used += chunk.copy(piece, used);
        if (used >= TEXT_CHUNK) {
          // After the last line's end: a newline byte never sits inside a UTF-8 sequence.
          const cut = piece.subarray(0, used).lastIndexOf(NEWLINE) + 1;
          await sendPiece(cut === 0 ? used : cut);
          progress.update(bytes, elements);
        }
      }
    } finally {
      stream.destroy();
    }
    if (isSettled()) return;
    await sendPiece(used);
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
      pieceCreditGranted?.();
      void worker.terminate();
      if (error) reject(error);
      else resolve(outcome as XmlOutcome);
    };
    const interrupt = () => finish(new ImportInterrupted());
    deps.signal?.addEventListener('abort', interrupt, { once: true });
    // A signal before the stream (while the cluster started, the migrations ran) fired no listener: stop now.
    if (deps.signal?.aborted) interrupt();
    worker.on('message', (message: FromWorker) => {
      if (settled) return;
      switch (message.kind) {
        case 'parsed':
          if (spare.length < PIECES_IN_FLIGHT + 1) spare.push(Buffer.from(message.spent.buffer, 0, message.spent.buffer.byteLength));
          parsedLine = message.line;
          elements = message.elements;
          pieceCredits++;
          pieceCreditGranted?.();
          pieceCreditGranted = null;
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
