// Workouts second by second: heart rate, speed, power and cadence at 1 Hz
// (pauses leave gaps), a GPS route for outdoor ones, and the watch's 5-minute
// chunks of energy, steps and distance that the same seconds add up to — so
// a workout's totals, its streams and the day's samples tell one story.
import { atHour, MINUTE, overlaps, randomFor, round, SECOND, type DemoDay, type Interval } from './day.js';
import { uuidFromName } from './ids.js';
import {
  ACTIVE_ENERGY,
  CYCLING_CADENCE,
  CYCLING_POWER,
  CYCLING_SPEED,
  DISTANCE_CYCLING,
  DISTANCE_SWIMMING,
  DISTANCE_WALKING_RUNNING,
  HEART_RATE,
  RUNNING_POWER,
  RUNNING_SPEED,
  STEPS,
} from './identifiers.js';
import type { ActivityType } from './persona.js';
import type { Random } from './random.js';
import type { SourceKey } from './samples.js';

type LegType = Exclude<ActivityType, 'swimBikeRun'> | 'transition';

interface LegModel {
  met: number;
  /** Share of the heart rate reserve the leg settles at. */
  intensity: number;
  speed: readonly [number, number] | null;
  stepsPerMinute: readonly [number, number] | null;
  distanceType: string | null;
}

const WALK_RUN = DISTANCE_WALKING_RUNNING;
const CYCLING = DISTANCE_CYCLING;
const SWIMMING = DISTANCE_SWIMMING;

const LEGS: Readonly<Record<LegType, LegModel>> = {
  running: { met: 9.5, intensity: 0.74, speed: [2.6, 3.6], stepsPerMinute: [158, 178], distanceType: WALK_RUN },
  cycling: { met: 7.5, intensity: 0.64, speed: [5.5, 8.5], stepsPerMinute: null, distanceType: CYCLING },
  walking: { met: 3.8, intensity: 0.33, speed: [1.2, 1.55], stepsPerMinute: [104, 118], distanceType: WALK_RUN },
  hiking: { met: 6, intensity: 0.5, speed: [0.9, 1.3], stepsPerMinute: [94, 110], distanceType: WALK_RUN },
  traditionalStrengthTraining: { met: 5, intensity: 0.45, speed: null, stepsPerMinute: null, distanceType: null },
  swimming: { met: 7, intensity: 0.6, speed: [0.7, 0.95], stepsPerMinute: null, distanceType: SWIMMING },
  yoga: { met: 2.8, intensity: 0.2, speed: null, stepsPerMinute: null, distanceType: null },
  transition: { met: 3.5, intensity: 0.6, speed: [1, 1.4], stepsPerMinute: [100, 115], distanceType: WALK_RUN },
};

/** Minutes per leg of each activity type. */
function legsOf(type: ActivityType, random: Random): Array<[LegType, number]> {
  switch (type) {
    case 'running': return [['running', random.between(25, 65)]];
    case 'cycling': return [['cycling', random.between(40, 120)]];
    case 'walking': return [['walking', random.between(30, 75)]];
    case 'hiking': return [['hiking', random.between(90, 200)]];
    case 'traditionalStrengthTraining': return [['traditionalStrengthTraining', random.between(35, 70)]];
    case 'swimming': return [['swimming', random.between(30, 55)]];
    case 'yoga': return [['yoga', random.between(30, 60)]];
    case 'swimBikeRun':
      return [
        ['swimming', random.between(15, 25)],
        ['transition', random.between(2, 4)],
        ['cycling', random.between(40, 70)],
        ['transition', random.between(2, 4)],
        ['running', random.between(20, 40)],
      ];
  }
}

const OUTDOOR: ReadonlySet<ActivityType> = new Set(['running', 'cycling', 'walking', 'hiking', 'swimBikeRun']);
const PAUSING: ReadonlySet<ActivityType> = new Set(['running', 'cycling', 'walking', 'hiking']);

/** The streams each activity type records besides heart rate. */
const EXTRA_STREAMS: Partial<Record<ActivityType, readonly string[]>> = {
  running: [RUNNING_POWER, RUNNING_SPEED],
  cycling: [CYCLING_POWER, CYCLING_SPEED, CYCLING_CADENCE],
};

export interface WorkoutChunk extends Interval {
  steps: number;
  energyKcal: number;
  distanceM: number;
  distanceType: string | null;
}

export interface WorkoutStream {
  identifier: string;
  values: number[];
}

export interface PlannedWorkout extends Interval {
  uuid: string;
  activityType: ActivityType;
  source: SourceKey;
  durationS: number;
  distanceM: number | null;
  energyKcal: number;
  /** One entry per recorded (unpaused) second; every stream and the route follow it. */
  timesMs: number[];
  heartRate: number[];
  streams: WorkoutStream[];
  route: { latitudes: number[]; longitudes: number[]; altitudesM: number[] } | null;
  chunks: WorkoutChunk[];
  statistics: Record<string, { min?: number; avg?: number; max?: number; sum?: number }>;
  events: Array<{ type: string; start: number; end: number }>;
  activities: Array<{ activityType: string; start: number; end: number }>;
  metadata: Record<string, unknown>;
}

/** 3–5 workouts a week: most days none or one, now and then two. */
export function planWorkouts(day: DemoDay, awake: Interval, avoid: Interval[]): PlannedWorkout[] {
  const random = randomFor(day, 'workouts');
  if (!random.chance(0.6)) return [];
  const morning = () => awake.startMs + Math.round(random.between(1.2, 2) * 3_600_000);
  const lunch = () => atHour(day, random.between(12, 13));
  const evening = () => atHour(day, random.between(17, 19.5));
  const starts = random.chance(0.08) ? [morning(), evening()] : [random.pick([morning, lunch, evening])()];
  const planned: PlannedWorkout[] = [];
  for (const [n, startMs] of starts.entries()) {
    let type = random.weighted(day.persona.workoutMix);
    if (type === 'swimBikeRun' && !day.weekend) type = 'running';
    const workout = buildWorkout(day, random, type, startMs, `${n}`);
    const clash = avoid.some((other) => overlaps(other, workout)) || planned.some((other) => overlaps(other, workout));
    if (!clash && workout.endMs < awake.endMs - 30 * MINUTE) planned.push(workout);
  }
  return planned;
}

function buildWorkout(day: DemoDay, random: Random, activityType: ActivityType, startMs: number, ordinal: string): PlannedWorkout {
  const { persona } = day;
  const legs = legsOf(activityType, random);
  const activeSeconds = legs.reduce((sum, [, minutes]) => sum + Math.round(minutes * 60), 0);
  const pauses = new Map<number, number>(); // active second → pause length (s)
  if (PAUSING.has(activityType)) {
    for (let n = random.int(0, 2); n > 0; n--) pauses.set(random.int(300, activeSeconds - 300), random.int(20, 180));
  }
  const outdoor = OUTDOOR.has(activityType);
  const extra = EXTRA_STREAMS[activityType] ?? [];
  const reserve = persona.maxHeartRate - persona.restingHeartRate;

  const timesMs: number[] = [];
  const heartRate: number[] = [];
  const extraValues = extra.map(() => [] as number[]);
  const latitudes: number[] = [];
  const longitudes: number[] = [];
  const altitudesM: number[] = [];
  const chunks: WorkoutChunk[] = [];
  const events: PlannedWorkout['events'] = [];
  const activities: PlannedWorkout['activities'] = [];
  const distanceByType = new Map<string, number>(); // centimetres, summed exactly

  let wallMs = startMs;
  let second = 0;
  let hr = persona.restingHeartRate + 15;
  let latitude = persona.home.latitude + random.between(-0.01, 0.01);
  let longitude = persona.home.longitude + random.between(-0.01, 0.01);
  let heading = random.between(0, 2 * Math.PI);
  const phase = random.between(0, 2 * Math.PI);
  let chunk: { startMs: number; endMs: number; steps: number; energy: number; distance: number; leg: LegType } | null = null;
  let splitStartMs = startMs;
  let splitDistance = 0;
  const closeChunk = () => {
    if (chunk === null) return;
    const model = LEGS[chunk.leg];
    const distanceCm = model.distanceType ? Math.round(chunk.distance * 100) : 0;
    if (model.distanceType) distanceByType.set(model.distanceType, (distanceByType.get(model.distanceType) ?? 0) + distanceCm);
    chunks.push({
      startMs: chunk.startMs,
      endMs: chunk.endMs,
      steps: Math.round(chunk.steps),
      energyKcal: round(chunk.energy, 3),
      distanceM: distanceCm / 100,
      distanceType: model.distanceType,
    });
    chunk = null;
  };

  for (const [leg, minutes] of legs) {
    const model = LEGS[leg];
    const legStartMs = wallMs;
    const baseSpeed = model.speed ? random.between(model.speed[0], model.speed[1]) : 0;
    const cadenceSteps = model.stepsPerMinute ? random.between(model.stepsPerMinute[0], model.stepsPerMinute[1]) : 0;
    const basePower = leg === 'cycling' ? random.between(140, 230) * (persona.weightKg / 75) : 0;
    const targetHr = persona.restingHeartRate + model.intensity * reserve;
    const legSeconds = Math.round(minutes * 60);
    for (let s = 0; s < legSeconds; s++, second++) {
      const pause = pauses.get(second);
      if (pause !== undefined) {
        events.push({ type: 'pause', start: wallMs, end: wallMs + pause * SECOND });
        wallMs += pause * SECOND;
        hr -= 8;
      }
      let target = targetHr + second * 0.002 + 3 * Math.sin(second / 47 + phase);
      if (leg === 'traditionalStrengthTraining') target += Math.sin((2 * Math.PI * second) / 150) > 0 ? 18 : -12;
      hr += (target - hr) / 45 + random.normal(0, 0.7);
      const heart = Math.max(persona.restingHeartRate - 5, Math.min(persona.maxHeartRate, Math.round(hr)));
      const speed = baseSpeed === 0 ? 0 : Math.max(0, round(baseSpeed * (1 + 0.06 * Math.sin((2 * Math.PI * second) / 300 + phase)) + random.normal(0, 0.04 * baseSpeed), 2));
      timesMs.push(wallMs);
      heartRate.push(heart);
      for (const [i, identifier] of extra.entries()) extraValues[i].push(streamValue(identifier, speed, baseSpeed, basePower, persona.weightKg, random));

      if (outdoor) {
        heading += random.normal(0, 0.03);
        latitude += (speed * Math.cos(heading)) / 111_320;
        longitude += (speed * Math.sin(heading)) / (111_320 * Math.cos((latitude * Math.PI) / 180));
        latitudes.push(round(latitude, 6));
        longitudes.push(round(longitude, 6));
        const climb = activityType === 'hiking' ? 250 * Math.sin((Math.PI * second) / activeSeconds) : 0;
        altitudesM.push(round(persona.home.altitudeM + 12 * Math.sin(second / 500 + phase) + climb, 1));
      }

      if (chunk === null || chunk.leg !== leg || wallMs - chunk.startMs >= 5 * MINUTE) {
        closeChunk();
        chunk = { startMs: wallMs, endMs: wallMs, steps: 0, energy: 0, distance: 0, leg };
      }
      const effort = Math.max(0, Math.min(1.5, (heart - persona.restingHeartRate) / (targetHr - persona.restingHeartRate)));
      chunk.energy += ((model.met * (0.6 + 0.4 * effort) - 1) * 3.5 * persona.weightKg) / 200 / 60;
      chunk.steps += cadenceSteps / 60;
      chunk.distance += speed;
      chunk.endMs = wallMs + SECOND;

      // Lap and split events: a length of the pool, a running kilometre.
      splitDistance += speed;
      const splitLength = leg === 'swimming' ? 25 : leg === 'running' ? 1000 : 0;
      if (splitLength > 0 && splitDistance >= splitLength) {
        events.push({ type: leg === 'swimming' ? 'lap' : 'segment', start: splitStartMs, end: wallMs + SECOND });
        splitStartMs = wallMs + SECOND;
        splitDistance = 0;
      }
      wallMs += SECOND;
    }
    if (activityType === 'swimBikeRun') activities.push({ activityType: leg, start: legStartMs, end: wallMs });
    splitStartMs = wallMs;
    splitDistance = 0;
  }
  closeChunk();

  const energyKcal = round(chunks.reduce((sum, c) => sum + c.energyKcal, 0), 3);
  const distanceCm = [...distanceByType.values()].reduce((sum, cm) => sum + cm, 0);
  const distanceM = distanceByType.size > 0 ? distanceCm / 100 : null;
  const streams: WorkoutStream[] = [{ identifier: HEART_RATE, values: heartRate }, ...extra.map((identifier, i) => ({ identifier, values: extraValues[i] }))];
  const statistics: PlannedWorkout['statistics'] = { [ACTIVE_ENERGY]: { sum: energyKcal } };
  for (const stream of streams) statistics[stream.identifier] = summarize(stream.values);
  for (const [identifier, cm] of distanceByType) statistics[identifier] = { sum: cm / 100 };
  if (chunks.some((c) => c.steps > 0)) statistics[STEPS] = { sum: chunks.reduce((sum, c) => sum + c.steps, 0) };

  return {
    uuid: uuidFromName(`workout/${day.seed}/${persona.index}/${day.day}/${ordinal}`),
    activityType,
    source: activityType === 'yoga' ? 'oura' : 'watch',
    startMs,
    endMs: wallMs,
    durationS: activeSeconds,
    distanceM,
    energyKcal,
    timesMs,
    heartRate,
    streams,
    route: outdoor ? { latitudes, longitudes, altitudesM } : null,
    chunks,
    statistics,
    events,
    activities,
    metadata: {
      HKIndoorWorkout: !outdoor && activityType !== 'swimming',
      HKTimeZone: day.zone,
      ...(activityType === 'swimming' ? { HKSwimmingLocationType: 1, HKLapLength: 25 } : {}),
    },
  };
}

function streamValue(identifier: string, speed: number, baseSpeed: number, basePower: number, weightKg: number, random: Random): number {
  switch (identifier) {
    case RUNNING_POWER:
      return Math.round(weightKg * speed * 1.04 + random.normal(0, 6));
    case CYCLING_POWER:
      return Math.max(0, Math.round(basePower * (speed / baseSpeed) ** 2 * (1 + random.normal(0, 0.08))));
    case CYCLING_CADENCE:
      return random.chance(0.02) ? 0 : Math.round(random.normal(87, 4));
    default:
      return speed; // running and cycling speed
  }
}

function summarize(values: number[]): { min: number; avg: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { min, avg: round(sum / values.length, 1), max };
}

/** Minutes that count as exercise for the activity ring. */
export function exerciseMinutes(workout: PlannedWorkout): number {
  return workout.activityType === 'yoga' ? 0 : workout.durationS / 60;
}
