// A small seeded pseudo-random generator (mulberry32) with the draws the demo
// needs. Never Math.random: the same seed must give the same data.
import { seedFromName } from './ids.js';

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A stream of its own for one named purpose, e.g. `3/2026-05-04/sleep`. */
  static named(name: string): Random {
    return new Random(seedFromName(name));
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor((max - min + 1) * this.next());
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Roughly normal (sum of three uniforms), cheap and bounded at ±3 sd. */
  normal(mean: number, sd: number): number {
    return mean + sd * (this.next() + this.next() + this.next() - 1.5) * 2;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(items.length * this.next())];
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [choice, weight] of choices) {
      if ((at -= weight) < 0) return choice;
    }
    return choices[choices.length - 1][0];
  }
}
