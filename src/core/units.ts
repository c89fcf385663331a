// Unit conversion for writers: a quantity value in the unit a source wrote
// (export.xml `unit` attributes, the sync catalog's spellings) expressed in
// the type's canonical unit (src/core/registry.ts), which is what the
// storage contract holds. The read API never converts.
//
// Units are parsed, not looked up in a list of spellings, so that a spelling
// Apple has not used before (`mL/kg·min` after years of `mL/min·kg`) still
// converts when it names a known dimension. The grammar is HealthKit's unit
// strings: factors joined by `*` or `·`, each an optional SI prefix (`k`,
// `m`, `mc`/`µ`…) on a base unit (`g`, `m`, `L`, `s`, `J`, `cal`, `W`, `Pa`…)
// or a named unit (`lb`, `mi`, `min`, `Cal`, `mmHg`, `count`, `%`, `degC`…),
// optionally raised with `^n`, or a plain number; one `/` puts everything
// after it in the denominator (`ml/kg*min` is ml per kg-minute, as HealthKit
// reads it), parentheses only group. `mmol<180.15>/L` carries a molar mass,
// which makes moles a mass. Two units convert only when their dimensions are
// the same; temperatures (with offsets) only stand alone.
import { typeInfo } from './registry.js';

/** A parsed unit: a value in it is `value * scale + offset` in the base units of `dimensions`. */
export interface ParsedUnit {
  /** Exponent per base dimension, e.g. `{ length: 3, mass: -1, time: -1 }`; empty for a pure number. */
  dimensions: Readonly<Record<string, number>>;
  scale: number;
  offset: number;
}

interface BaseUnit {
  dimensions: Readonly<Record<string, number>>;
  scale: number;
  offset?: number;
  /** Takes SI prefixes (k, m, mc…). */
  prefixed?: boolean;
}

const LENGTH = { length: 1 };
const MASS = { mass: 1 };
const TIME = { time: 1 };
const VOLUME = { length: 3 };
const ENERGY = { energy: 1 };
const TEMPERATURE = { temperature: 1 };
const PRESSURE = { pressure: 1 };

// Base dimensions: length m, mass kg, time s, energy J, temperature K,
// pressure Pa; the rest are their own dimension with a scale of 1.
const BASE_UNITS: Readonly<Record<string, BaseUnit>> = {
  count: { dimensions: {}, scale: 1 },
  // HealthKit writes percentages as fractions already (0.97 with unit `%`); a dimension of its own keeps them apart from counts.
  '%': { dimensions: { fraction: 1 }, scale: 1 },
  m: { dimensions: LENGTH, scale: 1, prefixed: true },
  in: { dimensions: LENGTH, scale: 0.0254 },
  ft: { dimensions: LENGTH, scale: 0.3048 },
  yd: { dimensions: LENGTH, scale: 0.9144 },
  mi: { dimensions: LENGTH, scale: 1609.344 },
  g: { dimensions: MASS, scale: 1e-3, prefixed: true },
  lb: { dimensions: MASS, scale: 0.45359237 },
  oz: { dimensions: MASS, scale: 0.028349523125 },
  st: { dimensions: MASS, scale: 6.35029318 },
  s: { dimensions: TIME, scale: 1, prefixed: true },
  min: { dimensions: TIME, scale: 60 },
  hr: { dimensions: TIME, scale: 3600 },
  h: { dimensions: TIME, scale: 3600 },
  d: { dimensions: TIME, scale: 86_400 },
  Hz: { dimensions: { time: -1 }, scale: 1, prefixed: true },
  L: { dimensions: VOLUME, scale: 1e-3, prefixed: true },
  l: { dimensions: VOLUME, scale: 1e-3, prefixed: true },
  fl_oz_us: { dimensions: VOLUME, scale: 29.5735295625e-6 },
  fl_oz_imp: { dimensions: VOLUME, scale: 28.4130625e-6 },
  cup_us: { dimensions: VOLUME, scale: 236.5882365e-6 },
  cup_imp: { dimensions: VOLUME, scale: 284.130625e-6 },
  pt_us: { dimensions: VOLUME, scale: 473.176473e-6 },
  pt_imp: { dimensions: VOLUME, scale: 568.26125e-6 },
  J: { dimensions: ENERGY, scale: 1, prefixed: true },
  // The thermochemical calorie; `Cal` is the food calorie (= kcal).
  cal: { dimensions: ENERGY, scale: 4.184, prefixed: true },
  Cal: { dimensions: ENERGY, scale: 4184 },
  W: { dimensions: { energy: 1, time: -1 }, scale: 1, prefixed: true },
  K: { dimensions: TEMPERATURE, scale: 1 },
  degC: { dimensions: TEMPERATURE, scale: 1, offset: 273.15 },
  '°C': { dimensions: TEMPERATURE, scale: 1, offset: 273.15 },
  '℃': { dimensions: TEMPERATURE, scale: 1, offset: 273.15 },
  degF: { dimensions: TEMPERATURE, scale: 5 / 9, offset: (459.67 * 5) / 9 },
  '°F': { dimensions: TEMPERATURE, scale: 5 / 9, offset: (459.67 * 5) / 9 },
  '℉': { dimensions: TEMPERATURE, scale: 5 / 9, offset: (459.67 * 5) / 9 },
  Pa: { dimensions: PRESSURE, scale: 1, prefixed: true },
  mmHg: { dimensions: PRESSURE, scale: 133.322387415 },
  cmAq: { dimensions: PRESSURE, scale: 98.0665 },
  inHg: { dimensions: PRESSURE, scale: 3386.388640341 },
  atm: { dimensions: PRESSURE, scale: 101_325 },
  mol: { dimensions: { substance: 1 }, scale: 1, prefixed: true },
  dBASPL: { dimensions: { soundPressureLevel: 1 }, scale: 1 },
  dBHL: { dimensions: { hearingLevel: 1 }, scale: 1 },
  S: { dimensions: { conductance: 1 }, scale: 1, prefixed: true },
  V: { dimensions: { voltage: 1 }, scale: 1, prefixed: true },
  IU: { dimensions: { insulin: 1 }, scale: 1 },
  appleEffortScore: { dimensions: { effortScore: 1 }, scale: 1 },
};

/** SI prefixes, longest first so `mc` and `da` win over `m` and `d`. */
const PREFIXES: ReadonlyArray<readonly [string, number]> = [
  ['mc', 1e-6],
  ['da', 1e1],
  ['µ', 1e-6],
  ['μ', 1e-6],
  ['p', 1e-12],
  ['n', 1e-9],
  ['m', 1e-3],
  ['c', 1e-2],
  ['d', 1e-1],
  ['h', 1e2],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
];

const NUMBER = /^\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
const POWER_OF_NUMBER = /^(\d+(?:\.\d+)?)\^(-?\d+)$/;
const WITH_EXPONENT = /^(.+?)\^(-?\d+)$/;
/** `mol<180.15588000005408>` and prefixed forms: moles of a substance of that molar mass (g/mol). */
const MOLAR_MASS = /^(.*)mol<(\d+(?:\.\d+)?)>$/;
const FACTOR_SEPARATORS = /[*·⋅\s]+/;

function baseUnit(symbol: string): BaseUnit | undefined {
  if (Object.hasOwn(BASE_UNITS, symbol)) return BASE_UNITS[symbol];
  for (const [prefix, factor] of PREFIXES) {
    if (symbol.length <= prefix.length || !symbol.startsWith(prefix)) continue;
    const rest = symbol.slice(prefix.length);
    if (!Object.hasOwn(BASE_UNITS, rest) || !BASE_UNITS[rest].prefixed) continue;
    const base = BASE_UNITS[rest];
    return { dimensions: base.dimensions, scale: base.scale * factor };
  }
  return undefined;
}

/** One factor (`kg`, `m^2`, `10^3`, `mmol<180.15>`), or undefined when it is not a unit. */
function factorUnit(token: string): BaseUnit | undefined {
  if (NUMBER.test(token)) return { dimensions: {}, scale: Number(token) };
  const power = POWER_OF_NUMBER.exec(token);
  if (power) return { dimensions: {}, scale: Number(power[1]) ** Number(power[2]) };
  const molar = MOLAR_MASS.exec(token);
  if (molar) {
    const moles = baseUnit(molar[1] + 'mol');
    // Moles × g/mol: a mass.
    return moles && { dimensions: MASS, scale: moles.scale * Number(molar[2]) * 1e-3 };
  }
  const raised = WITH_EXPONENT.exec(token);
  if (raised) {
    const base = baseUnit(raised[1]);
    if (base === undefined || base.offset !== undefined) return undefined;
    const exponent = Number(raised[2]);
    return { dimensions: Object.fromEntries(Object.entries(base.dimensions).map(([d, e]) => [d, e * exponent])), scale: base.scale ** exponent };
  }
  return baseUnit(token);
}

/** A product of factors (one side of the `/`) multiplied into `into` with the sign of `sign`. */
function addFactors(text: string, sign: 1 | -1, into: { dimensions: Record<string, number>; scale: number; offset: number; offsets: number; factors: number }): boolean {
  for (const token of text.replace(/[()]/g, ' ').split(FACTOR_SEPARATORS)) {
    if (token === '') continue;
    const unit = factorUnit(token);
    if (unit === undefined) return false;
    into.factors++;
    if (unit.offset !== undefined) into.offsets++;
    into.scale *= sign === 1 ? unit.scale : 1 / unit.scale;
    into.offset = unit.offset ?? 0;
    for (const [dimension, exponent] of Object.entries(unit.dimensions)) {
      const total = (into.dimensions[dimension] ?? 0) + sign * exponent;
      if (total === 0) delete into.dimensions[dimension];
      else into.dimensions[dimension] = total;
    }
  }
  return true;
}

function parse(unit: string): ParsedUnit | null {
  const text = unit.trim();
  if (text === '') return null;
  const slash = text.indexOf('/');
  const numerator = slash === -1 ? text : text.slice(0, slash);
  const denominator = slash === -1 ? '' : text.slice(slash + 1);
  if (denominator.includes('/')) return null;
  const parsed = { dimensions: {} as Record<string, number>, scale: 1, offsets: 0, factors: 0, offset: 0 };
  // `/min` is a count per minute.
  if (!addFactors(numerator, 1, parsed) || !addFactors(denominator, -1, parsed)) return null;
  if (parsed.factors === 0) return null;
  // A temperature with an offset (°C, °F) means something only on its own.
  if (parsed.offsets > 0 && (parsed.factors > 1 || slash !== -1)) return null;
  return { dimensions: parsed.dimensions, scale: parsed.scale, offset: parsed.offsets > 0 ? parsed.offset : 0 };
}

const parsedUnits = new Map<string, ParsedUnit | null>();

/** The unit a HealthKit unit string names, or null when it is not one. */
export function parseUnit(unit: string): ParsedUnit | null {
  let parsed = parsedUnits.get(unit);
  if (parsed === undefined) {
    parsed = parse(unit);
    if (parsedUnits.size < 10_000) parsedUnits.set(unit, parsed);
  }
  return parsed;
}

function sameDimensions(a: ParsedUnit, b: ParsedUnit): boolean {
  const keys = Object.keys(a.dimensions);
  if (keys.length !== Object.keys(b.dimensions).length) return false;
  return keys.every((key) => a.dimensions[key] === b.dimensions[key]);
}

/** `canonical = value * scale + offset`. */
interface Conversion {
  scale: number;
  offset: number;
}

/** Per canonical unit, the conversion from each unit met so far (null: none). */
const conversions = new Map<string, Map<string, Conversion | null>>();

function conversion(from: string, to: string): Conversion | null {
  let fromUnits = conversions.get(to);
  if (fromUnits === undefined) conversions.set(to, (fromUnits = new Map()));
  let found = fromUnits.get(from);
  if (found === undefined) {
    const source = parseUnit(from);
    const target = parseUnit(to);
    found = source && target && sameDimensions(source, target) ? { scale: source.scale / target.scale, offset: (source.offset - target.offset) / target.scale } : null;
    if (fromUnits.size < 1000) fromUnits.set(from, found);
  }
  return found;
}

/** A value in unit `from` expressed in unit `to`; undefined when the two are not of one dimension (or not units). */
export function convertUnit(value: number, from: string, to: string): number | undefined {
  if (from === to) return value;
  const found = conversion(from, to);
  return found === null ? undefined : value * found.scale + found.offset;
}

/** A quantity value in `unit` expressed in the type's canonical unit; undefined when that cannot be done. */
export function convertToCanonical(identifier: string, value: number, unit: string): number | undefined {
  const info = typeInfo(identifier);
  if (info?.kind !== 'quantity') return undefined;
  return convertUnit(value, unit, info.unit);
}
