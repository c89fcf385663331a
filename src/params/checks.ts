// Refusals that need more than one parameter or the type registry: ranges
// (end after start, caps in 24-hour days, at most MAX_LOCAL_DAYS local days
// for day-grained answers) and type identifiers. Used by the routes and the
// export's plan; each refusal is a 400 whose message names the parameter.
import { countLocalDaysTouched } from '../core/local-days.js';
import { isQuantityType, isSampleType, typeInfo } from '../core/registry.js';
import { errors } from '../errors.js';
import { MAX_LOCAL_DAYS } from '../limits.js';

const DAY_MS = 86_400_000;

export interface RangeRule {
  /** Cap on end - start, in 24-hour days. */
  capDays?: number;
  /** With a cap: the answer is per local day, so also refuse more than MAX_LOCAL_DAYS touched local days (in this zone). */
  dayGrainedIn?: string;
}

/** Checks a half-open range [start, end) against a route's rules. */
export function checkRange(start: number, end: number, rule: RangeRule = {}): void {
  if (end <= start) throw errors.badRequest('end must be after start');
  if (rule.capDays === undefined) return;
  if (end - start > rule.capDays * DAY_MS) throw errors.badRequest(`range must not exceed ${rule.capDays} days`);
  if (rule.dayGrainedIn !== undefined && countLocalDaysTouched(start, end, rule.dayGrainedIn) > MAX_LOCAL_DAYS) {
    throw errors.badRequest(`range must not touch more than ${MAX_LOCAL_DAYS} local days`);
  }
}

export function requireQuantityTypes(types: readonly string[], parameter = 'types'): void {
  for (const identifier of types) {
    if (!typeInfo(identifier)) throw errors.badRequest(`unknown type: ${identifier}`);
    if (!isQuantityType(identifier)) throw errors.badRequest(`${parameter} must name quantity types; ${identifier} is not one`);
  }
}

export function requireKnownTypes(types: readonly string[]): void {
  for (const identifier of types) if (!typeInfo(identifier)) throw errors.badRequest(`unknown type: ${identifier}`);
}

export function requireSampleType(identifier: string): void {
  if (!typeInfo(identifier)) throw errors.badRequest(`unknown type: ${identifier}`);
  if (!isSampleType(identifier)) {
    throw errors.badRequest(`type must be a sample type; ${identifier} has its own route`);
  }
}
