// Building blocks for parameter and response schemas. Custom keywords:
// `x-clamp` (values above `maximum` are clamped, not refused) and
// `x-style: 'comma'` (an array given as one comma-separated value). The
// parameter parser, /openapi.json and /docs all read them from here.
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox';
import { isUuid } from '../core/uuid.js';
import { MAX_EPOCH_MS, POINTS, TYPES_PER_LIST } from '../limits.js';

FormatRegistry.Set('uuid', isUuid);
FormatRegistry.Set('date', (value) => /^\d{4}-\d{2}-\d{2}$/.test(value));

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });

export const EpochMs = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, description });

export const Start = (description = 'Range start, epoch ms (inclusive).') => EpochMs(description);
export const End = (description = 'Range end, epoch ms (exclusive); must be after start.') => EpochMs(description);

export const Offset = () =>
  Type.Integer({ minimum: 0, default: 0, description: 'Rows to skip; pass the previous nextOffset.' });

/** A page size (limits.ts PAGE): given or defaulted, never absent. */
export const Limit = (page: { default: number; max: number }, what: string) =>
  Type.Integer({
    minimum: 1,
    maximum: page.max,
    default: page.default,
    'x-clamp': true,
    description: `${what} per page: default ${page.default}, at most ${page.max}; larger values are clamped to ${page.max}.`,
  });

/** Points per stream or track (limits.ts POINTS): given or defaulted, never absent. */
export const MaxPoints = (what: string) =>
  Type.Integer({
    minimum: POINTS.min,
    maximum: POINTS.max,
    default: POINTS.default,
    'x-clamp': true,
    description: `${what}: default ${POINTS.default}, at most ${POINTS.max} (larger values are clamped), at least ${POINTS.min} (the first and last points are always kept).`,
  });

export const TypeList = (description: string) =>
  Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: TYPES_PER_LIST,
    'x-style': 'comma',
    description: `${description} Comma-separated, at most ${TYPES_PER_LIST} identifiers.`,
  });

export const Enum = <T extends string>(values: readonly T[], description: string, defaultValue?: T) =>
  Type.Union(values.map((v) => Type.Literal(v)), { description, ...(defaultValue === undefined ? {} : { default: defaultValue }) });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const LocalDate = (description?: string) => Type.String({ format: 'date', description });

/** The `user` parameter every /v1 route takes (api.md Authentication 6). */
export const UserParams = Type.Object({
  user: Type.Optional(
    Uuid('User to read (uuid). Without it the default user is served; naming anyone else needs SERVICE_MULTI_USER=true, otherwise 403.'),
  ),
});

export const ErrorBody = Type.Object({ error: Type.String() }, { additionalProperties: false, $id: 'Error' });
