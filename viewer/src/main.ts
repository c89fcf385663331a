// The viewer's shell: sign in, read /v1/users (time zone, users), then draw
// the page the hash names (#/week, #/trends, #/sleep, #/workouts[/uuid],
// #/data). Hash routes keep the server side to a few static files. Every
// page marks <main data-ready> once its sections have settled, which is what
// tests and the first-paint bench wait for (data-view names the hash drawn).
import { Api, ApiError, type Catalog, type Users } from './api.js';
import { disposeCharts } from './charts.js';
import type { Context, Page } from './context.js';
import { failure, h, replace } from './dom.js';
import { dataPage } from './pages/data.js';
import { signInForm } from './pages/sign-in.js';
import { sleepPage } from './pages/sleep.js';
import { trendsPage } from './pages/trends.js';
import { weekPage } from './pages/week.js';
import { workoutsPage } from './pages/workouts.js';
import { session } from './session.js';

const PAGES: { name: string; title: string; page: Page }[] = [
  { name: 'week', title: 'Week', page: weekPage },
  { name: 'trends', title: 'Trends', page: trendsPage },
  { name: 'sleep', title: 'Sleep', page: sleepPage },
  { name: 'workouts', title: 'Workouts', page: workoutsPage },
  { name: 'data', title: 'Data', page: dataPage },
];

const main = document.getElementById('main') as HTMLElement;
const top = document.getElementById('top') as HTMLElement;

interface Signed {
  token: string;
  users: Users;
  api: Api;
  catalog: Promise<Catalog['types']> | null;
}

let signed: Signed | null = null;
let renderCount = 0;

function showSignIn(message: string | null): void {
  signed = null;
  disposeCharts();
  replace(top, h('span', { class: 'brand' }, 'healthd'));
  signInForm(main, message, (token) => void signIn(token));
  main.dataset.ready = 'true';
}

function unauthorized(): void {
  session.signOut();
  showSignIn('The server no longer accepts this token (HTTP 401). Sign in again.');
}

function apiFor(token: string, userId: string | null): Api {
  return new Api(token, userId, unauthorized);
}

async function signIn(token: string): Promise<void> {
  delete main.dataset.ready;
  const api = new Api(token, null, () => {});
  let users: Users;
  try {
    users = await api.users();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      session.signOut();
      showSignIn('That token was not accepted (HTTP 401). Check it and try again: it is the token npm start printed, or a read token you were given.');
    } else if (error instanceof ApiError && error.status === 429) {
      showSignIn('Too many wrong tokens from this address (HTTP 429). Wait a minute, then try again.');
    } else {
      showSignIn(`The server could not be reached: ${error instanceof Error ? error.message.replace(/\.+$/, '') : 'unexpected error'}.`);
    }
    return;
  }
  session.signIn(token);
  const picked = session.user();
  const userId = picked && users.users.some((u) => u.userID === picked) ? picked : null;
  signed = { token, users, api: apiFor(token, userId), catalog: null };
  if (!location.hash.startsWith('#/')) history.replaceState(null, '', '#/week');
  drawHeader();
  await render();
}

function drawHeader(): void {
  if (!signed) return;
  const { users, api } = signed;
  const current = currentPage().name;
  const nav = h('nav', { 'aria-label': 'Pages' },
    ...PAGES.map(({ name, title }) => h('a', { href: `#/${name}`, 'aria-current': name === current ? 'page' : null }, title)));
  let picker: HTMLElement | null = null;
  if (users.multiUser && users.users.length > 1) {
    const select = h('select', { id: 'user-picker', 'aria-label': 'User' },
      ...users.users.map((u) => h('option', { value: u.userID, selected: u.userID === (api.userId ?? users.default) }, u.name ?? u.email ?? u.userID.slice(0, 8))));
    select.addEventListener('change', () => {
      const userId = select.value === users.default ? null : select.value;
      session.pickUser(userId);
      signed = { ...signed!, api: apiFor(signed!.token, userId), catalog: null };
      // A workout's page belongs to its user: another user goes back to the list.
      const { name, rest } = currentPage();
      if (name === 'workouts' && rest.length > 0) location.hash = '#/workouts';
      else void render();
    });
    picker = h('label', { class: 'picker' }, h('span', { class: 'sr-only' }, 'User'), select);
  }
  const signOut = h('button', { type: 'button', class: 'link', id: 'sign-out' }, 'Sign out');
  signOut.addEventListener('click', () => {
    session.signOut();
    history.replaceState(null, '', '#/week');
    showSignIn(null);
  });
  replace(top, h('span', { class: 'brand' }, 'healthd'), nav, h('span', { class: 'tools' }, picker, signOut));
}

function currentPage(): { name: string; title: string; page: Page; rest: string[]; params: URLSearchParams } {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [name, ...rest] = path.split('/');
  const found = PAGES.find((p) => p.name === name) ?? PAGES[0];
  return { ...found, rest: rest.map(decoded), params: new URLSearchParams(query) };
}

/** A path segment of the address decoded; one with a malformed escape as it is (its page then says it found nothing). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Keyboard focus across a redraw, which rebuilds the header and the page: the
 * control that had it (a filter, the user picker) gets it back once it is
 * drawn again, so arrow keys step on through its options; anything else
 * (a page link, a workout) hands it to <main>, where the new page begins.
 */
function focusAfterDraw(id: string | null): void {
  if (document.activeElement !== document.body && document.activeElement !== null) return;
  const again = id === null ? null : document.getElementById(id);
  if (again) again.focus();
  else main.focus({ preventScroll: true });
}

async function render(): Promise<void> {
  if (!signed) return;
  const mine = ++renderCount;
  const state = signed;
  const page = currentPage();
  const hash = location.hash;
  const active = document.activeElement;
  const hadFocus = active !== null && active !== document.body;
  const focused = hadFocus && active instanceof HTMLElement ? active.id || null : null;
  disposeCharts();
  delete main.dataset.ready;
  main.dataset.page = page.name;
  drawHeader();
  // The user picker lives in the header, drawn again just now: it has the focus back at once.
  if (focused !== null) document.getElementById(focused)?.focus();
  document.title = `${page.title} · healthd`;
  const context: Context = {
    api: state.api,
    users: state.users,
    zone: state.users.timeZone,
    // Kept once loaded; a failure is not kept, so the next page that needs it asks again.
    catalog: () =>
      (state.catalog ??= state.api.catalog().then(
        (c) => c.types,
        (error: unknown) => {
          state.catalog = null;
          throw error;
        },
      )),
    params: page.params,
    rest: page.rest,
  };
  const container = h('div', { class: 'page' });
  replace(main, container);
  try {
    await page.page(context, container);
  } catch (error) {
    container.append(failure(page.title.toLowerCase(), error));
  }
  // A later navigation owns the page now.
  if (mine !== renderCount || signed !== state) return;
  if (hadFocus) focusAfterDraw(focused);
  main.dataset.view = hash;
  main.dataset.ready = 'true';
  if (!performance.getEntriesByName('healthd:ready').length) performance.mark('healthd:ready');
}

window.addEventListener('hashchange', () => void render());

const token = session.token();
if (token) void signIn(token);
else showSignIn(null);
