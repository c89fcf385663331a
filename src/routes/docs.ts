// GET /docs — the human-readable reference, rendered from the OpenAPI document
// plus the rules that are not per-route: authentication, errors, limits and
// export columns.
import { Type } from '@sinclair/typebox';
import { EXPORT_COLUMNS } from '../core/export-encoding.js';
import { buildOpenApi } from '../schemas/openapi.js';
import { renderDocsPage } from '../schemas/docs-page.js';
import { allRoutes } from './all.js';
import { defineRoute } from './route.js';

const table = (head: string[], rows: string[][]): string =>
  `<table><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table>`;

const SECTIONS = [
  {
    title: 'Conventions',
    html: `<ul>
<li>Timestamps in parameters and responses are integer epoch milliseconds (UTC), from 0 to 253402300799999; anything else is a 400.</li>
<li>Ranges are half-open <code>[start, end)</code>; <code>end</code> must be after <code>start</code>. Raw-record endpoints filter on each record's start time. A range cap measures <code>end - start</code> in 24-hour days; day-grained routes also refuse a range touching more than 366 local days.</li>
<li>Calendar days follow <code>SERVICE_TIME_ZONE</code>. Day-grained endpoints (<code>/v1/metrics/daily</code>, <code>/v1/activity/summary</code>, <code>/v1/sleep/daily</code>, <code>/v1/state-of-mind</code>) return every local day the range touches, so a range that grazes one minute of a day returns that whole day.</li>
<li>Units are canonical per type (heart rate <code>count/min</code>, energy <code>kcal</code>, distance <code>m</code>, percentages as fractions); each answer names its unit.</li>
<li>An absent value is <code>null</code>; an empty result is an empty array. Only a missing workout or profile is a 404.</li>
<li>Daily metrics, the summary and sleep are deduplicated across devices; <code>/v1/samples</code> returns raw records as synced.</li>
<li><code>limit</code> must be an integer ≥ 1 (values above the maximum are clamped); <code>offset</code> an integer ≥ 0. A parameter given twice, empty, or with invalid percent-encoding is a 400. Unknown parameters are ignored.</li>
<li>UUIDs compare case-insensitively and come back lowercase.</li>
</ul>`,
  },
  {
    title: 'Authentication',
    html: `<p>Every <code>/v1</code> route needs <code>Authorization: Bearer &lt;SERVICE_API_TOKEN&gt;</code>; <code>/</code>, <code>/docs</code>, <code>/openapi.json</code> and <code>/healthz</code> need none. A missing or wrong token is a 401 with <code>WWW-Authenticate: Bearer</code>. Failed authentications are throttled per client address (burst 10, refilling 10 per minute): while the allowance is empty every <code>/v1</code> request from that address gets 429 with <code>Retry-After</code> (seconds until the next attempt is evaluated), checked before the token. Successful requests are never throttled. The client address is the socket's, or the last <code>X-Forwarded-For</code> entry when <code>TRUST_PROXY_HEADERS=true</code>.</p>
<p><code>user=&lt;uuid&gt;</code> selects the user. Naming anyone but the default user needs <code>SERVICE_MULTI_USER=true</code>; otherwise the answer is 403 <code>multi-user reads are disabled</code>. An id the server has never seen reads as a user with no data; a malformed one is a 400.</p>`,
  },
  {
    title: 'Errors',
    html: `<p>Every error from a JSON route is exactly <code>{"error": "&lt;message&gt;"}</code>; clients branch on the status.</p>` +
      table(['status', 'condition'], [
        ['400', 'A parameter is missing, malformed or out of range; the message names it.'],
        ['401', 'Bearer token missing or wrong (<code>WWW-Authenticate: Bearer</code>).'],
        ['403', '<code>user</code> names someone else while multi-user reads are off.'],
        ['404', 'Unknown path, or the workout or profile does not exist for this user.'],
        ['405', 'A method other than GET (<code>Allow: GET</code>).'],
        ['429', 'Too many failed authentications from this address (<code>Retry-After</code>).'],
        ['500', 'The query failed; details are logged on the server with the request id (<code>X-Request-Id</code>) and never returned.'],
        ['503', '<code>/v1/export</code>: two exports already running (<code>Retry-After: 60</code>). <code>/healthz</code>: the database is not answering.'],
        ['504', 'A query ran past its 30-second limit: <code>query took too long; narrow the range</code>. Not for export.'],
      ]),
  },
  {
    title: 'Limits',
    html: table(['limit', 'value', 'applies to'], [
      ['Types per <code>types</code> list', '50', 'metrics/latest, metrics/daily, workout series, export daily_metrics'],
      ['Day rows per page', 'default 10000, max 50000 (clamped)', '/v1/metrics/daily'],
      ['Workouts per page', 'default 50, max 200 (clamped)', '/v1/workouts'],
      ['Samples per page', 'default 1000, max 5000 (clamped)', '/v1/samples'],
      ['Points per stream', 'default 500, max 5000 (clamped)', 'workout series'],
      ['Range', '31 days', '/v1/samples, export dataset samples'],
      ['Range', '366 days', '/v1/sleep/daily, /v1/state-of-mind, export datasets other than samples'],
      ['Range', 'no cap', '/v1/activity/summary, /v1/metrics/daily, /v1/workouts'],
      ['Database time per request', '30 seconds, then 504', 'all routes except export'],
      ['Concurrent exports', '2 across all server processes, then 503 with Retry-After: 60', '/v1/export'],
      ['Export duration', '30 minutes, then the connection is aborted', '/v1/export'],
      ['Export idle client', 'dropped after a minute without reading', '/v1/export'],
      ['Shutdown grace', '15 seconds', 'streaming exports'],
      ['Failed authentication', 'burst 10, refill 10 per minute per client address', 'all /v1 routes'],
      ['Health database status cache', '2 seconds', '/healthz'],
      ['Catalog cache', 'fresh 5 minutes, then served stale up to one hour while one background refresh runs', '/v1/catalog/types'],
      ['Summary size', 'markdown under 60 lines; byActivityType at most 3', '/v1/summary'],
      ['Sleep session split', 'gap over 3 hours', '/v1/sleep/daily'],
    ]),
  },
  {
    title: 'Export files',
    html: `<p><code>/v1/export</code> streams an attachment named <code>service-&lt;dataset&gt;-&lt;start&gt;-&lt;end&gt;.&lt;csv|jsonl&gt;</code> (start and end exactly as given). CSV (<code>text/csv</code>) has a header row and RFC 4180 quoting; JSONL (<code>application/x-ndjson</code>) has one object per line with the same keys in the same order. A null is an empty CSV cell and an explicit <code>null</code> in JSONL; a list is comma-joined in its quoted CSV cell and stays a JSON array in JSONL. Instants are epoch ms, days <code>YYYY-MM-DD</code>, UUIDs lowercase, numbers never use an exponent. A failure after the first byte (database error, the 30-minute limit, a client idle for a minute, shutdown past its grace) aborts the connection, so a cut-off file always shows as a failed download.</p>` +
      table(['dataset', 'columns'], Object.entries(EXPORT_COLUMNS).map(([dataset, columns]) => [`<code>${dataset}</code>`, columns.map((c) => `<code>${c}</code>`).join(', ')])) +
      `<p><b>Spreadsheet warning:</b> <code>source</code> is the only free-text column. A cell starting with <code>=</code>, <code>+</code>, <code>-</code> or <code>@</code> is a formula to a spreadsheet program; the file keeps the value as recorded, so open untrusted exports as text.</p>`,
  },
];

let cachedPage: string | null = null;

export const docsRoute = defineRoute({
  operationId: 'getDocs',
  path: '/docs',
  auth: false,
  summary: 'Reference documentation',
  description: 'This reference as a self-contained HTML page.',
  params: Type.Object({}),
  responses: [{ status: 200, description: 'HTML reference.', contentType: 'text/html', schema: Type.String() }],
  async handler() {
    cachedPage ??= renderDocsPage(buildOpenApi(allRoutes(), { url: '/' }), { sections: SECTIONS });
    return {
      kind: 'text',
      contentType: 'text/html; charset=utf-8',
      body: cachedPage,
      headers: { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" },
    };
  },
});
