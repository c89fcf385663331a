// Building blocks for parameter and response schemas. Custom keywords:
// `x-clamp` (values above `maximum` are clamped, not refused) and
// `x-style: 'comma'` (an array given as one comma-separated value). The
// parameter parser, /openapi.json and /docs all read them from here.
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
FormatRegistry.Set('uuid', (value) => UUID.test(value));
FormatRegistry.Set('date', (value) => /^\d{4}-\d{2}-\d{2}$/.test(value));

export const MAX_EPOCH_MS = 253_402_300_799_999;
export const MAX_TYPES = 50;

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });

export const EpochMs = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, description });

export const Start = (description = 'Range start, epoch ms (inclusive).') => EpochMs(description);
export const End = (description = 'Range end, epoch ms (exclusive); must be after start.') => EpochMs(description);

export const Offset = () =>
  Type.Integer({ minimum: 0, default: 0, description: 'Rows to skip; pass the previous nextOffset.' });

export const Limit = (defaultValue: number, maximum: number, what: string) =>
  Type.Integer({
    minimum: 1,
    maximum,
    default: defaultValue,
    'x-clamp': true,
    description: `${what} per page: default ${defaultValue}, at most ${maximum}; larger values are clamped to ${maximum}.`,
  });

export const TypeList = (description: string) =>
  Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: MAX_TYPES,
    'x-style': 'comma',
    description: `${description} Comma-separated, at most ${MAX_TYPES} identifiers.`,
  });

export const Enum = <T extends string>(values: readonly T[], description: string, defaultValue?: T) =>
  Type.Union(values.map((v) => Type.Literal(v)), { description, ...(defaultValue === undefined ? {} : { default: defaultValue }) });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const LocalDate = (description?: string) => Type.String({ format: 'date', description });

export const ErrorBody = Type.Object({ error: Type.String() }, { additionalProperties: false, $id: 'Error' });
