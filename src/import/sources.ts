// Who recorded a sample, and whom to believe when sources overlap.
//
// A `sources` row is (name, device). The name is export.xml's `sourceName`
// (the app or the device's own name). The `device` attribute is a description
// such as `<<HKDevice: 0x283f1c0f0>, name:Apple Watch, manufacturer:Apple
// Inc., model:Watch, hardware:Watch6,1, software:10.1>` whose address changes
// from record to record, so only its hardware model is kept (`Watch6,1`), or
// its model or name when it has none.
//
// Daily statistics follow HealthKit's rule for overlapping sources: where
// samples of a cumulative type overlap in time, only the highest-priority
// source counts there. The default order is the Health app's own: Apple Watch
// first, then iPhone, then every other app or device. `--source-priority`
// names sources (by name) that go before all of these, in the order given.
// Names are stored exactly as written (a no-break space in "Apple Watch",
// curly apostrophes, Arabic with tatweel and bidi marks); only the ranking
// reads them with spaces and invisible marks made plain, and a name given to
// `--source-priority` matches a source's as typed: case, typographic quotes
// and those marks aside (typedName).

export type { SourceName as SourceRef } from '../db/writes/setup.js';
import type { SourceName as SourceRef } from '../db/writes/setup.js';

export const SOURCE_KEY_SEPARATOR = '\u0001';

export function sourceKey(name: string, device: string): string {
  return name + SOURCE_KEY_SEPARATOR + device;
}

function field(description: string, label: string): string | null {
  const at = description.indexOf(label + ':');
  if (at < 0) return null;
  const from = at + label.length + 1;
  // Fields are separated by ', ' (a hardware model itself holds a bare comma: Watch6,1).
  let to = description.indexOf(', ', from);
  if (to < 0) to = description.lastIndexOf('>');
  if (to < from) to = description.length;
  const value = description.slice(from, to).trim();
  return value === '' ? null : value;
}

let lastDescription = '';
let lastDevice = '';

/** The stable part of an HKDevice description: hardware, else model, else name. */
export function deviceOf(description: string | undefined): string {
  if (description === undefined || description === '') return '';
  // Consecutive records mostly share one HKDevice object, hence one description.
  if (description === lastDescription) return lastDevice;
  lastDescription = description;
  lastDevice = field(description, 'hardware') ?? field(description, 'model') ?? field(description, 'name') ?? '';
  return lastDevice;
}

const WATCH = 0;
const PHONE = 1;
const OTHER = 2;

/** Bidi controls, zero-width characters and the Arabic tatweel: marks that change how a name shows, not what it says. */
const INVISIBLE = /[\u0640\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;

/** A source name as the ranking reads it: NFKC (no-break spaces become spaces), invisible marks gone. */
export function plainName(name: string): string {
  return name.normalize('NFKC').replace(INVISIBLE, '');
}

/** `--source-priority`'s names as sourcePriority reads them. */
export const preferredSources = (names: readonly string[]): string[] => names.map(typedName);

function defaultRank(source: SourceRef): number {
  if (source.device.startsWith('Watch')) return WATCH;
  if (source.device.startsWith('iPhone')) return PHONE;
  // The source is who wrote: a phone that recorded through an accessory (a car, a strap) is still the phone.
  const name = plainName(source.name);
  if (/\bWatch\b/.test(name)) return WATCH;
  if (/\biPhone\b/.test(name)) return PHONE;
  return OTHER;
}

/** A name as a person types it: plainName, typographic apostrophes and quotes as ASCII ones, lower case. */
export function typedName(name: string): string {
  return plainName(name).replace(/[\u2018\u2019\u02BC]/g, "'").replace(/[\u201C\u201D]/g, '"').toLowerCase();
}

/**
 * Priority for the daily aggregator (lower wins): named sources first, in
 * order, then watch, phone, others. `preferred` holds typedNames
 * (preferredSources).
 */
export function sourcePriority(source: SourceRef, preferred: readonly string[]): number {
  const named = preferred.indexOf(typedName(source.name));
  return named >= 0 ? named : preferred.length + defaultRank(source);
}
