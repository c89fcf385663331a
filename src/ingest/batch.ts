// One batch, one transaction (FACTS.md §6, §8, §9.1): the header is read
// before a database connection is taken; then, inside the transaction, the
// user is made on first sight, the batch id reserved (a replay stores
// nothing), every line checked against its slot and schema and staged, and
// finally the staged rows moved into the storage tables with deletions last.
// Any failure rolls everything back: a 4xx for malformed input, a 5xx for
// anything transient (the app retries those).
import type pg from 'pg';
import { ApiError, QUERY_CANCELED } from '../errors.js';
import {
  applyStagedDailyBuckets,
  countTypeUploads,
  CREATE_STAGING_SQL,
  deleteStaged,
  insertStagedMoods,
  insertStagedWorkouts,
  mergeStagedRoutePoints,
  mergeStagedSeriesPoints,
  openBatch,
  replaceProfile,
  replaceStagedSummaries,
  upsertStagedAggregates,
  type ProfileSnapshot,
} from '../db/writes/ingest.js';
import { CLIENT_TIMEOUT_MARGIN_MS } from '../db/pool.js';
import { skipForeignKeyChecks } from '../db/writes/bulk-load.js';
import { compactSampleCounts, compactUploadTotals } from '../db/writes/sample-counts.js';
import { typeInfo } from '../core/registry.js';
import { INGEST } from '../limits.js';
import { describeError, log } from '../log.js';
import type { Line } from './body.js';
import { ClientLeft, ingestErrors } from './errors.js';
import { describeKind, lineKind, parseHeader, Slots, type BatchHeader, type LineKind } from './framing.js';
import {
  compile,
  DAY_RANGE_WORDS,
  refusal,
  SampleOfKind,
  WRAPPED,
  type ActivitySummaryLine,
  type AggregateLine,
  type Checker,
  type DeletionLine,
  type ProfileLine,
  type RouteLine,
  type SampleKind,
  type SampleLine,
  type SeriesLine,
} from './lines.js';
import type { NameIds } from './names.js';
import { aggregateCells, isCalendarDate, moodCells, ms, profileSnapshot, sampleRowValues, setMember, summaryCells, summaryDay, workoutCells } from './rows.js';
import { SampleCopy } from './sample-copy.js';
import { Staging } from './staging.js';

/** The success body: exactly the seven counts, as the reference counts them. */
export interface BatchCounts {
  accepted: number;
  deleted: number;
  duplicates: number;
  routePoints: number;
  seriesPoints: number;
  aggregateSamples: number;
  activitySummaries: number;
}

export interface BatchStore {
  /** The receiver's own sessions (writer role). */
  pool: pg.Pool;
  names: NameIds;
  /** The zone stored days are cut in (settings.time_zone). */
  timeZone: string;
  /** A batch's database time at most (INGEST.batchTimeoutMs when absent). */
  timeLimitMs?: number;
}

export interface BatchRequest {
  userId: string;
  /** X-Puls-Protocol, already checked; null when absent. */
  requestedVersion: number | null;
  /** X-Batch-ID as sent (logged when it disagrees with the header). */
  batchIdHeader: string;
  /** The body's lines, a run at a time (ndjsonLines). */
  lines: AsyncIterator<Line[]>;
}

const SAMPLE_CHECKS = Object.fromEntries(Object.entries(SampleOfKind).map(([kind, schema]) => [kind, compile(schema)])) as Record<SampleKind, Checker>;
const WRAPPED_CHECKS = Object.fromEntries(Object.entries(WRAPPED).map(([kind, schema]) => [kind, compile(schema)])) as Record<string, Checker>;
const KIND_NAMES: ReadonlySet<string> = new Set(Object.keys(SampleOfKind));

/** Sessions whose staging tables exist already, and whether each counts its samples itself (it skips the triggers with the foreign-key checks). */
const prepared = new WeakMap<pg.ClientBase, { countsSamples: boolean }>();

/** What PostgreSQL text and jsonb cannot hold: NUL, and half of a surrogate pair. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const storable = (text: string): string => text.replace(UNSTORABLE, '\uFFFD');

/**
 * A parsed line with U+FFFD in place of what PostgreSQL cannot store, in every
 * string and key: the line is valid JSON, and the protocol has a receiver keep
 * what it can (a NUL in an ignored field must not refuse the page). Walked
 * without recursion: an ignored field may nest thousands of levels deep.
 */
function madeStorable(root: unknown): unknown {
  if (typeof root === 'string') return storable(root);
  const stack: object[] = typeof root === 'object' && root !== null ? [root] : [];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (Array.isArray(node)) {
      // By index: a line's long arrays are numbers (an ECG's voltages, a route's points), passed over at once.
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') node[i] = storable(item);
        else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    const members = node as Record<string, unknown>;
    for (const key of Object.keys(members)) {
      const value = members[key];
      if (typeof value === 'object' && value !== null) stack.push(value);
      const kept = typeof value === 'string' ? storable(value) : value;
      let name = storable(key);
      if (name !== key) {
        delete members[key];
        // A key the sender wrote as it now reads is theirs: the renamed one takes another U+FFFD.
        while (Object.hasOwn(members, name)) name += '\uFFFD';
      }
      if (name !== key || kept !== value) setMember(members, name, kept);
    }
  }
  return root;
}

/**
 * A message from JSON.parse or PostgreSQL without what it quotes of the input
 * (the input is a person's health data: no answer or log line carries it):
 * "Unexpected token 'j', …"email":jane… is not valid JSON" → "Unexpected
 * token 'j'"; 'invalid input syntax for type uuid: "abc"' → '… uuid: "…"'.
 */
function withoutQuotes(message: string): string {
  // V8 quotes a stretch of the line after the token (quotes inside it unescaped): everything from there goes.
  return message.replace(/, (?:\.\.\.)?".*$/s, '').replace(/"[^"]*"/g, '"…"');
}

function parseJson(line: Line): unknown {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    throw ingestErrors.badLine(line.number, `not valid JSON (${withoutQuotes((error as Error).message).slice(0, 100)})`);
  }
  // Only an escape can write a NUL or half a surrogate pair (the body is checked UTF-8): lines without one skip the walk.
  if (line.text.includes('\\u') && /\\u(?:0000|[dD][89a-fA-F])/.test(line.text)) value = madeStorable(value);
  return value;
}

/**
 * Checks a line after the header against the schema of its kind (lineKind);
 * answers the payload (a sample line itself, else the wrapper's object) or
 * throws the 400 naming the line and field.
 */
export function checkPayload(kind: LineKind, value: unknown, lineNumber: number): unknown {
  if (kind === 'sample') {
    const sampleKind = (value as { kind?: unknown }).kind;
    const check = typeof sampleKind === 'string' && KIND_NAMES.has(sampleKind) ? SAMPLE_CHECKS[sampleKind as SampleKind] : SAMPLE_CHECKS.quantity;
    const problem = refusal(check, value, '');
    if (problem) throw ingestErrors.badLine(lineNumber, problem);
    return value;
  }
  const payload = (value as Record<string, unknown>)[kind];
  const points = (kind === 'route' || kind === 'series') && payload !== null && typeof payload === 'object' ? (payload as { points?: unknown }).points : undefined;
  if (Array.isArray(points) && points.length > INGEST.pointsPerLine) {
    throw ingestErrors.tooManyLines(`line ${lineNumber}: ${kind}.points holds more than ${INGEST.pointsPerLine} points`);
  }
  const problem = refusal(WRAPPED_CHECKS[kind], payload, kind);
  if (problem) throw ingestErrors.badLine(lineNumber, problem);
  return payload;
}

const NO_LINES: Line[] = [];

/** The body's lines one at a time: at once while a run lasts, awaiting only the next run (a promise and a tick per line were ~5 % of a sample's CPU). */
class LineReader {
  private run: Line[] = [];
  private at = 0;

  constructor(readonly runs: AsyncIterator<Line[]>) {}

  /** The next line; null at the end of the body; a promise only when the next run has to come. */
  next(): Line | null | Promise<Line | null> {
    return this.at < this.run.length ? this.run[this.at++] : this.nextRun();
  }

  /** Resolves once the line after those taken (or the body's end) has come, without taking it. */
  async arrived(): Promise<void> {
    if (this.at < this.run.length) return;
    // The run read is let go before waiting: it holds its chunk's text, which a batch waiting on PostgreSQL
    // would otherwise keep through young-generation collections into the old one (a major collection every
    // few hundred milliseconds under backfill).
    this.run = NO_LINES;
    this.at = 0;
    for (;;) {
      const result = await this.runs.next();
      if (result.done) return;
      if (result.value.length > 0) {
        this.run = result.value;
        return;
      }
    }
  }

  private async nextRun(): Promise<Line | null> {
    await this.arrived();
    return this.at < this.run.length ? this.run[this.at++] : null;
  }
}

/** Batches this process has written, for folding the sample counts and upload totals now and then (INGEST.foldCountsEvery). */
let batchesWritten = 0;

/** Stages one batch's lines (its samples straight into `samples`), then stores them. */
class BatchWriter {
  private readonly staging: Staging;
  private readonly samples: SampleCopy;
  private seq = 0;
  private routePoints = 0;
  private seriesPoints = 0;
  private profile: ProfileSnapshot | null = null;
  private readonly sampleTypes = new Set<number>();
  /** Lines of a type the store has no room for (NameIds), dropped. */
  dropped = 0;
  /** Sample lines whose kind is not their known type's (a workout type sent as a quantity), dropped. */
  contradicting = 0;
  /** The identifiers this batch found no room for: asked once a batch, not once a line. */
  private readonly unstorable = new Set<string>();

  constructor(
    private readonly client: pg.ClientBase,
    private readonly store: BatchStore,
    private readonly userId: string,
    private readonly countsSamples: boolean,
  ) {
    this.staging = new Staging(client);
    this.samples = new SampleCopy(client, this.staging, userId);
  }

  /** Stages a sample line; a promise when it has to wait (a new name, a full chunk). */
  sample(line: SampleLine): Promise<void> | undefined {
    // Stored as its kind says, it would show under its type where no route reads it (FACTS §7: a line the
    // receiver cannot store it drops, still answering 2xx). A type the registry does not know takes the line's kind.
    const known = typeInfo(line.type);
    if (known !== undefined && known.kind !== line.kind) {
      this.contradicting++;
      return undefined;
    }
    const { names } = this.store;
    const typeId = this.typeIdOf(line.type);
    const sourceId = line.kind === 'stateOfMind' ? null : names.sourceId(line.sourceName, line.device);
    if (typeof typeId !== 'number' || (sourceId !== null && typeof sourceId !== 'number')) {
      return Promise.all([typeId, sourceId]).then(([type, source]) => this.sampleWith(line, type, source));
    }
    return this.sampleWith(line, typeId, sourceId);
  }

  private sampleWith(line: SampleLine, typeId: number | null, sourceId: number | null): Promise<void> | undefined {
    if (typeId === null) return this.drop();
    this.sampleTypes.add(typeId);
    if (line.kind === 'stateOfMind') return this.staging.add('moods', moodCells(line));
    if (line.kind === 'workout') return this.staging.add('workouts', workoutCells(line, sourceId));
    return this.samples.add(line.uuid, typeId, sourceId, sampleRowValues(line));
  }

  /** The type's id (NameIds), or null when there is no room for it. */
  private typeIdOf(identifier: string): number | null | Promise<number | null> {
    if (this.unstorable.has(identifier)) return null;
    const id = this.store.names.typeId(identifier);
    if (typeof id === 'number') return id;
    return id.then((resolved) => {
      if (resolved === null) this.unstorable.add(identifier);
      return resolved;
    });
  }

  private drop(): undefined {
    this.dropped++;
    return undefined;
  }

  deletion(line: DeletionLine): Promise<void> | undefined {
    return this.staging.add('deletions', [line.uuid.toLowerCase()]);
  }

  async route(line: RouteLine, number: number): Promise<void> {
    this.routePoints += line.points.length;
    if (this.routePoints > INGEST.pointsPerBatch) throw ingestErrors.tooManyLines(`line ${number}: more than ${INGEST.pointsPerBatch} route points in one batch`);
    const workout = line.workoutUUID.toLowerCase();
    for (const p of line.points) await this.staging.add('routePoints', [this.seq++, workout, ms(p.t), p.lat, p.lon, p.alt ?? null]);
  }

  async series(line: SeriesLine, number: number): Promise<void> {
    this.seriesPoints += line.points.length;
    if (this.seriesPoints > INGEST.pointsPerBatch) throw ingestErrors.tooManyLines(`line ${number}: more than ${INGEST.pointsPerBatch} series points in one batch`);
    const typeId = await this.typeIdOf(line.type);
    if (typeId === null) return this.drop();
    const workout = line.workoutUUID.toLowerCase();
    for (const p of line.points) await this.staging.add('seriesPoints', [this.seq++, workout, typeId, ms(p.t), p.value]);
  }

  async aggregate(line: AggregateLine, number: number): Promise<void> {
    if (!(line.bucketEnd > line.bucketStart)) throw ingestErrors.badLine(number, 'aggregate.bucketEnd must be after aggregate.bucketStart');
    const typeId = await this.typeIdOf(line.type);
    if (typeId === null) return this.drop();
    return this.staging.add('aggregates', aggregateCells(this.seq++, line, typeId));
  }

  activitySummary(line: ActivitySummaryLine, number: number): Promise<void> | undefined {
    const day = summaryDay(line);
    if (!isCalendarDate(day)) {
      throw ingestErrors.badLine(
        number,
        line.localDate ? `activitySummary.localDate must be a calendar date (YYYY-MM-DD) ${DAY_RANGE_WORDS}` : `activitySummary.date must fall on a day ${DAY_RANGE_WORDS}`,
      );
    }
    return this.staging.add('summaries', summaryCells(this.seq++, day, line));
  }

  setProfile(line: ProfileLine): void {
    this.profile = profileSnapshot(line);
  }

  /**
   * Resolves once the statements under way on the session have ended (a
   * chunk is stored while the next is read, in several statements). A failed
   * batch waits for this before its rollback: a statement issued after the
   * rollback would run outside the transaction, or on the session's next
   * batch once it is back in the pool.
   */
  settled(): Promise<void> {
    return this.staging.idle();
  }

  /** After the commit: the sample chunks' buffers go to the next batches. */
  recycle(): void {
    this.samples.recycle();
  }

  /** Moves everything staged into the storage tables; deletions last. */
  async commitRows(nowMs: number): Promise<Omit<BatchCounts, 'duplicates'>> {
    const { client, userId, staging } = this;
    await this.samples.flush();
    await staging.flushAll();
    let accepted = await this.samples.finish();
    if (staging.has('workouts')) accepted += await insertStagedWorkouts(client, userId);
    if (staging.has('moods')) accepted += await insertStagedMoods(client, userId);
    const routePoints = staging.has('routePoints') ? await mergeStagedRoutePoints(client, userId) : 0;
    const seriesPoints = staging.has('seriesPoints') ? await mergeStagedSeriesPoints(client, userId) : 0;
    let aggregateSamples = 0;
    if (staging.has('aggregates')) {
      aggregateSamples = await upsertStagedAggregates(client, userId, nowMs);
      await applyStagedDailyBuckets(client, userId, this.store.timeZone);
    }
    const activitySummaries = staging.has('summaries') ? await replaceStagedSummaries(client, userId) : 0;
    if (this.profile) await replaceProfile(client, userId, this.profile, nowMs);
    const deletions = staging.has('deletions') ? await deleteStaged(client, userId) : null;
    let counts: Map<number, number> | null = null;
    if (this.countsSamples) {
      counts = new Map(this.samples.createdByType);
      for (const [type, n] of deletions?.samplesByType ?? []) counts.set(type, (counts.get(type) ?? 0) - n);
    }
    await countTypeUploads(client, userId, [...this.sampleTypes], nowMs, counts);
    if (++batchesWritten % INGEST.foldCountsEvery === 0) {
      await compactSampleCounts(client, [userId]);
      await compactUploadTotals(client, [userId]);
    }
    const deleted = deletions?.deleted ?? 0;
    return { accepted, deleted, routePoints, seriesPoints, aggregateSamples, activitySummaries };
  }
}

/** Reads, checks and (unless `writer` is null: a replay) stages every line after the header. */
async function readLines(lines: LineReader, header: BatchHeader, writer: BatchWriter | null): Promise<void> {
  const slots = new Slots(header.counts);
  for (;;) {
    let line = lines.next();
    if (line instanceof Promise) line = await line;
    if (line === null) break;
    const expected = slots.expected;
    if (expected === null) throw ingestErrors.badLine(line.number, 'more lines than the header declared');
    const value = parseJson(line);
    const kind: LineKind = lineKind(value, line.number);
    if (kind !== expected) throw ingestErrors.badLine(line.number, `expected ${describeKind(expected)} but found ${describeKind(kind)}`);
    slots.take();
    const payload = checkPayload(kind, value, line.number);
    if (writer === null) continue;
    if (kind === 'sample') {
      const storing = writer.sample(payload as SampleLine);
      if (storing) await storing;
      continue;
    }
    switch (kind) {
      case 'deleted':
        await writer.deletion(payload as DeletionLine);
        break;
      case 'route':
        await writer.route(payload as RouteLine, line.number);
        break;
      case 'series':
        await writer.series(payload as SeriesLine, line.number);
        break;
      case 'aggregate':
        await writer.aggregate(payload as AggregateLine, line.number);
        break;
      case 'activitySummary':
        await writer.activitySummary(payload as ActivitySummaryLine, line.number);
        break;
      case 'profile':
        writer.setProfile(payload as ProfileLine);
        break;
    }
  }
  const short = slots.shortfall();
  if (short) throw ingestErrors.badRequest(short);
}

/**
 * SQLSTATE classes that refuse the batch's own values, whenever it is sent:
 * data exceptions (22) and program limits (54: a value too large for an index
 * entry). Answered 400, as a 503 would have the app retry them forever.
 */
const REFUSED_VALUE_CLASSES = ['22', '54'];

/** An error from storing as the answer: ours as they are; the database's a 503 (transient), or a 400 when it refused a value. */
function asAnswer(error: unknown, userId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ClientLeft) {
    // A phone that lost its connection mid-upload: it sends the batch again. Nothing was stored; nobody reads the answer.
    log.info('batch abandoned: the client went away', { userId });
    return ingestErrors.unavailable();
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && REFUSED_VALUE_CLASSES.includes(code.slice(0, 2))) {
    const reason = withoutQuotes((error as Error).message).slice(0, 120);
    log.warn('batch refused by the database', { userId, code, reason });
    return ingestErrors.badRequest(`the batch holds a value the database refused (${reason})`);
  }
  log.error('batch failed', { userId, ...describeError(error) });
  return code === QUERY_CANCELED ? ingestErrors.timeout() : ingestErrors.unavailable();
}

/**
 * The server bounds a batch's statements and its idle time in the
 * transaction (the writer pool's session settings), but a server that
 * stopped answering (frozen, or cut off by the network) enforces nothing:
 * past the bound and a margin the session's socket is closed, which fails
 * what waits on it (the batch is answered 503, nothing stored, and the
 * phone sends it again) and drops the session.
 */
function cutOffAfter(client: pg.PoolClient, ms: number, userId: string): NodeJS.Timeout {
  const timer = setTimeout(() => {
    log.warn('batch past its time bound with no answer from the database: its session closed', { userId });
    // pg's own connect timeout closes a silent connection the same way (pg-pool's newClient).
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }, ms);
  timer.unref();
  return timer;
}

/** Stores one batch; resolves with its counts once committed, or throws the ApiError to answer. */
export async function storeBatch(store: BatchStore, request: BatchRequest): Promise<BatchCounts> {
  const { userId } = request;
  const lines = new LineReader(request.lines);
  let client: pg.PoolClient | null = null;
  let writer: BatchWriter | null = null;
  let began = false;
  let deadline: NodeJS.Timeout | undefined;
  try {
    const first = await lines.next();
    if (first === null) throw ingestErrors.badRequest('the body is empty; a batch starts with its header line');
    const header = parseHeader(parseJson(first), first.number, request.requestedVersion);
    if (request.batchIdHeader && request.batchIdHeader.toLowerCase() !== header.batchId) {
      log.warn('X-Batch-ID differs from the header batchID', { userId, header: header.batchId });
    }
    // A database session only once the lines come: an upload that stalls after its header holds none.
    await lines.arrived();
    client = await store.pool.connect();
    deadline = cutOffAfter(client, (store.timeLimitMs ?? INGEST.batchTimeoutMs) + CLIENT_TIMEOUT_MARGIN_MS, userId);
    let session = prepared.get(client);
    if (!session) {
      await client.query(CREATE_STAGING_SQL);
      session = { countsSamples: await skipForeignKeyChecks(client, 'samples') };
      prepared.set(client, session);
    }
    const nowMs = Date.now();
    await client.query('BEGIN');
    began = true;
    const fresh = await openBatch(client, userId, header.batchId, header.sampleCount, nowMs);
    writer = fresh ? new BatchWriter(client, store, userId, session.countsSamples) : null;
    await readLines(lines, header, writer);
    if (writer === null) {
      await client.query('ROLLBACK');
      began = false;
      return { accepted: 0, deleted: 0, duplicates: header.sampleCount, routePoints: 0, seriesPoints: 0, aggregateSamples: 0, activitySummaries: 0 };
    }
    const counts = await writer.commitRows(nowMs);
    await client.query('COMMIT');
    began = false;
    if (writer.dropped > 0) log.warn('batch lines dropped: their types are unknown and the store holds its most types', { userId, lines: writer.dropped, typesHeldMax: INGEST.typesHeldMax });
    if (writer.contradicting > 0) log.warn('batch lines dropped: their kind is not their type\'s', { userId, lines: writer.contradicting });
    writer.recycle();
    return { ...counts, duplicates: header.sampleCount - counts.accepted };
  } catch (error) {
    if (began && client) {
      await writer?.settled();
      try {
        await client.query('ROLLBACK');
        began = false;
      } catch {
        // the session is dropped below
      }
    }
    throw asAnswer(error, userId);
  } finally {
    clearTimeout(deadline);
    // A session whose rollback failed may be broken: release(true) drops it.
    client?.release(began ? true : undefined);
    await lines.runs.return?.(undefined);
  }
}
