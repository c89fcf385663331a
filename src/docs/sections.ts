// The parts of /docs that are not per route: getting started, conventions,
// authentication, errors, limits, export files and cross-origin reads. Every
// limit is read from limits.ts (the tunable ones as this server is
// configured), every message from the error catalogue, every export column
// from the encoder's list.
import { EXPORT_COLUMNS, EXPORT_FAILS_FIRST, EXPORT_NULLS, SPREADSHEET_WARNING } from '../core/export-encoding.js';
import { CATALOG_PATH, errors, QUERY_TIMEOUT_MESSAGE, TOKENS_UNCHECKED_WHEN } from '../errors.js';
import {
  CORS, countInWords, EXPORT_RETRY_AFTER_S, EXPORT_SLOTS, FAILED_AUTH, MAX_EPOCH_MS, MAX_LOCAL_DAYS, PAGE, POINTS, RANGE_CAP_DAYS,
  SLEEP_SESSION_GAP_MS, spokenDuration, SUMMARY, TYPES_PER_LIST, type Tunables,
} from '../limits.js';
import { escapeHtml, scrollingTable as table } from './html.js';

export interface DocsSection {
  title: string;
  html: string;
}

const pageLimit = (page: { default: number; max: number }) => `default ${page.default}, max ${page.max} (clamped)`;

/** What the sections say about this server's settings. */
export interface DocsSettings {
  limits: Tunables;
  /** SERVICE_CORS_ORIGINS as configured. */
  corsOrigins: readonly string[];
}

export function docsSections({ limits, corsOrigins }: DocsSettings): DocsSection[] {
  const query = spokenDuration(limits.queryTimeoutMs);
  const code = (text: string) => `<code>${text}</code>`;
  return [
    {
      title: 'Getting started',
      html: `<p>Every example request on this page is a curl command that reads the base URL from <code>H</code> and the bearer token from <code>TOKEN</code>:</p>
<pre>H=http://127.0.0.1:8081 TOKEN=&lt;your SERVICE_API_TOKEN&gt;
curl -H "Authorization: Bearer $TOKEN" "$H/v1/users"</pre>
<p>Type identifiers are the phone's, such as <code>HKQuantityTypeIdentifierHeartRate</code>; <code>${CATALOG_PATH}</code> lists the types stored for a user. Each route below shows its parameters, an example request, and every media type it answers with, with its fields and a trimmed example. Generated clients work as they are: the document is OpenAPI 3.1, lists may be sent the way clients send them, and a clamped parameter has no maximum a validator would refuse.</p>`,
    },
    {
      title: 'Conventions',
      html: `<ul>
<li>Timestamps in parameters and responses are integer epoch <b>milliseconds</b> (UTC), from 0 to ${MAX_EPOCH_MS}; anything else is a 400 that says so. Seconds are the usual mistake: <code>1767571200</code> is January 1970, not 2026.</li>
<li>Ranges are half-open <code>[start, end)</code>; <code>end</code> must be after <code>start</code>. Raw-record endpoints filter on each record's start time. A range cap measures <code>end - start</code> in 24-hour days; day-grained routes also refuse a range touching more than ${MAX_LOCAL_DAYS} local days.</li>
<li>Calendar days follow <code>SERVICE_TIME_ZONE</code>. Day-grained endpoints (<code>/v1/metrics/daily</code>, <code>/v1/activity/summary</code>, <code>/v1/sleep/daily</code>, <code>/v1/state-of-mind</code>) return every local day the range touches, so a range that grazes one minute of a day returns that whole day.</li>
<li>Units are canonical per type (heart rate <code>count/min</code>, energy <code>kcal</code>, distance <code>m</code>, percentages as fractions); each answer names its unit.</li>
<li>An absent value is <code>null</code>; an empty result is an empty array. Only a missing workout or profile is a 404.</li>
<li>Daily metrics, the summary and sleep are deduplicated across devices; <code>/v1/samples</code> returns raw records as synced.</li>
<li>A list (<code>types</code>) may be comma-separated (<code>types=A,B</code>), repeated (<code>types=A&amp;types=B</code>, what generated clients send) or both; it holds at most ${TYPES_PER_LIST} identifiers in all, repeats counted. An unknown identifier is a 400 that suggests the full one where it can (<code>HeartRate</code> → <code>HKQuantityTypeIdentifierHeartRate</code>).</li>
<li><code>limit</code> and <code>maxPoints</code> must be integers ≥ their minimum; values above the maximum are clamped, not refused (the document says so with <code>x-clamp</code> instead of a <code>maximum</code>); <code>offset</code> is an integer ≥ 0. Any other parameter given twice, an empty one, or one with invalid percent-encoding is a 400. Unknown parameters are ignored.</li>
<li>UUIDs compare case-insensitively and come back lowercase.</li>
</ul>`,
    },
    {
      title: 'Authentication',
      html: `<p>Every <code>/v1</code> route needs <code>Authorization: Bearer &lt;SERVICE_API_TOKEN&gt;</code>; <code>/</code>, <code>/docs</code>, <code>/openapi.json</code> and <code>/healthz</code> need none. A missing or wrong token is a 401 with <code>WWW-Authenticate: Bearer</code>. Failed authentications are throttled per client address (burst ${FAILED_AUTH.burst}, refilling ${FAILED_AUTH.refillPerMinute} per minute): while the allowance is empty every <code>/v1</code> request from that address gets 429 with <code>Retry-After</code> (seconds until the next attempt is evaluated), checked before the token and before any parameter. Successful requests are never throttled. The client address is the socket's, or the last <code>X-Forwarded-For</code> entry when <code>TRUST_PROXY_HEADERS=true</code>.</p>
<p><code>user=&lt;uuid&gt;</code> selects the user. Naming anyone but the default user needs <code>SERVICE_MULTI_USER=true</code>; otherwise the answer is 403 <code>${errors.multiUserDisabled().message}</code>. An id the server has never seen reads as a user with no data; a malformed one is a 400.</p>`,
    },
    {
      title: 'Errors',
      html:
        `<p>Every error from a JSON route is exactly <code>{"error": "&lt;message&gt;"}</code>; clients branch on the status.</p>` +
        table(['status', 'condition'], [
          ['400', 'A parameter is missing, malformed or out of range; the message names it.'],
          ['401', 'Bearer token missing or wrong (<code>WWW-Authenticate: Bearer</code>).'],
          ['403', '<code>user</code> names someone else while multi-user reads are off.'],
          ['404', 'Unknown path, or the workout or profile does not exist for this user.'],
          ['405', 'A method other than GET (<code>Allow: GET</code>).'],
          ['429', 'Too many failed authentications from this address (<code>Retry-After</code>).'],
          ['500', 'The query failed; details are logged on the server with the request id (<code>X-Request-Id</code>) and never returned.'],
          ['503', `<code>/v1/export</code>: ${countInWords(EXPORT_SLOTS)} exports already running (<code>Retry-After: ${EXPORT_RETRY_AFTER_S}</code>). <code>/healthz</code>: the database is not answering. Any <code>/v1</code> route: ${TOKENS_UNCHECKED_WHEN} (<code>Retry-After</code>).`],
          ['504', `A query ran past its ${query} limit: <code>${QUERY_TIMEOUT_MESSAGE}</code>. Not for export.`],
        ]),
    },
    {
      title: 'Limits',
      html: table(['limit', 'value', 'applies to'], [
        ['Types per <code>types</code> list', String(TYPES_PER_LIST), 'metrics/latest, metrics/daily, workout series, export daily_metrics'],
        ['Day rows per page', pageLimit(PAGE.dailyRows), '/v1/metrics/daily'],
        ['Workouts per page', pageLimit(PAGE.workouts), '/v1/workouts'],
        ['Samples per page', pageLimit(PAGE.samples), '/v1/samples'],
        ['Points per stream or track', pageLimit(POINTS), 'workout series, workout route (JSON)'],
        ['Range', `${RANGE_CAP_DAYS.samples} days`, '/v1/samples, export dataset samples'],
        ['Range', `${RANGE_CAP_DAYS.perDay} days`, '/v1/sleep/daily, /v1/state-of-mind, export datasets other than samples'],
        ['Range', 'no cap', '/v1/activity/summary, /v1/metrics/daily, /v1/workouts'],
        ['Timestamp bounds', `0 to ${MAX_EPOCH_MS}`, 'all start/end parameters'],
        ['Database time per request', `${query}, then 504`, 'all routes except export'],
        ['Concurrent exports', `${EXPORT_SLOTS} across all server processes, then 503 with Retry-After: ${EXPORT_RETRY_AFTER_S}`, '/v1/export'],
        ['Export duration', `${spokenDuration(limits.exportTimeLimitMs)}, then the connection is aborted`, '/v1/export'],
        ['Export idle client', `dropped after ${spokenDuration(limits.exportIdleLimitMs)} without reading`, '/v1/export'],
        ['Shutdown grace', spokenDuration(limits.shutdownGraceMs), 'streaming exports'],
        ['Failed authentication', `burst ${FAILED_AUTH.burst}, refill ${FAILED_AUTH.refillPerMinute} per minute per client address`, 'all /v1 routes'],
        ['Health database status cache', spokenDuration(limits.healthCacheMs), '/healthz'],
        ['Catalog cache', `fresh ${spokenDuration(limits.catalogFreshMs)}, then served stale up to ${spokenDuration(limits.catalogStaleMs)} while one background refresh runs`, '/v1/catalog/types'],
        ['Summary size', `markdown under ${SUMMARY.markdownLinesUnder} lines; byActivityType at most ${SUMMARY.topActivityTypes}`, '/v1/summary'],
        ['Sleep session split', `gap over ${spokenDuration(SLEEP_SESSION_GAP_MS)}`, '/v1/sleep/daily'],
      ]),
    },
    {
      title: 'Export files',
      html:
        `<p><code>/v1/export</code> streams an attachment named <code>service-&lt;dataset&gt;-&lt;start&gt;-&lt;end&gt;.&lt;csv|jsonl&gt;</code> (start and end exactly as given). CSV (<code>text/csv</code>) has a header row and RFC 4180 quoting; JSONL (<code>application/x-ndjson</code>) has one object per line with the same keys in the same order. ${escapeHtml(EXPORT_NULLS)}; a list is comma-joined in its quoted CSV cell and stays a JSON array in JSONL. Instants are epoch ms, days <code>YYYY-MM-DD</code>, UUIDs lowercase, numbers never use an exponent. A failure after the first byte (database error, the ${spokenDuration(limits.exportTimeLimitMs)} limit, a client idle for ${spokenDuration(limits.exportIdleLimitMs)}, shutdown past its grace) aborts the connection, so a cut-off file always shows as a failed download. ${escapeHtml(EXPORT_FAILS_FIRST)}</p>` +
        table(['dataset', 'columns'], Object.entries(EXPORT_COLUMNS).map(([dataset, columns]) => [`<code>${dataset}</code>`, columns.map((c) => `<code>${c}</code>`).join(', ')])) +
        `<p>The <code>routes</code> dataset has one row per recorded GPS point of each workout with a route (workouts newest first, points by time, every point at full resolution). For a map tool, take one workout's GPX 1.1 file from <code>/v1/workouts/{uuid}/route?format=gpx</code> instead.</p>` +
        `<p><b>Spreadsheet warning:</b> ${escapeHtml(SPREADSHEET_WARNING)}</p>`,
    },
    {
      title: 'Browsers on other origins (CORS)',
      html: `<p>A web page on another origin may call this API only when that origin is listed, exactly (scheme, host and port, such as <code>https://dash.example.org</code>), in <code>SERVICE_CORS_ORIGINS</code> (comma-separated; unset, no cross-origin reads). ${
        corsOrigins.length ? `This server allows ${corsOrigins.map(code).join(', ')}.` : 'This server allows none.'
      } A GET from an allowed origin gets <code>Access-Control-Allow-Origin</code> with that origin (errors included) and may read ${CORS.exposedHeaders.split(', ').map(code).join(', ')}; its preflight (<code>OPTIONS</code> with <code>Access-Control-Request-Method</code>) is answered 204 with <code>Access-Control-Allow-Methods: GET</code>, <code>Access-Control-Allow-Headers: ${CORS.allowedHeaders}</code> and <code>Access-Control-Max-Age: ${CORS.preflightMaxAgeS}</code>. The token goes in the <code>Authorization</code> header, never a cookie, so no credentials mode is needed. Any other <code>OPTIONS</code> is a 405. <code>/docs</code> and the viewer (<code>/app</code>) are same-origin pages and take no part.</p>`,
    },
  ];
}
