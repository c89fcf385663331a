// Today and the six days before it: each day's rings (move, or move time in
// that mode; exercise; stand), steps and active energy, and the 7-day
// summary's headline figures. Every number is the API's for that local day:
// rings from /v1/activity/summary, steps and energy from /v1/metrics/daily,
// headlines from /v1/summary?range=7d.
import type { ActivityDays, Summary } from '../api.js';
import { chart } from '../charts.js';
import { settle, type Context } from '../context.js';
import { failure, h, replace, section } from '../dom.js';
import { dayLabel, formatInteger, hoursMinutes, quantity } from '../format.js';
import { ringsSvg } from '../rings.js';
import { lastDays, type LocalDate } from '../zone.js';

const STEPS = 'HKQuantityTypeIdentifierStepCount';
const ACTIVE_ENERGY = 'HKQuantityTypeIdentifierActiveEnergyBurned';

type ActivityDay = ActivityDays['days'][number];

export async function weekPage(context: Context, page: HTMLElement): Promise<void> {
  const { api, zone } = context;
  const range = lastDays(7, zone);
  const headlines = section('This week');
  const days = section('Day by day');
  const stepsChart = section('Steps');
  page.append(h('h1', {}, 'The last 7 days, today included'), headlines, days, stepsChart);

  const loadDays = (async () => {
    try {
      const [activity, daily] = await Promise.all([api.activity(range.start, range.end), api.daily([STEPS, ACTIVE_ENERGY], range.start, range.end)]);
      const rings = new Map(activity.days.map((d) => [d.date, d]));
      const byType = (identifier: string) => new Map((daily.find((m) => m.identifier === identifier)?.days ?? []).map((d) => [d.date, d.value]));
      const steps = byType(STEPS);
      const energy = byType(ACTIVE_ENERGY);
      const list = h('div', { class: 'days' }, ...[...range.dates].reverse().map((date) => dayCard(date, rings.get(date), steps.get(date) ?? null, energy.get(date) ?? null)));
      replace(days, h('h2', {}, 'Day by day'), list);
      replace(stepsChart, h('h2', {}, 'Steps'), stepsBars(range.dates, steps));
    } catch (error) {
      days.append(failure('the days', error));
      stepsChart.append(failure('the steps', error));
    }
  })();

  const loadSummary = (async () => {
    try {
      headlines.append(headlineList(await api.summary('7d')));
    } catch (error) {
      headlines.append(failure('the summary', error));
    }
  })();
  await settle(loadDays, loadSummary);
}

function figure(field: string, label: string, value: string | null, goal?: string | null, unit = ''): HTMLElement[] {
  return [
    h('dt', {}, label),
    h('dd', { 'data-field': field },
      value === null ? h('span', { class: 'value none' }, '–') : h('span', { class: 'value' }, value),
      goal ? ' / ' : null, goal ? h('span', { class: 'goal' }, goal) : null,
      unit && (value !== null || goal) ? ` ${unit}` : null),
  ];
}

const whole = (n: number | null | undefined) => (n === null || n === undefined ? null : formatInteger(n));

function dayCard(date: LocalDate, day: ActivityDay | undefined, steps: number | null, energy: number | null): HTMLElement {
  const moveTime = day?.moveMode === 2;
  const move = moveTime
    ? figure('moveTime', 'Move time', whole(day?.moveTimeMin), whole(day?.moveTimeGoalMin), 'min')
    : figure('move', 'Move', whole(day?.moveKcal), whole(day?.moveGoalKcal), 'kcal');
  const label = dayLabel(date, { weekday: 'long', day: 'numeric', month: 'long' });
  return h(
    'article',
    { class: 'day', 'data-date': date },
    h('h3', {}, label),
    ringsSvg(
      [
        { name: 'move', value: (moveTime ? day?.moveTimeMin : day?.moveKcal) ?? null, goal: (moveTime ? day?.moveTimeGoalMin : day?.moveGoalKcal) ?? null },
        { name: 'exercise', value: day?.exerciseMin ?? null, goal: day?.exerciseGoalMin ?? null },
        { name: 'stand', value: day?.standHours ?? null, goal: day?.standGoalHours ?? null },
      ],
      `Rings of ${label}`,
    ),
    h('dl', {},
      ...move,
      ...figure('exercise', 'Exercise', whole(day?.exerciseMin), whole(day?.exerciseGoalMin), 'min'),
      ...figure('stand', 'Stand', whole(day?.standHours), whole(day?.standGoalHours), 'h'),
      ...figure('steps', 'Steps', whole(steps)),
      ...figure('activeEnergy', 'Active energy', whole(energy), null, 'kcal')),
  );
}

function stepsBars(dates: LocalDate[], steps: Map<string, number | null>): HTMLElement {
  const xs = dates.map((d) => Date.parse(`${d}T00:00:00Z`));
  return chart({
    title: 'Steps per day',
    daily: true,
    zone: 'UTC',
    xRange: [xs[0] - 43_200_000, xs[xs.length - 1] + 43_200_000],
    series: [{ label: 'Steps', bars: true, format: formatInteger }],
    data: [xs, dates.map((d) => steps.get(d) ?? null)],
    height: 180,
  });
}

function headlineList(summary: Summary): HTMLElement {
  const items: [string, string, string][] = [];
  const stat = (field: string, label: string, s: { mean: number; unit: string } | undefined, show: (n: number) => string) => {
    if (s) items.push([field, label, show(s.mean)]);
  };
  stat('steps', 'Steps, daily mean', summary.activity?.steps, formatInteger);
  stat('activeEnergy', 'Active energy, daily mean', summary.activity?.activeEnergy, (n) => `${formatInteger(n)} kcal`);
  stat('exercise', 'Exercise, daily mean', summary.activity?.exercise, (n) => `${formatInteger(n)} min`);
  stat('stand', 'Stand, daily mean', summary.activity?.stand, (n) => `${formatInteger(n)} h`);
  stat('restingHeartRate', 'Resting heart rate', summary.heart?.restingHeartRate, (n) => quantity(n, 'count/min'));
  stat('hrv', 'HRV (SDNN)', summary.heart?.hrvSDNN, (n) => quantity(n, 'ms'));
  if (summary.sleep) items.push(['sleep', 'Asleep, nightly mean', hoursMinutes(summary.sleep.meanAsleepMinutes)]);
  if (summary.workouts) items.push(['workouts', 'Workouts', `${summary.workouts.count}, ${hoursMinutes(summary.workouts.totalMinutes)} in all`]);
  if (items.length === 0) return h('p', { class: 'muted' }, 'No data in the last 7 days.');
  return h('dl', { class: 'headlines' }, ...items.map(([field, label, value]) => h('div', {}, h('dt', {}, label), h('dd', { 'data-headline': field }, value))));
}

