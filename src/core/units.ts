// Unit conversion for writers: a quantity value in the unit a source wrote
// (export.xml `unit` attributes, the sync catalog's spellings) expressed in
// the type's canonical unit (src/core/registry.ts), which is what the
// storage contract holds. The read API never converts.
import { typeInfo } from './registry.js';

// Unit strings as HealthKit writes them (export.xml `unit` attributes) and
// as the catalog spells them. A value in `unit` is `value * scale + offset`
// in its dimension's base unit; two units convert only within one dimension.
interface UnitScale {
  dimension: string;
  scale: number;
  offset?: number;
}

const UNITS: Readonly<Record<string, UnitScale>> = {
  count: { dimension: 'count', scale: 1 },
  '%': { dimension: 'fraction', scale: 1 }, // HealthKit writes percentages as fractions already
  // length, base m
  m: { dimension: 'length', scale: 1 },
  km: { dimension: 'length', scale: 1000 },
  cm: { dimension: 'length', scale: 0.01 },
  mm: { dimension: 'length', scale: 0.001 },
  in: { dimension: 'length', scale: 0.0254 },
  ft: { dimension: 'length', scale: 0.3048 },
  yd: { dimension: 'length', scale: 0.9144 },
  mi: { dimension: 'length', scale: 1609.344 },
  // mass, base kg
  kg: { dimension: 'mass', scale: 1 },
  g: { dimension: 'mass', scale: 1e-3 },
  mg: { dimension: 'mass', scale: 1e-6 },
  mcg: { dimension: 'mass', scale: 1e-9 },
  lb: { dimension: 'mass', scale: 0.45359237 },
  st: { dimension: 'mass', scale: 6.35029318 },
  oz: { dimension: 'mass', scale: 0.028349523125 },
  // energy, base kcal; `Cal` is the food calorie (= kcal)
  kcal: { dimension: 'energy', scale: 1 },
  Cal: { dimension: 'energy', scale: 1 },
  cal: { dimension: 'energy', scale: 1e-3 },
  kJ: { dimension: 'energy', scale: 1 / 4.184 },
  J: { dimension: 'energy', scale: 1 / 4184 },
  // temperature, base degC
  degC: { dimension: 'temperature', scale: 1 },
  degF: { dimension: 'temperature', scale: 5 / 9, offset: -160 / 9 },
  K: { dimension: 'temperature', scale: 1, offset: -273.15 },
  // time, base s
  s: { dimension: 'time', scale: 1 },
  ms: { dimension: 'time', scale: 1e-3 },
  min: { dimension: 'time', scale: 60 },
  hr: { dimension: 'time', scale: 3600 },
  d: { dimension: 'time', scale: 86400 },
  // speed, base m/s
  'm/s': { dimension: 'speed', scale: 1 },
  'm/min': { dimension: 'speed', scale: 1 / 60 },
  'km/hr': { dimension: 'speed', scale: 1000 / 3600 },
  'mi/hr': { dimension: 'speed', scale: 1609.344 / 3600 },
  'ft/s': { dimension: 'speed', scale: 0.3048 },
  // frequency, base count/min
  'count/min': { dimension: 'frequency', scale: 1 },
  'count/s': { dimension: 'frequency', scale: 60 },
  'count/hr': { dimension: 'frequency', scale: 1 / 60 },
  // volume, base mL
  mL: { dimension: 'volume', scale: 1 },
  L: { dimension: 'volume', scale: 1000 },
  fl_oz_us: { dimension: 'volume', scale: 29.5735295625 },
  fl_oz_imp: { dimension: 'volume', scale: 28.4130625 },
  cup_us: { dimension: 'volume', scale: 236.5882365 },
  cup_imp: { dimension: 'volume', scale: 284.130625 },
  pt_us: { dimension: 'volume', scale: 473.176473 },
  pt_imp: { dimension: 'volume', scale: 568.26125 },
  // volume flow, base L/min
  'L/min': { dimension: 'flow', scale: 1 },
  'L/s': { dimension: 'flow', scale: 60 },
  // blood glucose, base mg/dL (mmol<molar mass>/L is parsed below)
  'mg/dL': { dimension: 'glucose', scale: 1 },
  mmHg: { dimension: 'pressure', scale: 1 },
  dBASPL: { dimension: 'soundLevel', scale: 1 },
  W: { dimension: 'power', scale: 1 },
  kW: { dimension: 'power', scale: 1000 },
  S: { dimension: 'conductance', scale: 1 },
  mS: { dimension: 'conductance', scale: 1e-3 },
  mcS: { dimension: 'conductance', scale: 1e-6 },
  IU: { dimension: 'insulin', scale: 1 },
  appleEffortScore: { dimension: 'effortScore', scale: 1 },
  // VO2 max: catalog, framework and export.xml spellings of one unit
  'ml/kg*min': { dimension: 'oxygenUptake', scale: 1 },
  'ml/(kg*min)': { dimension: 'oxygenUptake', scale: 1 },
  'mL/min·kg': { dimension: 'oxygenUptake', scale: 1 },
  // physical effort (METs): catalog, framework and export.xml spellings
  'kcal/hr*kg': { dimension: 'metabolicRate', scale: 1 },
  'kcal/(kg*hr)': { dimension: 'metabolicRate', scale: 1 },
  'kcal/hr·kg': { dimension: 'metabolicRate', scale: 1 },
};

// `mmol<180.15588000005408>/L`: HealthKit carries the molar mass (g/mol) in
// the unit; mmol/L × g/mol = mg/L, and mg/L ÷ 10 = mg/dL.
const MOLAR_CONCENTRATION = /^mmol<(\d+(?:\.\d+)?)>\/L$/;

function unitScale(unit: string): UnitScale | undefined {
  if (Object.hasOwn(UNITS, unit)) return UNITS[unit];
  const molar = MOLAR_CONCENTRATION.exec(unit);
  return molar ? { dimension: 'glucose', scale: Number(molar[1]) / 10 } : undefined;
}

/** A quantity value in `unit` expressed in the type's canonical unit; undefined when that cannot be done. */
export function convertToCanonical(identifier: string, value: number, unit: string): number | undefined {
  const info = typeInfo(identifier);
  if (info?.kind !== 'quantity') return undefined;
  if (unit === info.unit) return value;
  const from = unitScale(unit);
  const to = unitScale(info.unit);
  if (!from || !to || from.dimension !== to.dimension) return undefined;
  const base = value * from.scale + (from.offset ?? 0);
  return (base - (to.offset ?? 0)) / to.scale;
}
