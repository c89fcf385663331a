// The XML worker: parses export.xml's bytes (xml-tokenizer.ts) and turns
// it into COPY rows, other rows and daily buckets, on a thread of its own; the
// main thread inflates the file and drives PostgreSQL. Flow control both
// ways: a chunk of bytes is acknowledged once parsed, and at most
// ROWS_IN_FLIGHT chunks of rows wait on the main thread, so memory stays flat
// whatever the export's size. A failure is posted as one message and ends it.
import { parentPort, workerData } from 'node:worker_threads';
import { NameIds, type NameIdEntries } from './name-ids.js';
import { CopyRows } from './copy-rows.js';
import { ImportInputError } from './errors.js';
import { HealthDataReader } from './health-data-reader.js';
import { InlineAggregates } from './inline-aggregates.js';
import { ImportReport } from './report.js';
import type { FromWorker, ToWorker, XmlWorkerInput } from './xml-messages.js';
import { XmlIntake } from './xml-intake.js';

const ROWS_IN_FLIGHT = 4;
/** COPY rows handed over in pieces at least this many bytes. */
const ROWS_CHUNK = 256 << 10;
const TEXTS_PER_DAYS = 32;

const input = workerData as XmlWorkerInput;
const port = parentPort;
if (port === null) throw new Error('xml-worker.js runs as a worker thread');
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

const replies = new Map<number, (entries: NameIdEntries) => void>();
let nextRequest = 0;
let credits = ROWS_IN_FLIGHT;
let creditGranted: (() => void) | null = null;

const nameIds = new NameIds(
  (identifiers, sources) =>
    new Promise((resolve) => {
      const id = nextRequest++;
      replies.set(id, resolve);
      post({ kind: 'names', id, identifiers, sources });
    }),
  input.nameIds,
);
const report = new ImportReport();
const rows = new CopyRows(input.userId, nameIds);
const inline = input.firstImport ? new InlineAggregates(input.timeZone, input.preferredSources) : null;
const intake = new XmlIntake(input.userId, input.label, rows, inline, report, post);
const reader = new HealthDataReader(input.label, intake, { lenient: input.lenient });
let texts = 0;

async function handOverRows(): Promise<void> {
  const chunk = await rows.take();
  if (chunk === null) return;
  while (credits === 0) await new Promise<void>((resolve) => (creditGranted = resolve));
  credits--;
  // The rows' buffer is theirs alone (copy-rows.ts): moved, not copied.
  post({ kind: 'rows', bytes: chunk.bytes, rows: chunk.rows }, [chunk.bytes.buffer as ArrayBuffer]);
}

async function parse(bytes: Uint8Array): Promise<void> {
  reader.write(bytes);
  const spent = bytes;
  if (rows.size >= ROWS_CHUNK || rows.hasPending) await handOverRows();
  intake.flushElements(false);
  if (inline !== null && ++texts % TEXTS_PER_DAYS === 0) post({ kind: 'days', settled: inline.drain() });
  // The bytes are read (the tokenizer keeps its own copy of what it has not consumed): hand the buffer back.
  post({ kind: 'parsed', line: reader.line, elements: intake.elements, spent }, [spent.buffer as ArrayBuffer]);
}

async function end(): Promise<void> {
  reader.end();
  await handOverRows();
  intake.flushElements(true);
  if (inline !== null) post({ kind: 'days', settled: inline.drain(true) });
  post({
    kind: 'done',
    summary: {
      report: report.snapshot(),
      version: intake.version,
      exportedAtMs: intake.exportedAtMs,
      newestEndMs: intake.newestEndMs,
      elements: intake.elements,
      typeIds: [...rows.typeIds],
      outOfOrder: inline === null ? [] : [...inline.outOfOrder],
      malformed: { count: intake.malformedCount, lines: intake.malformedLines },
    },
  });
}

let work = Promise.resolve();
// The main thread terminates the worker once it has this.
const fail = (error: unknown) => post({ kind: 'failed', message: error instanceof Error ? error.message : String(error), input: error instanceof ImportInputError });

port.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'names':
      replies.get(message.id)?.(message.entries);
      replies.delete(message.id);
      return;
    case 'credit':
      for (const bytes of message.spent) rows.reuse(bytes);
      credits++;
      creditGranted?.();
      creditGranted = null;
      return;
    case 'bytes':
      work = work.then(() => parse(message.bytes)).catch(fail);
      return;
    case 'end':
      work = work.then(end).catch(fail);
      return;
  }
});
