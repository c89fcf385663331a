// Inputs several tools share, and the type checks that tell an assistant
// which tool reads a type it named where that type does not belong.
import { z } from 'zod';
import { isUuid } from '../core/uuid.js';
import { kindOfIdentifier, type TypeKind } from '../core/registry.js';
import { INGEST, MCP, POINTS } from '../limits.js';
import { NO_NUL, NOT_EMPTY } from '../params/query-string.js';
import { ToolError } from './tool.js';

export const UserInput = z
  .string()
  .refine(isUuid, 'must be a user id (uuid) as list_users gives it')
  .optional()
  .describe('The user to read (userID from list_users). Leave out for the default user; naming another needs multi-user reads on.');

/**
 * zod runs a length check on any input that has a `length`: a string given for
 * a list of types would also hear "at most 10 types" (its characters counted),
 * a list given for a name "at most 255 characters". Each length check here
 * runs only on the type it measures.
 */
export const ON_ARRAY = { when: (payload: { value: unknown }) => Array.isArray(payload.value) };
export const ON_STRING = { when: (payload: { value: unknown }) => typeof payload.value === 'string' };

/** A type identifier or an activity type: as long as a writer may store one (the routes' Name). */
export const NameInput = z
  .string()
  .min(1, { message: NOT_EMPTY, ...ON_STRING })
  // The route reads a name of spaces alone as none given, and would refuse it under its own name for the parameter.
  // (An empty name is min's to refuse: said once.)
  .refine((name) => name === '' || name.trim() !== '', NOT_EMPTY)
  .max(INGEST.nameChars, { message: `must be at most ${INGEST.nameChars} characters`, ...ON_STRING })
  .refine((name) => !name.includes('\u0000'), NO_NUL);

/**
 * One identifier of a list. The route reads a list as comma-separated and
 * trims each entry: an item holding a comma, or spaces around it, would be
 * read as other types than the one the tool checked.
 */
const TypeItem = NameInput.refine((name) => !name.includes(','), 'must be one identifier, without commas').refine(
  // Spaces alone are NameInput's to refuse.
  (name) => name.trim() === name || name.trim() === '',
  'must not begin or end with spaces',
);

export const TypesInput = (what: string) =>
  z
    .array(TypeItem)
    .min(1, { message: 'must name at least one type', ...ON_ARRAY })
    .max(MCP.typesPerCall, { message: `must name at most ${MCP.typesPerCall} types`, ...ON_ARRAY })
    .describe(`${what} (1–${MCP.typesPerCall} HealthKit identifiers such as HKQuantityTypeIdentifierStepCount; list_available_types shows what is stored).`);

export const WorkoutUuid = z.string().refine(isUuid, 'must be a workout uuid as list_workouts gives it').describe('The workout (uuid from list_workouts).');

export const MaxPoints = (what: string) =>
  z
    .number()
    .int('must be a whole number')
    .min(POINTS.min, `must be at least ${POINTS.min} (the first and last points are always kept)`)
    .max(POINTS.max, `must be at most ${POINTS.max}`)
    .default(MCP.defaultPoints)
    .describe(`${what}: default ${MCP.defaultPoints}, at most ${POINTS.max}; the first and last are always kept.`);

export const Offset = z.number().int('must be a whole number').min(0, 'must be 0 or more').default(0).describe('Items to skip: the nextOffset of the previous call.');

/** The tool that reads a kind of type. */
export const TOOL_FOR_KIND: Readonly<Record<TypeKind, string>> = {
  quantity: 'get_daily_metrics (one value per day), get_latest_metrics or get_samples (raw)',
  category: 'get_samples (get_sleep for sleep nights)',
  workout: 'list_workouts',
  heartbeatSeries: 'get_samples',
  ecg: 'get_samples',
  medicationDose: 'get_samples',
  stateOfMind: 'get_state_of_mind',
  activitySummary: 'get_activity_rings',
};

/**
 * The kind of a type identifier, refusing one that is no HealthKit name. One
 * the registry does not know takes its kind from its prefix, as the catalog
 * lists it (a writer may have stored it): the route behind then answers
 * whether it is stored.
 */
export function knownType(identifier: string): TypeKind {
  const kind = kindOfIdentifier(identifier);
  if (kind === undefined) throw new ToolError(`unknown type: ${identifier} (list_available_types shows the stored types; the healthd://types resource every known one)`);
  return kind;
}

/** Refuses an identifier that has no daily or latest values. */
export function requireQuantity(identifier: string): void {
  const kind = knownType(identifier);
  if (kind !== 'quantity') throw new ToolError(`${identifier} is a ${kind} type, not a quantity: read it with ${TOOL_FOR_KIND[kind]}`);
}
