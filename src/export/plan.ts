// What an export request asks for, decided before any byte goes out: its
// parameters (schema), every refusal (400s: a missing dataset-specific
// parameter, an unknown type, a range over its cap), and the plan the run
// follows — the dataset, the format with its content type and file name, the
// range, and what the dataset reads.
import { Type, type Static } from '@sinclair/typebox';
import { EXPORT_COLUMNS, type ExportDataset } from '../core/export-encoding.js';
import { dailyMetricTypes, type DailyMetricType } from '../core/registry.js';
import { errors } from '../errors.js';
import { exportCapDays } from '../limits.js';
import { checkRange, requireKnownTypes, requireSampleType } from '../params/checks.js';
import { End, Enum, Name, Start, TypeList } from '../schemas/common.js';
import { knownTypes } from '../reads/types.js';
import type { Db } from '../db/pool.js';

export const EXPORT_DATASETS = Object.keys(EXPORT_COLUMNS) as ExportDataset[];
export const EXPORT_FORMATS = { csv: 'text/csv', jsonl: 'application/x-ndjson' } as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** Datasets answered per local day: every local day the range touches. */
const DAY_GRAINED: ReadonlySet<ExportDataset> = new Set(['daily_metrics', 'sleep', 'activity', 'state_of_mind']);

export const ExportParams = Type.Object({
  format: Enum(Object.keys(EXPORT_FORMATS) as ExportFormat[], 'File format.'),
  dataset: Enum(EXPORT_DATASETS, 'What to export.'),
  start: Start(),
  end: End(),
  types: Type.Optional(TypeList('daily_metrics only, and required there: type identifiers, kept in this order.')),
  type: Type.Optional(Name('samples only, and required there: exactly one sample type identifier.')),
  activityType: Type.Optional(Name('workouts and routes only, optional: only workouts of this activity type (exact match).')),
});

export interface ExportPlan {
  dataset: ExportDataset;
  format: ExportFormat;
  contentType: string;
  /** service-<dataset>-<start>-<end>.<format>, start and end exactly as given. */
  fileName: string;
  userId: string;
  timeZone: string;
  /** The range as given, epoch ms, [start, end). */
  start: number;
  end: number;
  /** daily_metrics: the quantity types asked for, in request order. */
  dailyTypes: readonly DailyMetricType[];
  /** samples: the one type. */
  sampleType: string;
  /** workouts and routes: only this activity type, when given. */
  activityType: string | null;
}

/** The plan of a valid request; a 400 for any problem. */
export async function planExport(query: Static<typeof ExportParams>, userId: string, timeZone: string, db: Db): Promise<ExportPlan> {
  const { dataset, format, start, end } = query;
  let dailyTypes: DailyMetricType[] = [];
  if (dataset === 'daily_metrics') {
    if (query.types === undefined) throw errors.badRequest('types is required for dataset daily_metrics');
    const known = await knownTypes(db, userId, query.types);
    requireKnownTypes(query.types, known);
    dailyTypes = dailyMetricTypes(query.types, known.stored);
  }
  if (dataset === 'samples') {
    if (query.type === undefined) throw errors.badRequest('type is required for dataset samples');
    requireSampleType(query.type, await knownTypes(db, userId, [query.type]));
  }
  checkRange(start, end, { capDays: exportCapDays(dataset), dayGrainedIn: DAY_GRAINED.has(dataset) ? timeZone : undefined });
  return {
    dataset,
    format,
    contentType: EXPORT_FORMATS[format],
    fileName: `service-${dataset}-${start}-${end}.${format}`,
    userId,
    timeZone,
    start,
    end,
    dailyTypes,
    sampleType: query.type ?? '',
    activityType: query.activityType ?? null,
  };
}
