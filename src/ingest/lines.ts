// The Puls Sync Protocol v1 lines as TypeBox schemas, written from FACTS.md
// and the protocol's JSON Schemas (../shared/protocol/schema/; test/ingest-
// schemas.test.ts checks the two agree). Unknown fields are ignored
// everywhere (additional properties allowed). A schema node may carry
// `x-message`, the words a refusal uses for it; checkLine turns the first
// error into `line N: <field> <problem>`.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { INGEST } from '../limits.js';

/** 0001-01-01 and 9999-12-31T23:59:59.999Z, epoch ms (FACTS §7). */
export const EPOCH_MS_RANGE = { min: -62_135_596_800_000, max: 253_402_300_799_999 } as const;
/** The days a timestamp, and a stored date, may fall on. */
export const DAY_RANGE_WORDS = 'from 0001-01-01 to 9999-12-31';
const RANGE_WORDS = `an epoch-ms timestamp ${DAY_RANGE_WORDS}`;

const msg = (message: string) => ({ 'x-message': message });
const Nullable = <T extends TSchema>(schema: T, message?: string) => Type.Union([schema, Type.Null()], message ? msg(message) : {});

export const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', ...msg('must be a uuid (8-4-4-4-12 hex digits)') });
const EpochMs = Type.Number({ minimum: EPOCH_MS_RANGE.min, maximum: EPOCH_MS_RANGE.max, ...msg(`must be ${RANGE_WORDS}`) });
/** Required timestamps: 0 counts as absent. */
const RequiredEpochMs = Type.Union(
  [Type.Number({ minimum: EPOCH_MS_RANGE.min, exclusiveMaximum: 0 }), Type.Number({ exclusiveMinimum: 0, maximum: EPOCH_MS_RANGE.max })],
  msg(`must be ${RANGE_WORDS} (0 counts as absent)`),
);
const NullableEpochMs = Nullable(EpochMs, `must be ${RANGE_WORDS} or null`);
const NonEmpty = Type.String({ minLength: 1, ...msg('must be a non-empty string') });
const NullableString = Nullable(Type.String(), 'must be a string or null');
/** A name the store indexes (a type, a source, an activity type): short enough for its index. */
const NAME_WORDS = `of at most ${INGEST.nameChars} characters`;
const Name = Type.String({ minLength: 1, maxLength: INGEST.nameChars, ...msg(`must be a non-empty string ${NAME_WORDS}`) });
const NullableName = Nullable(Type.String({ maxLength: INGEST.nameChars }), `must be a string ${NAME_WORDS}, or null`);
const NullableNumber = Nullable(Type.Number(), 'must be a number or null');

const TemporalContext = Type.Object({
  timeZoneID: NonEmpty,
  utcOffsetSeconds: Type.Integer({ minimum: -86_400, maximum: 86_400, ...msg('must be an integer from -86400 to 86400') }),
  source: NonEmpty,
  confidence: NonEmpty,
  tzdbVersion: Type.Optional(NullableString),
});
const NullableContext = Nullable(TemporalContext, 'must be a temporal context object or null');
const Metadata = Nullable(
  Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), msg('values must be strings, numbers or booleans')),
  'must be an object of strings, numbers and booleans, or null',
);

const enumOf = <T extends string>(values: readonly T[]) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    msg(`must be one of ${values.join(', ')}`),
  );

export const SAMPLE_KINDS = ['quantity', 'category', 'workout', 'heartbeatSeries', 'ecg', 'stateOfMind', 'medicationDose'] as const;
export type SampleKind = (typeof SAMPLE_KINDS)[number];

// --- header -----------------------------------------------------------------

/** A count: absent and null mean 0 (FACTS.md §7: an optional field may be null). */
const Count = Nullable(Type.Integer({ minimum: 0 }), 'must be an integer ≥ 0 or null');

/**
 * The header after its version was checked (framing.ts, before any other
 * field). Like the reference, only `batchID` and `type` are required and an
 * absent count is 0; the rest is checked when present.
 */
export const Header = Type.Object({
  clientVersion: Type.Optional(NullableString),
  timeZoneID: Type.Optional(Nullable(Type.String({ maxLength: 100 }), 'must be a time zone name of at most 100 characters')),
  batchID: Uuid,
  deviceID: Type.Optional(NullableString),
  type: NonEmpty,
  reason: Type.Optional(NullableString),
  exportedAt: Type.Optional(NullableEpochMs),
  sampleCount: Type.Optional(Count),
  deletionCount: Type.Optional(Count),
  routeCount: Type.Optional(Count),
  seriesCount: Type.Optional(Count),
  aggregateCount: Type.Optional(Count),
  activitySummaryCount: Type.Optional(Count),
  profileCount: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1 }), 'must be 0, 1 or null')),
});
export type HeaderLine = Static<typeof Header>;

// --- samples ----------------------------------------------------------------

const WorkoutStat = Type.Object({ min: Type.Optional(NullableNumber), avg: Type.Optional(NullableNumber), max: Type.Optional(NullableNumber), sum: Type.Optional(NullableNumber) });
const WorkoutEvent = Type.Object({
  type: NonEmpty,
  start: EpochMs,
  end: Type.Optional(NullableEpochMs),
  startContext: Type.Optional(NullableContext),
  endContext: Type.Optional(NullableContext),
  metadata: Type.Optional(Metadata),
});
const WorkoutActivity = Type.Object({
  activityType: NonEmpty,
  start: EpochMs,
  end: Type.Optional(NullableEpochMs),
  startContext: Type.Optional(NullableContext),
  endContext: Type.Optional(NullableContext),
  duration: Type.Number(msg('must be a number of seconds')),
  statistics: Type.Optional(Nullable(Type.Record(Type.String(), WorkoutStat), 'must be an object of statistics or null')),
});
export const WorkoutDetail = Type.Object({
  activityType: Name,
  duration: Type.Number(msg('must be a number of seconds')),
  totalEnergyKcal: Type.Optional(NullableNumber),
  totalDistanceMeters: Type.Optional(NullableNumber),
  statistics: Type.Optional(Nullable(Type.Record(Type.String(), Type.Number()), 'must be an object of numbers or null')),
  statisticsDetail: Type.Optional(Nullable(Type.Record(Type.String(), WorkoutStat), 'must be an object of {min, avg, max, sum} or null')),
  events: Type.Optional(Nullable(Type.Array(WorkoutEvent), 'must be an array of events or null')),
  activities: Type.Optional(Nullable(Type.Array(WorkoutActivity), 'must be an array of activities or null')),
});
const Heartbeats = Type.Array(Type.Tuple([Type.Number(), Type.Boolean()], msg('must be a [seconds, precededByGap] pair')), msg('must be an array of [seconds, precededByGap] pairs'));
const EcgDetail = Type.Object({
  classification: NonEmpty,
  averageHeartRateBpm: Type.Optional(NullableNumber),
  samplingFrequencyHz: Type.Optional(NullableNumber),
  symptomsStatus: NonEmpty,
  voltagesUV: Type.Array(Type.Number(), msg('must be an array of numbers')),
});
const MoodDetail = Type.Object({
  kind: NonEmpty,
  valence: Type.Number({ minimum: -1, maximum: 1, ...msg('must be a number from -1 to 1') }),
  valenceClassification: NonEmpty,
  labels: Type.Array(Type.String(), msg('must be an array of strings')),
  associations: Type.Array(Type.String(), msg('must be an array of strings')),
});
const MedicationDoseDetail = Type.Object({
  medication: Type.Optional(NullableString),
  status: NonEmpty,
  scheduledAt: Type.Optional(NullableEpochMs),
  scheduledAtContext: Type.Optional(NullableContext),
  doseQuantity: Type.Optional(NullableNumber),
  doseUnit: Type.Optional(NullableString),
});

const SAMPLE_FIELDS = {
  uuid: Uuid,
  type: Name,
  kind: enumOf(SAMPLE_KINDS),
  start: RequiredEpochMs,
  /** Absent, null or 0: the same as start. */
  end: Type.Optional(NullableEpochMs),
  startContext: Type.Optional(NullableContext),
  endContext: Type.Optional(NullableContext),
  value: Type.Optional(NullableNumber),
  unit: Type.Optional(NullableString),
  category: Type.Optional(Nullable(Type.Integer({ minimum: -32768, maximum: 32767 }), 'must be an integer from -32768 to 32767 or null')),
  sourceName: Type.Optional(NullableName),
  sourceBundleID: Type.Optional(NullableString),
  sourceVersion: Type.Optional(NullableString),
  device: Type.Optional(NullableName),
  metadata: Type.Optional(Metadata),
  workout: Type.Optional(Nullable(WorkoutDetail, 'must be a workout object or null')),
  heartbeats: Type.Optional(Nullable(Heartbeats, 'must be an array of [seconds, precededByGap] pairs or null')),
  ecg: Type.Optional(Nullable(EcgDetail, 'must be an ECG object or null')),
  stateOfMind: Type.Optional(Nullable(MoodDetail, 'must be a state of mind object or null')),
  medicationDose: Type.Optional(Nullable(MedicationDoseDetail, 'must be a medication dose object or null')),
};

/** Every sample line; then the kind's own schema makes its detail object required. */
export const Sample = Type.Object(SAMPLE_FIELDS);
export type SampleLine = Static<typeof Sample>;

const withDetail = <K extends string, D extends TSchema>(key: K, detail: D) => Type.Object({ ...SAMPLE_FIELDS, [key]: detail } as typeof SAMPLE_FIELDS & Record<K, D>);

/** Per kind, the sample schema with that kind's detail object required and non-null. */
export const SampleOfKind: Readonly<Record<SampleKind, TSchema>> = {
  quantity: Sample,
  category: withDetail('category', Type.Integer({ minimum: -32768, maximum: 32767, ...msg('is required for a category sample: an integer from -32768 to 32767') })),
  workout: withDetail('workout', WorkoutDetail),
  heartbeatSeries: withDetail('heartbeats', Heartbeats),
  ecg: withDetail('ecg', EcgDetail),
  stateOfMind: withDetail('stateOfMind', MoodDetail),
  medicationDose: withDetail('medicationDose', MedicationDoseDetail),
};

// --- wrapped lines ----------------------------------------------------------

export const Deletion = Type.Object({ uuid: Uuid, type: NonEmpty });

const Points = <T extends TSchema>(point: T) => Type.Array(point, { maxItems: INGEST.pointsPerLine, ...msg(`must be an array of at most ${INGEST.pointsPerLine} points`) });
export const Route = Type.Object({
  workoutUUID: Uuid,
  points: Points(
    Type.Object({
      t: RequiredEpochMs,
      temporalContext: Type.Optional(NullableContext),
      lat: Type.Number(msg('must be a number of degrees')),
      lon: Type.Number(msg('must be a number of degrees')),
      alt: Type.Optional(NullableNumber),
      hAcc: Type.Optional(NullableNumber),
      vAcc: Type.Optional(NullableNumber),
      speed: Type.Optional(NullableNumber),
      course: Type.Optional(NullableNumber),
    }),
  ),
});
export const Series = Type.Object({
  workoutUUID: Uuid,
  type: Name,
  unit: Type.Optional(NullableString),
  points: Points(Type.Object({ t: RequiredEpochMs, temporalContext: Type.Optional(NullableContext), value: Type.Number(msg('must be a number')) })),
});

export const AGGREGATE_FUNCS = ['sum', 'average', 'min', 'max', 'mostRecent', 'duration'] as const;
export const Aggregate = Type.Object({
  type: Name,
  func: enumOf(AGGREGATE_FUNCS),
  intervalValue: Type.Integer({ minimum: 1, maximum: INGEST.intervalValueMax, ...msg(`must be an integer from 1 to ${INGEST.intervalValueMax}`) }),
  intervalUnit: enumOf(['minute', 'hour', 'day', 'week', 'month']),
  deviceFilter: enumOf(['all', 'watch', 'iphone']),
  bucketStart: RequiredEpochMs,
  bucketEnd: EpochMs,
  bucketStartContext: Type.Optional(NullableContext),
  bucketEndContext: Type.Optional(NullableContext),
  /** Absent reads as null: the bucket is empty now. */
  value: Type.Optional(NullableNumber),
  unit: Type.Optional(NullableString),
});

export const ActivitySummary = Type.Object({
  date: RequiredEpochMs,
  localDate: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }), 'must be a YYYY-MM-DD date or null')),
  temporalContext: Type.Optional(NullableContext),
  moveKcal: Type.Optional(NullableNumber),
  moveGoalKcal: Type.Optional(NullableNumber),
  exerciseMin: Type.Optional(NullableNumber),
  exerciseGoalMin: Type.Optional(NullableNumber),
  standHours: Type.Optional(NullableNumber),
  standGoalHours: Type.Optional(NullableNumber),
  moveMode: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1), Type.Null()], msg('must be 0, 1 or null'))),
  moveTimeMin: Type.Optional(NullableNumber),
  moveTimeGoalMin: Type.Optional(NullableNumber),
});

export const Profile = Type.Object({
  name: Type.Optional(NullableString),
  email: Type.Optional(NullableString),
  dateOfBirth: Type.Optional(NullableEpochMs),
  biologicalSex: Type.Optional(Type.Union([Type.Literal('female'), Type.Literal('male'), Type.Literal('other'), Type.Null()], msg('must be female, male, other or null'))),
});

/** The wrapper keys, in the order their lines follow the samples. */
export const WRAPPERS = ['deleted', 'route', 'series', 'aggregate', 'activitySummary', 'profile'] as const;
export type Wrapper = (typeof WRAPPERS)[number];

export const WRAPPED: Readonly<Record<Wrapper, TSchema>> = {
  deleted: Deletion,
  route: Route,
  series: Series,
  aggregate: Aggregate,
  activitySummary: ActivitySummary,
  profile: Profile,
};

export type DeletionLine = Static<typeof Deletion>;
export type RouteLine = Static<typeof Route>;
export type SeriesLine = Static<typeof Series>;
export type AggregateLine = Static<typeof Aggregate>;
export type ActivitySummaryLine = Static<typeof ActivitySummary>;
export type ProfileLine = Static<typeof Profile>;

// --- checking ---------------------------------------------------------------

export type Checker = TypeCheck<TSchema>;
export const compile = (schema: TSchema): Checker => TypeCompiler.Compile(schema);

/** The JSON Pointer `/workout/events/0/type` as people read it: `workout.events[0].type`. */
function fieldName(path: string, prefix: string): string {
  const parts = path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let name = prefix;
  for (const part of parts) name += /^\d+$/.test(part) ? `[${part}]` : name === '' ? part : `.${part}`;
  return name;
}

/**
 * Why `value` fails `check`, as one phrase naming the field (`prefix` names
 * the wrapper), or null when it passes. The first error is the outermost
 * failing node; its `x-message` is used when it has one.
 */
export function refusal(check: Checker, value: unknown, prefix: string): string | null {
  if (check.Check(value)) return null;
  const error = check.Errors(value).First();
  if (!error) return `${prefix || 'line'} is invalid`;
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${fieldName(error.path, prefix)} is required`;
  const field = fieldName(error.path, prefix) || prefix || 'line';
  const words = (error.schema as Record<string, unknown>)['x-message'];
  if (typeof words === 'string') return `${field} ${words}`;
  if (error.type === ValueErrorType.Object) return `${field} must be an object`;
  return `${field}: ${error.message.toLowerCase()}`;
}
