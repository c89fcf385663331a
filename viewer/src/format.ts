// Numbers as a person reads them: bpm, km, h:min, kcal, percentages; dates
// and times in the server's zone, in the browser's language. Canonical units
// come from the API (`unit` of each answer); this is the one place that
// turns them into display units.
import { localDate, type LocalDate } from './zone.js';

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const formatInteger = (n: number) => integer.format(Math.round(n));

/** Minutes as h:min (7:05), or "42 min" under an hour. */
export function hoursMinutes(minutes: number): string {
  const total = Math.round(minutes);
  if (total < 60) return `${total} min`;
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** Seconds as h:mm:ss or m:ss. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

export const kilometres = (metres: number) => `${twoDecimals.format(metres / 1000)} km`;

/** How a canonical unit is shown: the factor applied, the label, and digits. */
export interface DisplayUnit {
  factor: number;
  label: string;
  digits: 0 | 1 | 2;
}

const DISPLAY: Record<string, DisplayUnit> = {
  'count/min': { factor: 1, label: 'bpm', digits: 0 },
  count: { factor: 1, label: '', digits: 0 },
  kcal: { factor: 1, label: 'kcal', digits: 0 },
  m: { factor: 1 / 1000, label: 'km', digits: 2 },
  'm/s': { factor: 3.6, label: 'km/h', digits: 1 },
  '%': { factor: 100, label: '%', digits: 1 },
  min: { factor: 1, label: 'min', digits: 0 },
  ms: { factor: 1, label: 'ms', digits: 0 },
  kg: { factor: 1, label: 'kg', digits: 1 },
  W: { factor: 1, label: 'W', digits: 0 },
  degC: { factor: 1, label: '°C', digits: 1 },
};

/** `count/min` counts beats for a heart rate, but turns of the pedals for cadence and breaths for respiration. */
const PER_MINUTE: Record<string, string> = {
  HKQuantityTypeIdentifierCyclingCadence: 'rpm',
  HKQuantityTypeIdentifierRespiratoryRate: 'breaths/min',
};

/** How `unit` is shown; `type`, when given, names what a count per minute counts. */
export function displayUnit(unit: string | null, type?: string): DisplayUnit {
  const shown = DISPLAY[unit ?? ''] ?? { factor: 1, label: unit ?? '', digits: 1 };
  if (unit === 'count/min' && type !== undefined && !type.includes('HeartRate')) return { ...shown, label: PER_MINUTE[type] ?? 'per min' };
  return shown;
}

/** A value in its canonical unit, shown in its display unit: "62 bpm", "85 rpm", "5.21 km", "7,512". */
export function quantity(value: number, unit: string | null, withLabel = true, type?: string): string {
  const shown = displayUnit(unit, type);
  const n = value * shown.factor;
  const text = shown.digits === 0 ? integer.format(n) : shown.digits === 1 ? oneDecimal.format(n) : twoDecimals.format(n);
  return withLabel && shown.label ? `${text} ${shown.label}` : text;
}

/** Identifiers whose name is not in their spelling. */
const NAMES: Record<string, string> = {
  HKWorkoutTypeIdentifier: 'Workouts',
  HKActivitySummaryTypeIdentifier: 'Activity rings',
  HKDataTypeIdentifierStateOfMind: 'State of mind',
  HKDataTypeIdentifierHeartbeatSeries: 'Heartbeat series',
  HKDataTypeIdentifierElectrocardiogram: 'ECG',
  HKMedicationDoseEventTypeIdentifierMedicationDoseEvent: 'Medication doses',
  HKQuantityTypeIdentifierHeartRateVariabilitySDNN: 'Heart rate variability (SDNN)',
  HKQuantityTypeIdentifierVO2Max: 'VO2 max',
};

/** "HKQuantityTypeIdentifierRestingHeartRate" → "Resting heart rate". */
export function typeName(identifier: string): string {
  const named = NAMES[identifier];
  if (named) return named;
  const bare = identifier.replace(/^HK[A-Za-z]*?TypeIdentifier/, '');
  const words = bare.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

/** "running" → "Running", "swimBikeRun" → "Swim bike run". */
export const activityName = (activityType: string) => typeName(activityType);

/** A calendar date as "Mon 3 Mar" in the browser's language (the date is already local to the zone). */
export function dayLabel(date: LocalDate, options: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short' }): string {
  return new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' }).format(Date.parse(`${date}T12:00:00Z`));
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** The time of day of instant `ms` in the zone: "06:42". */
export function timeOfDay(ms: number, zone: string): string {
  let format = timeFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    timeFormats.set(zone, format);
  }
  return format.format(ms);
}

/** Instant `ms` as "Mon 3 Mar, 06:42" in the zone. */
export const dateTime = (ms: number, zone: string) => `${dayLabel(localDate(ms, zone))}, ${timeOfDay(ms, zone)}`;
