// electrocardiograms/*.csv → one HKDataTypeIdentifierElectrocardiogram sample.
// The file is a key,value header (Recorded Date, Classification, Symptoms,
// Software Version, Device, Sample Rate, Lead, Unit; sometimes Average Heart
// Rate) followed by one voltage per line. The sample spans the recording
// (voltages ÷ sample rate); its value is null and the detail — classification,
// rate, average heart rate, the voltages themselves — goes to metadata. The
// name and date of birth at the top of the file are not kept.
import { SPECIAL_IDENTIFIERS } from '../core/registry.js';
import { parseExportDate } from './apple-dates.js';
import { contentHash } from './record-ids.js';
import type { SampleRow } from './records.js';

/** The ECG app is the source HealthKit names for recordings. */
const ECG_SOURCE_NAME = 'ECG';

const VOLTAGE = /^-?\d+(?:[.,]\d+)?$/;

function unquote(value: string): string {
  const trimmed = value.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1).replace(/""/g, '"') : trimmed;
}

function firstNumber(text: string | undefined): number | null {
  const match = text === undefined ? null : /-?\d+(?:[.,]\d+)?/.exec(text);
  return match ? Number(match[0].replace(',', '.')) : null;
}

/** The sample, or why the file is skipped. */
export function convertEcg(text: string, userId: string): SampleRow | string {
  const header = new Map<string, string>();
  const voltages: number[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') continue;
    if (VOLTAGE.test(line)) {
      voltages.push(Number(line.replace(',', '.')));
      continue;
    }
    if (voltages.length > 0) break;
    const comma = line.indexOf(',');
    if (comma > 0) header.set(line.slice(0, comma).trim().toLowerCase(), unquote(line.slice(comma + 1)));
  }
  const recorded = header.get('recorded date');
  if (recorded === undefined) return 'no Recorded Date line: not an ECG export';
  const startMs = parseExportDate(recorded);
  if (Number.isNaN(startMs)) return 'Recorded Date malformed';
  const rateHz = firstNumber(header.get('sample rate'));
  const endMs = rateHz !== null && rateHz > 0 ? startMs + Math.round((voltages.length / rateHz) * 1000) : startMs;
  const device = header.get('device') ?? '';
  const classification = header.get('classification') || null;
  const averageHeartRate = [...header.entries()].find(([key]) => key.startsWith('average heart rate') || key.startsWith('avg. heart rate'));
  const metadata = {
    classification,
    symptoms: header.get('symptoms') || null,
    averageHeartRate: firstNumber(averageHeartRate?.[1]),
    samplingFrequencyHz: rateHz,
    lead: header.get('lead') || null,
    voltageUnit: header.get('unit') || null,
    softwareVersion: header.get('software version') || null,
    numberOfVoltageMeasurements: voltages.length,
    voltageMeasurements: voltages,
  };
  return {
    idHash: contentHash('ecg', userId, [startMs, device, classification ?? '', voltages.length]),
    identifier: SPECIAL_IDENTIFIERS.ecg,
    startMs,
    endMs,
    value: null,
    sourceName: ECG_SOURCE_NAME,
    device,
    metadata: JSON.stringify(metadata),
  };
}
