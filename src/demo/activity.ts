// Everyday movement as two devices see it: walking bouts through the waking
// hours recorded by the watch in short chunks and, mostly, by the phone too
// with its own chunk edges and counts (so the raw rows overlap and only the
// daily aggregates are deduplicated); the watch's low background energy in
// between; and the watch's workout chunks. The phone alone counts while the
// watch charges in the morning.
import { MINUTE, overlaps, randomFor, round, type DemoDay, type Interval } from './day.js';
import { ACTIVE_ENERGY, DISTANCE_WALKING_RUNNING, STEPS } from './identifiers.js';
import type { Random } from './random.js';
import type { SampleOut, SourceKey } from './samples.js';
import type { PlannedWorkout } from './workouts.js';

export interface Walk extends Interval {
  stepsPerMinute: number;
}

/** Walking bouts between waking and bedtime, clear of workouts and naps; ~9000 steps on an average day. */
export function planWalks(day: DemoDay, awake: Interval, avoid: Interval[]): Walk[] {
  const random = randomFor(day, 'walks');
  const walks: Walk[] = [];
  let at = awake.startMs + Math.round(random.between(2, 20) * MINUTE);
  while (true) {
    const kind = random.next();
    const minutes = kind < 0.7 ? random.between(1, 6) : kind < 0.95 ? random.between(8, 20) : random.between(25, 45);
    const walk = { startMs: at, endMs: at + Math.round(minutes * MINUTE), stepsPerMinute: random.between(86, 118) };
    if (walk.endMs >= awake.endMs) break;
    const blocker = avoid.find((other) => overlaps(other, { startMs: walk.startMs, endMs: walk.endMs + 5 * MINUTE }));
    if (blocker) at = blocker.endMs + Math.round(random.between(3, 15) * MINUTE);
    else {
      walks.push(walk);
      at = walk.endMs + Math.round(random.between(10, 130) * MINUTE / day.persona.activeness);
    }
  }
  return walks;
}

/** Steps, active energy and walking distance of the day from watch, phone and workouts, in any order. */
export function movementSamples(day: DemoDay, awake: Interval, walks: Walk[], watchOff: Interval, workouts: PlannedWorkout[]): SampleOut[] {
  const random = randomFor(day, 'movement');
  const { persona } = day;
  const out: SampleOut[] = [];
  const weightFactor = persona.weightKg / 70;

  const chunk = (source: SourceKey, startMs: number, endMs: number, steps: number, stride: number, kcalPerStep: number) => {
    out.push({ identifier: STEPS, startMs, endMs, value: steps, source });
    out.push({ identifier: DISTANCE_WALKING_RUNNING, startMs, endMs, value: round(steps * stride, 2), source });
    out.push({ identifier: ACTIVE_ENERGY, startMs, endMs, value: round(steps * kcalPerStep * weightFactor, 3), source });
  };

  for (const walk of walks) {
    const watchOn = !overlaps(walk, watchOff);
    if (watchOn) {
      for (const [startMs, endMs] of pieces(walk.startMs, walk.endMs, 7 * MINUTE, random)) {
        const steps = Math.round((walk.stepsPerMinute * (endMs - startMs)) / MINUTE * random.between(0.95, 1.05));
        chunk('watch', startMs, endMs, steps, persona.strideM * random.between(0.98, 1.02), 0.042);
      }
    }
    // The phone is in a pocket for most walks (always while the watch charges), with its own edges and counts.
    if (watchOn && !random.chance(0.85)) continue;
    const startMs = walk.startMs + Math.round(random.between(0, 40_000));
    const endMs = Math.max(startMs + 30_000, walk.endMs - Math.round(random.between(0, 40_000)));
    const ratio = random.between(0.86, 1.03);
    for (const [from, to] of pieces(startMs, endMs, 10 * MINUTE, random)) {
      const steps = Math.round((walk.stepsPerMinute * ratio * (to - from)) / MINUTE);
      chunk('phone', from, to, steps, persona.strideM * random.between(0.94, 1.06), 0.036);
    }
  }

  for (const workout of workouts) {
    for (const c of workout.chunks) {
      out.push({ identifier: ACTIVE_ENERGY, startMs: c.startMs, endMs: c.endMs, value: c.energyKcal, source: workout.source });
      if (c.steps > 0) out.push({ identifier: STEPS, startMs: c.startMs, endMs: c.endMs, value: c.steps, source: workout.source });
      if (c.distanceType) out.push({ identifier: c.distanceType, startMs: c.startMs, endMs: c.endMs, value: c.distanceM, source: workout.source });
    }
  }

  // Background energy from the watch in the quiet stretches between walks and workouts.
  const busy = [...walks, ...workouts, watchOff].sort((a, b) => a.startMs - b.startMs);
  let quietFrom = awake.startMs;
  for (const span of [...busy, { startMs: awake.endMs, endMs: awake.endMs }]) {
    for (const [startMs, endMs] of pieces(quietFrom, Math.min(span.startMs, awake.endMs), 20 * MINUTE, random)) {
      if (endMs - startMs < 2 * MINUTE) continue;
      out.push({ identifier: ACTIVE_ENERGY, startMs, endMs, value: round(((endMs - startMs) / MINUTE) * random.between(0.1, 0.35) * weightFactor, 3), source: 'watch' });
    }
    quietFrom = Math.max(quietFrom, span.endMs);
  }
  return out;
}

/** [from, to) cut into consecutive pieces of at most `longest`, at whole seconds. */
function pieces(fromMs: number, toMs: number, longest: number, random: Random): Array<[number, number]> {
  const cuts: Array<[number, number]> = [];
  let at = fromMs;
  while (at < toMs) {
    const next = Math.min(toMs, at + Math.round(random.between(0.5, 1) * longest / 1000) * 1000);
    if (next <= at) break;
    cuts.push([at, next]);
    at = next;
  }
  return cuts;
}
