// export.xml `Workout` → a `workouts` row (and its route, when the export
// carries the points inline). Totals come from the WorkoutStatistics children
// of iOS 16 and later, falling back to the totalDistance / totalEnergyBurned
// attributes older exports carry. Statistics, events and sub-activities are
// kept as JSON in canonical units; a single WorkoutActivity that merely
// repeats the workout is not a multisport segment and is left out. iOS 8/9
// exports name the activity by its HKWorkoutActivityType number and the
// source as `source`.
import { typeInfo } from '../core/registry.js';
import { convertToCanonical } from '../core/units.js';
import { durationSeconds, parseExportDate } from './apple-dates.js';
import type { Attributes, Metadata, RawWorkout, RawWorkoutActivity, RawWorkoutEvent, RawWorkoutRoute } from './health-data-reader.js';
import type { RoutePoints, WorkoutFields } from '../db/writes/rows.js';
import { contentUuid } from './record-ids.js';
import { deviceOf } from './sources.js';

export type { RoutePoints };

export interface WorkoutRow extends WorkoutFields {
  sourceName: string;
  device: string;
  /** FileReference paths of its route, resolved against the export later. */
  routeFiles: string[];
  inlineRoute: RoutePoints | null;
  /** Where it is in export.xml, for messages. */
  line: number;
}

type Statistic = { min?: number; avg?: number; max?: number; sum?: number };

const ACTIVE_ENERGY = 'HKQuantityTypeIdentifierActiveEnergyBurned';
const DISTANCE_PREFIX = 'HKQuantityTypeIdentifierDistance';
const ACTIVITY_PREFIX = 'HKWorkoutActivityType';
const EVENT_PREFIX = 'HKWorkoutEventType';
const MEMBERS: ReadonlyArray<readonly [string, keyof Statistic]> = [
  ['minimum', 'min'],
  ['average', 'avg'],
  ['maximum', 'max'],
  ['sum', 'sum'],
];
/** The distance type a pre-iOS 16 `totalDistance` belongs to, by activity. */
const DISTANCE_OF_ACTIVITY: Readonly<Record<string, string>> = {
  running: 'HKQuantityTypeIdentifierDistanceWalkingRunning',
  walking: 'HKQuantityTypeIdentifierDistanceWalkingRunning',
  hiking: 'HKQuantityTypeIdentifierDistanceWalkingRunning',
  cycling: 'HKQuantityTypeIdentifierDistanceCycling',
  swimming: 'HKQuantityTypeIdentifierDistanceSwimming',
};

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0].toLowerCase() + text.slice(1);
}

/** HKWorkoutActivityType's raw values as iOS 8/9 wrote them (the cases those versions had). */
const ACTIVITY_NUMBERS: readonly string[] = [
  '', 'americanFootball', 'archery', 'australianFootball', 'badminton', 'baseball', 'basketball', 'bowling', 'boxing',
  'climbing', 'cricket', 'crossTraining', 'curling', 'cycling', 'dance', 'danceInspiredTraining', 'elliptical',
  'equestrianSports', 'fencing', 'fishing', 'functionalStrengthTraining', 'golf', 'gymnastics', 'handball', 'hiking',
  'hockey', 'hunting', 'lacrosse', 'martialArts', 'mindAndBody', 'mixedMetabolicCardioTraining', 'paddleSports', 'play',
  'preparationAndRecovery', 'racquetball', 'rowing', 'rugby', 'running', 'sailing', 'skatingSports', 'snowSports',
  'soccer', 'softball', 'squash', 'stairClimbing', 'surfingSports', 'swimming', 'tableTennis', 'tennis',
  'trackAndField', 'traditionalStrengthTraining', 'volleyball', 'walking', 'waterFitness', 'waterPolo', 'waterSports',
  'wrestling', 'yoga',
];
const OTHER_ACTIVITY_NUMBER = '3000';

/** `HKWorkoutActivityTypeTraditionalStrengthTraining` (or iOS 8/9's `50`) → `traditionalStrengthTraining`. */
export function activityTypeName(raw: string): string {
  if (raw === OTHER_ACTIVITY_NUMBER) return 'other';
  if (/^\d+$/.test(raw) && ACTIVITY_NUMBERS[Number(raw)]) return ACTIVITY_NUMBERS[Number(raw)];
  return lowerFirst(raw.startsWith(ACTIVITY_PREFIX) ? raw.slice(ACTIVITY_PREFIX.length) : raw);
}

function amount(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** A legacy total as recorded: 0 is what old exports write when nothing was. */
const recorded = (value: number | undefined): number | undefined => (value === 0 ? undefined : value);

/** WorkoutStatistics → { identifier: {min, avg, max, sum} } in canonical units; unknown types and units are left out. */
function statisticsOf(list: readonly Attributes[]): Record<string, Statistic> {
  const statistics: Record<string, Statistic> = {};
  for (const attrs of list) {
    const identifier = attrs.type ?? '';
    if (typeInfo(identifier)?.kind !== 'quantity') continue;
    const statistic: Statistic = {};
    for (const [attribute, member] of MEMBERS) {
      const value = amount(attrs[attribute]);
      const canonical = value === undefined ? undefined : convertToCanonical(identifier, value, attrs.unit ?? '');
      if (canonical !== undefined) statistic[member] = canonical;
    }
    if (Object.keys(statistic).length > 0) statistics[identifier] = statistic;
  }
  return statistics;
}

function eventsOf(list: readonly RawWorkoutEvent[]): object[] {
  const events: object[] = [];
  for (const { attrs, metadata } of list) {
    const start = parseExportDate(attrs.date ?? '');
    if (Number.isNaN(start)) continue;
    const seconds = durationSeconds(attrs.duration, attrs.durationUnit) ?? 0;
    const type = attrs.type ?? '';
    events.push({
      type: lowerFirst(type.startsWith(EVENT_PREFIX) ? type.slice(EVENT_PREFIX.length) : type),
      start,
      end: start + Math.round(seconds * 1000),
      ...(metadata ? { metadata } : {}),
    });
  }
  return events;
}

function activitiesOf(list: readonly RawWorkoutActivity[], workoutStart: number, workoutEnd: number): object[] {
  const activities = list.map((activity) => {
    const start = parseExportDate(activity.attrs.startDate ?? '');
    const end = parseExportDate(activity.attrs.endDate ?? '');
    return {
      uuid: activity.attrs.uuid?.toLowerCase() ?? null,
      start: Number.isNaN(start) ? null : start,
      end: Number.isNaN(end) ? null : end,
      durationS: durationSeconds(activity.attrs.duration, activity.attrs.durationUnit),
      statistics: statisticsOf(activity.statistics),
      events: eventsOf(activity.events),
      metadata: activity.metadata ?? {},
    };
  });
  const repeatsWorkout = activities.length === 1 && activities[0].start === workoutStart && (activities[0].end === null || activities[0].end === workoutEnd);
  return repeatsWorkout ? [] : activities;
}

function inlineRouteOf(routes: readonly RawWorkoutRoute[]): RoutePoints | null {
  const points = routes
    .flatMap((route) => route.locations)
    .map((location) => ({
      time: parseExportDate(location.date ?? ''),
      latitude: amount(location.latitude),
      longitude: amount(location.longitude),
      altitude: amount(location.altitude) ?? null,
    }))
    .filter((p) => !Number.isNaN(p.time) && p.latitude !== undefined && p.longitude !== undefined)
    .sort((a, b) => a.time - b.time);
  if (points.length === 0) return null;
  return {
    timesMs: points.map((p) => p.time),
    latitudes: points.map((p) => p.latitude as number),
    longitudes: points.map((p) => p.longitude as number),
    altitudesM: points.map((p) => p.altitude),
  };
}

export function convertWorkout(raw: RawWorkout, userId: string): WorkoutRow | string {
  const attrs = raw.attrs;
  const startMs = parseExportDate(attrs.startDate ?? '');
  const endMs = parseExportDate(attrs.endDate ?? '');
  if (Number.isNaN(startMs) || Number.isNaN(endMs)) return 'start or end date malformed';
  if (endMs < startMs) return 'ends before it starts';
  const rawType = attrs.workoutActivityType ?? '';
  const activityType = activityTypeName(rawType);
  const statistics = statisticsOf(raw.statistics);

  let distanceM: number | null = null;
  for (const [identifier, statistic] of Object.entries(statistics)) {
    if (identifier.startsWith(DISTANCE_PREFIX) && statistic.sum !== undefined) distanceM = (distanceM ?? 0) + statistic.sum;
  }
  // Before iOS 16 a workout without a distance (or energy) still carries totalDistance="0": none recorded, so null.
  const totalDistance = recorded(amount(attrs.totalDistance));
  const distanceType = DISTANCE_OF_ACTIVITY[activityType] ?? 'HKQuantityTypeIdentifierDistanceWalkingRunning';
  const legacyDistance = totalDistance === undefined ? undefined : convertToCanonical(distanceType, totalDistance, attrs.totalDistanceUnit ?? 'km');
  if (distanceM === null && legacyDistance !== undefined) {
    distanceM = legacyDistance;
    if (DISTANCE_OF_ACTIVITY[activityType]) statistics[distanceType] = { sum: legacyDistance };
  }

  let energyKcal = statistics[ACTIVE_ENERGY]?.sum ?? null;
  const totalEnergy = recorded(amount(attrs.totalEnergyBurned));
  const legacyEnergy = totalEnergy === undefined ? undefined : convertToCanonical(ACTIVE_ENERGY, totalEnergy, attrs.totalEnergyBurnedUnit ?? 'kcal');
  if (energyKcal === null && legacyEnergy !== undefined) {
    energyKcal = legacyEnergy;
    statistics[ACTIVE_ENERGY] = { sum: legacyEnergy };
  }

  const creation = attrs.creationDate ? parseExportDate(attrs.creationDate) : '';
  const sourceName = attrs.sourceName ?? attrs.source ?? '';
  return {
    uuid: contentUuid('workout', userId, [rawType, sourceName, creation, startMs, endMs]),
    activityType,
    startMs,
    endMs,
    durationS: durationSeconds(attrs.duration, attrs.durationUnit) ?? (endMs - startMs) / 1000,
    distanceM,
    energyKcal,
    sourceName,
    device: deviceOf(attrs.device),
    statistics: JSON.stringify(statistics),
    events: JSON.stringify(eventsOf(raw.events)),
    activities: JSON.stringify(activitiesOf(raw.activities, startMs, endMs)),
    metadata: raw.metadata ? JSON.stringify(raw.metadata satisfies Metadata) : null,
    routeFiles: raw.routes.flatMap((route) => route.files),
    inlineRoute: inlineRouteOf(raw.routes),
    line: raw.line,
  };
}
