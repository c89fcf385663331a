// The viewer's weight and first paint (issue 16): the built files' bytes, raw
// and gzipped, and, in Debian's Chromium against the real server on the
// `npm start` demo (3 users × 90 days), the first contentful paint and the
// time until the week page has its data, each the median of several cold
// loads (a fresh browser context each: no cache, token already in the tab).
// Run: npm run build && node dist/bench/viewer.js [loads, default 9]
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { EMBEDDED_DEMO } from '../src/start/embedded.js';
import { demoUserId, generateDemo } from '../src/demo/generate.js';
import { createTestDatabase, stopOwnCluster } from '../test/support/db.js';
import { startServer } from '../test/support/server.js';

const LOADS = Number(process.argv[2] ?? 9);
const ZONE = 'Europe/Berlin';
const dir = join(process.cwd(), 'dist', 'viewer');

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

console.log('| file | raw | gzip -9 |\n|---|---:|---:|');
let raw = 0;
let zipped = 0;
for (const file of readdirSync(dir).sort()) {
  const bytes = readFileSync(join(dir, file));
  const gz = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  zipped += gz;
  console.log(`| ${file} | ${kb(bytes.length)} | ${kb(gz)} |`);
}
console.log(`| total | ${kb(raw)} | ${kb(zipped)} |\n`);

const db = await createTestDatabase();
await generateDemo(db.url, { ...EMBEDDED_DEMO, timeZone: ZONE });
const server = await startServer({ databaseUrl: db.url, env: { SERVICE_USER_ID: demoUserId(EMBEDDED_DEMO.seed, 0), SERVICE_TIME_ZONE: ZONE } });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const samples = { signInFcp: [] as number[], weekFcp: [] as number[], weekReady: [] as number[] };
  for (let load = 0; load < LOADS; load++) {
    // The sign-in page: what a first visit paints.
    {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/app`);
      await page.waitForSelector('#sign-in');
      samples.signInFcp.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN));
      await context.close();
    }
    // Signed in (token already in the tab's sessionStorage): the week page with its data.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((token) => sessionStorage.setItem('healthd.token', token), server.token);
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/app#/week`);
    await page.waitForSelector('main[data-ready="true"][data-view="#/week"] figure[data-drawn="true"]');
    const times = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      ready: performance.getEntriesByName('healthd:ready')[0]?.startTime ?? NaN,
    }));
    samples.weekFcp.push(times.fcp);
    samples.weekReady.push(times.ready);
    await context.close();
  }
  console.log(`| ${LOADS} cold loads, 1280 × 900 | median ms | range ms |\n|---|---:|---:|`);
  console.log(`| sign-in page: first contentful paint | ${median(samples.signInFcp).toFixed(0)} | ${range(samples.signInFcp)} |`);
  console.log(`| week page: first contentful paint | ${median(samples.weekFcp).toFixed(0)} | ${range(samples.weekFcp)} |`);
  console.log(`| week page: data drawn (users, rings, daily metrics, summary) | ${median(samples.weekReady).toFixed(0)} | ${range(samples.weekReady)} |`);
  console.log(`\nload average ${loadavg().map((l) => l.toFixed(1)).join(', ')}`);
} finally {
  await browser.close();
  await server.stop();
  await db.drop();
  await stopOwnCluster();
}
