// Deterministic identifiers for demo data: the same seed gives the same
// users, samples and workouts on every run, so tests and benches can name
// them. UUIDs are SHA-1 name-based (version 5 layout) under a fixed demo
// namespace; samples, millions of them, share one hash per user-day and
// number the rest, so minting one costs a few integer operations.
import { createHash } from 'node:crypto';

const NAMESPACE = 'healthd-demo';

function nameDigest(name: string): Buffer {
  const digest = createHash('sha1').update(NAMESPACE).update('\0').update(name).digest();
  digest[6] = (digest[6] & 0x0f) | 0x50; // version 5
  digest[8] = (digest[8] & 0x3f) | 0x80; // RFC 4122 variant
  return digest;
}

function formatUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A version-5-style uuid for any demo name (workouts, state of mind entries…). */
export function uuidFromName(name: string): string {
  return formatUuid(nameDigest(name).toString('hex', 0, 16));
}

export function demoUserId(seed: number, index: number): string {
  return uuidFromName(`user/${seed}/${index}`);
}

/** A 32-bit integer from a name: seeds the pseudo-random streams. */
export function seedFromName(name: string): number {
  return createHash('sha1').update(NAMESPACE).update('\0').update(name).digest().readUInt32BE(0);
}

/**
 * Sample uuids of one user-day: the first 96 bits come from the day's name
 * hash (version and variant set), the last 32 number the day's samples
 * through a bijective mix, so they are unique within the day and look random.
 * Keys of one user-day share a prefix, which keeps index inserts local.
 */
export class SampleUuids {
  private readonly prefix: string;
  private counter: number;

  constructor(name: string) {
    const digest = nameDigest(name);
    const hex = digest.toString('hex', 0, 12);
    this.counter = digest.readUInt32BE(12); // where the day's numbering starts; it wraps at 2^32
    this.prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 24)}`;
  }

  next(): string {
    const x = mix32(this.counter);
    this.counter = (this.counter + 1) >>> 0;
    return this.prefix + HEX[x >>> 24] + HEX[(x >>> 16) & 0xff] + HEX[(x >>> 8) & 0xff] + HEX[x & 0xff];
  }
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** An invertible 32-bit mix (xor-shift-multiply), so distinct counters give distinct outputs. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}
