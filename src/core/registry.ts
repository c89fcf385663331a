// The HealthKit types the API serves, written down once: kind, canonical unit,
// aggregation style and category value names. Agrees with the sync ecosystem's
// published vocabulary (PulsHealth `docs/protocol/catalog.json`); the other
// HealthKit types are here too because the Apple Health importer meets them in
// export.xml. Values are stored already in the canonical unit (writers convert
// with units.ts); the API never converts.

export type TypeKind =
  | 'quantity'
  | 'category'
  | 'workout'
  | 'heartbeatSeries'
  | 'ecg'
  | 'stateOfMind'
  | 'medicationDose'
  | 'activitySummary';
export type Aggregation = 'cumulative' | 'discrete';

export interface QuantityTypeInfo {
  identifier: string;
  kind: 'quantity';
  unit: string;
  aggregation: Aggregation;
}
export interface CategoryTypeInfo {
  identifier: string;
  kind: 'category';
  unit: null;
  labels: Readonly<Record<number, string>>;
}
export interface SpecialTypeInfo {
  identifier: string;
  kind: Exclude<TypeKind, 'quantity' | 'category'>;
  unit: string | null;
}
export type TypeInfo = QuantityTypeInfo | CategoryTypeInfo | SpecialTypeInfo;

export const SLEEP_ANALYSIS = 'HKCategoryTypeIdentifierSleepAnalysis';
export const SleepValue = { inBed: 0, asleepUnspecified: 1, awake: 2, asleepCore: 3, asleepDeep: 4, asleepREM: 5 } as const;

export const SPECIAL_IDENTIFIERS: {
  workout: 'HKWorkoutTypeIdentifier';
  activitySummary: 'HKActivitySummaryTypeIdentifier';
  stateOfMind: 'HKDataTypeIdentifierStateOfMind';
  heartbeatSeries: 'HKDataTypeIdentifierHeartbeatSeries';
  ecg: 'HKDataTypeIdentifierElectrocardiogram';
  medicationDose: 'HKMedicationDoseEventTypeIdentifierMedicationDoseEvent';
} = {
  workout: 'HKWorkoutTypeIdentifier',
  activitySummary: 'HKActivitySummaryTypeIdentifier',
  stateOfMind: 'HKDataTypeIdentifierStateOfMind',
  heartbeatSeries: 'HKDataTypeIdentifierHeartbeatSeries',
  ecg: 'HKDataTypeIdentifierElectrocardiogram',
  medicationDose: 'HKMedicationDoseEventTypeIdentifierMedicationDoseEvent',
};

/** Kinds stored as rows of `samples` (the others have tables of their own). */
export const SAMPLE_KINDS: ReadonlySet<TypeKind> = new Set<TypeKind>([
  'quantity',
  'category',
  'heartbeatSeries',
  'ecg',
  'medicationDose',
]);

const QUANTITY_PREFIX = 'HKQuantityTypeIdentifier';
const CATEGORY_PREFIX = 'HKCategoryTypeIdentifier';
const CORRELATION_PREFIX = 'HKCorrelationTypeIdentifier';
const HEALTHKIT_PREFIX = 'HK';

const C: Aggregation = 'cumulative';
const D: Aggregation = 'discrete';

// [name without prefix, canonical unit, aggregation]. Every HealthKit
// discrete style (arithmetic, temporally weighted, equivalent continuous
// level) is `discrete` here: a day's value is its mean.
const QUANTITIES: ReadonlyArray<readonly [string, string, Aggregation]> = [
  // In the sync catalog: unit and style exactly as published.
  ['ActiveEnergyBurned', 'kcal', C],
  ['AppleExerciseTime', 'min', C],
  ['AppleMoveTime', 'min', C],
  ['AppleSleepingWristTemperature', 'degC', D],
  ['AppleStandTime', 'min', C],
  ['AtrialFibrillationBurden', '%', D],
  ['BasalBodyTemperature', 'degC', D],
  ['BasalEnergyBurned', 'kcal', C],
  ['BloodAlcoholContent', '%', D],
  ['BloodGlucose', 'mg/dL', D],
  ['BloodPressureDiastolic', 'mmHg', D],
  ['BloodPressureSystolic', 'mmHg', D],
  ['BodyFatPercentage', '%', D],
  ['BodyMass', 'kg', D],
  ['BodyMassIndex', 'count', D],
  ['BodyTemperature', 'degC', D],
  ['CyclingCadence', 'count/min', D],
  ['CyclingPower', 'W', D],
  ['CyclingSpeed', 'm/s', D],
  ['DietaryCaffeine', 'mg', C],
  ['DietaryCarbohydrates', 'g', C],
  ['DietaryEnergyConsumed', 'kcal', C],
  ['DietaryFatTotal', 'g', C],
  ['DietaryFiber', 'g', C],
  ['DietaryProtein', 'g', C],
  ['DietarySodium', 'mg', C],
  ['DietarySugar', 'g', C],
  ['DietaryWater', 'mL', C],
  ['DistanceCycling', 'm', C],
  ['DistanceSwimming', 'm', C],
  ['DistanceWalkingRunning', 'm', C],
  ['EnvironmentalAudioExposure', 'dBASPL', D],
  ['EnvironmentalSoundReduction', 'dBASPL', D],
  ['FlightsClimbed', 'count', C],
  ['HeadphoneAudioExposure', 'dBASPL', D],
  ['HeartRate', 'count/min', D],
  ['HeartRateRecoveryOneMinute', 'count/min', D],
  ['HeartRateVariabilitySDNN', 'ms', D],
  ['Height', 'm', D],
  ['LeanBodyMass', 'kg', D],
  ['NumberOfTimesFallen', 'count', C],
  ['OxygenSaturation', '%', D],
  ['PeripheralPerfusionIndex', '%', D],
  ['PhysicalEffort', 'kcal/hr*kg', D],
  ['RespiratoryRate', 'count/min', D],
  ['RestingHeartRate', 'count/min', D],
  ['RunningGroundContactTime', 'ms', D],
  ['RunningPower', 'W', D],
  ['RunningSpeed', 'm/s', D],
  ['RunningStrideLength', 'm', D],
  ['RunningVerticalOscillation', 'cm', D],
  ['StepCount', 'count', C],
  ['SwimmingStrokeCount', 'count', C],
  ['TimeInDaylight', 'min', C],
  ['UVExposure', 'count', D],
  ['VO2Max', 'ml/kg*min', D],
  ['WaistCircumference', 'm', D],
  ['WalkingAsymmetryPercentage', '%', D],
  ['WalkingDoubleSupportPercentage', '%', D],
  ['WalkingHeartRateAverage', 'count/min', D],
  ['WalkingSpeed', 'm/s', D],
  ['WalkingStepLength', 'm', D],
  // Not synced by the phone, found in Apple Health exports: style from the
  // framework; unit the framework's, except rates per minute like the
  // catalog and nutrients in the unit the Health app shows them.
  ['AppleSleepingBreathingDisturbances', 'count', D],
  ['AppleWalkingSteadiness', '%', D],
  ['CrossCountrySkiingSpeed', 'm/s', D],
  ['CyclingFunctionalThresholdPower', 'W', D],
  ['DietaryBiotin', 'mcg', C],
  ['DietaryCalcium', 'mg', C],
  ['DietaryChloride', 'mg', C],
  ['DietaryCholesterol', 'mg', C],
  ['DietaryChromium', 'mcg', C],
  ['DietaryCopper', 'mg', C],
  ['DietaryFatMonounsaturated', 'g', C],
  ['DietaryFatPolyunsaturated', 'g', C],
  ['DietaryFatSaturated', 'g', C],
  ['DietaryFolate', 'mcg', C],
  ['DietaryIodine', 'mcg', C],
  ['DietaryIron', 'mg', C],
  ['DietaryMagnesium', 'mg', C],
  ['DietaryManganese', 'mg', C],
  ['DietaryMolybdenum', 'mcg', C],
  ['DietaryNiacin', 'mg', C],
  ['DietaryPantothenicAcid', 'mg', C],
  ['DietaryPhosphorus', 'mg', C],
  ['DietaryPotassium', 'mg', C],
  ['DietaryRiboflavin', 'mg', C],
  ['DietarySelenium', 'mcg', C],
  ['DietaryThiamin', 'mg', C],
  ['DietaryVitaminA', 'mcg', C],
  ['DietaryVitaminB12', 'mcg', C],
  ['DietaryVitaminB6', 'mg', C],
  ['DietaryVitaminC', 'mg', C],
  ['DietaryVitaminD', 'mcg', C],
  ['DietaryVitaminE', 'mg', C],
  ['DietaryVitaminK', 'mcg', C],
  ['DietaryZinc', 'mg', C],
  ['DistanceCrossCountrySkiing', 'm', C],
  ['DistanceDownhillSnowSports', 'm', C],
  ['DistancePaddleSports', 'm', C],
  ['DistanceRowing', 'm', C],
  ['DistanceSkatingSports', 'm', C],
  ['DistanceWheelchair', 'm', C],
  ['ElectrodermalActivity', 'S', D],
  ['EstimatedWorkoutEffortScore', 'appleEffortScore', D],
  ['ForcedExpiratoryVolume1', 'L', D],
  ['ForcedVitalCapacity', 'L', D],
  ['InhalerUsage', 'count', C],
  ['InsulinDelivery', 'IU', C],
  ['NikeFuel', 'count', C],
  ['NumberOfAlcoholicBeverages', 'count', C],
  ['PaddleSportsSpeed', 'm/s', D],
  ['PeakExpiratoryFlowRate', 'L/min', D],
  ['PushCount', 'count', C],
  ['RowingSpeed', 'm/s', D],
  ['SixMinuteWalkTestDistance', 'm', D],
  ['StairAscentSpeed', 'm/s', D],
  ['StairDescentSpeed', 'm/s', D],
  ['UnderwaterDepth', 'm', D],
  ['WaterTemperature', 'degC', D],
  ['WorkoutEffortScore', 'appleEffortScore', D],
];

// Category value enums of the framework, by raw value.
type Labels = Readonly<Record<number, string>>;
const NOT_APPLICABLE: Labels = { 0: 'notApplicable' };
const SLEEP: Labels = Object.fromEntries(Object.entries(SleepValue).map(([name, value]) => [value, name]));
const STAND_HOUR: Labels = { 0: 'stood', 1: 'idle' };
const SEVERITY: Labels = { 0: 'unspecified', 1: 'notPresent', 2: 'mild', 3: 'moderate', 4: 'severe' };
const PRESENCE: Labels = { 0: 'present', 1: 'notPresent' };
const APPETITE_CHANGES: Labels = { 0: 'unspecified', 1: 'noChange', 2: 'decreased', 3: 'increased' };
const VAGINAL_BLEEDING: Labels = { 1: 'unspecified', 2: 'light', 3: 'medium', 4: 'heavy', 5: 'none' };
const CERVICAL_MUCUS: Labels = { 1: 'dry', 2: 'sticky', 3: 'creamy', 4: 'watery', 5: 'eggWhite' };
const OVULATION_TEST: Labels = { 1: 'negative', 2: 'luteinizingHormoneSurge', 3: 'indeterminate', 4: 'estrogenSurge' };
const TEST_RESULT: Labels = { 1: 'negative', 2: 'positive', 3: 'indeterminate' };
const CONTRACEPTIVE: Labels = {
  1: 'unspecified',
  2: 'implant',
  3: 'injection',
  4: 'intrauterineDevice',
  5: 'intravaginalRing',
  6: 'oral',
  7: 'patch',
};
const WALKING_STEADINESS_EVENT: Labels = { 1: 'initialLow', 2: 'initialVeryLow', 3: 'repeatLow', 4: 'repeatVeryLow' };

const SEVERITY_SYMPTOMS = [
  'AbdominalCramps', 'Acne', 'BladderIncontinence', 'Bloating', 'BreastPain', 'ChestTightnessOrPain', 'Chills',
  'Constipation', 'Coughing', 'Diarrhea', 'Dizziness', 'DrySkin', 'Fainting', 'Fatigue', 'Fever',
  'GeneralizedBodyAche', 'HairLoss', 'Headache', 'Heartburn', 'HotFlashes', 'LossOfSmell', 'LossOfTaste',
  'LowerBackPain', 'MemoryLapse', 'Nausea', 'NightSweats', 'PelvicPain', 'RapidPoundingOrFlutteringHeartbeat',
  'RunnyNose', 'ShortnessOfBreath', 'SinusCongestion', 'SkippedHeartbeat', 'SoreThroat', 'VaginalDryness',
  'Vomiting', 'Wheezing',
] as const;

const CATEGORIES: ReadonlyArray<readonly [string, Labels]> = [
  // In the sync catalog.
  ['AppleStandHour', STAND_HOUR],
  ['AudioExposureEvent', { 1: 'loudEnvironment' }],
  ['HandwashingEvent', NOT_APPLICABLE],
  ['HeadphoneAudioExposureEvent', { 1: 'sevenDayLimit' }],
  ['HighHeartRateEvent', NOT_APPLICABLE],
  ['IrregularHeartRhythmEvent', NOT_APPLICABLE],
  ['LowCardioFitnessEvent', { 1: 'lowFitness' }],
  ['LowHeartRateEvent', NOT_APPLICABLE],
  ['MindfulSession', NOT_APPLICABLE],
  ['SleepAnalysis', SLEEP],
  ['SleepApneaEvent', NOT_APPLICABLE],
  ['ToothbrushingEvent', NOT_APPLICABLE],
  // Not synced by the phone, found in Apple Health exports.
  ['AppetiteChanges', APPETITE_CHANGES],
  ['AppleWalkingSteadinessEvent', WALKING_STEADINESS_EVENT],
  ['BleedingAfterPregnancy', VAGINAL_BLEEDING],
  ['BleedingDuringPregnancy', VAGINAL_BLEEDING],
  ['CervicalMucusQuality', CERVICAL_MUCUS],
  ['Contraceptive', CONTRACEPTIVE],
  ['EnvironmentalAudioExposureEvent', { 1: 'momentaryLimit' }],
  ['HypertensionEvent', NOT_APPLICABLE],
  ['InfrequentMenstrualCycles', NOT_APPLICABLE],
  ['IntermenstrualBleeding', NOT_APPLICABLE],
  ['IrregularMenstrualCycles', NOT_APPLICABLE],
  ['Lactation', NOT_APPLICABLE],
  ['MenstrualFlow', VAGINAL_BLEEDING],
  ['MoodChanges', PRESENCE],
  ['OvulationTestResult', OVULATION_TEST],
  ['PersistentIntermenstrualBleeding', NOT_APPLICABLE],
  ['Pregnancy', NOT_APPLICABLE],
  ['PregnancyTestResult', TEST_RESULT],
  ['ProgesteroneTestResult', TEST_RESULT],
  ['ProlongedMenstrualPeriods', NOT_APPLICABLE],
  ['SexualActivity', NOT_APPLICABLE],
  ['SleepChanges', PRESENCE],
  ...SEVERITY_SYMPTOMS.map((name) => [name, SEVERITY] as const),
];

export const allTypes: readonly TypeInfo[] = Object.freeze(
  [
    ...QUANTITIES.map(([name, unit, aggregation]): TypeInfo => ({
      identifier: QUANTITY_PREFIX + name,
      kind: 'quantity',
      unit,
      aggregation,
    })),
    ...CATEGORIES.map(([name, labels]): TypeInfo => ({
      identifier: CATEGORY_PREFIX + name,
      kind: 'category',
      unit: null,
      labels: Object.freeze(labels),
    })),
    ...(Object.entries(SPECIAL_IDENTIFIERS) as Array<[SpecialTypeInfo['kind'], string]>).map(
      ([kind, identifier]): TypeInfo => ({ identifier, kind, unit: null }),
    ),
  ]
    .sort((a, b) => (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0))
    .map((info) => Object.freeze(info)),
);

const byIdentifier: ReadonlyMap<string, TypeInfo> = new Map(allTypes.map((info) => [info.identifier, info]));

export function typeInfo(identifier: string): TypeInfo | undefined {
  return byIdentifier.get(identifier);
}

export function isQuantityType(identifier: string): boolean {
  return byIdentifier.get(identifier)?.kind === 'quantity';
}

export function isSampleType(identifier: string): boolean {
  const info = byIdentifier.get(identifier);
  return info !== undefined && SAMPLE_KINDS.has(info.kind);
}

/**
 * The kind of any HealthKit identifier, the registry's or not: the type
 * vocabulary grows every year and writers store identifiers they do not know
 * (an export's `HKDataTypeSleepDurationGoal`, next year's additions), so the
 * catalog must show them. Unknown ones take their kind from the prefix:
 * `HKCategoryTypeIdentifier…` is a category, any other `HK…` identifier a
 * quantity (a number with the unit its record gives); a correlation is never
 * stored itself (its records are), and a name outside HealthKit has no kind.
 */
export function kindOfIdentifier(identifier: string): TypeKind | undefined {
  const known = byIdentifier.get(identifier);
  if (known) return known.kind;
  if (identifier.startsWith(CATEGORY_PREFIX)) return 'category';
  if (identifier.startsWith(QUANTITY_PREFIX)) return 'quantity';
  if (identifier.startsWith(HEALTHKIT_PREFIX) && !identifier.startsWith(CORRELATION_PREFIX)) return 'quantity';
  return undefined;
}

/**
 * A type read by daily value: a cumulative type reports the day's sum, a
 * discrete one its mean; `null` for a quantity type the registry does not
 * know (a writer stored it first), whose bucket holds whichever its writer
 * was told: the sum when there is one, else the mean.
 */
export interface DailyMetricType {
  identifier: string;
  cumulative: boolean | null;
}

/**
 * The identifiers that have daily values (quantity types), in the order
 * given; the others have none. `stored` names identifiers the registry does
 * not know but a writer stored (their kind comes from their prefix).
 */
export function dailyMetricTypes(identifiers: readonly string[], stored: ReadonlySet<string> = new Set()): DailyMetricType[] {
  const types: DailyMetricType[] = [];
  for (const identifier of identifiers) {
    const info = byIdentifier.get(identifier);
    if (info?.kind === 'quantity') types.push({ identifier, cumulative: info.aggregation === 'cumulative' });
    else if (!info && stored.has(identifier) && kindOfIdentifier(identifier) === 'quantity') types.push({ identifier, cumulative: null });
  }
  return types;
}

export function unitOf(identifier: string): string | null {
  return byIdentifier.get(identifier)?.unit ?? null;
}

export function categoryLabel(identifier: string, value: number | null): string | null {
  const info = byIdentifier.get(identifier);
  if (value === null || info?.kind !== 'category' || !Object.hasOwn(info.labels, value)) return null;
  return info.labels[value];
}
