// One workout: its figures, the recorded streams (heart rate, power, speed,
// cadence) on one time axis in the server's zone, the GPS track drawn to
// scale with its distance and climb (and a GPX download), the statistics the
// device computed, and its events (pauses, laps, segments).
import type { WorkoutDetail, WorkoutRoute, WorkoutSeries } from '../api.js';
import { chart } from '../charts.js';
import { settle, type Context } from '../context.js';
import { failure, h, replace, section } from '../dom.js';
import { activityName, dateTime, displayUnit, duration, formatInteger, kilometres, quantity, timeOfDay, typeName } from '../format.js';
import { save } from '../download.js';
import { trackSvg } from '../track.js';

const SERIES_POINTS = 600;
const TRACK_POINTS = 1500;

export async function workoutPage(context: Context, page: HTMLElement, uuid: string): Promise<void> {
  const { api, zone } = context;
  page.append(h('p', {}, h('a', { href: '#/workouts' }, '← All workouts')));
  let workout: WorkoutDetail;
  try {
    workout = await api.workout(uuid);
  } catch (error) {
    page.append(failure('the workout', error));
    return;
  }
  const facts: [string, string][] = [
    ['Start', dateTime(workout.start, zone)],
    ['End', timeOfDay(workout.end, zone)],
  ];
  if (workout.durationS !== null) facts.push(['Duration', duration(workout.durationS)]);
  if (workout.distanceM !== null) facts.push(['Distance', kilometres(workout.distanceM)]);
  if (workout.energyKcal !== null) facts.push(['Active energy', `${formatInteger(workout.energyKcal)} kcal`]);
  page.append(
    h('h1', {}, activityName(workout.activityType)),
    h('dl', { class: 'facts card' }, ...facts.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))),
  );
  const streams = section('Streams');
  const track = section('Route');
  page.append(streams);
  if (workout.hasRoute) page.append(track);

  const units = new Map<string, string | null>();
  const loadStreams = (async () => {
    if (workout.availableMetrics.length === 0) {
      streams.append(h('p', { class: 'muted' }, 'No streams recorded.'));
      return;
    }
    try {
      const series = await api.series(uuid, SERIES_POINTS);
      for (const stream of series.series) units.set(stream.type, stream.unit);
      streams.append(...series.series.map((stream, i) => streamChart(stream, series, zone, i)));
    } catch (error) {
      streams.append(failure('the streams', error));
    }
  })();
  const loadTrack = (async () => {
    if (!workout.hasRoute) return;
    try {
      const route = await api.route(uuid, TRACK_POINTS);
      replace(track, h('h2', {}, 'Route'), routeView(route, context, uuid));
    } catch (error) {
      track.append(failure('the route', error));
    }
  })();
  let unitsFailed: unknown = null;
  const loadCatalog = context.catalog().then(
    (types) => { for (const t of types) if (!units.has(t.identifier)) units.set(t.identifier, t.unit); },
    (error: unknown) => { unitsFailed = error; },
  );
  await settle(loadStreams, loadTrack, loadCatalog);
  const stats = statistics(workout, units);
  // Without the catalog, a statistic no stream shows has no unit: its figure is shown raw, and the page says why.
  if (unitsFailed !== null && Object.keys(workout.statisticsDetail).length > 0) stats.append(failure('the units of these statistics (figures shown without them)', unitsFailed));
  page.append(stats, events(workout, zone));
}

function streamChart(stream: WorkoutSeries['series'][number], series: WorkoutSeries, zone: string, index: number): HTMLElement {
  const { factor } = displayUnit(stream.unit);
  return h('div', { class: 'stream', 'data-stream': stream.type },
    chart({
      title: `${typeName(stream.type)} (${displayUnit(stream.unit, stream.type).label || 'count'})`,
      zone,
      xRange: [series.start, series.end],
      syncKey: 'workout',
      series: [{ label: typeName(stream.type), format: (v) => quantity(v / factor, stream.unit, true, stream.type), color: index % 6 }],
      data: [stream.points.map((p) => p[0]), stream.points.map((p) => p[1] * factor)],
      height: 160,
    }));
}

function routeView(route: WorkoutRoute, context: Context, uuid: string): HTMLElement {
  const download = h('button', { type: 'button', id: 'gpx' }, 'Download GPX');
  const status = h('span', { class: 'muted', role: 'status' });
  download.addEventListener('click', async () => {
    status.textContent = 'Preparing…';
    try {
      save(await context.api.download(`/v1/workouts/${encodeURIComponent(uuid)}/route`, { format: 'gpx' }));
      status.textContent = '';
    } catch (error) {
      status.textContent = `Could not download the track: ${error instanceof Error ? error.message : 'unexpected error'}`;
    }
  });
  return h('div', { class: 'route', 'data-points': route.points.length },
    trackSvg(route.points, route.distanceM),
    h('p', {},
      `GPS distance `, h('strong', { 'data-field': 'distance' }, kilometres(route.distanceM)),
      route.elevationGainM !== null ? ` · climb ${formatInteger(route.elevationGainM)} m` : '',
      ` · ${formatInteger(route.totalPoints)} points`),
    h('p', {}, download, ' ', status));
}

function statistics(workout: WorkoutDetail, units: Map<string, string | null>): HTMLElement {
  const entries = Object.entries(workout.statisticsDetail);
  if (entries.length === 0) return section('Statistics', h('p', { class: 'muted' }, 'None recorded.'));
  const cell = (v: number | undefined, unit: string | null, type: string) => h('td', {}, v === undefined ? '–' : quantity(v, unit, true, type));
  return section('Statistics', h('div', { class: 'scroll' }, h('table', {},
    h('thead', {}, h('tr', {}, ...['', 'min', 'mean', 'max', 'total'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...entries.map(([identifier, s]) => {
      const unit = units.get(identifier) ?? null;
      return h('tr', {}, h('th', { scope: 'row' }, typeName(identifier)), ...[s.min, s.avg, s.max, s.sum].map((v) => cell(v, unit, identifier)));
    })))));
}

function events(workout: WorkoutDetail, zone: string): HTMLElement {
  if (workout.events.length === 0) return section('Events', h('p', { class: 'muted' }, 'None recorded.'));
  const byStart = [...workout.events].sort((a, b) => (typeof a.start === 'number' ? a.start : 0) - (typeof b.start === 'number' ? b.start : 0));
  return section('Events', h('ul', { class: 'events' }, ...byStart.map((event) => {
    const type = typeof event.type === 'string' ? event.type : 'event';
    const start = typeof event.start === 'number' ? event.start : null;
    const end = typeof event.end === 'number' ? event.end : null;
    const at = start === null ? '' : ` at ${timeOfDay(start, zone)} (+${duration((start - workout.start) / 1000)})`;
    const lasting = start !== null && end !== null && end > start ? `, ${duration((end - start) / 1000)}` : '';
    return h('li', {}, `${typeName(type)}${at}${lasting}`);
  })));
}
