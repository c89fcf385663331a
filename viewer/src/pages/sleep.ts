// Sleep: each session as a stage timeline (in bed, awake, REM, core, deep,
// unspecified asleep) drawn from the raw samples of the source that recorded
// the most sleep, as the API counts it; asleep minutes per night; and naps
// shown as what the API makes of them — sessions of their own, because more
// than three hours separate them from the night.
import type { Samples, SleepNights } from '../api.js';
import { chart } from '../charts.js';
import type { Context } from '../context.js';
import { failure, h, section } from '../dom.js';
import { dayLabel, hoursMinutes, timeOfDay } from '../format.js';
import { lastDays } from '../zone.js';

const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
const SPANS = [7, 14, 30] as const;
/** Sample values of SleepAnalysis and the timeline row each is drawn in (top to bottom). */
const ROWS: { value: number; name: string; label: string }[] = [
  { value: 0, name: 'inbed', label: 'In bed' },
  { value: 2, name: 'awake', label: 'Awake' },
  { value: 5, name: 'rem', label: 'REM' },
  { value: 3, name: 'core', label: 'Core' },
  { value: 4, name: 'deep', label: 'Deep' },
  { value: 1, name: 'asleep', label: 'Asleep' },
];
const ASLEEP = new Set([1, 3, 4, 5]);
const SESSION_GAP_H = 3;

type Night = SleepNights['nights'][number];
type Sample = Samples['samples'][number];

export async function sleepPage(context: Context, page: HTMLElement): Promise<void> {
  const { api, zone, params } = context;
  const days = SPANS.find((d) => String(d) === params.get('d')) ?? 7;
  const spans = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Nights' },
    ...SPANS.map((d) => h('a', { href: `#/sleep?d=${d}`, class: 'button', 'aria-current': d === days ? 'page' : null }, `${d} nights`)));
  page.append(h('h1', {}, 'Sleep'), h('div', { class: 'controls card' }, spans));
  const range = lastDays(days, zone);
  let nights: Night[];
  try {
    nights = (await api.sleep(range.start, range.end)).nights;
  } catch (error) {
    page.append(failure('the nights', error));
    return;
  }
  if (nights.length === 0) {
    page.append(h('p', { class: 'muted' }, 'No sleep recorded in these days.'));
    return;
  }
  // The longest session of each wake-up day is the night; any other is a nap.
  const longest = new Map<string, Night>();
  for (const night of nights) if ((longest.get(night.date)?.asleepMinutes ?? -1) < night.asleepMinutes) longest.set(night.date, night);

  const xs = range.dates.map((d) => Date.parse(`${d}T00:00:00Z`));
  page.append(section('Asleep per night', chart({
    title: 'Asleep per night (longest session of each day)',
    daily: true,
    zone: 'UTC',
    xRange: [xs[0] - 43_200_000, xs[xs.length - 1] + 43_200_000],
    series: [{ label: 'Asleep', bars: true, format: hoursMinutes, color: 2 }],
    yTicks: hoursMinutes,
    // Minutes, ticked at whole hours (or half hours when the nights are short).
    yIncrements: [30, 60, 120, 180, 240, 360, 480, 720],
    data: [xs, range.dates.map((d) => longest.get(d)?.asleepMinutes ?? null)],
    height: 180,
  })));

  const timelines = section('Sessions');
  page.append(timelines);
  let samples: Sample[] = [];
  try {
    const from = Math.min(...nights.map((n) => n.start));
    const to = Math.min(Math.max(...nights.map((n) => n.end)) + 1, from + 31 * 86_400_000);
    samples = await api.samples(SLEEP, from, to);
  } catch (error) {
    timelines.append(failure('the sleep stages', error));
  }
  for (const night of [...nights].reverse()) {
    const nap = longest.get(night.date) !== night;
    timelines.append(sessionCard(night, nap, samples, zone));
  }
}

function sessionCard(night: Night, nap: boolean, samples: Sample[], zone: string): HTMLElement {
  const inSession = samples.filter((s) => s.start >= night.start && s.end <= night.end);
  // Stages from the source that recorded the most sleep; in bed from the one that recorded the most in bed (as the API's inBedMinutes).
  const source = mostSource(inSession, ASLEEP);
  const inBedSource = mostSource(inSession, IN_BED);
  const drawn = inSession.filter((s) => (s.value === 0 ? s.source === inBedSource : s.source === source));
  const s = night.stages;
  return h(
    'article',
    { class: `session${nap ? ' nap' : ''}`, 'data-date': night.date, 'data-nap': String(nap) },
    h('h3', {}, `${nap ? 'Nap' : 'Night'} ending ${dayLabel(night.date, { weekday: 'long', day: 'numeric', month: 'long' })}`),
    nap ? h('p', { class: 'note' }, `A session of its own: more than ${SESSION_GAP_H} hours lie between it and the night's sleep, so it is not added to the night.`) : null,
    h('p', { class: 'times' }, `${timeOfDay(night.start, zone)} → ${timeOfDay(night.end, zone)} · asleep `, h('strong', { 'data-field': 'asleep' }, hoursMinutes(night.asleepMinutes)), ` · in bed ${hoursMinutes(night.inBedMinutes)}`),
    timeline(night, drawn),
    h('p', { class: 'stages' },
      `Core ${hoursMinutes(s.core)} · Deep ${hoursMinutes(s.deep)} · REM ${hoursMinutes(s.rem)} · Awake ${hoursMinutes(s.awake)}${s.unspecified ? ` · Unspecified ${hoursMinutes(s.unspecified)}` : ''}`),
  );
}

/** The source with the most asleep time among the samples (the one whose stages the API reports). */
const IN_BED = new Set([0]);

/** The source whose samples of `values` cover the most time. */
function mostSource(samples: Sample[], values: ReadonlySet<number>): string | null {
  const time = new Map<string | null, number>();
  for (const s of samples) if (s.value !== null && values.has(s.value)) time.set(s.source, (time.get(s.source) ?? 0) + s.end - s.start);
  let best: string | null = null;
  let most = -1;
  for (const [source, ms] of time) if (ms > most) [best, most] = [source, ms];
  return best;
}

/** One lane per stage present; each sample a bar placed by percentages (set through CSSOM: the CSP allows no style attributes). */
function timeline(night: Night, samples: Sample[]): HTMLElement {
  const rows = ROWS.filter((row) => samples.some((s) => s.value === row.value));
  const span = Math.max(1, night.end - night.start);
  const percent = (ms: number) => `${(((ms - night.start) / span) * 100).toFixed(2)}%`;
  return h('div', { class: 'timeline', role: 'img', 'aria-label': `Sleep stages over the session: ${rows.map((r) => r.label).join(', ')}` },
    ...rows.map((row) => {
      const lane = h('div', { class: 'lane' });
      for (const sample of samples.filter((s) => s.value === row.value)) {
        const bar = h('span', { class: `stage stage-${row.name}` });
        bar.style.left = percent(sample.start);
        bar.style.width = `max(1px, ${(((sample.end - sample.start) / span) * 100).toFixed(2)}%)`;
        lane.append(bar);
      }
      return h('div', { class: 'lane-row' }, h('span', { class: 'lane-label' }, row.label), lane);
    }));
}
