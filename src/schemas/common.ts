// Building blocks for parameter and response schemas. Custom keywords:
// - `x-clamp: N` — values above N are clamped to N, not refused. It stands in
//   for `maximum`, which would make validators (Prism) refuse a request the
//   server accepts (limit=1000 where at most 200 come back).
// - `x-style: 'list'` — an array parameter may be given comma-separated
//   (types=A,B), repeated (types=A&types=B), or both; the cap counts every
//   identifier sent.
// - `x-epoch-ms: true` — an instant in epoch milliseconds (its refusals say so).
// The parameter parser, /openapi.json and /docs all read them from here.
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox';
import { isUuid } from '../core/uuid.js';
import { INGEST, MAX_EPOCH_MS, POINTS, TYPES_PER_LIST } from '../limits.js';

FormatRegistry.Set('uuid', isUuid);
FormatRegistry.Set('date', (value) => /^\d{4}-\d{2}-\d{2}$/.test(value));

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });

export const EpochMs = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, 'x-epoch-ms': true, description });

export const Start = (description = 'Range start, epoch ms (inclusive).') => EpochMs(description);
export const End = (description = 'Range end, epoch ms (exclusive); must be after start.') => EpochMs(description);

export const Offset = () =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Rows to skip; pass the previous nextOffset.' });

/** A type identifier or an activity type: a name the store indexes, so one longer than a writer may store (INGEST.nameChars) names nothing. */
export const Name = (description?: string) => Type.String({ minLength: 1, maxLength: INGEST.nameChars, description });

/** A page size (limits.ts PAGE): given or defaulted, never absent. */
export const Limit = (page: { default: number; max: number }, what: string) =>
  Type.Integer({
    minimum: 1,
    default: page.default,
    'x-clamp': page.max,
    description: `${what} per page: default ${page.default}, at most ${page.max}; larger values are clamped to ${page.max}.`,
  });

/** Points per stream or track (limits.ts POINTS): given or defaulted, never absent. */
export const MaxPoints = (what: string) =>
  Type.Integer({
    minimum: POINTS.min,
    default: POINTS.default,
    'x-clamp': POINTS.max,
    description: `${what}: default ${POINTS.default}, at most ${POINTS.max} (larger values are clamped), at least ${POINTS.min} (the first and last points are always kept).`,
  });

export const TypeList = (description: string) =>
  Type.Array(Name(), {
    minItems: 1,
    maxItems: TYPES_PER_LIST,
    'x-style': 'list',
    description: `${description} Comma-separated (types=A,B) or repeated (types=A&types=B), at most ${TYPES_PER_LIST} identifiers in all.`,
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
