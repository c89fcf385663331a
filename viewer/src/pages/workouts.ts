// Workouts, newest first, filtered by activity type; a workout's own page
// (#/workouts/<uuid>) is in workout.ts. The type filter lists the types of
// the newest 200 workouts, and lives in the hash (#/workouts?type=running).
import type { Workouts } from '../api.js';
import type { Context } from '../context.js';
import { failure, h, section } from '../dom.js';
import { activityName, dateTime, duration, formatInteger, kilometres } from '../format.js';
import { workoutPage } from './workout.js';

const PAGE = 50;

type Workout = Workouts['workouts'][number];

export async function workoutsPage(context: Context, page: HTMLElement): Promise<void> {
  if (context.rest[0]) return workoutPage(context, page, context.rest[0]);
  const { api, params } = context;
  const type = params.get('type') ?? '';
  page.append(h('h1', {}, 'Workouts'));
  let types: string[];
  try {
    const recent = await api.workouts({ limit: 200 });
    types = [...new Set(recent.workouts.map((w) => w.activityType))].sort();
  } catch (error) {
    page.append(failure('the workouts', error));
    return;
  }
  const select = h('select', { id: 'activity-type' },
    h('option', { value: '' }, 'All types'),
    ...[...new Set([...types, ...(type ? [type] : [])])].map((t) => h('option', { value: t, selected: t === type }, activityName(t))));
  select.addEventListener('change', () => {
    location.hash = select.value ? `#/workouts?type=${encodeURIComponent(select.value)}` : '#/workouts';
  });
  page.append(h('div', { class: 'controls card' }, h('label', { for: 'activity-type' }, 'Type '), select));

  const list = h('ul', { class: 'workouts', id: 'workout-list' });
  const more = h('button', { type: 'button', hidden: true }, 'Show more');
  const listSection = section(type ? activityName(type) : 'All workouts', list, more);
  page.append(listSection);
  let offset = 0;
  let loading = false;
  const load = async () => {
    // The button stays while its page loads (hidden, it would drop a keyboard user's focus to the page's top).
    loading = true;
    more.setAttribute('aria-busy', 'true');
    const first = list.childElementCount;
    try {
      const result = await api.workouts({ activityType: type || undefined, limit: PAGE, offset });
      list.append(...result.workouts.map((w) => workoutItem(w, context.zone)));
      offset = result.nextOffset;
      const last = result.workouts.length < PAGE;
      // The last page: the focus goes on to the first workout it added.
      if (last && document.activeElement === more) list.children[first]?.querySelector<HTMLElement>('a')?.focus();
      more.hidden = last;
      if (list.childElementCount === 0) list.append(h('li', { class: 'muted' }, 'No workouts.'));
    } catch (error) {
      more.hidden = true;
      listSection.append(failure('the workouts', error));
    } finally {
      loading = false;
      more.removeAttribute('aria-busy');
    }
  };
  more.addEventListener('click', () => {
    if (!loading) void load();
  });
  await load();
}

function workoutItem(w: Workout, zone: string): HTMLElement {
  const facts = [
    w.durationS !== null ? duration(w.durationS) : null,
    w.distanceM !== null ? kilometres(w.distanceM) : null,
    w.energyKcal !== null ? `${formatInteger(w.energyKcal)} kcal` : null,
  ].filter(Boolean).join(' · ');
  return h('li', { 'data-uuid': w.uuid, 'data-type': w.activityType },
    h('a', { href: `#/workouts/${w.uuid}` },
      h('span', { class: 'what' }, activityName(w.activityType), w.hasRoute ? h('span', { class: 'tag', title: 'Has a GPS track' }, 'GPS') : null),
      h('span', { class: 'when' }, dateTime(w.start, zone)),
      h('span', { class: 'facts' }, facts)));
}
