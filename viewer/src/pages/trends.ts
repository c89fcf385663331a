// Any daily metric of the catalog, picked by name, over 7, 30, 90 or 365
// days, each with its mean and range; several stack on one shared time axis
// (same days, cursors moving together). The choice lives in the hash
// (#/trends?m=RestingHeartRate,StepCount&d=90) so it survives a reload and
// can be bookmarked.
import type { Catalog } from '../api.js';
import { chart } from '../charts.js';
import type { Context } from '../context.js';
import { failure, h, section } from '../dom.js';
import { displayUnit, quantity, typeName } from '../format.js';
import { lastDays } from '../zone.js';

const PREFIX = 'HKQuantityTypeIdentifier';
const SPANS = [7, 30, 90, 365] as const;
const DEFAULT_METRICS = ['StepCount', 'RestingHeartRate'];

type CatalogType = Catalog['types'][number];

const short = (identifier: string) => identifier.replace(PREFIX, '');
const full = (name: string) => (name.startsWith('HK') ? name : PREFIX + name);

function go(metrics: string[], days: number): void {
  location.hash = `#/trends?m=${metrics.map(short).join(',')}&d=${days}`;
}

export async function trendsPage(context: Context, page: HTMLElement): Promise<void> {
  const { api, zone, params } = context;
  page.append(h('h1', {}, 'Trends'));
  let daily: CatalogType[];
  try {
    daily = (await context.catalog()).filter((t) => t.kind === 'quantity' && t.aggregateRows > 0).sort((a, b) => typeName(a.identifier).localeCompare(typeName(b.identifier)));
  } catch (error) {
    page.append(failure('the catalog', error));
    return;
  }
  if (daily.length === 0) {
    page.append(h('p', { class: 'muted' }, 'No daily metrics stored yet.'));
    return;
  }
  const known = new Set(daily.map((t) => t.identifier));
  const days = SPANS.find((d) => String(d) === params.get('d')) ?? 30;
  const asked = params.get('m')?.split(',').filter(Boolean).map(full) ?? DEFAULT_METRICS.map(full);
  const metrics = asked.filter((identifier) => known.has(identifier));
  const units = new Map(daily.map((t) => [t.identifier, t.unit]));

  const select = h('select', { id: 'metric', 'aria-label': 'Metric to add' },
    ...daily.filter((t) => !metrics.includes(t.identifier)).map((t) => h('option', { value: t.identifier }, typeName(t.identifier))));
  const add = h('form', { class: 'inline', id: 'add-metric' }, select, h('button', { type: 'submit' }, 'Add'));
  add.addEventListener('submit', (event) => {
    event.preventDefault();
    if (select.value) go([...metrics, select.value], days);
  });
  const spans = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Days' },
    ...SPANS.map((d) => {
      const button = h('button', { type: 'button', 'aria-pressed': String(d === days), 'data-days': d }, `${d} days`);
      button.addEventListener('click', () => go(metrics, d));
      return button;
    }));
  const chips = h('ul', { class: 'chips', 'aria-label': 'Shown metrics' },
    ...metrics.map((identifier) => {
      const remove = h('button', { type: 'button', class: 'chip-remove', 'aria-label': `Remove ${typeName(identifier)}` }, '×');
      remove.addEventListener('click', () => go(metrics.filter((m) => m !== identifier), days));
      return h('li', { class: 'chip' }, typeName(identifier), remove);
    }));
  page.append(h('div', { class: 'controls card' }, spans, add, chips));

  if (metrics.length === 0) {
    page.append(h('p', { class: 'muted' }, 'Pick a metric to draw.'));
    return;
  }
  const range = lastDays(days, zone);
  const charts = section('Daily values');
  page.append(charts);
  try {
    const series = await api.daily(metrics, range.start, range.end);
    const xs = range.dates.map((d) => Date.parse(`${d}T00:00:00Z`));
    const xRange: [number, number] = [xs[0] - 43_200_000, xs[xs.length - 1] + 43_200_000];
    for (const [index, identifier] of metrics.entries()) {
      const unit = series.find((m) => m.identifier === identifier)?.unit ?? units.get(identifier) ?? null;
      const values = new Map((series.find((m) => m.identifier === identifier)?.days ?? []).map((d) => [d.date, d.value]));
      const present = [...values.values()].filter((v): v is number => v !== null);
      const stats = present.length
        ? `mean ${quantity(present.reduce((a, b) => a + b, 0) / present.length, unit, true, identifier)} · range ${quantity(Math.min(...present), unit, false)}–${quantity(Math.max(...present), unit, true, identifier)} · ${present.length} of ${days} days`
        : 'no values in these days';
      // Drawn in display units (km, %, bpm), so the axis reads like the legend.
      const { factor } = displayUnit(unit);
      const column = range.dates.map((d) => {
        const v = values.get(d);
        return v === null || v === undefined ? null : v * factor;
      });
      charts.append(
        h('div', { class: 'trend', 'data-metric': short(identifier) },
          chart({
            title: typeName(identifier),
            daily: true,
            zone: 'UTC',
            xRange,
            syncKey: 'trends',
            series: [{ label: typeName(identifier), format: (v) => quantity(v / factor, unit, true, identifier), color: index % 6 }],
            data: [xs, column],
            height: 180,
          }),
          h('p', { class: 'stats' }, stats)),
      );
    }
  } catch (error) {
    charts.append(failure('the daily values', error));
  }
}
