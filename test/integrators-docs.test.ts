// Issue 15, point 5: /docs as a newcomer reads it, in Debian's Chromium
// (playwright-core) at desktop and phone width: no sideways scrolling of the
// page (wide tables and examples scroll inside themselves), every in-page link
// lands on an element, no console errors; the shared rules come first and are
// linked from the contents at the top; every section links back to the top;
// the Summary's JSON fields and both export media types are shown; no empty
// table; the title names the API and OpenAPI versions. Screenshots go to a
// temporary folder, never into the repository.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { assertChromium, launchChromium } from './support/browser.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { startServer, type TestServer } from './support/server.js';


let db: TestDatabase;
let server: TestServer;
let browser: Browser;
const shots = mkdtempSync(join(tmpdir(), 'healthd-docs-'));

before(async () => {
  assertChromium();
  db = await createTestDatabase();
  await db.query(`INSERT INTO settings VALUES ('time_zone', 'UTC')`);
  server = await startServer({ databaseUrl: db.url });
  browser = await launchChromium();
  process.stdout.write(`# docs screenshots: ${shots}\n`);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await db?.drop();
  await stopOwnCluster();
});

for (const width of [1280, 390]) {
  test(`/docs at ${width} px: no page overflow, every anchor resolves, no console errors`, async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    try {
      const response = await page.goto(`${server.baseUrl}/docs`);
      assert.equal(response?.status(), 200);
      // Opened <details> are the widest the page gets (nested field tables, examples).
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      const layout = await page.evaluate(() => {
        const root = document.documentElement;
        const overflowing = [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1 && !e.closest('.scroll, pre'))
          .slice(0, 5)
          .map((e) => `${e.tagName}: ${(e.textContent ?? '').slice(0, 60)}`);
        const anchors = [...document.querySelectorAll<HTMLAnchorElement>('a[href^="#"]')].map((a) => a.getAttribute('href')!.slice(1));
        const unresolved = anchors.filter((id) => !document.getElementById(decodeURIComponent(id)));
        const scrollers = [...document.querySelectorAll('.scroll')].filter((s) => s.scrollWidth > s.clientWidth + 1).length;
        return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, overflowing, anchors: anchors.length, unresolved, scrollers };
      });
      assert.ok(layout.scrollWidth <= layout.clientWidth, `the page scrolls sideways: ${layout.scrollWidth} > ${layout.clientWidth}; ${layout.overflowing.join('; ')}`);
      assert.deepEqual(layout.overflowing, []);
      assert.deepEqual(layout.unresolved, [], 'every in-page link lands on an element');
      assert.ok(layout.anchors > 40, `${layout.anchors} in-page links`);
      if (width === 390) assert.ok(layout.scrollers > 0, 'at phone width some tables scroll inside themselves');
      // Following a link from the contents scrolls to its section.
      await page.click('nav a[href="#errors"]');
      assert.ok(await page.evaluate(() => Math.abs(document.getElementById('errors')!.getBoundingClientRect().top) < 5), '#errors is at the top');
      await page.screenshot({ path: join(shots, `docs-${width}.png`) });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

test('/docs: the shared rules first and in the contents, back-to-top links, Summary fields, both export media types, no empty table, the versions in the title', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${server.baseUrl}/docs`);
    assert.match(await page.title(), /API version 1\.0\.0 · OpenAPI 3\.1/);
    assert.equal(await page.textContent('header .sub'), 'API version 1.0.0 · OpenAPI 3.1');
    const contents = await page.$$eval('nav a', (links) => links.map((a) => a.getAttribute('href')));
    for (const id of ['#getting-started', '#conventions', '#authentication', '#errors', '#limits', '#export-files', '#browsers-on-other-origins-cors', '#routes']) assert.ok(contents.includes(id), id);
    const order = await page.$$eval('body > section', (sections) => sections.map((s) => s.id));
    assert.ok(order.indexOf('limits') < order.indexOf('routes') && order.indexOf('routes') < order.indexOf('getIndex'), `rules before routes: ${order.join(', ')}`);
    const sections = order.length;
    assert.equal(await page.$$eval('body > section > p.top > a[href="#top"]', (links) => links.length), sections, 'every section links back to the top');
    const emptyTables = await page.$$eval('table', (tables) => tables.filter((t) => t.querySelectorAll('tr').length < 2).length);
    assert.equal(emptyTables, 0, 'no table without rows');
    const summary = await page.textContent('#getSummary');
    for (const text of ['text/markdown', 'application/json', 'userID', 'generatedAt', 'coverage', 'byActivityType']) assert.ok(summary!.includes(text), `summary shows ${text}`);
    const exportSection = await page.textContent('#exportDataset');
    for (const text of ['text/csv', 'application/x-ndjson', 'Example request']) assert.ok(exportSection!.includes(text), `export shows ${text}`);
    const route = await page.textContent('#getWorkoutRoute');
    assert.ok(route!.includes('application/gpx+xml') && route!.includes('larger values are clamped to 5000'));
  } finally {
    await context.close();
  }
});
