// GET /v1/export — one dataset over a range as a streamed CSV or JSONL
// attachment. The export's home is src/export/: its parameters and refusals
// (plan.ts, all before the first byte), the slot it holds and the limits that
// bound it (run.ts), the rows per dataset (datasets.ts). This route describes
// it and hands the plan to the runner.
import { EXPORT_COLUMNS, EXPORT_FAILS_FIRST, EXPORT_NULLS, SPREADSHEET_WARNING } from '../core/export-encoding.js';
import { errors } from '../errors.js';
import { EXPORT_DATASETS, EXPORT_FORMATS, ExportParams, planExport } from '../export/plan.js';
import { EXPORT_RETRY_AFTER_S, EXPORT_SLOTS, exportCapDays, MAX_LOCAL_DAYS, RANGE_CAP_DAYS, spokenDuration } from '../limits.js';
import { defineRoute } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

/** The download's name, one description for both formats (OpenAPI merges their 200s into one response). */
const DISPOSITION = 'attachment; filename="service-<dataset>-<start>-<end>.<csv|jsonl>"';

const columnList = EXPORT_DATASETS.map((dataset) => `${dataset}: ${EXPORT_COLUMNS[dataset].join(', ')}`).join('; ');

export const exportRoute = defineRoute({
  operationId: 'exportDataset',
  path: '/v1/export',
  auth: true,
  streams: true,
  summary: 'Export a dataset as CSV or JSONL',
  description: (limits) =>
    'Streams one dataset over [start, end) as an attachment with chunked transfer (an empty JSONL file aside: below), named service-<dataset>-<start>-<end>.<csv|jsonl> (start and end exactly as given). ' +
    `CSV (${EXPORT_FORMATS.csv}, UTF-8) starts with a header row and quotes per RFC 4180, records end with CRLF; JSONL (${EXPORT_FORMATS.jsonl}) holds one object per line with the same column names as keys, in the same order. ` +
    `Columns — ${columnList}. ` +
    "Rows are what the dataset's JSON route shows for the same range, nested fields flattened to their path (stages.core): " +
    'daily_metrics as /v1/metrics/daily (types in request order, days ascending, only days with a value; unknown identifiers are a 400, non-quantity ones have no rows), ' +
    'samples as /v1/samples (raw, not deduplicated, by start then uuid), workouts as /v1/workouts (newest first, by start), sleep as /v1/sleep/daily, activity as /v1/activity/summary, state_of_mind as /v1/state-of-mind; ' +
    "routes holds one row per recorded GPS point of every workout with a route (as /v1/workouts/{uuid}/route, at full resolution: points without a time or position left out; time in epoch ms, latitude and longitude in degrees, altitude in metres or null), workouts newest first and each one's points by time; activityType filters workouts and routes. " +
    "daily_metrics, sleep, activity and state_of_mind cover every local day the range touches; samples filter on each sample's start, workouts and routes on each workout's start. The whole range comes back, no paging. " +
    `${EXPORT_NULLS}; a list (availableMetrics, labels, associations) is comma-joined in one quoted CSV cell and stays a JSON array in JSONL. ` +
    'Instants are epoch ms, days YYYY-MM-DD, UUIDs lowercase, numbers never use an exponent. ' +
    `${SPREADSHEET_WARNING} ` +
    `Range caps: end - start at most ${exportCapDays('samples')} × 24 h for samples and ${RANGE_CAP_DAYS.perDay} × 24 h (and ${MAX_LOCAL_DAYS} local days) for the others. ` +
    'Every 400 (missing or invalid format or dataset, a missing types for daily_metrics or type for samples, an unknown type, a range over its cap) comes before any byte of the file. ' +
    `At most ${EXPORT_SLOTS} exports run at once across every server process sharing the database; another gets 503 with Retry-After: ${EXPORT_RETRY_AFTER_S}. ` +
    `The ${spokenDuration(limits.queryTimeoutMs)} query limit does not apply; instead an export may run ${spokenDuration(limits.exportTimeLimitMs)}, a client that reads nothing for ${spokenDuration(limits.exportIdleLimitMs)} is dropped, and on shutdown running exports get ${spokenDuration(limits.shutdownGraceMs)}. ` +
    `Any failure after the first byte (database error, a limit, shutdown) aborts the connection instead of ending the file, so a cut-off file always shows as a failed download. ${EXPORT_FAILS_FIRST}`,
  params: ExportParams,
  example: { query: { format: 'csv', dataset: 'routes', start: String(EXAMPLE.start), end: String(EXAMPLE.end) } },
  responses: [
    {
      status: 200,
      description: 'The file, streamed (CSV).',
      contentType: EXPORT_FORMATS.csv,
      headers: { 'Content-Disposition': DISPOSITION },
      example:
        'uuid,activityType,time,latitude,longitude,altitude\r\n' +
        `${EXAMPLE.workout},running,1767636856875,48.129214,11.572164,520.8\r\n` +
        `${EXAMPLE.workout},running,1767636857875,48.129221,11.572204,\r\n`,
    },
    {
      status: 200,
      description: 'The file, streamed (JSONL).',
      contentType: EXPORT_FORMATS.jsonl,
      headers: { 'Content-Disposition': DISPOSITION },
      example:
        `{"uuid":"${EXAMPLE.workout}","activityType":"running","time":1767636856875,"latitude":48.129214,"longitude":11.572164,"altitude":520.8}\n` +
        `{"uuid":"${EXAMPLE.workout}","activityType":"running","time":1767636857875,"latitude":48.129221,"longitude":11.572204,"altitude":null}\n`,
    },
    { status: 503, description: `${EXPORT_SLOTS} exports are already running.`, headers: { 'Retry-After': `Seconds to wait: ${EXPORT_RETRY_AFTER_S}.` } },
  ],
  async handler({ db, query, services, userId, requestId, reader }) {
    const plan = await planExport(query, userId, services.config.timeZone, db);
    const claimed = await services.exports.claim(plan, requestId, reader.honoured);
    if (!claimed) throw errors.exportsBusy();
    return {
      kind: 'stream',
      contentType: plan.contentType,
      headers: { 'Content-Disposition': `attachment; filename="${plan.fileName}"` },
      write: (sink) => claimed.write(sink),
      cleanup: () => claimed.release(),
    };
  },
});
