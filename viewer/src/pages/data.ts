// What is stored (the catalog: every type with its counts and first and last
// day) and the export form: a dataset over local days as CSV or JSONL,
// downloaded through /v1/export with the token in its header.
import type { Catalog } from '../api.js';
import type { Context } from '../context.js';
import { failure, h, section } from '../dom.js';
import { formatInteger, typeName } from '../format.js';
import { save } from '../download.js';
import { addDays, dayStart, lastDays, localDate } from '../zone.js';
import { exportCapDays } from '../../../src/limits.js';

const DATASETS = [
  ['daily_metrics', 'Daily metrics'],
  ['samples', `Raw samples (at most ${exportCapDays('samples')} days)`],
  ['workouts', 'Workouts'],
  ['routes', 'Workout routes (GPS points)'],
  ['sleep', 'Sleep nights'],
  ['activity', 'Activity rings'],
  ['state_of_mind', 'State of mind'],
] as const;
/** Kinds stored as samples (the others have their own datasets). */
const SAMPLE_KINDS = new Set(['quantity', 'category', 'heartbeatSeries', 'ecg', 'medicationDose']);

type CatalogType = Catalog['types'][number];

export async function dataPage(context: Context, page: HTMLElement): Promise<void> {
  page.append(h('h1', {}, 'Data'));
  let types: CatalogType[];
  try {
    types = [...(await context.catalog())].sort((a, b) => typeName(a.identifier).localeCompare(typeName(b.identifier)));
  } catch (error) {
    page.append(failure('the catalog', error));
    return;
  }
  page.append(exportForm(context, types), catalogTable(types, context.zone));
}

function catalogTable(types: CatalogType[], zone: string): HTMLElement {
  const day = (ms: number | null) => (ms === null ? '–' : localDate(ms, zone));
  return section(`Stored types (${types.length})`, h('div', { class: 'scroll' }, h('table', { id: 'catalog' },
    h('thead', {}, h('tr', {}, ...['Type', 'Kind', 'Unit', 'Rows', 'Raw', 'Daily', 'First', 'Last'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...types.map((t) => h('tr', { 'data-identifier': t.identifier },
      h('th', { scope: 'row', title: t.identifier }, typeName(t.identifier)),
      h('td', {}, t.kind), h('td', {}, t.unit ?? ''),
      h('td', { class: 'num' }, formatInteger(t.rows)), h('td', { class: 'num' }, formatInteger(t.rawRows)), h('td', { class: 'num' }, formatInteger(t.aggregateRows)),
      h('td', {}, day(t.earliest)), h('td', {}, day(t.latest))))))));
}

function exportForm(context: Context, types: CatalogType[]): HTMLElement {
  const week = lastDays(7, context.zone);
  const field = (id: string, label: string, control: HTMLElement) => h('div', { class: 'field', id: `${id}-field` }, h('label', { for: id }, label), control);
  const dataset = h('select', { id: 'dataset', name: 'dataset' }, ...DATASETS.map(([value, label]) => h('option', { value }, label)));
  const format = h('select', { id: 'format', name: 'format' }, h('option', { value: 'csv' }, 'CSV'), h('option', { value: 'jsonl' }, 'JSONL'));
  const from = h('input', { id: 'from', name: 'from', type: 'date', required: true, value: week.dates[0] });
  const to = h('input', { id: 'to', name: 'to', type: 'date', required: true, value: week.dates[week.dates.length - 1] });
  const daily = types.filter((t) => t.kind === 'quantity' && t.aggregateRows > 0);
  const dailyTypes = h('select', { id: 'types', name: 'types', multiple: true, size: 5 },
    ...daily.map((t, i) => h('option', { value: t.identifier, selected: i === 0 }, typeName(t.identifier))));
  const sampleType = h('select', { id: 'type', name: 'type' },
    ...types.filter((t) => SAMPLE_KINDS.has(t.kind) && t.rawRows > 0).map((t) => h('option', { value: t.identifier }, typeName(t.identifier))));
  const typesField = field('types', 'Types', dailyTypes);
  const typeField = field('type', 'Type', sampleType);
  const status = h('p', { class: 'muted', role: 'status', id: 'export-status' });
  const submit = h('button', { type: 'submit' }, 'Download');
  const showFields = () => {
    typesField.hidden = dataset.value !== 'daily_metrics';
    typeField.hidden = dataset.value !== 'samples';
  };
  dataset.addEventListener('change', showFields);
  showFields();
  const form = h('form', { id: 'export', class: 'export' },
    field('dataset', 'Dataset', dataset), field('format', 'Format', format), field('from', 'From (local day)', from), field('to', 'To (local day, included)', to),
    typesField, typeField, h('div', { class: 'field' }, submit), status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (to.value < from.value) {
      status.textContent = 'The last day must not be before the first.';
      return;
    }
    const days = (Date.parse(to.value) - Date.parse(from.value)) / 86_400_000 + 1;
    const start = dayStart(from.value, context.zone);
    const end = dayStart(addDays(to.value, 1), context.zone);
    const cap = exportCapDays(dataset.value);
    const what = dataset.selectedOptions[0]?.textContent ?? 'This dataset';
    if (days > cap) {
      status.textContent = `${what}: at most ${cap} days in one file; these are ${days}.`;
      return;
    }
    // The server caps the span at cap × 24 hours: a daylight-saving change that lengthens a day can take the last day past it.
    if (end - start > cap * 86_400_000) {
      status.textContent = `${what}: at most ${cap} × 24 hours in one file; these ${days} days hold a clock change that makes them ${(end - start) / 3_600_000} hours: choose one day fewer.`;
      return;
    }
    if (dataset.value === 'daily_metrics' && dailyTypes.selectedOptions.length === 0) {
      status.textContent = 'Choose at least one type.';
      return;
    }
    if (dataset.value === 'samples' && sampleType.value === '') {
      status.textContent = 'No raw samples are stored for this user.';
      return;
    }
    const params: Record<string, string | number> = { dataset: dataset.value, format: format.value, start, end };
    if (dataset.value === 'daily_metrics') params.types = [...dailyTypes.selectedOptions].map((o) => o.value).join(',');
    if (dataset.value === 'samples') params.type = sampleType.value;
    submit.disabled = true;
    status.textContent = 'Exporting…';
    try {
      const file = await context.api.download('/v1/export', params);
      save(file);
      status.textContent = `Saved ${file.filename}.`;
    } catch (error) {
      status.textContent = `Export refused: ${error instanceof Error ? error.message : 'unexpected error'}`;
    } finally {
      submit.disabled = false;
    }
  });
  return section('Export', form);
}
