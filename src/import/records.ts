// export.xml `Record` → a `samples` row, or the reason it is skipped.
// Quantity values move from the record's own unit (the phone's display
// preference: km or mi, Cal or kJ, lb or kg…) to the type's canonical unit
// through the registry; category values arrive as enum case names
// (`HKCategoryValueSleepAnalysisAsleepCore`) or, before iOS 10, as the
// numbers themselves, and are stored as the framework's integer values. The
// pre-iOS 16 `…SleepAnalysisAsleep` means asleepUnspecified. A category
// record without a value is HealthKit's "not applicable" (0): mindful
// sessions, high and low heart-rate events are written so.
//
// Every generation of the file is read: the iOS 8/9 layout before the DTD
// names the source `source=`, writes compact dates (apple-dates.ts), gives a
// discrete type's aggregate as `average`/`min`/`max` with a `recordCount`, and
// puts metadata in attributes of the record itself; those attributes go to
// `metadata` as MetadataEntry children do.
//
// A type the registry does not know (HKDataTypeSleepDurationGoal, whatever
// Apple adds next) is stored, not dropped: its kind comes from the prefix
// (registry.ts), its value is kept as the record gives it and its unit goes to
// `metadata.unit`; `note` says so for the report.
import { convertToCanonical } from '../core/units.js';
import { kindOfIdentifier, SAMPLE_KINDS, SLEEP_ANALYSIS, SleepValue, typeInfo, type CategoryTypeInfo, type TypeInfo } from '../core/registry.js';
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

/** What the report says of records of a type the registry does not know. */
export const UNIT_AS_GIVEN = 'stored, unit as given';
export const VALUE_AS_GIVEN = 'stored, value as given (unknown category value)';

const CATEGORY_VALUE_PREFIX = 'HKCategoryValue';
const LEGACY_ASLEEP = 'HKCategoryValueSleepAnalysisAsleep';
/** `not applicable`, the value of a category record written without one. */
const NOT_APPLICABLE = 0;

/** Attributes of a Record that are not metadata, in every layout. */
const RECORD_ATTRIBUTES = new Set(['type', 'source', 'sourceName', 'sourceVersion', 'device', 'unit', 'creationDate', 'startDate', 'endDate', 'value', 'min', 'max', 'average', 'recordCount']);

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

function numberOf(text: string | undefined): number {
  return text === undefined || text === '' ? NaN : Number(text);
}

export class RecordConverter {
  private readonly categoryValues = new Map<string, Map<string, number | undefined>>();
  /** Set by `convert` when the row is stored with a reservation the report should name (a type outside the registry); null otherwise. */
  note: string | null = null;
  /** Metadata the value adds (an unknown type's unit, a pre-DTD aggregate's min and max), for the row being converted. */
  private extra: Record<string, string | number> | null = null;

  constructor(private readonly userId: string) {}

  /** The row, or why the record is skipped (a short reason, counted per type in the report). */
  convert(record: RawRecord): SampleRow | string {
    this.note = null;
    this.extra = null;
    const attrs = record.attrs;
    const identifier = attrs.type ?? '';
    const info = typeInfo(identifier);
    if (info !== undefined && !SAMPLE_KINDS.has(info.kind)) return `a ${info.kind} is not a sample`;
    if (info === undefined && kindOfIdentifier(identifier) === undefined) return identifier === '' ? 'no type' : 'not a HealthKit sample type';
    const startMs = parseExportDate(attrs.startDate ?? '');
    const endMs = parseExportDate(attrs.endDate ?? '');
    if (Number.isNaN(startMs) || Number.isNaN(endMs)) return 'start or end date malformed';
    if (endMs < startMs) return 'ends before it starts';
    // Before the DTD (iOS 8/9), a discrete type's records give an aggregate: its average is the value.
    const valueText = attrs.value ?? attrs.average;
    const value = info === undefined ? this.unknownValue(identifier, valueText, attrs.unit) : this.value(info, valueText, attrs);
    if (typeof value === 'string') return value;
    const creation = attrs.creationDate ? parseExportDate(attrs.creationDate) : '';
    // iOS 8/9 name the source `source`.
    const sourceName = attrs.sourceName ?? attrs.source ?? '';
    return {
      idHash: recordHash(this.userId, identifier, sourceName, creation, startMs, endMs, attrs.unit ?? '', valueText ?? ''),
      identifier,
      startMs,
      endMs,
      value,
      sourceName,
      device: deviceOf(attrs.device),
      metadata: this.metadataJson(record, attrs.sourceName === undefined),
    };
  }

  private value(info: TypeInfo, text: string | undefined, attrs: RawRecord['attrs']): number | null | string {
    if (info.kind === 'quantity') {
      const amount = numberOf(text);
      if (!Number.isFinite(amount)) return text === undefined || text === '' ? 'no value' : 'value is not a number';
      const unit = attrs.unit ?? '';
      const canonical = convertToCanonical(info.identifier, amount, unit);
      if (canonical === undefined) return `unit "${unit}" cannot be converted to ${info.unit}`;
      if (attrs.value === undefined && (attrs.min !== undefined || attrs.max !== undefined)) {
        const minimum = convertToCanonical(info.identifier, numberOf(attrs.min), unit);
        const maximum = convertToCanonical(info.identifier, numberOf(attrs.max), unit);
        this.extra = {};
        if (minimum !== undefined && Number.isFinite(minimum)) this.extra.minimum = minimum;
        if (maximum !== undefined && Number.isFinite(maximum)) this.extra.maximum = maximum;
      }
      return canonical;
    }
    if (info.kind === 'category') {
      if (text === undefined || text === '') return NOT_APPLICABLE;
      let known = this.categoryValues.get(info.identifier);
      if (known === undefined) this.categoryValues.set(info.identifier, (known = new Map()));
      if (!known.has(text)) known.set(text, categoryValue(info, text));
      const value = known.get(text);
      return value === undefined ? `category value "${text}" unknown` : value;
    }
    const amount = numberOf(text);
    return Number.isFinite(amount) ? amount : null;
  }

  /** A type outside the registry: the number as given, its unit in metadata; a category value name kept as text. */
  private unknownValue(identifier: string, text: string | undefined, unit: string | undefined): number | null | string {
    const category = kindOfIdentifier(identifier) === 'category';
    if (text === undefined || text === '') {
      if (!category) return 'no value';
      this.note = UNIT_AS_GIVEN;
      return NOT_APPLICABLE;
    }
    const amount = Number(text);
    if (Number.isFinite(amount)) {
      if (unit !== undefined && unit !== '') this.extra = { unit };
      this.note = UNIT_AS_GIVEN;
      return amount;
    }
    this.extra = unit !== undefined && unit !== '' ? { unit, value: text } : { value: text };
    this.note = category ? VALUE_AS_GIVEN : UNIT_AS_GIVEN;
    return null;
  }

  private metadataJson(record: RawRecord, legacy: boolean): string | null {
    let metadata: Record<string, unknown> | null = record.metadata;
    if (legacy) {
      for (const [key, value] of Object.entries(record.attrs)) {
        if (RECORD_ATTRIBUTES.has(key)) continue;
        (metadata ??= {})[key] = value;
      }
      const count = record.attrs.recordCount;
      if (count !== undefined && count !== '1') (metadata ??= {}).recordCount = Number(count);
    }
    if (this.extra !== null) metadata = { ...metadata, ...this.extra };
    if (record.beats !== null) {
      metadata = { ...metadata, instantaneousBeatsPerMinute: record.beats.map((beat) => ({ bpm: Number(beat.bpm), time: beat.time })) };
    }
    return metadata === null ? null : JSON.stringify(metadata);
  }
}
