// What export.xml's elements become, on the XML worker's side: records turn
// into COPY rows (and feed the in-stream daily buckets), workouts, rings and
// the profile are batched for the main thread, and every record taken or
// skipped is tallied, so that each <Record> is accounted for once. The first
// skip of each kind is worth a warning that names file and line.
//
// Records inside a Correlation (blood pressure, food) are usually written at
// top level too, and sometimes only inside it: each is stored once. Apple
// writes every top-level Record before the first Correlation, so the ids of
// top-level records of the types a correlation can hold are remembered, and
// a nested record with the same id is counted as the copy it is. A record
// repeated identically (some exports hold a few) is stored once too.
import { SPECIAL_IDENTIFIERS } from '../core/registry.js';
import { convertActivitySummary, type ActivityRow } from './activity-rings.js';
import { parseExportDate } from './apple-dates.js';
import type { CopyRows } from './copy-rows.js';
import type { Attributes, HealthDataHandler, RawRecord, RawWorkout } from './health-data-reader.js';
import type { InlineAggregates } from './inline-aggregates.js';
import { convertMe } from './profile.js';
import { contentHash } from './record-ids.js';
import { RecordConverter, type SampleRow } from './records.js';
import type { ImportReport } from './report.js';
import { convertWorkout, type WorkoutRow } from './workouts.js';
import type { FromWorker } from './xml-messages.js';

const WORKOUTS_PER_MESSAGE = 100;
const ROUTE_POINTS_PER_MESSAGE = 200_000;
const ACTIVITY_DAYS_PER_MESSAGE = 1000;

const WORKOUT = SPECIAL_IDENTIFIERS.workout;
const ACTIVITY_SUMMARY = SPECIAL_IDENTIFIERS.activitySummary;
const MALFORMED_LINES_KEPT = 1000;

/** The types HealthKit's correlations hold: blood pressure's two, food's nutrients. */
function inCorrelations(identifier: string): boolean {
  return identifier.startsWith('HKQuantityTypeIdentifierDietary') || identifier.startsWith('HKQuantityTypeIdentifierBloodPressure');
}

export const NESTED_COPY = "a Correlation's copy of a record stored from top level";
export const TOP_LEVEL_COPY = 'a top-level copy of a record stored from its Correlation';
export const CORRELATION_ITSELF = 'a Correlation is not stored itself: its records are';
export const MALFORMED = 'malformed XML, skipped (--lenient)';
export const IDENTICAL = 'repeats an identical record: stored once';

/** Record ids seen, each with the metadata (JSON text, or null) of the record holding it. */
type SeenIds = Map<string, string | null>;

/** Whether `row`'s id is held by a record with other metadata. */
function heldByOther(ids: SeenIds, row: SampleRow): boolean {
  const held = ids.get(row.idHash);
  return held !== undefined && held !== row.metadata;
}

export class XmlIntake implements HealthDataHandler {
  private readonly converter: RecordConverter;
  version: number | null = null;
  exportedAtMs: number | null = null;
  /** The latest end of a record or workout read: the batch's date when the export has no ExportDate. */
  newestEndMs: number | null = null;
  elements = 0;
  /** Lines of the malformed elements skipped (lenient reading), the first MALFORMED_LINES_KEPT. */
  readonly malformedLines: number[] = [];
  malformedCount = 0;
  /** Ids of top-level records of correlation types, and of records stored from a correlation, each with its metadata. */
  private readonly topLevelIds: SeenIds = new Map();
  private readonly nestedIds: SeenIds = new Map();
  private lastIdentifier = '';
  private lastInCorrelations = false;
  /** The ids of the records of `lastIdentifier` that start at `lastStartMs` (records come grouped by type, in start order), with their metadata: an identical repeat is told apart from them. */
  private lastStartMs = NaN;
  private readonly idsAtLastStart: SeenIds = new Map();
  private workouts: WorkoutRow[] = [];
  private workoutPoints = 0;
  private activityDays: ActivityRow[] = [];

  constructor(
    private readonly userId: string,
    private readonly fileLabel: string,
    private readonly rows: CopyRows,
    private readonly inline: InlineAggregates | null,
    private readonly report: ImportReport,
    private readonly post: (message: FromWorker) => void,
  ) {
    this.converter = new RecordConverter(userId);
  }

  private skip(what: string, reason: string, line: number): void {
    if (this.report.skip(what, reason)) {
      this.post({ kind: 'warning', line: `warning: ${this.fileLabel} line ${line}: ${what} skipped: ${reason} (the import goes on; all such are counted in the report)` });
    }
  }

  exportVersion(version: number | null): void {
    this.version = version;
    if (version !== null && (version < 1 || version > 14)) {
      this.post({ kind: 'warning', line: `warning: ${this.fileLabel}: HealthKit export version ${version}; versions 1 to 14 are known, reading it anyway` });
    }
  }

  exportDate(value: string): void {
    const ms = parseExportDate(value);
    this.exportedAtMs = Number.isNaN(ms) ? null : ms;
  }

  me(attrs: Attributes): void {
    this.post({ kind: 'profile', row: convertMe(attrs), exportedAtMs: this.exportedAtMs });
  }

  record(record: RawRecord): void {
    this.elements++;
    const row = this.converter.convert(record);
    const identifier = record.attrs.type || '(no type)';
    if (typeof row === 'string') {
      this.skip(identifier, row, record.line);
      return;
    }
    this.sawEnd(row.endMs);
    if (identifier !== this.lastIdentifier) {
      this.lastIdentifier = identifier;
      this.lastInCorrelations = inCorrelations(identifier);
      this.lastStartMs = NaN;
    }
    if (row.startMs !== this.lastStartMs) {
      this.lastStartMs = row.startMs;
      this.idsAtLastStart.clear();
    }
    this.distinguish(row);
    if (this.idsAtLastStart.has(row.idHash)) {
      this.report.skip(identifier, IDENTICAL);
      return;
    }
    this.idsAtLastStart.set(row.idHash, row.metadata);
    if (this.lastInCorrelations) {
      if (record.correlation !== null) {
        if (this.topLevelIds.has(row.idHash)) {
          this.report.skip(identifier, NESTED_COPY);
          return;
        }
        this.nestedIds.set(row.idHash, row.metadata);
      } else {
        if (this.nestedIds.has(row.idHash)) {
          this.report.skip(identifier, TOP_LEVEL_COPY);
          return;
        }
        this.topLevelIds.set(row.idHash, row.metadata);
      }
    }
    this.rows.add(row);
    this.inline?.add(row);
    this.report.took(identifier);
    if (this.converter.note !== null) this.report.note(identifier, this.converter.note);
  }

  /**
   * A record's id is its type, source, times, unit and value (records.ts):
   * two records alike in all of those but their metadata (two foods of equal
   * energy logged at once, a heart rate at rest and one in motion) would share
   * it, and the second would pass for a repeat. The first seen keeps the plain
   * id (so ids stay what earlier imports gave); one whose metadata differs
   * from the holder's takes its metadata into its id. Deterministic for a
   * file: the same export, imported again, gives every record the same id.
   */
  private distinguish(row: SampleRow): void {
    const { idsAtLastStart, topLevelIds, nestedIds } = this;
    if (heldByOther(idsAtLastStart, row) || (this.lastInCorrelations && (heldByOther(topLevelIds, row) || heldByOther(nestedIds, row)))) {
      row.idHash = contentHash('record-metadata', this.userId, [row.idHash, row.metadata ?? '']);
    }
  }

  private sawEnd(endMs: number): void {
    if (this.newestEndMs === null || endMs > this.newestEndMs) this.newestEndMs = endMs;
  }

  correlation(type: string): void {
    this.elements++;
    this.report.skip(type || 'Correlation', CORRELATION_ITSELF);
  }

  malformed(name: string, type: string | null, line: number, reason: string): void {
    this.elements++;
    this.malformedCount++;
    if (this.malformedLines.length < MALFORMED_LINES_KEPT) this.malformedLines.push(line);
    const what = type ?? `<${name}>`;
    if (this.report.skip(what, MALFORMED)) {
      this.post({ kind: 'warning', line: `warning: ${this.fileLabel} line ${line}: <${name}>${type ? ` of ${type}` : ''} skipped: malformed XML (${reason}); --lenient goes on (all such are counted in the report)` });
    }
  }

  workout(workout: RawWorkout): void {
    this.elements++;
    const row = convertWorkout(workout, this.userId);
    if (typeof row === 'string') {
      this.skip(WORKOUT, row, workout.line);
      return;
    }
    this.sawEnd(row.endMs);
    this.report.took(WORKOUT);
    this.workouts.push(row);
    this.workoutPoints += row.inlineRoute?.timesMs.length ?? 0;
  }

  activitySummary(attrs: Attributes, line: number): void {
    this.elements++;
    const row = convertActivitySummary(attrs);
    if (typeof row === 'string') {
      this.skip(ACTIVITY_SUMMARY, row, line);
      return;
    }
    this.report.took(ACTIVITY_SUMMARY);
    this.activityDays.push(row);
  }

  other(name: string): void {
    this.elements++;
    this.report.skip(name, 'not imported: the storage has no table for it');
  }

  /** Hands over workouts and rings once a batch is full (or `all`). */
  flushElements(all: boolean): void {
    if (this.workouts.length > 0 && (all || this.workouts.length >= WORKOUTS_PER_MESSAGE || this.workoutPoints >= ROUTE_POINTS_PER_MESSAGE)) {
      this.post({ kind: 'workouts', rows: this.workouts });
      this.workouts = [];
      this.workoutPoints = 0;
    }
    if (this.activityDays.length > 0 && (all || this.activityDays.length >= ACTIVITY_DAYS_PER_MESSAGE)) {
      this.post({ kind: 'activity', rows: this.activityDays });
      this.activityDays = [];
    }
  }
}
