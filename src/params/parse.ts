// Turns raw query values into typed parameters, guided by the route's TypeBox
// schema: strict integers (no `1e3`, `0x10`, `+1`, `-0`, leading zeros or
// blanks), clamping where `x-clamp` says so, comma lists, enums and uuids.
// Every refusal is a 400 whose message names the parameter.
import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { errors } from '../errors.js';
import { canonicalUuid } from '../core/uuid.js';
import type { RawQuery } from './query-string.js';

const INTEGER = /^(0|-?[1-9][0-9]*)$/;

function literalValues(schema: TSchema): string[] | undefined {
  if (schema[Kind] !== 'Union') return undefined;
  return (schema.anyOf as TSchema[]).map((member) => String(member.const));
}

function integerValue(name: string, raw: string, schema: TSchema): number {
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  const bounds =
    min !== undefined && max !== undefined && !schema['x-clamp'] ? ` from ${min} to ${max}` : min !== undefined ? ` ≥ ${min}` : '';
  if (!INTEGER.test(raw)) throw errors.badRequest(`${name} must be an integer${bounds}`);
  let value = Number(raw);
  if (!Number.isSafeInteger(value) && !(schema['x-clamp'] && value > 0)) throw errors.badRequest(`${name} must be an integer${bounds}`);
  if (min !== undefined && value < min) throw errors.badRequest(`${name} must be an integer${bounds}`);
  if (max !== undefined && value > max) {
    if (schema['x-clamp']) value = max;
    else throw errors.badRequest(`${name} must be an integer${bounds}`);
  }
  return value;
}

function stringValue(name: string, raw: string, schema: TSchema): string {
  if (raw.trim() === '') throw errors.badRequest(`${name} must not be empty`);
  if (schema.format === 'uuid') {
    const uuid = canonicalUuid(raw);
    if (uuid === null) throw errors.badRequest(`${name} must be a uuid`);
    return uuid;
  }
  const maxLength = (schema.maxLength as number | undefined) ?? 200;
  if (raw.length > maxLength) throw errors.badRequest(`${name} must be at most ${maxLength} characters`);
  return raw;
}

function listValue(name: string, raw: string, schema: TSchema): string[] {
  const items = raw.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) throw errors.badRequest(`${name} must be a comma-separated list without empty entries`);
  // The cap counts what was sent ("a types list holds at most 50"), repeats included.
  const maxItems = schema.maxItems as number | undefined;
  if (maxItems !== undefined && items.length > maxItems) throw errors.badRequest(`${name} must name at most ${maxItems} identifiers`);
  const unique = [...new Set(items)];
  const itemSchema = schema.items as TSchema;
  return unique.map((item) => stringValue(name, item, itemSchema));
}

function coerce(name: string, raw: string, schema: TSchema): unknown {
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
    case 'array':
      return listValue(name, raw, schema);
    default:
      return stringValue(name, raw, schema);
  }
}

export interface ParamParser<T extends TObject> {
  (query: RawQuery): Static<T>;
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
      if (values.length > 1) throw errors.badRequest(`${name} must be given once`);
      result[name] = coerce(name, values[0], property);
    }
    if (!check.Check(result)) {
      const first = check.Errors(result).First();
      const name = first ? first.path.split('/')[1] || 'a parameter' : 'a parameter';
      throw errors.badRequest(`${name} is invalid`);
    }
    return result as Static<T>;
  };
}
