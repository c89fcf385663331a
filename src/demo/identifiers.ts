// The HealthKit identifiers the demo writes, named once. Units and styles come
// from the registry (src/core/registry.ts); generateDemo checks each is there.
import { SLEEP_ANALYSIS } from '../core/registry.js';

export const STEPS = 'HKQuantityTypeIdentifierStepCount';
export const ACTIVE_ENERGY = 'HKQuantityTypeIdentifierActiveEnergyBurned';
export const DISTANCE_WALKING_RUNNING = 'HKQuantityTypeIdentifierDistanceWalkingRunning';
export const DISTANCE_CYCLING = 'HKQuantityTypeIdentifierDistanceCycling';
export const DISTANCE_SWIMMING = 'HKQuantityTypeIdentifierDistanceSwimming';
export const HEART_RATE = 'HKQuantityTypeIdentifierHeartRate';
export const RESTING_HEART_RATE = 'HKQuantityTypeIdentifierRestingHeartRate';
export const HRV_SDNN = 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN';
export const OXYGEN_SATURATION = 'HKQuantityTypeIdentifierOxygenSaturation';
export const BODY_MASS = 'HKQuantityTypeIdentifierBodyMass';
export const BODY_FAT = 'HKQuantityTypeIdentifierBodyFatPercentage';
export const RUNNING_POWER = 'HKQuantityTypeIdentifierRunningPower';
export const RUNNING_SPEED = 'HKQuantityTypeIdentifierRunningSpeed';
export const CYCLING_POWER = 'HKQuantityTypeIdentifierCyclingPower';
export const CYCLING_SPEED = 'HKQuantityTypeIdentifierCyclingSpeed';
export const CYCLING_CADENCE = 'HKQuantityTypeIdentifierCyclingCadence';
export { SLEEP_ANALYSIS };

/** Types with rows in `samples`. */
export const SAMPLE_TYPES: readonly string[] = [
  STEPS,
  ACTIVE_ENERGY,
  DISTANCE_WALKING_RUNNING,
  DISTANCE_CYCLING,
  DISTANCE_SWIMMING,
  HEART_RATE,
  RESTING_HEART_RATE,
  HRV_SDNN,
  OXYGEN_SATURATION,
  BODY_MASS,
  BODY_FAT,
  SLEEP_ANALYSIS,
];

/** Types that only appear as workout streams. */
export const STREAM_ONLY_TYPES: readonly string[] = [RUNNING_POWER, RUNNING_SPEED, CYCLING_POWER, CYCLING_SPEED, CYCLING_CADENCE];
