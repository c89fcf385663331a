// export.xml `Record` → a `samples` row, or the reason it is skipped.
// Quantity values move from the record's own unit (the phone's display
// preference: km or mi, Cal or kJ, lb or kg…) to the type's canonical unit
// through the registry; category values arrive as enum case names
// (`HKCategoryValueSleepAnalysisAsleepCore`) and are stored as the framework's
// integer values. The pre-iOS 16 `…SleepAnalysisAsleep` means asleepUnspecified.
import { convertToCanonical } from '../core/units.js';
import { SAMPLE_KINDS, SLEEP_ANALYSIS, SleepValue, typeInfo, type CategoryTypeInfo, type TypeInfo } from '../core/registry.js';
import { parseExportDate } from './apple-dates.js';
import type { RawRecord } from './health-data-reader.js';
import { recordHash } from './record-ids.js';
import { deviceOf } from './sources.js';

export interface SampleRow {
  /** The name hash its UUID is cut from (record-ids.ts): equal hashes, equal records. */
  idHash: string;
  identifier: string;
  startMs: number;
  endMs: number;
  value: number | null;
  sourceName: string;
  device: string;
  /** JSON object text, or null. */
  metadata: string | null;
}

const CATEGORY_VALUE_PREFIX = 'HKCategoryValue';
const LEGACY_ASLEEP = 'HKCategoryValueSleepAnalysisAsleep';

/** The integer of a category value name: the label whose capitalised form ends the name, longest first. */
function categoryValue(info: CategoryTypeInfo, text: string): number | undefined {
  if (info.identifier === SLEEP_ANALYSIS && text === LEGACY_ASLEEP) return SleepValue.asleepUnspecified;
  if (/^\d+$/.test(text)) return Object.hasOwn(info.labels, Number(text)) ? Number(text) : undefined;
  if (!text.startsWith(CATEGORY_VALUE_PREFIX)) return undefined;
  let best: number | undefined;
  let bestLength = 0;
  for (const [value, label] of Object.entries(info.labels)) {
    const suffix = label[0].toUpperCase() + label.slice(1);
    if (suffix.length > bestLength && text.endsWith(suffix)) {
      best = Number(value);
      bestLength = suffix.length;
    }
  }
  return best;
}

export class RecordConverter {
  private readonly categoryValues = new Map<string, Map<string, number | undefined>>();

  constructor(private readonly userId: string) {}

  /** The row, or why the record is skipped (a short reason, counted per type in the report). */
  convert(record: RawRecord): SampleRow | string {
    const attrs = record.attrs;
    const identifier = attrs.type ?? '';
    const info = typeInfo(identifier);
    if (info === undefined) return 'type not in the registry';
    if (!SAMPLE_KINDS.has(info.kind)) return `a ${info.kind} is not a sample`;
    const startMs = parseExportDate(attrs.startDate ?? '');
    const endMs = parseExportDate(attrs.endDate ?? '');
    if (Number.isNaN(startMs) || Number.isNaN(endMs)) return 'start or end date malformed';
    if (endMs < startMs) return 'ends before it starts';
    const value = this.value(info, attrs.value, attrs.unit);
    if (typeof value === 'string') return value;
    const creation = attrs.creationDate ? parseExportDate(attrs.creationDate) : '';
    const sourceName = attrs.sourceName ?? '';
    return {
      idHash: recordHash(this.userId, identifier, sourceName, creation, startMs, endMs, attrs.unit ?? '', attrs.value ?? ''),
      identifier,
      startMs,
      endMs,
      value,
      sourceName,
      device: deviceOf(attrs.device),
      metadata: metadataJson(record),
    };
  }

  private value(info: TypeInfo, text: string | undefined, unit: string | undefined): number | null | string {
    if (info.kind === 'quantity') {
      const amount = text === undefined || text === '' ? NaN : Number(text);
      if (!Number.isFinite(amount)) return 'value is not a number';
      const canonical = convertToCanonical(info.identifier, amount, unit ?? '');
      return canonical === undefined ? `unit "${unit ?? ''}" cannot be converted to ${info.unit}` : canonical;
    }
    if (info.kind === 'category') {
      let known = this.categoryValues.get(info.identifier);
      if (known === undefined) this.categoryValues.set(info.identifier, (known = new Map()));
      const name = text ?? '';
      if (!known.has(name)) known.set(name, categoryValue(info, name));
      const value = known.get(name);
      return value === undefined ? `category value "${name}" unknown` : value;
    }
    const amount = text === undefined || text === '' ? NaN : Number(text);
    return Number.isFinite(amount) ? amount : null;
  }
}

function metadataJson(record: RawRecord): string | null {
  if (record.beats === null) return record.metadata === null ? null : JSON.stringify(record.metadata);
  const metadata: Record<string, unknown> = { ...record.metadata };
  metadata.instantaneousBeatsPerMinute = record.beats.map((beat) => ({ bpm: Number(beat.bpm), time: beat.time }));
  return JSON.stringify(metadata);
}
