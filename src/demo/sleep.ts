// Nights as the devices record them: the watch writes staged sleep (core,
// deep, REM, with short awake spells), the phone one in-bed block around it.
// A night is keyed by its wake-up day and starts the evening before, so it
// always crosses local midnight; now and then an afternoon nap follows.
import { SLEEP_ANALYSIS, SleepValue } from '../core/registry.js';
import { atHour, MINUTE, randomFor, type DemoDay, type Interval } from './day.js';
import type { SampleOut, SourceKey } from './samples.js';

export interface SleepSegment extends Interval {
  value: number;
}

export interface Night {
  bedMs: number;
  asleepMs: number;
  wakeMs: number;
  /** The phone's in-bed block ends when the person gets up. */
  upMs: number;
  stages: SleepSegment[];
}

export function planNight(wakeDay: DemoDay): Night {
  const random = randomFor(wakeDay, 'night');
  const bedMs = atHour(wakeDay, -random.between(0.3, 1.9));
  const asleepMs = bedMs + Math.round(random.between(4, 28) * MINUTE);
  const wakeMs = atHour(wakeDay, random.between(6.1, 7.6) + (wakeDay.weekend ? random.between(0.4, 1.4) : 0));
  const stages: SleepSegment[] = [];
  let at = asleepMs;
  const push = (value: number, minutes: number) => {
    if (at >= wakeMs || minutes <= 0) return;
    const endMs = Math.min(wakeMs, at + Math.round(minutes * MINUTE));
    stages.push({ startMs: at, endMs, value });
    at = endMs;
  };
  for (let cycle = 0; at < wakeMs; cycle++) {
    push(SleepValue.asleepCore, random.between(20, 45));
    push(SleepValue.asleepDeep, cycle < 2 ? random.between(20, 45) : cycle < 3 ? random.between(8, 20) : random.between(0, 8));
    push(SleepValue.asleepCore, random.between(5, 15));
    push(SleepValue.asleepREM, cycle === 0 ? random.between(5, 12) : random.between(15, 35));
    if (random.chance(0.45)) push(SleepValue.awake, random.between(1, 5));
  }
  return { bedMs, asleepMs, wakeMs, upMs: wakeMs + Math.round(random.between(2, 15) * MINUTE), stages };
}

/** An afternoon nap on about one day in twelve, recorded by the watch only. */
export function planNap(day: DemoDay): Interval | null {
  const random = randomFor(day, 'nap');
  if (!random.chance(1 / 12)) return null;
  const startMs = atHour(day, random.between(13.5, 16));
  return { startMs, endMs: startMs + Math.round(random.between(18, 50) * MINUTE) };
}

/** Sleep analysis samples of a night and a nap: the watch's stages and the phone's in-bed block. */
export function sleepSamples(night: Night, nap: Interval | null): SampleOut[] {
  const sample = (segment: SleepSegment, source: SourceKey): SampleOut => ({ identifier: SLEEP_ANALYSIS, ...segment, source });
  const out = night.stages.map((stage) => sample(stage, 'watch'));
  if (nap) out.push(sample({ ...nap, value: SleepValue.asleepCore }, 'watch'));
  out.push(sample({ startMs: night.bedMs, endMs: night.upMs, value: SleepValue.inBed }, 'phone'));
  return out;
}

/** When the person sleeps during [day start, day end): the end of last night, a nap, the start of tonight. */
export function asleepDuring(lastNight: Night, tonight: Night, nap: Interval | null): Interval[] {
  const spans = [{ startMs: lastNight.asleepMs, endMs: lastNight.wakeMs }];
  if (nap) spans.push(nap);
  spans.push({ startMs: tonight.asleepMs, endMs: tonight.wakeMs });
  return spans;
}
