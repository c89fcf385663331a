// The batch's framing (FACTS.md §6, §9.3): the header line, its version
// checked before any other field, the counts it declares and the fixed order
// in which the lines must follow; and what kind of line a JSON object is.
import { INGEST } from '../limits.js';
import { ingestErrors, SUPPORTED_VERSIONS } from './errors.js';
import { compile, Header, refusal, WRAPPERS, type HeaderLine, type Wrapper } from './lines.js';

const checkHeader = compile(Header);
const WRAPPER_SET: ReadonlySet<string> = new Set(WRAPPERS);

/** A slot of the batch: samples, then each wrapper in WRAPPERS order. */
export type LineKind = 'sample' | Wrapper;

const COUNT_FIELDS: ReadonlyArray<readonly [LineKind, keyof HeaderLine]> = [
  ['sample', 'sampleCount'],
  ['deleted', 'deletionCount'],
  ['route', 'routeCount'],
  ['series', 'seriesCount'],
  ['aggregate', 'aggregateCount'],
  ['activitySummary', 'activitySummaryCount'],
  ['profile', 'profileCount'],
];

const NAMES: Readonly<Record<LineKind, string>> = {
  sample: 'sample',
  deleted: 'deletion',
  route: 'route',
  series: 'series',
  aggregate: 'aggregate',
  activitySummary: 'activity-summary',
  profile: 'profile',
};

export const describeKind = (kind: LineKind): string => (kind === 'sample' ? 'a sample line' : `${kind === 'aggregate' || kind === 'activitySummary' ? 'an' : 'a'} ${NAMES[kind]} line ({"${kind}":…})`);

/**
 * A version as the protocol writes it: a supported integer passes, anything
 * else (another integer, a fraction, a string) is the fixed 400. `undefined`
 * (absent) means a client older than versioning: version 1.
 */
export function protocolVersion(raw: unknown): number {
  if (raw === undefined || raw === null) return 1;
  if (typeof raw !== 'number' || !(SUPPORTED_VERSIONS as readonly number[]).includes(raw)) throw ingestErrors.unsupportedVersion();
  return raw;
}

/** `X-Puls-Protocol` as sent: absent is null; checked before the body is read. */
export function requestVersion(header: string): number | null {
  if (header === '') return null;
  if (!/^[0-9]+$/.test(header.trim())) throw ingestErrors.unsupportedVersion();
  return protocolVersion(Number(header.trim()));
}

export interface BatchHeader {
  batchId: string;
  deviceId: string | null;
  /** Lines of each kind, in order. */
  counts: ReadonlyArray<readonly [LineKind, number]>;
  sampleCount: number;
}

/** Parses the first line: an object, its version (agreeing with X-Puls-Protocol), then its fields and counts. */
export function parseHeader(value: unknown, lineNumber: number, requestedVersion: number | null): BatchHeader {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ingestErrors.badLine(lineNumber, 'the header must be a JSON object');
  const version = protocolVersion((value as { schemaVersion?: unknown }).schemaVersion);
  if (requestedVersion !== null && (value as { schemaVersion?: unknown }).schemaVersion != null && version !== requestedVersion) {
    throw ingestErrors.unsupportedVersion();
  }
  const problem = refusal(checkHeader, value, 'header');
  if (problem) throw ingestErrors.badLine(lineNumber, problem);
  const header = value as HeaderLine;
  const counts = COUNT_FIELDS.map(([kind, field]) => [kind, (header[field] as number | undefined) ?? 0] as const);
  let total = 0;
  for (const [kind, count] of counts) {
    if (count > INGEST.linesPerType) throw ingestErrors.tooManyLines(`the header declares ${count} ${NAMES[kind]} lines; at most ${INGEST.linesPerType} a batch`);
    total += count;
  }
  if (total > INGEST.linesTotal) throw ingestErrors.tooManyLines(`the header declares ${total} lines; at most ${INGEST.linesTotal} a batch`);
  return { batchId: header.batchID.toLowerCase(), deviceId: header.deviceID ?? null, counts, sampleCount: counts[0][1] };
}

/**
 * What a line is: a wrapper kind (its only key), or a sample (a bare object
 * carrying none of the wrapper keys). One unknown key holding an object and
 * no `uuid` is an unknown wrapper: 400, as the protocol wants.
 */
export function lineKind(value: unknown, lineNumber: number): LineKind {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ingestErrors.badLine(lineNumber, 'must be a JSON object');
  let keys = 0;
  let wrapper: string | null = null;
  let only = '';
  for (const key in value) {
    keys++;
    only = key;
    if (wrapper === null && WRAPPER_SET.has(key)) wrapper = key;
  }
  if (wrapper !== null) {
    if (keys !== 1) throw ingestErrors.badLine(lineNumber, `${describeKind(wrapper as Wrapper)} must hold only its "${wrapper}" key`);
    const payload = (value as Record<string, unknown>)[wrapper];
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw ingestErrors.badLine(lineNumber, `${wrapper} must be an object`);
    return wrapper as Wrapper;
  }
  if (keys === 1 && !('uuid' in value)) {
    const payload = (value as Record<string, unknown>)[only];
    // The key is named back only when it reads as a protocol name: any other text could be a person's data.
    if (typeof payload === 'object' && payload !== null) throw ingestErrors.badLine(lineNumber, `unknown line type${WRAPPER_LIKE.test(only) ? ` "${only}"` : ''}`);
  }
  return 'sample';
}

/** A key that reads as a wrapper's name: camelCase of two words or more (heartbeatSeriesChunk), not a plain word, at most 40 characters. */
const WRAPPER_LIKE = /^(?=.{1,40}$)[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

/** Walks the declared slots: which kind the next line must be. */
export class Slots {
  private index = 0;
  private left: number;

  constructor(private readonly counts: ReadonlyArray<readonly [LineKind, number]>) {
    this.left = counts[0][1];
    this.skipEmpty();
  }

  private skipEmpty(): void {
    while (this.left === 0 && this.index < this.counts.length - 1) this.left = this.counts[++this.index][1];
  }

  /** The kind the next line must be, or null when every declared line came. */
  get expected(): LineKind | null {
    return this.left > 0 ? this.counts[this.index][0] : null;
  }

  take(): void {
    this.left--;
    this.skipEmpty();
  }

  /** Why the body may not end here, or null when every declared line came. */
  shortfall(): string | null {
    if (this.left === 0) return null;
    const [kind, declared] = this.counts[this.index];
    const rest = this.counts.slice(this.index + 1).reduce((sum, [, n]) => sum + n, 0);
    return `the body ended after ${declared - this.left} of ${declared} declared ${NAMES[kind]} lines${rest > 0 ? ` (and ${rest} more lines declared after them)` : ''}`;
  }
}
