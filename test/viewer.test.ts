// Issue 16: the built-in viewer in a real browser. Debian's Chromium (driven
// by playwright-core) against the real server on demo data: every page
// renders with data and without console errors or failed requests; the week
// page shows the API's numbers for the same local days (worked out here with
// luxon, not the viewer's own date code); a wrong token gets a clear
// message; a workout's track and streams draw; the export form downloads a
// CSV with its header; the user picker reads another user; no page overflows
// at 1280 or 390 px. Screenshots go to a temp folder for a person to look at.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EXPORT_COLUMNS } from '../src/core/export-encoding.js';
import { demoUserId, generateDemo } from '../src/demo/generate.js';
import { assertChromium, launchChromium } from './support/browser.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { startServer, type TestServer } from './support/server.js';

const ZONE = 'America/New_York';
const SEED = 16;
const USERS = [demoUserId(SEED, 0), demoUserId(SEED, 1)];
const STEPS = 'HKQuantityTypeIdentifierStepCount';
const ENERGY = 'HKQuantityTypeIdentifierActiveEnergyBurned';
const PAGES = ['#/week', '#/trends', '#/sleep?d=30', '#/workouts', '#/data'] as const;

let db: TestDatabase;
let server: TestServer;
let browser: Browser;
const shots = mkdtempSync(join(tmpdir(), 'healthd-viewer-'));

before(async () => {
  assertChromium();
  db = await createTestDatabase();
  await generateDemo(db.url, { users: 2, days: 35, seed: SEED, timeZone: ZONE });
  // The demo naps on one day in twelve, by calendar date: make sure the last
  // 30 days hold one, three days ago at 15:00 local, 30 minutes, on the watch.
  const napStart = DateTime.now().setZone(ZONE).startOf('day').minus({ days: 3 }).set({ hour: 15 }).toMillis();
  await db.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT user_id, gen_random_uuid(), type_id, $2::bigint, $2::bigint + 1800000, 3, source_id
     FROM samples WHERE user_id = $1 AND value = 3 AND type_id = (SELECT type_id FROM sample_types WHERE identifier = 'HKCategoryTypeIdentifierSleepAnalysis')
     LIMIT 1`,
    [USERS[0], napStart],
  );
  // The newest night's in-bed also from the watch, shorter than the phone's: the in-bed lane draws one source, as inBedMinutes counts one.
  await db.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT b.user_id, gen_random_uuid(), b.type_id, b.start_ms + 900000, b.end_ms - 900000, 0, a.source_id
     FROM (SELECT * FROM samples WHERE user_id = $1 AND value = 0 AND type_id = (SELECT type_id FROM sample_types WHERE identifier = 'HKCategoryTypeIdentifierSleepAnalysis') ORDER BY start_ms DESC LIMIT 1) b
     CROSS JOIN LATERAL (SELECT source_id FROM samples WHERE user_id = b.user_id AND type_id = b.type_id AND value = 3 AND start_ms >= b.start_ms AND source_id IS DISTINCT FROM b.source_id LIMIT 1) a`,
    [USERS[0]],
  );
  server = await startServer({ databaseUrl: db.url, env: { SERVICE_USER_ID: USERS[0], SERVICE_MULTI_USER: 'true', SERVICE_TIME_ZONE: ZONE } });
  browser = await launchChromium();
  process.stdout.write(`# viewer screenshots: ${shots}\n`);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

/** A browser tab with everything that went wrong in it recorded. */
interface Tab {
  context: BrowserContext;
  page: Page;
  problems: string[];
  /** Every URL the page asked for. */
  requests: string[];
}

async function openTab(width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<Tab> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme, locale: 'en-US', timezoneId: 'Asia/Tokyo' });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('request', (request) => requests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return { context, page, problems, requests };
}

async function signIn(tab: Tab, token = server.token): Promise<void> {
  await tab.page.goto(`${server.baseUrl}/app`);
  await tab.page.fill('#token', token);
  await tab.page.click('#sign-in button[type=submit]');
}

/** Navigates by hash and waits for that page to have settled. */
async function visit(tab: Tab, hash: string): Promise<void> {
  await tab.page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await tab.page.waitForSelector(`main[data-ready="true"][data-view="${hash}"]`);
}

async function close(tab: Tab, options: { clean: boolean } = { clean: true }): Promise<void> {
  await tab.context.close();
  if (!options.clean) return;
  assert.deepEqual(tab.problems, [], 'no console errors, no failed requests, no HTTP errors');
  const foreign = tab.requests.filter((url) => !url.startsWith(server.baseUrl + '/') && !url.startsWith('blob:') && !url.startsWith('data:'));
  assert.deepEqual(foreign, [], 'every request goes to the server itself');
  assert.ok(tab.requests.every((url) => !url.includes(server.token)), 'the token never appears in a URL');
}

const api = async <T = any>(path: string): Promise<T> => {
  const { status, body } = await server.getJson<T>(path);
  assert.equal(status, 200, path);
  return body;
};

/** The last `count` local days in the zone, today included, as the API cuts them. */
function lastDays(count: number): { dates: string[]; start: number; end: number } {
  const today = DateTime.now().setZone(ZONE).startOf('day');
  const first = today.minus({ days: count - 1 });
  const dates = Array.from({ length: count }, (_, i) => first.plus({ days: i }).toISODate()!);
  return { dates, start: first.toMillis(), end: today.plus({ days: 1 }).toMillis() };
}
const lastWeek = () => lastDays(7);

const shown = (n: number | null) => (n === null ? '–' : Math.round(n).toLocaleString('en-US'));

test('the static files: content types, a strict CSP, no token needed; the index links /app', async () => {
  const index = await server.getJson('/', { token: null });
  assert.equal(index.body.app, '/app');
  const files: [string, RegExp][] = [
    ['/app', /^text\/html; charset=utf-8$/],
    ['/app/app.js', /^text\/javascript; charset=utf-8$/],
    ['/app/app.css', /^text\/css; charset=utf-8$/],
    ['/app/icon.svg', /^image\/svg\+xml$/],
  ];
  for (const [path, type] of files) {
    const response = await server.get(path, { token: null });
    assert.equal(response.status, 200, path);
    assert.match(response.headers.get('content-type')!, type, path);
    const csp = response.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/, path);
    assert.match(csp, /script-src 'self';/, path);
    assert.match(csp, /connect-src 'self'/, path);
    assert.doesNotMatch(csp, /unsafe/, path);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    const text = await response.text();
    assert.ok(text.length > 100, path);
    if (path === '/app') {
      assert.doesNotMatch(text, /<script>|\son\w+=|style=/, 'no inline script, handler or style');
      assert.doesNotMatch(text, /(src|href)="(https?:)?\/\//, 'no external assets');
    }
  }
  assert.equal((await server.getJson('/app/nope.js', { token: null })).status, 404);
  const doc = (await server.getJson('/openapi.json', { token: null })).body;
  assert.equal(doc.paths['/app'].get.operationId, 'getApp');
});

test('sign-in with a wrong token shows a clear message and keeps nothing', async () => {
  const tab = await openTab();
  const wrong = 'not-the-token-0123456789';
  await signIn(tab, wrong);
  const message = await tab.page.textContent('#sign-in-error');
  assert.match(message!, /not accepted \(HTTP 401\)/);
  assert.ok(!message!.includes(wrong), 'the message does not echo the token');
  assert.equal(await tab.page.evaluate(() => sessionStorage.length), 0, 'a refused token is not kept');
  assert.ok(tab.requests.every((url) => !url.includes(wrong)), 'the token never appears in a URL');
  // The form is still there for another try, and the right token opens the week.
  await tab.page.fill('#token', server.token);
  await tab.page.click('#sign-in button[type=submit]');
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  assert.equal(await tab.page.evaluate(() => Object.keys(sessionStorage).join()), 'healthd.token', 'the token lives in sessionStorage');
  assert.deepEqual(await tab.context.cookies(), [], 'no cookie');
  assert.equal(await tab.page.evaluate(() => localStorage.length), 0, 'nothing in localStorage');
  // The one expected failure is the refused sign-in.
  assert.deepEqual(tab.problems.filter((p) => !p.includes('401')), []);
  await close(tab, { clean: false });
});

test('the week page shows the API\'s numbers for the same local days', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  const week = lastWeek();
  const activity = await api(`/v1/activity/summary?start=${week.start}&end=${week.end}`);
  const daily = await api(`/v1/metrics/daily?types=${STEPS},${ENERGY}&start=${week.start}&end=${week.end}`);
  const summary = await api('/v1/summary?range=7d&format=json');
  const dayValue = (identifier: string, date: string) => daily.metrics.find((m: any) => m.identifier === identifier)?.days.find((d: any) => d.date === date)?.value ?? null;

  const cards = await tab.page.$$eval('article.day', (articles) => articles.map((a) => ({
    date: a.getAttribute('data-date'),
    fields: Object.fromEntries([...a.querySelectorAll('dd[data-field]')].map((dd) => [
      dd.getAttribute('data-field'),
      { value: dd.querySelector('.value')!.textContent, goal: dd.querySelector('.goal')?.textContent ?? null },
    ])),
    ringTexts: ['move', 'moveTime', 'exercise', 'stand'].map((field) => a.querySelector(`dd[data-field="${field}"]`)?.textContent ?? null).filter((t) => t !== null),
  })));
  // A ring with a goal names its unit, a day without a value too ("– / 400 kcal").
  for (const card of cards) for (const text of card.ringTexts) if (/ \/ /.test(text!)) assert.match(text!, / (kcal|min|h)$/, `${card.date}: ${text}`);
  assert.deepEqual(cards.map((c) => c.date), [...week.dates].reverse(), 'today and the six days before it, newest first');
  let compared = 0;
  for (const card of cards) {
    const day = activity.days.find((d: any) => d.date === card.date);
    assert.ok(day, `the API has rings for ${card.date}`);
    const move = day.moveMode === 2 ? card.fields.moveTime : card.fields.move;
    assert.deepEqual(move, day.moveMode === 2
      ? { value: shown(day.moveTimeMin), goal: shown(day.moveTimeGoalMin) }
      : { value: shown(day.moveKcal), goal: shown(day.moveGoalKcal) }, `${card.date} move`);
    assert.deepEqual(card.fields.exercise, { value: shown(day.exerciseMin), goal: shown(day.exerciseGoalMin) }, `${card.date} exercise`);
    assert.deepEqual(card.fields.stand, { value: shown(day.standHours), goal: shown(day.standGoalHours) }, `${card.date} stand`);
    assert.equal(card.fields.steps.value, shown(dayValue(STEPS, card.date!)), `${card.date} steps`);
    assert.equal(card.fields.activeEnergy.value, shown(dayValue(ENERGY, card.date!)), `${card.date} active energy`);
    if (dayValue(STEPS, card.date!) !== null) compared++;
  }
  assert.ok(compared >= 6, `days with steps compared: ${compared}`);
  const headline = (field: string) => tab.page.textContent(`dd[data-headline="${field}"]`);
  assert.equal(await headline('steps'), shown(summary.activity.steps.mean));
  assert.equal(await headline('activeEnergy'), `${shown(summary.activity.activeEnergy.mean)} kcal`);
  assert.equal(await headline('restingHeartRate'), `${shown(summary.heart.restingHeartRate.mean)} bpm`);
  assert.equal(await tab.page.getAttribute('figure[data-chart="Steps per day"]', 'data-drawn'), 'true');
  await close(tab);
});

test('every page renders with data, without console errors or failed requests', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');

  await visit(tab, '#/trends');
  assert.deepEqual(await tab.page.$$eval('.trend', (t) => t.map((e) => e.getAttribute('data-metric'))), ['StepCount', 'RestingHeartRate']);
  await tab.page.waitForSelector('.trend figure[data-drawn="true"] canvas');
  assert.match((await tab.page.textContent('.trend[data-metric="RestingHeartRate"] .stats'))!, /^mean \d+ bpm · range \d+–\d+ bpm · \d+ of 30 days$/);
  // Add a metric by name and widen to 90 days: three charts on one time axis.
  await tab.page.selectOption('#metric', 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN');
  await tab.page.click('#add-metric button');
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/trends?m=StepCount,RestingHeartRate,HeartRateVariabilitySDNN&d=30"]');
  await tab.page.click('button[data-days="90"]');
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/trends?m=StepCount,RestingHeartRate,HeartRateVariabilitySDNN&d=90"]');
  assert.equal(await tab.page.$$eval('.trend', (t) => t.length), 3);
  assert.match((await tab.page.textContent('.trend[data-metric="StepCount"] .stats'))!, / of 90 days$/);

  await visit(tab, '#/sleep?d=30');
  const month = lastDays(30);
  const nights = (await api(`/v1/sleep/daily?start=${month.start}&end=${month.end}`)).nights;
  const sessions = await tab.page.$$eval('article.session', (s) => s.map((e) => ({ date: e.getAttribute('data-date'), nap: e.getAttribute('data-nap'), asleep: e.querySelector('[data-field="asleep"]')!.textContent, stages: e.querySelectorAll('.stage').length })));
  assert.equal(sessions.length, nights.length, 'one card per session');
  assert.ok(sessions.length >= 28, `${sessions.length} sessions`);
  assert.ok(sessions.every((s) => s.stages > 0), 'every session has a stage timeline');
  // A nap is its own session (more than 3 h from the night), marked as one.
  const dates = nights.map((n: any) => n.date);
  const napDates = dates.filter((d: string, i: number) => dates.indexOf(d) !== i);
  assert.ok(napDates.length > 0, 'a nap in 30 days');
  for (const date of napDates) assert.ok(sessions.some((s) => s.date === date && s.nap === 'true'), `the nap of ${date} is shown`);
  assert.ok(await tab.page.isVisible('article.nap .note'));
  const night = nights[nights.length - 1];
  const h = Math.floor(Math.round(night.asleepMinutes) / 60);
  const m = String(Math.round(night.asleepMinutes) % 60).padStart(2, '0');
  assert.equal(sessions[0].asleep, `${h}:${m}`, 'the newest session\'s asleep time is the API\'s');
  // Two sources recorded that night's time in bed: one is drawn, the one inBedMinutes counts.
  const inBedBars = await tab.page.$$eval('article.session', (s) => s.map((e) => e.querySelectorAll('.stage-inbed').length));
  assert.ok(inBedBars.every((bars) => bars <= 1), `in-bed bars per session: ${inBedBars.join(',')}`);

  await visit(tab, '#/workouts');
  const listed = await api('/v1/workouts?limit=50');
  assert.deepEqual(await tab.page.$$eval('#workout-list li', (li) => li.map((e) => e.getAttribute('data-uuid'))), listed.workouts.map((w: any) => w.uuid));
  const type = listed.workouts[0].activityType;
  await tab.page.selectOption('#activity-type', type);
  await tab.page.waitForSelector(`main[data-ready="true"][data-view="#/workouts?type=${type}"]`);
  const types = await tab.page.$$eval('#workout-list li', (li) => li.map((e) => e.getAttribute('data-type')));
  assert.ok(types.length > 0 && types.every((t) => t === type), 'filtered by type');

  await visit(tab, '#/data');
  const catalog = (await api('/v1/catalog/types')).types;
  assert.deepEqual((await tab.page.$$eval('#catalog tbody tr', (r) => r.map((e) => e.getAttribute('data-identifier')))).sort(), catalog.map((t: any) => t.identifier).sort());
  await close(tab);
});

test('a workout\'s GPS track and streams draw', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  const workouts = (await api('/v1/workouts?limit=50')).workouts;
  const workout = workouts.find((w: any) => w.hasRoute && w.availableMetrics.length >= 2);
  assert.ok(workout, 'the demo has a workout with a route and streams');
  await visit(tab, `#/workouts/${workout.uuid}`);
  const route = await api(`/v1/workouts/${workout.uuid}/route?maxPoints=1500`);
  const path = await tab.page.getAttribute('svg.track path.track-line', 'd');
  assert.equal(path!.match(/[ML]/g)!.length, route.points.length, 'one vertex per route point');
  const box = await tab.page.$eval('svg.track', (s) => s.getBoundingClientRect().toJSON());
  assert.ok(box.width > 100 && box.height > 50, 'the track is drawn at a visible size');
  assert.equal(await tab.page.textContent('.route [data-field="distance"]'), `${(route.distanceM / 1000).toFixed(2)} km`);
  const drawn = await tab.page.$$eval('.stream', (s) => s.map((e) => ({ type: e.getAttribute('data-stream'), canvas: !!e.querySelector('figure[data-drawn="true"] canvas') })));
  assert.deepEqual(drawn.map((d) => d.type), workout.availableMetrics);
  assert.ok(drawn.every((d) => d.canvas), 'every stream drew');
  assert.ok(await tab.page.isVisible('text=Statistics'));
  const download = tab.page.waitForEvent('download');
  await tab.page.click('#gpx');
  const gpx = await download;
  assert.equal(gpx.suggestedFilename(), `workout-${workout.uuid}.gpx`);
  assert.match(readFileSync((await gpx.path())!, 'utf8'), /^<\?xml[^>]*\?><gpx version="1\.1"/);
  await close(tab);
});

test("a stream's hovered point is dated by the zone's day, not UTC's", async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  // An evening workout in New York: its instants fall on the next UTC day.
  const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const localDay = (ms: number) => DateTime.fromMillis(ms, { zone: ZONE }).toISODate();
  const evening = (await api('/v1/workouts?limit=200')).workouts.find(
    (w: any) => w.availableMetrics.length > 0 && localDay(w.start) === localDay(w.end) && utcDay(w.start) !== localDay(w.start) && utcDay(w.end) !== localDay(w.end),
  );
  assert.ok(evening, 'the demo has a workout whose local day is not its UTC day');
  await visit(tab, `#/workouts/${evening.uuid}`);
  const over = await tab.page.waitForSelector('.stream figure[data-drawn="true"] .u-over');
  const box = (await over.boundingBox())!;
  await tab.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const shown = await tab.page.$eval('.stream figure[data-drawn="true"] .u-legend .u-series:first-child .u-value', (e) => e.textContent ?? '');
  const expected = await tab.page.evaluate(
    ({ ms, zone }) => new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: zone }).format(ms),
    { ms: evening.start, zone: ZONE },
  );
  assert.ok(shown.startsWith(`${expected} `), `the legend reads "${shown}", the workout's local day is ${expected}`);
  await close(tab);
});

test('a count per minute reads as what it counts: rpm for cycling cadence, bpm for heart rate', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  const CADENCE = 'HKQuantityTypeIdentifierCyclingCadence';
  const ride = (await api('/v1/workouts?limit=200')).workouts.find((w: any) => w.availableMetrics.includes(CADENCE) && w.availableMetrics.includes('HKQuantityTypeIdentifierHeartRate'));
  assert.ok(ride, 'the demo has a ride with cadence and heart rate');
  await visit(tab, `#/workouts/${ride.uuid}`);
  const titles = await tab.page.$$eval('.stream figure', (f) => f.map((e) => e.getAttribute('data-chart')));
  assert.ok(titles.includes('Cycling cadence (rpm)'), titles.join(' | '));
  assert.ok(titles.includes('Heart rate (bpm)'), titles.join(' | '));
  await close(tab);
});

test('text on the accent colour is readable in light and dark (WCAG AA, 4.5:1)', async () => {
  for (const scheme of ['light', 'dark'] as const) {
    const tab = await openTab(1280, scheme);
    await tab.page.goto(`${server.baseUrl}/app`);
    const ratio = await tab.page.$eval('#sign-in button[type=submit]', (button) => {
      const style = getComputedStyle(button);
      const luminance = (css: string) => {
        const [r, g, b] = css.match(/[\d.]+/g)!.slice(0, 3).map((v) => Number(v) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    });
    assert.ok(ratio >= 4.5, `${scheme}: ${ratio.toFixed(2)}:1`);
    await close(tab);
  }
});

test('the export form downloads a CSV whose first line is the header', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  await visit(tab, '#/data');
  await tab.page.selectOption('#dataset', 'activity');
  await tab.page.selectOption('#format', 'csv');
  const download = tab.page.waitForEvent('download');
  await tab.page.click('#export button[type=submit]');
  const file = await download;
  assert.match(file.suggestedFilename(), /^service-activity-\d+-\d+\.csv$/);
  const lines = readFileSync((await file.path())!, 'utf8').split('\r\n');
  assert.equal(lines[0], EXPORT_COLUMNS.activity.join(','));
  const week = lastWeek();
  const days = (await api(`/v1/activity/summary?start=${week.start}&end=${week.end}`)).days;
  assert.ok(days.length > 0);
  assert.equal(lines.filter(Boolean).length, 1 + days.length, 'the header and a row per day of the form\'s default range (the last 7 days)');
  await tab.page.waitForSelector('#export-status:has-text("Saved")');
  // 31 local days holding the fall-back day are 745 hours: past the server's 31 × 24 h, said before any request.
  const requests: string[] = [];
  tab.page.on('request', (request) => requests.push(request.url()));
  await tab.page.selectOption('#dataset', 'samples');
  await tab.page.fill('#from', '2025-10-15');
  await tab.page.fill('#to', '2025-11-14');
  await tab.page.click('#export button[type=submit]');
  await tab.page.waitForSelector('#export-status:has-text("choose one day fewer")');
  assert.match((await tab.page.textContent('#export-status'))!, /at most 31 × 24 hours in one file; these 31 days hold a clock change that makes them 745 hours/);
  assert.deepEqual(requests.filter((url) => url.includes('/v1/export')), []);
  await close(tab);
});

test('the user picker reads another user', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  assert.deepEqual(await tab.page.$$eval('#user-picker option', (o) => o.map((e) => (e as HTMLOptionElement).value)), (await api('/v1/users')).users.map((u: any) => u.userID));
  await tab.page.selectOption('#user-picker', USERS[1]);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  const week = lastWeek();
  const daily = await api(`/v1/metrics/daily?types=${STEPS}&start=${week.start}&end=${week.end}&user=${USERS[1]}`);
  const today = week.dates[6];
  const yesterday = week.dates[5];
  const value = (date: string) => shown(daily.metrics[0]?.days.find((d: any) => d.date === date)?.value ?? null);
  await tab.page.waitForFunction(([date, expected]) => document.querySelector(`article[data-date="${date}"] dd[data-field="steps"] .value`)?.textContent === expected, [yesterday, value(yesterday)]);
  assert.equal(await tab.page.textContent(`article[data-date="${today}"] dd[data-field="steps"] .value`), value(today));
  assert.equal(await tab.page.evaluate(() => sessionStorage.getItem('healthd.user')), USERS[1]);
  await close(tab);
});

test("a per-user read token signs in the same way and sees its user's data, with no picker", async () => {
  // Issued by the tokens command, as a person would (printed once).
  const { stdout } = await promisify(execFile)(process.execPath, [join(process.cwd(), 'dist', 'src', 'tokens', 'cli.js'), 'issue', '--read', '--user', USERS[1], '--name', 'viewer test'], {
    env: { ...process.env, DATABASE_URL: db.url },
  });
  const token = stdout.trim();
  assert.match(token, /^hdr_/);
  // The server re-reads its tokens every few seconds.
  const deadline = Date.now() + 15_000;
  while ((await server.get('/v1/profile', { token })).status !== 200) {
    assert.ok(Date.now() < deadline, 'the read token is accepted within seconds');
    await new Promise((r) => setTimeout(r, 500));
  }
  const tab = await openTab();
  await signIn(tab, token);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  assert.equal(await tab.page.$('#user-picker'), null, 'a token that reads one user gets no picker');
  const week = lastWeek();
  const daily = await api(`/v1/metrics/daily?types=${STEPS}&start=${week.start}&end=${week.end}&user=${USERS[1]}`);
  const mine = await api(`/v1/metrics/daily?types=${STEPS}&start=${week.start}&end=${week.end}`);
  const value = (body: any, date: string) => shown(body.metrics[0]?.days.find((d: any) => d.date === date)?.value ?? null);
  const yesterday = week.dates[5];
  assert.notEqual(value(daily, yesterday), value(mine, yesterday), 'the two demo users differ on the day compared');
  await tab.page.waitForFunction(([date, expected]) => document.querySelector(`article[data-date="${date}"] dd[data-field="steps"] .value`)?.textContent === expected, [yesterday, value(daily, yesterday)]);
  for (const hash of PAGES.slice(1)) await visit(tab, hash);
  await close(tab);
  assert.ok(tab.requests.every((url) => !url.includes(token)), 'the read token never appears in a URL');
});

test('keyboard: the pages are links reached with Tab; focus survives each redraw, so arrow keys step through a filter', async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  await tab.page.keyboard.press('Tab');
  await tab.page.keyboard.press('Tab');
  assert.equal(await tab.page.evaluate(() => document.activeElement?.textContent), 'Trends');
  await tab.page.keyboard.press('Enter');
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/trends"]');
  // The new page's content has the focus, not <body>.
  assert.equal(await tab.page.evaluate(() => document.activeElement?.id), 'main');
  await visit(tab, '#/workouts');
  await tab.page.focus('#activity-type');
  const types = await tab.page.$$eval('#activity-type option', (o) => o.map((e) => (e as HTMLOptionElement).value));
  assert.ok(types.length >= 3, 'the demo has at least two activity types');
  for (const type of types.slice(1, 3)) {
    await tab.page.keyboard.press('ArrowDown');
    await tab.page.waitForSelector(`main[data-ready="true"][data-view="#/workouts?type=${type}"]`);
    assert.equal(await tab.page.evaluate(() => document.activeElement?.id), 'activity-type', 'the filter keeps the focus');
  }
  await close(tab);
});

test("switching user on a workout's page goes to the list: the workout is the other user's", async () => {
  const tab = await openTab();
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  const workout = (await api('/v1/workouts?limit=1')).workouts[0];
  await visit(tab, `#/workouts/${workout.uuid}`);
  await tab.page.selectOption('#user-picker', USERS[1]);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/workouts"]');
  assert.equal(await tab.page.isVisible('text=workout not found'), false);
  await tab.page.selectOption('#user-picker', USERS[0]);
  await close(tab);
});

test('what fails is said where it happened, and mends: a bad address, a catalog or daily values that failed, a token with an invisible character', async () => {
  const tab = await openTab();
  // A token pasted with a zero-width space: said plainly, and nothing sent with it (a header cannot carry it).
  await signIn(tab, `${server.token}\u200b`);
  assert.match((await tab.page.textContent('#sign-in-error'))!, /visible ASCII characters only/);
  assert.ok(!tab.requests.some((url) => url.includes('/v1/')), 'no request was made');
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  // A malformed escape in the address: the page says what it found, the header stays.
  await visit(tab, '#/workouts/%E0%A4%A');
  assert.match((await tab.page.textContent('main .error'))!, /Could not load the workout/);
  assert.ok(await tab.page.$('#sign-out'), 'the header is drawn');
  // The catalog fails once: Trends says so; the next page asks again and loads.
  let failCatalog = true;
  await tab.page.route('**/v1/catalog/types*', (route) => (failCatalog ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"internal error"}' }) : route.continue()));
  await visit(tab, '#/trends');
  assert.match((await tab.page.textContent('main .error'))!, /Could not load the catalog/);
  // A workout's statistics without the catalog: shown raw, and the page says their units are missing.
  const listed = (await api('/v1/workouts?limit=50')).workouts;
  const details = await Promise.all(listed.map((w: any) => api(`/v1/workouts/${w.uuid}`)));
  const withStatistics = details.find((d: any) => Object.keys(d.statisticsDetail).length > 0);
  assert.ok(withStatistics, 'a demo workout with statistics');
  await visit(tab, `#/workouts/${withStatistics.uuid}`);
  assert.match((await tab.page.textContent('main'))!, /Could not load the units of these statistics/);
  failCatalog = false;
  await visit(tab, '#/data');
  assert.equal(await tab.page.$('main .error'), null, 'the catalog is asked again, not the failure remembered');
  // Daily values that fail: both the days and the steps chart say so.
  await tab.page.route('**/v1/metrics/daily*', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"internal error"}' }));
  await visit(tab, '#/trends');
  await visit(tab, '#/week');
  const errors = await tab.page.$$eval('main .error', (nodes) => nodes.map((n) => n.closest('section')?.querySelector('h2')?.textContent ?? ''));
  assert.deepEqual(errors.sort(), ['Day by day', 'Steps']);
  // The failures provoked above, and nothing else.
  assert.deepEqual(tab.problems.filter((p) => !/HTTP (400|500)|status of (400|500)/.test(p)), []);
  await close(tab, { clean: false });
});

test('a long name in the user picker does not push a phone-wide page sideways', async () => {
  const tab = await openTab(375);
  const long = 'Maria del Carmen Fernández-Rodríguez de la Concepción y Santísima Trinidad';
  await tab.page.route('**/v1/users*', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.users[1].name = long;
    await route.fulfill({ response, json: body });
  });
  await signIn(tab);
  await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
  assert.equal(await tab.page.$eval('#user-picker option:nth-child(2)', (o) => o.textContent), long);
  const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, `overflows by ${overflow} px`);
  await close(tab);
});

test('keyboard: "Show more" keeps the focus while the next workouts load, and hands it to the first of the last page', async () => {
  // 120 short workouts in 2020, after the demo's in the list: two more pages, the last one short.
  await db.query(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s)
     SELECT $1, gen_random_uuid(), 'walking', t, t + 600000, 600 FROM generate_series(1, 120) AS n, LATERAL (SELECT ${Date.UTC(2020, 0, 1)}::bigint + n::bigint * 86400000 AS t) x`,
    [USERS[0]],
  );
  const tab = await openTab();
  try {
    await signIn(tab);
    await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
    await visit(tab, '#/workouts');
    const more = 'main section button:text("Show more")';
    await tab.page.focus(more);
    const count = () => tab.page.$$eval('#workout-list li', (items) => items.length);
    const before = await count();
    await tab.page.keyboard.press('Enter');
    await tab.page.waitForFunction((n) => document.querySelectorAll('#workout-list li').length > n, before);
    assert.equal(await tab.page.evaluate(() => document.activeElement?.textContent), 'Show more', 'the focus stays on the button while there is more');
    const second = await count();
    await tab.page.keyboard.press('Enter');
    await tab.page.waitForFunction((n) => document.querySelectorAll('#workout-list li').length > n, second);
    assert.equal(await tab.page.$eval(more, (b) => (b as HTMLElement).hidden), true, 'the last page: no more to show');
    const index = await tab.page.evaluate(() => {
      const item = document.activeElement?.closest('li');
      return item ? [...document.querySelectorAll('#workout-list li')].indexOf(item) : -1;
    });
    assert.equal(index, second, 'the focus is on the first workout the last page added');
  } finally {
    await close(tab);
    await db.query(`DELETE FROM workouts WHERE user_id = $1 AND start_ms < $2`, [USERS[0], Date.UTC(2021, 0, 1)]);
  }
});

test('no horizontal overflow at 1280 and 390 px, light and dark; screenshots for a person', async () => {
  const workout = (await api('/v1/workouts?limit=50')).workouts.find((w: any) => w.hasRoute);
  for (const [width, scheme] of [[1280, 'light'], [390, 'dark'], [390, 'light']] as const) {
    const tab = await openTab(width, scheme);
    await signIn(tab);
    await tab.page.waitForSelector('main[data-ready="true"][data-view="#/week"]');
    for (const hash of [...PAGES, `#/workouts/${workout.uuid}`]) {
      if (hash !== '#/week') await visit(tab, hash);
      // Charts draw on the next animation frame: wait for them too.
      await tab.page.waitForFunction(() => [...document.querySelectorAll('figure.chart')].every((f) => f.getAttribute('data-drawn') === 'true'));
      const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${hash} at ${width} px overflows by ${overflow} px`);
      const name = hash.replace(/^#\//, '').replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
      await tab.page.screenshot({ path: join(shots, `${width}-${scheme}-${name}.png`), fullPage: true });
    }
    await close(tab);
  }
});
