// Cross-parameter rules shared by routes: ranges (end after start, caps in
// 24-hour days, at most 366 local days for day-grained answers) and type
// identifiers checked against the registry. Messages name the parameter.
import { localDaysTouched } from '../core/local-days.js';
import { isQuantityType, isSampleType, typeInfo } from '../core/registry.js';
import { errors } from '../errors.js';

const DAY_MS = 86_400_000;
export const MAX_LOCAL_DAYS = 366;

export interface RangeRule {
  /** Cap on end - start, in 24-hour days. */
  capDays?: number;
  /** The answer is per local day: refuse more than 366 touched days. */
  dayGrained?: boolean;
  timeZone?: string;
}

/** Checks [start, end); returns the local days it touches when dayGrained. */
export function checkRange(start: number, end: number, rule: RangeRule = {}): string[] {
  if (end <= start) throw errors.badRequest('end must be after start');
  if (rule.capDays !== undefined && end - start > rule.capDays * DAY_MS) {
    throw errors.badRequest(`range must not exceed ${rule.capDays} days`);
  }
  if (!rule.dayGrained) return [];
  if (rule.capDays !== undefined || end - start <= (MAX_LOCAL_DAYS + 2) * DAY_MS) {
    const days = localDaysTouched(start, end, rule.timeZone ?? 'UTC');
    if (rule.capDays !== undefined && days.length > MAX_LOCAL_DAYS) {
      throw errors.badRequest(`range must not touch more than ${MAX_LOCAL_DAYS} local days`);
    }
    return days;
  }
  return localDaysTouched(start, end, rule.timeZone ?? 'UTC');
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
