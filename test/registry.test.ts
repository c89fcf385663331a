// The type registry against facts checked by hand: the PulsHealth catalog
// (docs/protocol/catalog.json), HealthKit's category enums, and exact unit
// definitions (international yard and pound, thermochemical calorie).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allTypes,
  categoryLabel,
  isQuantityType,
  isSampleType,
  kindOfIdentifier,
  SAMPLE_KINDS,
  SLEEP_ANALYSIS,
  SleepValue,
  SPECIAL_IDENTIFIERS,
  typeInfo,
  unitOf,
} from '../src/core/registry.js';
import { convertToCanonical, convertUnit, parseUnit } from '../src/core/units.js';

const Q = 'HKQuantityTypeIdentifier';
const CAT = 'HKCategoryTypeIdentifier';

function assertClose(actual: number | undefined, expected: number, tolerance = 1e-9): void {
  assert.ok(actual !== undefined, `expected ${expected}, got undefined`);
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);
}

test('known quantity facts', () => {
  assert.deepEqual(typeInfo(`${Q}StepCount`), {
    identifier: `${Q}StepCount`,
    kind: 'quantity',
    unit: 'count',
    aggregation: 'cumulative',
  });
  assert.deepEqual(typeInfo(`${Q}HeartRate`), {
    identifier: `${Q}HeartRate`,
    kind: 'quantity',
    unit: 'count/min',
    aggregation: 'discrete',
  });
  assert.deepEqual(typeInfo(`${Q}ActiveEnergyBurned`), {
    identifier: `${Q}ActiveEnergyBurned`,
    kind: 'quantity',
    unit: 'kcal',
    aggregation: 'cumulative',
  });
  assert.deepEqual(typeInfo(`${Q}OxygenSaturation`), {
    identifier: `${Q}OxygenSaturation`,
    kind: 'quantity',
    unit: '%',
    aggregation: 'discrete',
  });
  assert.equal(unitOf(`${Q}HeartRateVariabilitySDNN`), 'ms');
  assert.equal(unitOf(`${Q}BodyMass`), 'kg');
  assert.equal(unitOf(`${Q}AppleExerciseTime`), 'min');
  assert.equal(unitOf(`${Q}DistanceWalkingRunning`), 'm');
  assert.equal(unitOf(SLEEP_ANALYSIS), null);
  assert.equal(unitOf(`${Q}NoSuchType`), null);
});

test('identifiers are exact and case-sensitive', () => {
  assert.equal(typeInfo(`${Q}stepcount`), undefined);
  assert.equal(typeInfo(` ${Q}StepCount`), undefined);
  assert.equal(isQuantityType(`${Q}StepCount`), true);
  assert.equal(isQuantityType(SLEEP_ANALYSIS), false);
  assert.equal(isQuantityType(`${Q}NoSuchType`), false);
});

// Every type of the published catalog (80 entries), transcribed by hand.
const CATALOG_QUANTITIES: Array<[string, string, 'cumulative' | 'discrete']> = [
  ['ActiveEnergyBurned', 'kcal', 'cumulative'],
  ['AppleExerciseTime', 'min', 'cumulative'],
  ['AppleMoveTime', 'min', 'cumulative'],
  ['AppleSleepingWristTemperature', 'degC', 'discrete'],
  ['AppleStandTime', 'min', 'cumulative'],
  ['AtrialFibrillationBurden', '%', 'discrete'],
  ['BasalBodyTemperature', 'degC', 'discrete'],
  ['BasalEnergyBurned', 'kcal', 'cumulative'],
  ['BloodAlcoholContent', '%', 'discrete'],
  ['BloodGlucose', 'mg/dL', 'discrete'],
  ['BloodPressureDiastolic', 'mmHg', 'discrete'],
  ['BloodPressureSystolic', 'mmHg', 'discrete'],
  ['BodyFatPercentage', '%', 'discrete'],
  ['BodyMass', 'kg', 'discrete'],
  ['BodyMassIndex', 'count', 'discrete'],
  ['BodyTemperature', 'degC', 'discrete'],
  ['CyclingCadence', 'count/min', 'discrete'],
  ['CyclingPower', 'W', 'discrete'],
  ['CyclingSpeed', 'm/s', 'discrete'],
  ['DietaryCaffeine', 'mg', 'cumulative'],
  ['DietaryCarbohydrates', 'g', 'cumulative'],
  ['DietaryEnergyConsumed', 'kcal', 'cumulative'],
  ['DietaryFatTotal', 'g', 'cumulative'],
  ['DietaryFiber', 'g', 'cumulative'],
  ['DietaryProtein', 'g', 'cumulative'],
  ['DietarySodium', 'mg', 'cumulative'],
  ['DietarySugar', 'g', 'cumulative'],
  ['DietaryWater', 'mL', 'cumulative'],
  ['DistanceCycling', 'm', 'cumulative'],
  ['DistanceSwimming', 'm', 'cumulative'],
  ['DistanceWalkingRunning', 'm', 'cumulative'],
  ['EnvironmentalAudioExposure', 'dBASPL', 'discrete'],
  ['EnvironmentalSoundReduction', 'dBASPL', 'discrete'],
  ['FlightsClimbed', 'count', 'cumulative'],
  ['HeadphoneAudioExposure', 'dBASPL', 'discrete'],
  ['HeartRate', 'count/min', 'discrete'],
  ['HeartRateRecoveryOneMinute', 'count/min', 'discrete'],
  ['HeartRateVariabilitySDNN', 'ms', 'discrete'],
  ['Height', 'm', 'discrete'],
  ['LeanBodyMass', 'kg', 'discrete'],
  ['NumberOfTimesFallen', 'count', 'cumulative'],
  ['OxygenSaturation', '%', 'discrete'],
  ['PeripheralPerfusionIndex', '%', 'discrete'],
  ['PhysicalEffort', 'kcal/hr*kg', 'discrete'],
  ['RespiratoryRate', 'count/min', 'discrete'],
  ['RestingHeartRate', 'count/min', 'discrete'],
  ['RunningGroundContactTime', 'ms', 'discrete'],
  ['RunningPower', 'W', 'discrete'],
  ['RunningSpeed', 'm/s', 'discrete'],
  ['RunningStrideLength', 'm', 'discrete'],
  ['RunningVerticalOscillation', 'cm', 'discrete'],
  ['StepCount', 'count', 'cumulative'],
  ['SwimmingStrokeCount', 'count', 'cumulative'],
  ['TimeInDaylight', 'min', 'cumulative'],
  ['UVExposure', 'count', 'discrete'],
  ['VO2Max', 'ml/kg*min', 'discrete'],
  ['WaistCircumference', 'm', 'discrete'],
  ['WalkingAsymmetryPercentage', '%', 'discrete'],
  ['WalkingDoubleSupportPercentage', '%', 'discrete'],
  ['WalkingHeartRateAverage', 'count/min', 'discrete'],
  ['WalkingSpeed', 'm/s', 'discrete'],
  ['WalkingStepLength', 'm', 'discrete'],
];
const CATALOG_CATEGORIES = [
  'AppleStandHour', 'AudioExposureEvent', 'HandwashingEvent', 'HeadphoneAudioExposureEvent', 'HighHeartRateEvent',
  'IrregularHeartRhythmEvent', 'LowCardioFitnessEvent', 'LowHeartRateEvent', 'MindfulSession', 'SleepAnalysis',
  'SleepApneaEvent', 'ToothbrushingEvent',
];

test('agrees with every type of the published catalog', () => {
  assert.equal(CATALOG_QUANTITIES.length + CATALOG_CATEGORIES.length + 6, 80);
  for (const [name, unit, aggregation] of CATALOG_QUANTITIES) {
    assert.deepEqual(typeInfo(Q + name), { identifier: Q + name, kind: 'quantity', unit, aggregation }, name);
  }
  for (const name of CATALOG_CATEGORIES) {
    const info = typeInfo(CAT + name);
    assert.equal(info?.kind, 'category', name);
    assert.equal(info?.unit, null, name);
  }
});

test('special identifiers and their kinds', () => {
  assert.equal(kindOfIdentifier('HKWorkoutTypeIdentifier'), 'workout');
  assert.equal(kindOfIdentifier('HKActivitySummaryTypeIdentifier'), 'activitySummary');
  assert.equal(kindOfIdentifier('HKDataTypeIdentifierStateOfMind'), 'stateOfMind');
  assert.equal(kindOfIdentifier('HKDataTypeIdentifierHeartbeatSeries'), 'heartbeatSeries');
  assert.equal(kindOfIdentifier('HKDataTypeIdentifierElectrocardiogram'), 'ecg');
  assert.equal(kindOfIdentifier('HKMedicationDoseEventTypeIdentifierMedicationDoseEvent'), 'medicationDose');
  for (const [kind, identifier] of Object.entries(SPECIAL_IDENTIFIERS)) {
    assert.deepEqual(typeInfo(identifier), { identifier, kind, unit: null });
  }
});

test('kinds of unknown identifiers follow the prefix rules', () => {
  assert.equal(kindOfIdentifier(`${Q}SomethingNew`), 'quantity');
  assert.equal(kindOfIdentifier(`${CAT}SomethingNew`), 'category');
  assert.equal(kindOfIdentifier('HKCorrelationTypeIdentifierBloodPressure'), undefined);
  // Outside both families, a HealthKit identifier is a number with a unit (exports' HKDataTypeSleepDurationGoal).
  assert.equal(kindOfIdentifier('HKDataTypeSleepDurationGoal'), 'quantity');
  assert.equal(kindOfIdentifier('NotHealthKit'), undefined);
  assert.equal(kindOfIdentifier(''), undefined);
  assert.equal(kindOfIdentifier(SLEEP_ANALYSIS), 'category');
  assert.equal(kindOfIdentifier(`${Q}StepCount`), 'quantity');
});

test('sample types are the kinds stored in samples', () => {
  assert.deepEqual(
    [...SAMPLE_KINDS].sort(),
    ['category', 'ecg', 'heartbeatSeries', 'medicationDose', 'quantity'],
  );
  assert.equal(isSampleType('HKWorkoutTypeIdentifier'), false);
  assert.equal(isSampleType('HKActivitySummaryTypeIdentifier'), false);
  assert.equal(isSampleType('HKDataTypeIdentifierStateOfMind'), false);
  assert.equal(isSampleType('HKDataTypeIdentifierElectrocardiogram'), true);
  assert.equal(isSampleType('HKDataTypeIdentifierHeartbeatSeries'), true);
  assert.equal(isSampleType('HKMedicationDoseEventTypeIdentifierMedicationDoseEvent'), true);
  assert.equal(isSampleType(`${Q}StepCount`), true);
  assert.equal(isSampleType(SLEEP_ANALYSIS), true);
  assert.equal(isSampleType(`${Q}SomethingNew`), false);
});

test('sleep analysis values and labels', () => {
  assert.equal(SLEEP_ANALYSIS, 'HKCategoryTypeIdentifierSleepAnalysis');
  assert.deepEqual(SleepValue, { inBed: 0, asleepUnspecified: 1, awake: 2, asleepCore: 3, asleepDeep: 4, asleepREM: 5 });
  const expected = ['inBed', 'asleepUnspecified', 'awake', 'asleepCore', 'asleepDeep', 'asleepREM'];
  expected.forEach((label, value) => assert.equal(categoryLabel(SLEEP_ANALYSIS, value), label));
  assert.equal(categoryLabel(SLEEP_ANALYSIS, 6), null);
  assert.equal(categoryLabel(SLEEP_ANALYSIS, -1), null);
  assert.equal(categoryLabel(SLEEP_ANALYSIS, 1.5), null);
  assert.equal(categoryLabel(SLEEP_ANALYSIS, null), null);
});

test('other category labels', () => {
  assert.equal(categoryLabel(`${CAT}AppleStandHour`, 0), 'stood');
  assert.equal(categoryLabel(`${CAT}AppleStandHour`, 1), 'idle');
  assert.equal(categoryLabel(`${CAT}HighHeartRateEvent`, 0), 'notApplicable');
  assert.equal(categoryLabel(`${CAT}LowHeartRateEvent`, 0), 'notApplicable');
  assert.equal(categoryLabel(`${CAT}IrregularHeartRhythmEvent`, 0), 'notApplicable');
  assert.equal(categoryLabel(`${CAT}MindfulSession`, 0), 'notApplicable');
  assert.equal(categoryLabel(`${CAT}LowCardioFitnessEvent`, 1), 'lowFitness');
  assert.equal(categoryLabel(`${CAT}HeadphoneAudioExposureEvent`, 1), 'sevenDayLimit');
  assert.equal(categoryLabel(`${CAT}Headache`, 0), 'unspecified');
  assert.equal(categoryLabel(`${CAT}Headache`, 1), 'notPresent');
  assert.equal(categoryLabel(`${CAT}Headache`, 4), 'severe');
  assert.equal(categoryLabel(`${CAT}MoodChanges`, 0), 'present');
  assert.equal(categoryLabel(`${CAT}AppetiteChanges`, 2), 'decreased');
  assert.equal(categoryLabel(`${CAT}MenstrualFlow`, 1), 'unspecified');
  assert.equal(categoryLabel(`${CAT}MenstrualFlow`, 5), 'none');
  assert.equal(categoryLabel(`${CAT}CervicalMucusQuality`, 5), 'eggWhite');
  assert.equal(categoryLabel(`${CAT}OvulationTestResult`, 2), 'luteinizingHormoneSurge');
  assert.equal(categoryLabel(`${CAT}Contraceptive`, 4), 'intrauterineDevice');
  assert.equal(categoryLabel(`${CAT}SexualActivity`, 0), 'notApplicable');
  // not a category, or unknown: no label
  assert.equal(categoryLabel(`${Q}StepCount`, 0), null);
  assert.equal(categoryLabel(`${CAT}SomethingNew`, 0), null);
});

test('registry entries are unique and well formed', () => {
  const identifiers = allTypes.map((info) => info.identifier);
  assert.equal(new Set(identifiers).size, identifiers.length);
  for (const info of allTypes) {
    assert.equal(typeInfo(info.identifier), info);
    if (info.kind === 'quantity') {
      assert.ok(info.identifier.startsWith(Q), info.identifier);
      assert.ok(info.unit.length > 0, info.identifier);
    } else if (info.kind === 'category') {
      assert.ok(info.identifier.startsWith(CAT), info.identifier);
      assert.equal(info.unit, null);
      assert.ok(Object.keys(info.labels).length > 0, info.identifier);
    }
  }
});

test("every quantity type's canonical unit converts to itself", () => {
  for (const info of allTypes) {
    if (info.kind !== 'quantity') continue;
    assert.equal(convertToCanonical(info.identifier, 42.5, info.unit), 42.5, info.identifier);
  }
});

test('length, energy, mass and temperature conversions', () => {
  assertClose(convertToCanonical(`${Q}DistanceWalkingRunning`, 1, 'mi'), 1609.344);
  assertClose(convertToCanonical(`${Q}DistanceWalkingRunning`, 2.5, 'km'), 2500);
  assertClose(convertToCanonical(`${Q}Height`, 70, 'in'), 1.778); // 70 × 0.0254
  assertClose(convertToCanonical(`${Q}Height`, 6, 'ft'), 1.8288); // 6 × 0.3048
  assertClose(convertToCanonical(`${Q}Height`, 180, 'cm'), 1.8);
  assertClose(convertToCanonical(`${Q}RunningVerticalOscillation`, 0.09, 'm'), 9);
  assertClose(convertToCanonical(`${Q}ActiveEnergyBurned`, 1, 'kJ'), 0.239005736);
  assertClose(convertToCanonical(`${Q}ActiveEnergyBurned`, 250, 'Cal'), 250);
  assertClose(convertToCanonical(`${Q}ActiveEnergyBurned`, 1000, 'cal'), 1);
  assertClose(convertToCanonical(`${Q}BodyMass`, 1, 'lb'), 0.45359237);
  assertClose(convertToCanonical(`${Q}BodyMass`, 1, 'st'), 6.35029318);
  assertClose(convertToCanonical(`${Q}BodyMass`, 70000, 'g'), 70);
  assertClose(convertToCanonical(`${Q}DietaryProtein`, 1, 'oz'), 28.349523125);
  assertClose(convertToCanonical(`${Q}DietarySodium`, 1.2, 'g'), 1200);
  assertClose(convertToCanonical(`${Q}BodyTemperature`, 100, 'degF'), 340 / 9); // (100 − 32) × 5/9
  assertClose(convertToCanonical(`${Q}BodyTemperature`, 32, 'degF'), 0);
  assertClose(convertToCanonical(`${Q}BodyTemperature`, 310.15, 'K'), 37);
});

test('percent, time, speed, rate, volume, glucose and the odd units', () => {
  assert.equal(convertToCanonical(`${Q}OxygenSaturation`, 0.97, '%'), 0.97);
  assertClose(convertToCanonical(`${Q}AppleExerciseTime`, 90, 's'), 1.5);
  assertClose(convertToCanonical(`${Q}AppleExerciseTime`, 2, 'hr'), 120);
  assertClose(convertToCanonical(`${Q}TimeInDaylight`, 1, 'd'), 1440);
  assertClose(convertToCanonical(`${Q}HeartRateVariabilitySDNN`, 0.045, 's'), 45);
  assertClose(convertToCanonical(`${Q}WalkingSpeed`, 3.6, 'km/hr'), 1);
  assertClose(convertToCanonical(`${Q}WalkingSpeed`, 1, 'mi/hr'), 0.44704); // 1609.344 / 3600
  assertClose(convertToCanonical(`${Q}HeartRate`, 1.2, 'count/s'), 72);
  assertClose(convertToCanonical(`${Q}DietaryWater`, 0.5, 'L'), 500);
  assertClose(convertToCanonical(`${Q}DietaryWater`, 1, 'fl_oz_us'), 29.5735295625);
  assertClose(convertToCanonical(`${Q}ForcedVitalCapacity`, 4200, 'mL'), 4.2);
  // 5.5 mmol/L × 180.15588 g/mol = 990.85734 mg/L = 99.085734 mg/dL
  assertClose(convertToCanonical(`${Q}BloodGlucose`, 5.5, 'mmol<180.15588000005408>/L'), 99.085734, 1e-6);
  assert.equal(convertToCanonical(`${Q}BloodGlucose`, 99, 'mg/dL'), 99);
  assert.equal(convertToCanonical(`${Q}EnvironmentalAudioExposure`, 71.3, 'dBASPL'), 71.3);
  assert.equal(convertToCanonical(`${Q}VO2Max`, 41.2, 'mL/min·kg'), 41.2);
  assert.equal(convertToCanonical(`${Q}VO2Max`, 41.2, 'ml/(kg*min)'), 41.2);
  assert.equal(convertToCanonical(`${Q}PhysicalEffort`, 3.1, 'kcal/hr·kg'), 3.1);
});

test('conversions that cannot be done', () => {
  assert.equal(convertToCanonical(`${Q}StepCount`, 10, 'furlong'), undefined);
  assert.equal(convertToCanonical(`${Q}BodyMass`, 70, 'm'), undefined); // wrong dimension
  assert.equal(convertToCanonical(`${Q}HeartRate`, 60, 'count'), undefined);
  assert.equal(convertToCanonical(`${Q}BloodGlucose`, 5.5, 'mmol/L'), undefined); // no molar mass
  assert.equal(convertToCanonical(`${Q}NoSuchType`, 1, 'count'), undefined);
  assert.equal(convertToCanonical(SLEEP_ANALYSIS, 1, 'count'), undefined);
});

test('units are parsed: new spellings of a known dimension convert, whatever the separators, prefixes and case', () => {
  // VO2 max as Apple has spelled it over the years: all ml per kg per minute.
  for (const unit of ['mL/kg·min', 'mL/min·kg', 'ml/kg*min', 'ml/(kg*min)', 'mL/kg⋅min', 'mL / kg · min']) {
    assertClose(convertToCanonical(`${Q}VO2Max`, 41.2, unit), 41.2);
  }
  assertClose(convertToCanonical(`${Q}VO2Max`, 0.0412, 'L/kg·min'), 41.2);
  // `/min` is a count per minute; Hz is per second.
  assertClose(convertToCanonical(`${Q}HeartRate`, 72, '/min'), 72);
  assertClose(convertToCanonical(`${Q}HeartRate`, 1.2, 'Hz'), 72);
  assertClose(convertToCanonical(`${Q}BodyTemperature`, 98.6, '°F'), 37);
  assertClose(convertToCanonical(`${Q}BodyTemperature`, 37, '°C'), 37);
  assertClose(convertToCanonical(`${Q}BodyTemperature`, 37, '℃'), 37);
  assertClose(convertToCanonical(`${Q}DietaryVitaminD`, 0.01, 'mg'), 10);
  assertClose(convertToCanonical(`${Q}DietaryVitaminD`, 10, 'µg'), 10);
  assertClose(convertToCanonical(`${Q}DietaryWater`, 1, 'ml'), 1);
  assertClose(convertToCanonical(`${Q}DietaryWater`, 2, 'dL'), 200);
  assertClose(convertToCanonical(`${Q}BloodGlucose`, 0.99, 'g/L'), 99);
  assertClose(convertToCanonical(`${Q}BloodPressureSystolic`, 16, 'kPa'), 120.0098, 1e-4); // 16,000 Pa ÷ 133.322 Pa/mmHg
  assertClose(convertToCanonical(`${Q}PhysicalEffort`, 3.1, 'kcal/(kg*hr)'), 3.1);
  assertClose(convertToCanonical(`${Q}CyclingPower`, 4.184, 'kJ/s'), 4184);
  assertClose(convertToCanonical(`${Q}WalkingSpeed`, 3.6, 'km/h'), 1);
  assertClose(convertUnit(1, 'm^2', 'cm^2') as number, 10_000);
  assert.equal(parseUnit('10^3 count')?.scale, 1000);
});

test('units that are not units, or not of the dimension, are refused', () => {
  assert.equal(parseUnit(''), null);
  assert.equal(parseUnit('furlong'), null);
  assert.equal(parseUnit('m/s/s'), null);
  assert.equal(convertToCanonical(`${Q}BodyTemperature`, 1, 'degC/min'), undefined); // an offset unit only stands alone
  assert.equal(convertToCanonical(`${Q}OxygenSaturation`, 0.97, 'count'), undefined); // a fraction is not a count
  assert.equal(convertToCanonical(`${Q}VO2Max`, 41.2, 'mL/kg'), undefined);
  assert.equal(convertToCanonical(`${Q}EnvironmentalAudioExposure`, 70, 'dBHL'), undefined);
});
