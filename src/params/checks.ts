// Refusals that need more than one parameter or the type registry: ranges
// (end after start, caps in 24-hour days, at most MAX_LOCAL_DAYS local days
// for day-grained answers) and type identifiers (known to the registry or
// stored by a writer: src/reads/types.ts). Used by the routes and the
// export's plan; each refusal is a 400 whose message names the parameter.
import { DAY_MS, countLocalDaysTouched } from '../core/local-days.js';
import { allTypes, SAMPLE_KINDS } from '../core/registry.js';
import { errors } from '../errors.js';
import { MAX_LOCAL_DAYS } from '../limits.js';
import type { KnownTypes } from '../reads/types.js';


export interface RangeRule {
  /** Cap on end - start, in 24-hour days. */
  capDays?: number;
  /** With a cap: the answer is per local day, so also refuse more than MAX_LOCAL_DAYS touched local days (in this zone). */
  dayGrainedIn?: string;
}

/** Checks a half-open range [start, end) against a route's rules. */
export function checkRange(start: number, end: number, rule: RangeRule = {}): void {
  if (end <= start) throw errors.badRange('end must be after start');
  if (rule.capDays === undefined) return;
  if (end - start > rule.capDays * DAY_MS) throw errors.badRange(`range must not exceed ${rule.capDays} days`);
  if (rule.dayGrainedIn !== undefined && countLocalDaysTouched(start, end, rule.dayGrainedIn) > MAX_LOCAL_DAYS) {
    throw errors.badRange(`range must not touch more than ${MAX_LOCAL_DAYS} local days`);
  }
}

// Identifiers by their name without the framework's prefix and by lower case,
// for the suggestion an unknown identifier gets (HeartRate → HKQuantityTypeIdentifierHeartRate).
const PREFIX = /^HK[A-Za-z]*?TypeIdentifier/;
const byLooseName = new Map<string, string>();
for (const { identifier } of allTypes) {
  byLooseName.set(identifier.toLowerCase(), identifier);
  const bare = identifier.replace(PREFIX, '').toLowerCase();
  if (bare !== '' && !byLooseName.has(bare)) byLooseName.set(bare, identifier);
}

/** The known identifier `identifier` most likely meant, or null. */
export function suggestedType(identifier: string): string | null {
  const loose = identifier.trim().toLowerCase();
  return byLooseName.get(loose) ?? byLooseName.get(loose.replace(/^hk[a-z]*?typeidentifier/, '')) ?? null;
}

const unknownType = (identifier: string) => errors.unknownType(identifier, suggestedType(identifier));

export function requireQuantityTypes(types: readonly string[], known: KnownTypes, parameter = 'types'): void {
  for (const identifier of types) {
    const kind = known.kinds.get(identifier);
    if (kind === undefined) throw unknownType(identifier);
    if (kind !== 'quantity') throw errors.badRequest(`${parameter} must name quantity types; ${identifier} is not one`);
  }
}

export function requireKnownTypes(types: readonly string[], known: KnownTypes): void {
  for (const identifier of types) if (!known.kinds.has(identifier)) throw unknownType(identifier);
}

export function requireSampleType(identifier: string, known: KnownTypes): void {
  const kind = known.kinds.get(identifier);
  if (kind === undefined) throw unknownType(identifier);
  if (!SAMPLE_KINDS.has(kind)) {
    throw errors.badRequest(`type must be a sample type; ${identifier} has its own route`);
  }
}
