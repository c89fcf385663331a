// Turns raw query values into typed parameters, guided by the route's TypeBox
// schema: strict integers (no `1e3`, `0x10`, `+1`, `-0`, leading zeros or
// blanks), clamping where `x-clamp` says so, lists (comma-separated, repeated
// or both: generated clients repeat the name), enums and uuids. A scalar given
// twice is refused. Every refusal is a 400 whose message names the parameter.
import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { errors } from '../errors.js';
import { canonicalUuid } from '../core/uuid.js';
import { NOT_EMPTY, type Params } from './query-string.js';

const INTEGER = /^(0|-?[1-9][0-9]*)$/;

function literalValues(schema: TSchema): string[] | undefined {
  if (schema[Kind] !== 'Union') return undefined;
  return (schema.anyOf as TSchema[]).map((member) => String(member.const));
}

function integerValue(name: string, raw: string, schema: TSchema): number {
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  const clamp = schema['x-clamp'] as number | undefined;
  const refuse = () => {
    if (schema['x-epoch-ms']) return errors.badTimestamp(name);
    const bounds = min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` ≥ ${min}` : '';
    return errors.badRequest(`${name} must be an integer${bounds}`);
  };
  if (!INTEGER.test(raw)) throw refuse();
  const value = Number(raw);
  if (clamp !== undefined && value > clamp) return clamp;
  if (!Number.isSafeInteger(value)) throw refuse();
  if (min !== undefined && value < min) throw refuse();
  if (max !== undefined && value > max) throw refuse();
  return value;
}

function stringValue(name: string, raw: string, schema: TSchema): string {
  if (raw.trim() === '') throw errors.badRequest(`${name} ${NOT_EMPTY}`);
  if (schema.format === 'uuid') {
    const uuid = canonicalUuid(raw);
    if (uuid === null) throw errors.badRequest(`${name} must be a uuid`);
    return uuid;
  }
  const maxLength = (schema.maxLength as number | undefined) ?? 200;
  if (raw.length > maxLength) throw errors.badRequest(`${name} must be at most ${maxLength} characters`);
  return raw;
}

/** Every identifier of a list parameter, however it was given: A,B or A&B or both. */
function listValue(name: string, raws: readonly string[], schema: TSchema): string[] {
  const items = raws.flatMap((raw) => raw.split(',')).map((item) => item.trim());
  if (items.some((item) => item === '')) throw errors.badRequest(`${name} must be a comma-separated list without empty entries`);
  // The cap counts what was sent ("a types list holds at most 50"), repeats included.
  const maxItems = schema.maxItems as number | undefined;
  if (maxItems !== undefined && items.length > maxItems) throw errors.badRequest(`${name} must name at most ${maxItems} identifiers`);
  const unique = [...new Set(items)];
  const itemSchema = schema.items as TSchema;
  return unique.map((item) => stringValue(name, item, itemSchema));
}

function coerce(name: string, raws: readonly string[], schema: TSchema): unknown {
  if (schema.type === 'array') return listValue(name, raws, schema);
  if (raws.length > 1) throw errors.badRequest(`${name} must be given once`);
  const raw = raws[0];
  const choices = literalValues(schema);
  if (choices) {
    if (!choices.includes(raw)) throw errors.badRequest(`${name} must be one of ${choices.join(', ')}`);
    return raw;
  }
  switch (schema.type) {
    case 'integer':
      return integerValue(name, raw, schema);
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw errors.badRequest(`${name} must be true or false`);
    default:
      return stringValue(name, raw, schema);
  }
}

export interface ParamParser<T extends TObject> {
  (query: Params): Static<T>;
}

/** Compiles a parser for one route's query schema (unknown parameters are ignored). */
export function compileParamParser<T extends TObject>(schema: T): ParamParser<T> {
  const check = TypeCompiler.Compile(schema);
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties) as [string, TSchema][];
  return (query) => {
    const result: Record<string, unknown> = {};
    for (const [name, property] of entries) {
      const values = query.get(name);
      if (values === undefined) {
        if (property.default !== undefined) result[name] = property.default;
        else if (required.has(name)) throw errors.badRequest(`${name} is required`);
        continue;
      }
      result[name] = coerce(name, values, property);
    }
    if (!check.Check(result)) {
      const first = check.Errors(result).First();
      const name = first ? first.path.split('/')[1] || 'a parameter' : 'a parameter';
      throw errors.badRequest(`${name} is invalid`);
    }
    return result as Static<T>;
  };
}
