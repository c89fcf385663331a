// What export.xml's elements become, on the XML worker's side: records turn
// into COPY rows (and feed the in-stream daily buckets), workouts, rings and
// the profile are batched for the main thread, and every record taken or
// skipped is tallied. The first skip of each kind is worth a warning that
// names file and line.
import { SPECIAL_IDENTIFIERS } from '../core/registry.js';
import { convertActivitySummary, type ActivityRow } from './activity-rings.js';
import { parseExportDate } from './apple-dates.js';
import type { CopyRows } from './copy-rows.js';
import type { Attributes, HealthDataHandler, RawRecord, RawWorkout } from './health-data-reader.js';
import type { InlineAggregates } from './inline-aggregates.js';
import { convertMe } from './profile.js';
import { RecordConverter } from './records.js';
import type { ImportReport } from './report.js';
import { convertWorkout, type WorkoutRow } from './workouts.js';
import type { FromWorker } from './xml-messages.js';

const WORKOUTS_PER_MESSAGE = 100;
const ROUTE_POINTS_PER_MESSAGE = 200_000;
const ACTIVITY_DAYS_PER_MESSAGE = 1000;

const WORKOUT = SPECIAL_IDENTIFIERS.workout;
const ACTIVITY_SUMMARY = SPECIAL_IDENTIFIERS.activitySummary;

export class XmlIntake implements HealthDataHandler {
  private readonly converter: RecordConverter;
  version: number | null = null;
  exportedAtMs: number | null = null;
  elements = 0;
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
    if (version !== null && (version < 8 || version > 14)) {
      this.post({ kind: 'warning', line: `warning: ${this.fileLabel}: HealthKit export version ${version}; versions 8 to 14 are known, reading it anyway` });
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
    const identifier = record.attrs.type ?? '(no type)';
    if (typeof row === 'string') {
      this.skip(identifier, row, record.line);
      return;
    }
    this.rows.add(row);
    this.inline?.add(row);
    this.report.took(identifier);
  }

  correlation(): void {
    this.elements++;
    this.report.skip('Correlation', 'its records are stored once, from their top-level copies');
  }

  workout(workout: RawWorkout): void {
    this.elements++;
    const row = convertWorkout(workout, this.userId);
    if (typeof row === 'string') {
      this.skip(WORKOUT, row, workout.line);
      return;
    }
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
