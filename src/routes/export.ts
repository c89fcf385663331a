// GET /v1/export — one dataset over a range as a streamed CSV or JSONL
// attachment. Everything that can refuse the request (parameters, range cap,
// the two export slots) is decided before the first byte; after it, any
// failure aborts the connection so a cut-off file always reads as a failed
// download. The export runs on its own connection (no statement timeout),
// bounded instead by the 30-minute limit and the sink's idle-client limit.
import { Type } from '@sinclair/typebox';
import { EXPORT_COLUMNS, type ExportDataset } from '../core/export-encoding.js';
import { dayStartMs, localDayOf } from '../core/local-days.js';
import { typeInfo } from '../core/registry.js';
import type { DailyRequestType } from '../db/queries/metrics.js';
import { sleepReadStart } from '../db/queries/sleep.js';
import { errors } from '../errors.js';
import { writeDataset, type ExportJob } from '../export/datasets.js';
import { acquireExportSlot } from '../export/slots.js';
import { log } from '../log.js';
import { End, Enum, Start, TypeList } from '../schemas/common.js';
import { defineRoute } from './route.js';
import { checkRange, requireKnownTypes, requireSampleType } from './rules.js';

const DATASETS = Object.keys(EXPORT_COLUMNS) as ExportDataset[];
const SAMPLES_CAP_DAYS = 31;
const CAP_DAYS = 366;
/** Datasets answered per local day: every local day the range touches. */
const DAY_GRAINED: ReadonlySet<ExportDataset> = new Set(['daily_metrics', 'sleep', 'activity', 'state_of_mind']);
const CONTENT_TYPES = { csv: 'text/csv', jsonl: 'application/x-ndjson' } as const;

const columnList = DATASETS.map((dataset) => `${dataset}: ${EXPORT_COLUMNS[dataset].join(', ')}`).join('; ');

export const exportRoute = defineRoute({
  operationId: 'exportDataset',
  path: '/v1/export',
  auth: true,
  summary: 'Export a dataset as CSV or JSONL',
  description:
    'Streams one dataset over [start, end) as an attachment with chunked transfer, named service-<dataset>-<start>-<end>.<csv|jsonl> (start and end exactly as given). ' +
    'CSV (text/csv, UTF-8) starts with a header row and quotes per RFC 4180, records end with CRLF; JSONL (application/x-ndjson) holds one object per line with the same column names as keys, in the same order. ' +
    `Columns — ${columnList}. ` +
    'Rows are what the dataset\'s JSON route shows for the same range, nested fields flattened to their path (stages.core): ' +
    'daily_metrics as /v1/metrics/daily (types in request order, days ascending, only days with a value; unknown identifiers are a 400, non-quantity ones have no rows), ' +
    'samples as /v1/samples (raw, not deduplicated, by start then uuid), workouts as /v1/workouts (newest first, by start), sleep as /v1/sleep/daily, activity as /v1/activity/summary, state_of_mind as /v1/state-of-mind. ' +
    'daily_metrics, sleep, activity and state_of_mind cover every local day the range touches; samples and workouts filter on each record\'s start. The whole range comes back, no paging. ' +
    'A null is an empty CSV cell and an explicit null in JSONL (never a zero or a missing key); a list (availableMetrics, labels, associations) is comma-joined in one quoted CSV cell and stays a JSON array in JSONL. ' +
    'Instants are epoch ms, days YYYY-MM-DD, UUIDs lowercase, numbers never use an exponent. ' +
    'source is the only free-text column: a cell starting with =, +, - or @ is a formula to a spreadsheet program, so open untrusted exports as text. ' +
    `Range caps: end - start at most ${SAMPLES_CAP_DAYS} × 24 h for samples and ${CAP_DAYS} × 24 h (and ${CAP_DAYS} local days) for the others. ` +
    'Every 400 (missing or invalid format or dataset, a missing types for daily_metrics or type for samples, an unknown type, a range over its cap) comes before any byte of the file. ' +
    'At most 2 exports run at once across every server process sharing the database; a third gets 503 with Retry-After: 60. ' +
    'The 30-second query limit does not apply; instead an export may run 30 minutes, a client that reads nothing for a minute is dropped, and on shutdown running exports get 15 seconds. ' +
    'Any failure after the first byte (database error, a limit, shutdown) aborts the connection instead of ending the file, so a cut-off file always shows as a failed download.',
  params: Type.Object({
    format: Enum(['csv', 'jsonl'] as const, 'File format.'),
    dataset: Enum(DATASETS, 'What to export.'),
    start: Start(),
    end: End(),
    types: Type.Optional(TypeList('daily_metrics only, and required there: type identifiers, kept in this order.')),
    type: Type.Optional(Type.String({ minLength: 1, description: 'samples only, and required there: exactly one sample type identifier.' })),
    activityType: Type.Optional(Type.String({ minLength: 1, description: 'workouts only, optional: only workouts of this activity type (exact match).' })),
  }),
  responses: [
    { status: 200, description: 'The file, streamed (CSV).', contentType: 'text/csv', headers: { 'Content-Disposition': 'attachment; filename="service-<dataset>-<start>-<end>.csv"' } },
    { status: 200, description: 'The file, streamed (JSONL).', contentType: 'application/x-ndjson', headers: { 'Content-Disposition': 'attachment; filename="service-<dataset>-<start>-<end>.jsonl"' } },
    { status: 503, description: 'Two exports are already running.', headers: { 'Retry-After': 'Seconds to wait: 60.' } },
  ],
  async handler({ query, services, userId, requestId }) {
    const { dataset, format, start, end } = query;
    const timeZone = services.config.timeZone;
    let dailyTypes: DailyRequestType[] = [];
    if (dataset === 'daily_metrics') {
      if (query.types === undefined) throw errors.badRequest('types is required for dataset daily_metrics');
      requireKnownTypes(query.types);
      dailyTypes = query.types.flatMap((identifier) => {
        const info = typeInfo(identifier);
        return info?.kind === 'quantity' ? [{ identifier, cumulative: info.aggregation === 'cumulative' }] : [];
      });
    }
    if (dataset === 'samples') {
      if (query.type === undefined) throw errors.badRequest('type is required for dataset samples');
      requireSampleType(query.type);
    }
    checkRange(start, end, dataset === 'samples' ? { capDays: SAMPLES_CAP_DAYS } : { capDays: CAP_DAYS, dayGrained: DAY_GRAINED.has(dataset), timeZone });

    const slot = await acquireExportSlot(services.exportPool);
    if (!slot) throw errors.exportsBusy();
    const job: ExportJob = {
      dataset,
      format,
      userId,
      timeZone,
      start,
      end,
      dailyTypes,
      sampleType: query.type ?? '',
      activityType: query.activityType ?? null,
      sleepReadFrom: () => sleepReadStart(services.pool, userId, dayStartMs(localDayOf(start, timeZone), timeZone)),
    };
    const limitMs = services.config.limits.exportTimeLimitMs;
    return {
      kind: 'stream',
      contentType: CONTENT_TYPES[format],
      headers: { 'Content-Disposition': `attachment; filename="service-${dataset}-${start}-${end}.${format}"` },
      async write(sink) {
        const timer = setTimeout(() => {
          log.warn('export stopped at its time limit', { requestId, dataset, limitMs });
          sink.abort();
        }, limitMs);
        try {
          await writeDataset(job, slot.client, sink);
          // Free the slot before the file ends, so a client that saw the end can start the next export at once.
          await slot.release();
        } finally {
          clearTimeout(timer);
        }
      },
      cleanup: () => slot.release(),
    };
  },
});
