// The viewer cuts local days where the API does: its dayStart
// (viewer/src/zone.ts, Intl in the browser) gives the instant the server's
// dayStartMs (src/core/local-days.ts, luxon) gives, on days whose midnight is
// skipped, comes twice, or never comes, in every zone. The module is bundled
// from its source with esbuild, as `npm run build` bundles the viewer, and run
// here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { dayStartMs } from '../src/core/local-days.js';

/** What is used of viewer/src/zone.ts (typed here: importing its types would compile it into dist/viewer, the folder /app serves). */
interface ViewerZone {
  dayStart(date: string, zone: string): number;
}

const SOURCE = fileURLToPath(new URL('../../viewer/src/zone.ts', import.meta.url));
let dir: string;
let viewer: ViewerZone;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'healthd-viewer-zone-'));
  const outfile = join(dir, 'zone.mjs');
  await build({ entryPoints: [SOURCE], outfile, format: 'esm', bundle: true, logLevel: 'warning' });
  viewer = (await import(pathToFileURL(outfile).href)) as ViewerZone;
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("the viewer's day starts are the API's on days whose midnight is skipped, comes twice or never comes", () => {
  const cases: Array<[day: string, zone: string, why: string]> = [
    ['2026-03-08', 'America/Havana', 'midnight skipped: the day begins at 01:00'],
    ['2025-11-02', 'America/Havana', 'the clock turns back from 01:00 to 00:00: the first midnight'],
    ['2025-10-26', 'Atlantic/Azores', 'the clock turns back from 01:00 to 00:00'],
    ['1993-06-17', 'Atlantic/Azores', 'an offset change at 01:00 UTC, an hour after midnight'],
    ['2000-09-29', 'Asia/Amman', 'the clock turned back from 01:00 to 00:00'],
    ['2000-10-06', 'Asia/Jerusalem', 'the clock turned back from 01:00 to 00:00'],
    ['2004-10-01', 'Asia/Gaza', 'the clock turned back from 01:00 to 00:00'],
    ['2006-04-15', 'Asia/Colombo', 'from +06:30 to +06:00 at 00:30: midnight twice, half an hour apart'],
    ['2019-03-17', 'Antarctica/Casey', 'from +11 to +08: midnight came twice, three hours apart'],
    ['2011-12-30', 'Pacific/Apia', 'Samoa skipped the whole day: it begins, and ends, where the 31st begins'],
    ['2025-10-05', 'Australia/Lord_Howe', 'a half-hour change at 02:00: an ordinary midnight'],
    ['2026-03-29', 'Europe/Berlin', 'the spring change at 02:00: an ordinary midnight'],
  ];
  for (const [day, zone, why] of cases) assert.equal(viewer.dayStart(day, zone), dayStartMs(day, zone), `${day} ${zone}: ${why}`);
  assert.equal(viewer.dayStart('2011-12-30', 'Pacific/Apia'), viewer.dayStart('2011-12-31', 'Pacific/Apia'), 'a day that never came is empty');
});

test("the viewer's day starts are the API's on any day of 2000–2040 in any zone", async () => {
  const fc = (await import('fast-check')).default;
  const zones = Intl.supportedValuesOf('timeZone');
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 40 * 366 }), fc.constantFrom(...zones), (n, zone) => {
      const day = new Date(Date.UTC(2000, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
      assert.equal(viewer.dayStart(day, zone), dayStartMs(day, zone), `${day} ${zone}`);
    }),
    { numRuns: 20_000 },
  );
});
