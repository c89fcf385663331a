// Heart and body readings: heart rate every ~5 minutes with a daily rhythm
// (every 2 s awake and 10 s asleep in heavy mode, for benches), the workout's
// own stream values while one runs, a daily resting rate, nightly HRV and
// blood oxygen, and a weigh-in a few mornings a week.
import { HOUR, MINUTE, randomFor, round, SECOND, type DemoDay, type Interval } from './day.js';
import { BODY_FAT, BODY_MASS, HEART_RATE, HRV_SDNN, OXYGEN_SATURATION, RESTING_HEART_RATE } from './identifiers.js';
import type { SampleOut, UserSamples } from './samples.js';
import type { Walk } from './activity.js';
import type { PlannedWorkout } from './workouts.js';

/** Answers "is t inside one of these sorted, disjoint intervals?" for increasing t in O(1) amortized. */
class IntervalCursor {
  private i = 0;
  constructor(private readonly intervals: readonly Interval[]) {}
  contains(t: number): boolean {
    while (this.i < this.intervals.length && this.intervals[this.i].endMs <= t) this.i++;
    return this.i < this.intervals.length && this.intervals[this.i].startMs <= t;
  }
}

/** Writes the day's heart rate straight to the sink: the densest series, millions of rows in heavy mode. */
export function writeHeartRate(
  day: DemoDay,
  sink: UserSamples,
  asleep: Interval[],
  walks: Walk[],
  watchOff: Interval,
  workouts: PlannedWorkout[],
): void {
  const random = randomFor(day, 'heart');
  const series = sink.seriesOf(HEART_RATE);
  const rest = day.persona.restingHeartRate;
  const sleeping = new IntervalCursor(asleep);
  const walking = new IntervalCursor(walks);
  const workoutStride = day.heavy ? 1 : 5;
  let next = 0;
  let t = day.startMs + Math.round(random.between(0, 120)) * SECOND;
  while (t < day.endMs) {
    const workout = workouts[next];
    if (workout !== undefined && t >= workout.startMs) {
      for (let i = 0; i < workout.timesMs.length; i += workoutStride) {
        sink.add(series, workout.timesMs[i], workout.timesMs[i], workout.heartRate[i], workout.source);
      }
      t = Math.max(t, workout.endMs) + Math.round(random.between(5, 60)) * SECOND;
      next++;
      continue;
    }
    if (t >= watchOff.startMs && t < watchOff.endMs) {
      t = watchOff.endMs + Math.round(random.between(5, 60)) * SECOND;
      continue;
    }
    const asleepNow = sleeping.contains(t);
    let value: number;
    if (asleepNow) {
      value = rest - 3 + 2 * Math.sin(t / 1_700_000) + random.normal(0, 1.5);
    } else {
      const hour = (t - day.startMs) / HOUR;
      value = rest + 14 + 6 * Math.sin((2 * Math.PI * (hour - 9)) / 24) + random.normal(0, 4) + (walking.contains(t) ? 24 : 0);
    }
    sink.add(series, t, t, Math.round(value), 'watch');
    const step = day.heavy ? (asleepNow ? 10 : 2) * SECOND : Math.round(random.between(240, 360)) * SECOND;
    t += step;
    if (workout !== undefined && t > workout.startMs) t = workout.startMs;
  }
}

/** Resting heart rate, HRV, blood oxygen and body measurements of the day, in any order. */
export function otherVitals(day: DemoDay, lastNight: Interval, tonightAsleepMs: number, watchOff: Interval): SampleOut[] {
  const random = randomFor(day, 'vitals');
  const { persona } = day;
  const out: SampleOut[] = [];
  const nightPart = { startMs: Math.max(day.startMs, lastNight.startMs), endMs: lastNight.endMs };
  const inNight = () => Math.round(random.between(nightPart.startMs, nightPart.endMs - MINUTE));
  const daytime = () => {
    const t = Math.round(random.between(lastNight.endMs + HOUR, tonightAsleepMs - HOUR));
    return t >= watchOff.startMs && t < watchOff.endMs ? watchOff.endMs + 5 * MINUTE : t;
  };

  out.push({
    identifier: RESTING_HEART_RATE,
    startMs: lastNight.endMs,
    endMs: lastNight.endMs,
    value: Math.round(random.normal(persona.restingHeartRate, 1.5)),
    source: 'watch',
  });

  for (let n = random.int(3, 5); n > 0; n--) {
    const startMs = inNight();
    out.push({ identifier: HRV_SDNN, startMs, endMs: startMs + MINUTE, value: round(persona.hrvMs * Math.exp(random.normal(0, 0.22)), 1), source: 'watch' });
  }
  if (random.chance(0.85)) {
    // The ring app's nightly average, stamped just before waking.
    const startMs = lastNight.endMs - 10 * MINUTE;
    out.push({ identifier: HRV_SDNN, startMs, endMs: lastNight.endMs, value: round(persona.hrvMs * Math.exp(random.normal(0.05, 0.12)), 1), source: 'oura' });
  }

  const oxygen = () => round(Math.min(0.99, Math.max(0.94, random.normal(0.968, 0.009))), 2);
  for (let n = random.int(4, 8); n > 0; n--) {
    const t = inNight();
    out.push({ identifier: OXYGEN_SATURATION, startMs: t, endMs: t, value: oxygen(), source: 'watch' });
  }
  for (let n = random.int(1, 3); n > 0; n--) {
    const t = daytime();
    out.push({ identifier: OXYGEN_SATURATION, startMs: t, endMs: t, value: oxygen(), source: 'watch' });
  }

  const dayNumber = Date.parse(day.day) / 86_400_000;
  const weighInMs = lastNight.endMs + 12 * MINUTE;
  if (random.chance(0.45)) {
    const kg = persona.weightKg + 0.8 * Math.sin((2 * Math.PI * dayNumber) / 60) + random.normal(0, 0.3);
    out.push({ identifier: BODY_MASS, startMs: weighInMs, endMs: weighInMs, value: round(kg, 1), source: 'phone', metadata: { HKWasUserEntered: true } });
  }
  if (random.chance(0.35)) {
    const fraction = persona.bodyFat + 0.006 * Math.sin((2 * Math.PI * dayNumber) / 60) + random.normal(0, 0.003);
    out.push({ identifier: BODY_FAT, startMs: weighInMs, endMs: weighInMs, value: round(fraction, 3), source: 'phone', metadata: { HKWasUserEntered: true } });
  }
  return out;
}
