// Talking to the sync receiver the way the PulsHealth app does: gzip NDJSON
// POSTed to /v1/batches with a bearer token, and the protocol's public
// fixtures read from ../shared/protocol/ (never copied into the repository).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const UPLOAD_TOKEN = 'upload-token-0123456789abcdef';
export const SYNC_USER = '5ea4d000-0000-4000-8000-000000000001';
export const PROTOCOL_DIR = join(process.cwd(), '..', 'shared', 'protocol');

export interface Fixture {
  name: string;
  ndjson: string;
  expected: { status: number; response: Record<string, number>; state?: { activitySummaries: Array<Record<string, unknown>> } };
}

/** The corpus in file-name order (the order it must be applied in). */
export function fixtures(): Fixture[] {
  const dir = join(PROTOCOL_DIR, 'fixtures');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ndjson'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.ndjson$/, '');
      return { name, ndjson: readFileSync(join(dir, file), 'utf8'), expected: JSON.parse(readFileSync(join(dir, `${name}.expected.json`), 'utf8')) };
    });
}

export interface PostOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Send the body as it is, without gzip and without Content-Encoding. */
  plain?: boolean;
}

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text
  }
  return { status: response.status, body, text, headers: response.headers };
}

/** POSTs a batch (a string is gzipped unless `plain`; a Buffer goes as it is). */
export async function postBatch(ingestUrl: string, body: string | Buffer, options: PostOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'x-puls-protocol': '1' };
  const token = options.token === undefined ? UPLOAD_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let bytes: Buffer;
  if (typeof body === 'string' && !options.plain) {
    bytes = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  } else bytes = Buffer.from(body);
  Object.assign(headers, options.headers);
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  return answer(await fetch(`${ingestUrl}/v1/batches`, { method: 'POST', headers, body: new Uint8Array(bytes) }));
}

export async function getIngest(ingestUrl: string, path: string, options: PostOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? UPLOAD_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return answer(await fetch(`${ingestUrl}${path}`, { headers }));
}

/** A batch as NDJSON text: a header with the counts of `lines` filled in, then the lines. */
export function batch(lines: { samples?: object[]; deletions?: object[]; routes?: object[]; series?: object[]; aggregates?: object[]; summaries?: object[]; profile?: object }, header: Record<string, unknown> = {}): string {
  const body = [
    ...(lines.samples ?? []),
    ...(lines.deletions ?? []).map((d) => ({ deleted: d })),
    ...(lines.routes ?? []).map((r) => ({ route: r })),
    ...(lines.series ?? []).map((s) => ({ series: s })),
    ...(lines.aggregates ?? []).map((a) => ({ aggregate: a })),
    ...(lines.summaries ?? []).map((a) => ({ activitySummary: a })),
    ...(lines.profile ? [{ profile: lines.profile }] : []),
  ];
  const head = {
    schemaVersion: 1,
    batchID: crypto.randomUUID().toUpperCase(),
    deviceID: 'test-device',
    type: 'test',
    reason: 'incremental',
    exportedAt: Date.now(),
    sampleCount: lines.samples?.length ?? 0,
    deletionCount: lines.deletions?.length ?? 0,
    routeCount: lines.routes?.length ?? 0,
    seriesCount: lines.series?.length ?? 0,
    aggregateCount: lines.aggregates?.length ?? 0,
    activitySummaryCount: lines.summaries?.length ?? 0,
    profileCount: lines.profile ? 1 : 0,
    ...header,
  };
  return [head, ...body].map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** A heart-rate sample line. */
export function heartRate(uuid: string, startMs: number, value: number): Record<string, unknown> & { uuid: string } {
  return { uuid, type: 'HKQuantityTypeIdentifierHeartRate', kind: 'quantity', start: startMs, end: startMs, value, unit: 'count/min', sourceName: 'Apple Watch', device: 'Apple Watch' };
}
