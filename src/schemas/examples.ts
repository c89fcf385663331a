// The values the operations' examples share — one user, one workout, the week
// from Monday 2026-01-05 00:00 UTC — so the examples read as one story, and
// the examples test can seed data that answers every example request.
export const EXAMPLE = {
  user: '7a0effc8-dcfe-4d46-ba14-e24efa42f609',
  workout: '428829b5-e339-4a69-ace6-5bde6d850af4',
  /** 2026-01-05T00:00:00Z */
  start: 1_767_571_200_000,
  /** 2026-01-12T00:00:00Z */
  end: 1_768_176_000_000,
} as const;

/** The example workout as /v1/workouts lists it (its detail adds statistics, events and activities). */
export const EXAMPLE_WORKOUT = {
  uuid: EXAMPLE.workout,
  activityType: 'running',
  start: 1_767_636_856_875,
  end: 1_767_640_425_875,
  durationS: 3482,
  distanceM: 10_347.99,
  energyKcal: 535.1,
  hasRoute: true,
  availableMetrics: ['HKQuantityTypeIdentifierHeartRate', 'HKQuantityTypeIdentifierRunningPower'],
};

/** Epoch ms of an instant in the example week, from its ISO text. */
export const at = (iso: string): number => Date.parse(iso);
