// export.xml `Me` → the `profiles` columns an export knows: date of birth and
// biological sex (name and e-mail are not in it, so a stored name stays).
import { parseDayMs } from './apple-dates.js';
import type { ProfileFields } from '../db/writes/rows.js';
import type { Attributes } from './health-data-reader.js';

export type ProfileRow = ProfileFields;

const SEXES: Readonly<Record<string, string>> = {
  HKBiologicalSexFemale: 'female',
  HKBiologicalSexMale: 'male',
  HKBiologicalSexOther: 'other',
};

export function convertMe(attrs: Attributes): ProfileRow {
  const dateOfBirthMs = parseDayMs(attrs.HKCharacteristicTypeIdentifierDateOfBirth ?? '');
  return {
    dateOfBirthMs: Number.isNaN(dateOfBirthMs) ? null : dateOfBirthMs,
    biologicalSex: SEXES[attrs.HKCharacteristicTypeIdentifierBiologicalSex ?? ''] ?? null,
  };
}
