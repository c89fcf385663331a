// Response schemas: the resources of the API specification, field for field.
// The TypeScript types of route results, /openapi.json and /docs come from here.
import { Type, type Static } from '@sinclair/typebox';
import { LocalDate, Nullable, Uuid } from './common.js';

const Int64 = (description?: string) => Type.Integer({ description });
const Num = (description?: string) => Type.Number({ description });
const NullableNum = (description?: string) => Nullable(Type.Number({ description }));

export const Index = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    docs: Type.String(),
    openapi: Type.String(),
    health: Type.String(),
    app: Type.String({ description: 'The built-in viewer (HTML), a web page over this read API.' }),
    auth: Type.String(),
    user: Type.String(),
    description: Type.String(),
  },
  { $id: 'Index' },
);

export const Health = Type.Object(
  {
    ok: Type.Boolean(),
    db: Type.Boolean({ description: 'Whether the database answered its latest check, a read of a table the routes read with their login (the status is cached for HEALTH_CACHE_MS: the operation says how long).' }),
  },
  { $id: 'Health' },
);

export const User = Type.Object(
  {
    userID: Uuid('Pass as user= on any /v1 route.'),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    createdAt: Int64('When the server first saw the user, epoch ms.'),
    lastSync: Nullable(Int64('Most recent batch, epoch ms; null when nothing was uploaded.')),
    batches: Int64('Upload batches received.'),
    uploadedSamples: Int64('Sum of sample counts the batches declared.'),
  },
  { $id: 'User' },
);

export const UsersResponse = Type.Object(
  {
    users: Type.Array(User),
    default: Uuid('The user served when none is named.'),
    multiUser: Type.Boolean({ description: 'Whether user= may name anyone else.' }),
    timeZone: Type.String({ description: 'IANA zone; UTC when unset.' }),
  },
  { $id: 'UsersResponse' },
);

export const Profile = Type.Object(
  {
    userID: Uuid(),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    dateOfBirth: Nullable(Int64('Epoch ms at UTC midnight.')),
    biologicalSex: Nullable(Type.String({ description: 'Values such as female, male, other.' })),
  },
  { $id: 'Profile' },
);

export const TypeKinds = ['quantity', 'category', 'workout', 'heartbeatSeries', 'ecg', 'stateOfMind', 'medicationDose', 'activitySummary'] as const;

export const CatalogType = Type.Object(
  {
    identifier: Type.String(),
    kind: Type.Union(TypeKinds.map((k) => Type.Literal(k))),
    unit: Nullable(Type.String({ description: 'Canonical unit; null for types without one.' })),
    rows: Int64('rawRows plus aggregateRows.'),
    rawRows: Int64('Individual samples stored.'),
    aggregateRows: Int64('Aggregate buckets computed by the phone.'),
    earliest: Nullable(Int64('Start of the oldest row, epoch ms.')),
    latest: Nullable(Int64('Start of the newest row, epoch ms.')),
  },
  { $id: 'CatalogType' },
);

export const CatalogResponse = Type.Object({ types: Type.Array(CatalogType) }, { $id: 'CatalogResponse' });

export const LatestMetric = Type.Object(
  {
    identifier: Type.String(),
    unit: Nullable(Type.String()),
    value: NullableNum(),
    timestamp: Int64('Start of the sample, epoch ms.'),
  },
  { $id: 'LatestMetric' },
);
export const LatestMetricsResponse = Type.Object({ metrics: Type.Array(LatestMetric) }, { $id: 'LatestMetricsResponse' });

export const DailyMetric = Type.Object(
  {
    identifier: Type.String(),
    unit: Nullable(Type.String()),
    days: Type.Array(
      Type.Object({ date: LocalDate(), value: NullableNum('Total for a cumulative type, mean for a discrete type.') }),
      { description: 'Only days with a value, ascending.' },
    ),
  },
  { $id: 'DailyMetric' },
);
export const DailyMetricsResponse = Type.Object(
  { metrics: Type.Array(DailyMetric), nextOffset: Type.Integer({ description: 'offset plus the day rows on this page.' }) },
  { $id: 'DailyMetricsResponse' },
);

export const ActivityDay = Type.Object(
  {
    date: LocalDate('Local day.'),
    moveKcal: NullableNum('Active energy, kcal.'),
    moveGoalKcal: NullableNum(),
    exerciseMin: NullableNum(),
    exerciseGoalMin: NullableNum(),
    standHours: NullableNum(),
    standGoalHours: NullableNum(),
    moveMode: Nullable(Type.Integer({ description: '1 = active energy, 2 = move time.' })),
    moveTimeMin: NullableNum('Move-time mode only.'),
    moveTimeGoalMin: NullableNum('Move-time mode only.'),
  },
  { $id: 'ActivityDay' },
);
export const ActivitySummaryResponse = Type.Object({ days: Type.Array(ActivityDay) }, { $id: 'ActivitySummaryResponse' });

const workoutSummaryFields = {
  uuid: Uuid(),
  activityType: Type.String({ description: 'Activity type name, such as running.' }),
  start: Int64('Epoch ms.'),
  end: Int64('Epoch ms.'),
  durationS: NullableNum('Seconds.'),
  distanceM: NullableNum('Metres; null when none recorded.'),
  energyKcal: NullableNum('Active energy.'),
  hasRoute: Type.Boolean({ description: 'Whether route points were synced.' }),
  availableMetrics: Type.Array(Type.String(), { description: 'Identifiers that have a stream in the series endpoint.' }),
};

export const WorkoutSummary = Type.Object(workoutSummaryFields, { $id: 'WorkoutSummary' });
export const WorkoutsResponse = Type.Object(
  { workouts: Type.Array(WorkoutSummary), nextOffset: Type.Integer() },
  { $id: 'WorkoutsResponse' },
);

export const StatisticsEntry = Type.Object(
  { min: Type.Optional(Num()), avg: Type.Optional(Num()), max: Type.Optional(Num()), sum: Type.Optional(Num()) },
  { description: 'In the type\'s canonical unit.' },
);

export const WorkoutDetail = Type.Object(
  {
    ...workoutSummaryFields,
    statisticsDetail: Type.Record(Type.String(), StatisticsEntry, { description: 'Keyed by type identifier.' }),
    events: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Pauses, laps, segments as reported, e.g. {type, start, end}.' }),
    activities: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Sub-activities of a multisport workout; empty otherwise.' }),
  },
  { $id: 'WorkoutDetail' },
);

export const SeriesStream = Type.Object(
  {
    type: Type.String({ description: 'Type identifier.' }),
    unit: Nullable(Type.String()),
    totalPoints: Type.Integer({ description: 'Points before downsampling.' }),
    points: Type.Array(Type.Tuple([Int64('Epoch ms.'), Num()]), { description: '[epoch ms, value] pairs ordered by time.' }),
  },
  { $id: 'SeriesStream' },
);
export const WorkoutSeriesResponse = Type.Object(
  {
    uuid: Uuid(),
    start: Int64('Workout start, epoch ms.'),
    end: Int64('Workout end, epoch ms.'),
    maxPoints: Type.Integer({ description: 'The cap applied to each stream.' }),
    series: Type.Array(SeriesStream),
  },
  { $id: 'WorkoutSeriesResponse' },
);

export const WorkoutRouteResponse = Type.Object(
  {
    uuid: Uuid(),
    start: Int64('Workout start, epoch ms.'),
    end: Int64('Workout end, epoch ms.'),
    maxPoints: Type.Integer({ description: 'The cap applied to points.' }),
    totalPoints: Type.Integer({ description: 'Recorded points (with a time and a position) before downsampling.' }),
    distanceM: Num('Length of the full-resolution track, metres: haversine steps on a sphere of radius 6,371,008.8 m.'),
    elevationGainM: NullableNum('Sum of the rises between consecutive known altitudes of the full-resolution track, metres, unsmoothed; null when fewer than two points have an altitude.'),
    points: Type.Array(
      Type.Tuple([Int64('Epoch ms.'), Num('Latitude, degrees.'), Num('Longitude, degrees.'), NullableNum('Altitude, metres; null when not recorded.')]),
      { description: '[epoch ms, latitude, longitude, altitude] ordered by time: recorded points picked evenly by index, first and last included.' },
    ),
  },
  { $id: 'WorkoutRouteResponse' },
);

export const SleepStages = Type.Object(
  { core: Num(), deep: Num(), rem: Num(), unspecified: Num(), awake: Num() },
  { $id: 'SleepStages', description: 'Minutes, from the single source that recorded the most sleep. awake is not part of asleepMinutes.' },
);
export const SleepNight = Type.Object(
  {
    date: LocalDate('Local wake-up day (the day the session ended).'),
    start: Int64('First sample of the session, any source.'),
    end: Int64('Last sample of the session, any source.'),
    inBedMinutes: Num('Highest single-source in-bed total.'),
    asleepMinutes: Num('core + deep + rem + unspecified of the source with the most sleep.'),
    stages: SleepStages,
    sources: Type.Integer({ description: 'Distinct sources that contributed samples.' }),
  },
  { $id: 'SleepNight' },
);
export const SleepNightsResponse = Type.Object({ nights: Type.Array(SleepNight) }, { $id: 'SleepNightsResponse' });

export const Sample = Type.Object(
  {
    uuid: Uuid(),
    start: Int64(),
    end: Int64(),
    value: NullableNum('Quantity in canonical unit, or the integer enum value for category types.'),
    label: Nullable(Type.String({ description: 'Category types only: the name of value.' })),
    source: Nullable(Type.String({ description: 'Name of the recording app or device.' })),
  },
  { $id: 'Sample' },
);
export const SamplesPage = Type.Object(
  {
    type: Type.String({ description: 'The requested identifier.' }),
    kind: Type.String(),
    unit: Nullable(Type.String({ description: 'null for category types.' })),
    samples: Type.Array(Sample),
    nextOffset: Type.Integer(),
  },
  { $id: 'SamplesPage' },
);

export const StateOfMindEntry = Type.Object(
  {
    uuid: Uuid(),
    date: LocalDate('Local day of the entry.'),
    timestamp: Int64('When logged.'),
    kind: Type.String({ description: 'momentaryEmotion or dailyMood.' }),
    valence: NullableNum('From -1 (very unpleasant) to +1 (very pleasant).'),
    valenceClassification: Nullable(Type.String({ description: "The platform's band, such as slightlyPleasant." })),
    labels: Type.Array(Type.String(), { description: 'Feelings picked.' }),
    associations: Type.Array(Type.String(), { description: 'What they relate to.' }),
  },
  { $id: 'StateOfMindEntry' },
);
export const StateOfMindResponse = Type.Object({ entries: Type.Array(StateOfMindEntry) }, { $id: 'StateOfMindResponse' });

export const SummaryStat = Type.Object(
  {
    unit: Type.String(),
    days: Type.Integer({ description: 'Days that had a value.' }),
    mean: Num(),
    min: Num(),
    max: Num(),
    total: Type.Optional(Num('Cumulative series only: steps, energy, exercise minutes.')),
    source: Type.String({ description: 'The table the values came from.' }),
  },
  { $id: 'SummaryStat' },
);
export const SummaryReading = Type.Object(
  { value: Num(), unit: Type.String(), timestamp: Int64() },
  { $id: 'SummaryReading', description: 'The newest raw sample of that body metric, whenever taken.' },
);
export const Summary = Type.Object(
  {
    userID: Uuid(),
    name: Nullable(Type.String()),
    range: Type.String(),
    days: Type.Integer(),
    startDate: LocalDate('First local day.'),
    endDate: LocalDate('Today in the zone.'),
    generatedAt: Int64(),
    timeZone: Type.String(),
    activity: Type.Optional(
      Type.Object({
        steps: Type.Optional(SummaryStat),
        activeEnergy: Type.Optional(SummaryStat),
        exercise: Type.Optional(SummaryStat),
        stand: Type.Optional(SummaryStat),
      }),
    ),
    heart: Type.Optional(Type.Object({ restingHeartRate: Type.Optional(SummaryStat), hrvSDNN: Type.Optional(SummaryStat) })),
    sleep: Type.Optional(
      Type.Object(
        { nights: Type.Integer(), meanAsleepMinutes: Num(), minAsleepMinutes: Num(), maxAsleepMinutes: Num() },
        { description: 'Based on the longest session of each wake-up day.' },
      ),
    ),
    workouts: Type.Optional(
      Type.Object({
        count: Type.Integer(),
        totalMinutes: Num(),
        totalDistanceM: Type.Optional(Num('Absent when no workout recorded a distance.')),
        byActivityType: Type.Array(Type.Object({ activityType: Type.String(), count: Type.Integer() }), {
          maxItems: 3,
          description: 'Most frequent first, at most three.',
        }),
      }),
    ),
    body: Type.Optional(Type.Object({ weight: Type.Optional(SummaryReading), bodyFat: Type.Optional(SummaryReading) })),
    coverage: Type.Optional(
      Type.Object({
        lastSync: Nullable(Int64()),
        daysWithData: Type.Integer({ description: 'Days in the range on which at least one section has a value.' }),
      }),
    ),
  },
  { $id: 'Summary', description: 'A section is present only for data that exists.' },
);

export type UserT = Static<typeof User>;
export type ProfileT = Static<typeof Profile>;
export type CatalogTypeT = Static<typeof CatalogType>;
export type LatestMetricT = Static<typeof LatestMetric>;
export type DailyMetricT = Static<typeof DailyMetric>;
export type ActivityDayT = Static<typeof ActivityDay>;
export type WorkoutSummaryT = Static<typeof WorkoutSummary>;
export type WorkoutDetailT = Static<typeof WorkoutDetail>;
export type SeriesStreamT = Static<typeof SeriesStream>;
export type WorkoutRouteResponseT = Static<typeof WorkoutRouteResponse>;
export type SampleT = Static<typeof Sample>;
export type StateOfMindEntryT = Static<typeof StateOfMindEntry>;
export type SummaryT = Static<typeof Summary>;
