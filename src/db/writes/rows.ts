// Rows of the storage contract as writers hand them over (storage.md): the
// shapes the importer and the sync receiver both produce and src/db/writes
// stores. Values are already in canonical units; JSON columns arrive as text.

export interface ProfileFields {
  /** Epoch ms at UTC midnight. */
  dateOfBirthMs: number | null;
  /** `female`, `male`, `other`. */
  biologicalSex: string | null;
}

export interface ActivitySummaryRow {
  /** The local day, YYYY-MM-DD. */
  day: string;
  moveKcal: number | null;
  moveGoalKcal: number | null;
  exerciseMin: number | null;
  exerciseGoalMin: number | null;
  standHours: number | null;
  standGoalHours: number | null;
  moveTimeMin: number | null;
  moveTimeGoalMin: number | null;
  /** 1 active energy, 2 move time. */
  moveMode: number | null;
}

export interface RoutePoints {
  timesMs: number[];
  latitudes: number[];
  longitudes: number[];
  altitudesM: Array<number | null>;
}

export interface WorkoutFields {
  uuid: string;
  activityType: string;
  startMs: number;
  endMs: number;
  durationS: number | null;
  distanceM: number | null;
  energyKcal: number | null;
  /** JSON text: object keyed by type identifier → {min, avg, max, sum}. */
  statistics: string;
  /** JSON text: array. */
  events: string;
  /** JSON text: array. */
  activities: string;
  /** JSON text, or null. */
  metadata: string | null;
}
