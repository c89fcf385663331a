// /v1/summary as a short markdown page for a person or an LLM agent, rendered
// from the Summary object (summary.ts) with the same numbers, said the way
// people say them (the JSON keeps the canonical units):
// - steps and energy in whole steps and kcal, thousands grouped (8,432);
// - heart rate in bpm, HRV in ms, stand hours in h, weight in kg, one decimal;
// - exercise, sleep and workout time in hours and minutes (7 h 12 min);
// - distance in km, one decimal; body fat as a percentage, one decimal;
// - where a figure came from in words (the phone's daily figures, the
//   activity rings), never a table name; instants as local time in the zone.
// Rounding is half away from zero. Under SUMMARY.markdownLinesUnder lines
// whatever the data.
import { DateTime } from 'luxon';
import { DAILY_TABLE, RINGS_TABLE, type Summary, type SummaryStat } from './summary.js';

const MAX_TEXT = 80;

/** Half away from zero to `decimals` places. */
function rounded(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return (Math.sign(value) * Math.round(Math.abs(value) * scale)) / scale || 0;
}

/** One decimal at most (a whole number shows none), thousands grouped: 60.2, 1,234.5. */
export function oneDecimal(value: number): string {
  return rounded(value, 1).toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** A whole number, thousands grouped: 8,432. */
export function whole(value: number): string {
  return rounded(value, 0).toLocaleString('en-US');
}

/** Minutes as hours and minutes, to the whole minute: 45 min, 7 h 12 min, 2 h. */
export function hoursAndMinutes(minutes: number): string {
  const total = rounded(minutes, 0);
  const h = Math.trunc(total / 60);
  const m = total - h * 60;
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** Metres as km, one decimal: 21 km, 5.4 km. */
export const kilometres = (metres: number): string => `${oneDecimal(metres / 1000)} km`;

const SOURCE_WORDS: Record<string, string> = { [DAILY_TABLE]: "the phone's daily figures", [RINGS_TABLE]: 'the activity rings' };

/** Free text on one line, without control characters, at most MAX_TEXT characters. */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > MAX_TEXT ? flat.slice(0, MAX_TEXT - 1) + '…' : flat;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function renderSummaryMarkdown(summary: Summary): string {
  const localTime = (ms: number) => DateTime.fromMillis(ms, { zone: summary.timeZone }).toFormat('yyyy-MM-dd HH:mm');
  const who = summary.name !== null && oneLine(summary.name) !== '' ? oneLine(summary.name) : summary.userID;
  const lines = [
    `# Health summary for ${who}`,
    '',
    `Last ${summary.days} days: ${summary.startDate} to ${summary.endDate}, local days in ${summary.timeZone}. Generated ${localTime(summary.generatedAt)}.`,
  ];
  /** A daily series: a cumulative one per day with its total, a discrete one over its daily means. */
  const statLine = (label: string, s: SummaryStat, show: (value: number) => string) => {
    const range = `lowest day ${show(s.min)}, highest day ${show(s.max)}; ${plural(s.days, 'day', 'days')} with data, from ${SOURCE_WORDS[s.source] ?? 'the daily figures'}`;
    return s.total === undefined
      ? `- ${label}: ${show(s.mean)} on average (${range})`
      : `- ${label}: ${show(s.mean)} a day on average, ${show(s.total)} in total (${range})`;
  };
  const withUnit = (unit: string, format: (value: number) => string) => (value: number) => `${format(value)} ${unit}`;

  if (summary.activity) {
    const { steps, activeEnergy, exercise, stand } = summary.activity;
    lines.push('', '## Activity');
    if (steps) lines.push(statLine('Steps', steps, withUnit('steps', whole)));
    if (activeEnergy) lines.push(statLine('Active energy', activeEnergy, withUnit('kcal', whole)));
    if (exercise) lines.push(statLine('Exercise', exercise, hoursAndMinutes));
    if (stand) lines.push(statLine('Stand hours', stand, withUnit('h', oneDecimal)));
  }
  if (summary.heart) {
    const { restingHeartRate, hrvSDNN } = summary.heart;
    lines.push('', '## Heart');
    if (restingHeartRate) lines.push(statLine('Resting heart rate', restingHeartRate, withUnit('bpm', oneDecimal)));
    if (hrvSDNN) lines.push(statLine('Heart rate variability (SDNN)', hrvSDNN, withUnit('ms', oneDecimal)));
  }
  if (summary.sleep) {
    const s = summary.sleep;
    lines.push(
      '',
      '## Sleep',
      `- Asleep: ${hoursAndMinutes(s.meanAsleepMinutes)} a night on average (shortest ${hoursAndMinutes(s.minAsleepMinutes)}, longest ${hoursAndMinutes(s.maxAsleepMinutes)}; ` +
        `${plural(s.nights, 'night', 'nights')}, the longest sleep of each wake-up day)`,
    );
  }
  if (summary.workouts) {
    const w = summary.workouts;
    const distance = w.totalDistanceM === undefined ? '' : `, ${kilometres(w.totalDistanceM)}`;
    lines.push('', '## Workouts', `- ${plural(w.count, 'workout', 'workouts')}, ${hoursAndMinutes(w.totalMinutes)} in total${distance}`);
    if (w.byActivityType.length > 0) {
      lines.push(`- Most frequent: ${w.byActivityType.map((t) => `${oneLine(t.activityType)} (${t.count})`).join(', ')}`);
    }
  }
  if (summary.body) {
    const { weight, bodyFat } = summary.body;
    lines.push('', '## Body');
    if (weight) lines.push(`- Weight: ${oneDecimal(weight.value)} ${weight.unit} (newest reading, ${localTime(weight.timestamp)})`);
    if (bodyFat) lines.push(`- Body fat: ${oneDecimal(bodyFat.value * 100)} % (newest reading, ${localTime(bodyFat.timestamp)})`);
  }
  const { lastSync, daysWithData } = summary.coverage;
  lines.push(
    '',
    '## Coverage',
    `- Last sync: ${lastSync === null ? 'never' : localTime(lastSync)}. ${daysWithData} of ${summary.days} days have data.`,
    '- Daily figures are deduplicated across devices (watch and phone are never double-counted) and never summed from raw samples; days without data are left out of averages, not counted as zero.',
  );
  return lines.join('\n') + '\n';
}
