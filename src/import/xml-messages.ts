// What the XML worker and the main thread say to each other. The main thread
// reads export.xml and sends its bytes; the worker parses them into
// COPY rows and other rows; the main thread owns the database. Plain data
// only: byte buffers are moved (transfer list), the rest is cloned.
import type { ActivityRow } from './activity-rings.js';
import type { NameIdEntries } from './name-ids.js';
import type { SettledDays } from './inline-aggregates.js';
import type { ProfileRow } from './profile.js';
import type { ReportSnapshot } from './report.js';
import type { SourceRef } from './sources.js';
import type { WorkoutRow } from './workouts.js';

export interface XmlWorkerInput {
  /** How messages name export.xml. */
  label: string;
  userId: string;
  timeZone: string;
  preferredSources: readonly string[];
  /** The user had no samples before: compute daily buckets while streaming. */
  firstImport: boolean;
  /** The ids known when the import began. */
  nameIds: NameIdEntries;
  /** Skip malformed elements (counted) instead of stopping at the first. */
  lenient: boolean;
}

export interface XmlSummary {
  report: ReportSnapshot;
  version: number | null;
  exportedAtMs: number | null;
  /** The latest end of a record or workout read, null when none was. */
  newestEndMs: number | null;
  /** Elements read from export.xml. */
  elements: number;
  /** Types that received rows. */
  typeIds: number[];
  /** Types whose records came out of start order: their buckets need the read-back. */
  outOfOrder: string[];
  /** Malformed elements skipped (lenient reading): how many, and the lines of the first ones. */
  malformed: { count: number; lines: number[] };
}

export type FromWorker =
  | { kind: 'names'; id: number; identifiers: string[]; sources: SourceRef[] }
  | { kind: 'rows'; bytes: Uint8Array; rows: number }
  | { kind: 'workouts'; rows: WorkoutRow[] }
  | { kind: 'activity'; rows: ActivityRow[] }
  | { kind: 'profile'; row: ProfileRow; exportedAtMs: number | null }
  | { kind: 'days'; settled: SettledDays[] }
  /** A chunk of bytes is parsed: the main thread may send another, in the buffer given back. */
  | { kind: 'parsed'; line: number; elements: number; spent: Uint8Array }
  | { kind: 'warning'; line: string }
  | { kind: 'done'; summary: XmlSummary }
  | { kind: 'failed'; message: string; input: boolean };

export type ToWorker =
  | { kind: 'names'; id: number; entries: NameIdEntries }
  /** A chunk of rows is written: the worker may send another, and reuse the buffers given back (committed rows). */
  | { kind: 'credit'; spent: Uint8Array[] }
  /** UTF-8 of export.xml, cut after a line's end whenever the chunk has one. */
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'end' };
