// /v1/summary as a short markdown page for a person or an LLM agent, rendered
// from the Summary object (summary.ts) with the same numbers: rounded half
// away from zero to one decimal (a whole number shows none); body fat, a
// fraction, shown as a percentage (value × 100, same rounding); instants as
// local time in the summary's zone. Under SUMMARY.markdownLinesUnder lines
// whatever the data.
import { DateTime } from 'luxon';
import type { Summary, SummaryStat } from './summary.js';

const MAX_TEXT = 80;

/** The markdown rounding: half away from zero to one decimal; a whole number shows none. */
export function roundForMarkdown(value: number): string {
  return String((Math.sign(value) * Math.round(Math.abs(value) * 10)) / 10 || 0);
}

/** Free text on one line, without control characters, at most MAX_TEXT characters. */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > MAX_TEXT ? flat.slice(0, MAX_TEXT - 1) + '…' : flat;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function renderSummaryMarkdown(summary: Summary): string {
  const n = roundForMarkdown;
  const localTime = (ms: number) => DateTime.fromMillis(ms, { zone: summary.timeZone }).toFormat('yyyy-MM-dd HH:mm');
  const who = summary.name !== null && oneLine(summary.name) !== '' ? oneLine(summary.name) : summary.userID;
  const lines = [
    `# Health summary for ${who}`,
    '',
    `Last ${summary.days} days: ${summary.startDate} to ${summary.endDate}, local days in ${summary.timeZone}. Generated ${localTime(summary.generatedAt)}.`,
  ];
  const range = (s: SummaryStat) => `lowest day ${n(s.min)}, highest day ${n(s.max)}; ${plural(s.days, 'day', 'days')} with data; from ${s.source}`;
  /** A cumulative series per day with its total; a discrete one over its daily means. */
  const statLine = (label: string, s: SummaryStat, unit = s.unit) =>
    s.total === undefined
      ? `- ${label}: ${n(s.mean)} ${unit} on average over the daily values (${range(s)})`
      : `- ${label}: ${n(s.mean)} ${unit} per day on average, ${n(s.total)} ${unit} in total (${range(s)})`;

  if (summary.activity) {
    const { steps, activeEnergy, exercise, stand } = summary.activity;
    lines.push('', '## Activity');
    if (steps) lines.push(statLine('Steps', steps, 'steps'));
    if (activeEnergy) lines.push(statLine('Active energy', activeEnergy));
    if (exercise) lines.push(statLine('Exercise', exercise));
    if (stand) lines.push(statLine('Stand hours', stand));
  }
  if (summary.heart) {
    const { restingHeartRate, hrvSDNN } = summary.heart;
    lines.push('', '## Heart');
    if (restingHeartRate) lines.push(statLine('Resting heart rate', restingHeartRate));
    if (hrvSDNN) lines.push(statLine('Heart rate variability (SDNN)', hrvSDNN));
  }
  if (summary.sleep) {
    const s = summary.sleep;
    lines.push(
      '',
      '## Sleep',
      `- Asleep: ${n(s.meanAsleepMinutes)} min per night on average (shortest ${n(s.minAsleepMinutes)} min, longest ${n(s.maxAsleepMinutes)} min; ` +
        `${plural(s.nights, 'night', 'nights')}, the longest session of each wake-up day)`,
    );
  }
  if (summary.workouts) {
    const w = summary.workouts;
    const distance = w.totalDistanceM === undefined ? '' : `, ${n(w.totalDistanceM)} m distance`;
    lines.push('', '## Workouts', `- ${plural(w.count, 'workout', 'workouts')}, ${n(w.totalMinutes)} min in total${distance}`);
    if (w.byActivityType.length > 0) {
      lines.push(`- Most frequent: ${w.byActivityType.map((t) => `${oneLine(t.activityType)} (${t.count})`).join(', ')}`);
    }
  }
  if (summary.body) {
    const { weight, bodyFat } = summary.body;
    lines.push('', '## Body');
    if (weight) lines.push(`- Weight: ${n(weight.value)} ${weight.unit} (newest reading, ${localTime(weight.timestamp)})`);
    if (bodyFat) lines.push(`- Body fat: ${n(bodyFat.value * 100)} % (newest reading, ${localTime(bodyFat.timestamp)})`);
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
