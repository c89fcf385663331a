// export.xml `Me` → the `profiles` columns an export knows: date of birth and
// biological sex (name and e-mail are not in it, so a stored name stays).
// iOS 8/9 wrote the sex as HKBiologicalSex's number and the date compact.
import { parseDayMs } from './apple-dates.js';
import type { ProfileFields } from '../db/writes/rows.js';
import type { Attributes } from './health-data-reader.js';

export type ProfileRow = ProfileFields;

const SEXES: Readonly<Record<string, string>> = {
  HKBiologicalSexFemale: 'female',
  HKBiologicalSexMale: 'male',
  HKBiologicalSexOther: 'other',
  1: 'female',
  2: 'male',
  3: 'other',
};

export function convertMe(attrs: Attributes): ProfileRow {
  const dateOfBirthMs = parseDayMs(attrs.HKCharacteristicTypeIdentifierDateOfBirth ?? '');
  return {
    dateOfBirthMs: Number.isNaN(dateOfBirthMs) ? null : dateOfBirthMs,
    biologicalSex: Object.hasOwn(SEXES, attrs.HKCharacteristicTypeIdentifierBiologicalSex ?? '') ? SEXES[attrs.HKCharacteristicTypeIdentifierBiologicalSex as string] : null,
  };
}
