// One user-day of demo data: its bounds in the data's zone, the person, and
// named random streams. Each purpose (sleep, walks, heart…) draws from a
// stream of its own keyed by seed, user and date, so a day's data does not
// depend on which other days are generated or on the density chosen.
import { DateTime } from 'luxon';
import { dayAfter, dayStartMs } from '../core/local-days.js';
import type { Persona } from './persona.js';
import { Random } from './random.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

export interface Interval {
  startMs: number;
  endMs: number;
}

export interface DemoDay {
  seed: number;
  persona: Persona;
  zone: string;
  day: string;
  startMs: number;
  endMs: number;
  weekend: boolean;
  /** 'heavy': dense heart rate for benches. */
  heavy: boolean;
}

export function demoDay(seed: number, persona: Persona, zone: string, day: string, heavy: boolean): DemoDay {
  const weekday = DateTime.fromISO(day, { zone: 'UTC' }).weekday;
  return {
    seed,
    persona,
    zone,
    day,
    startMs: dayStartMs(day, zone),
    endMs: dayStartMs(dayAfter(day), zone),
    weekend: weekday >= 6,
    heavy,
  };
}

export function randomFor(day: DemoDay, purpose: string): Random {
  return Random.named(`${day.seed}/${day.persona.index}/${day.day}/${purpose}`);
}

/** Local clock time of the day as an instant (hours after local midnight). */
export function atHour(day: DemoDay, hours: number): number {
  return day.startMs + Math.round(hours * HOUR);
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.startMs < b.endMs && b.startMs < a.endMs;
}

export function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
