// Sleep sessions and nights: one source per figure, ties, splits and dating.
// Minutes below are counted by hand from the sample clock times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleSleepNights, sleepSessions, type SleepColumns } from '../src/core/sleep-nights.js';
import { SLEEP_SESSION_GAP_MS } from '../src/limits.js';

interface SleepSample {
  startMs: number;
  endMs: number;
  value: number;
  sourceId: number;
}

function columns(samples: readonly SleepSample[]): SleepColumns {
  return {
    startMs: Float64Array.from(samples, (s) => s.startMs),
    endMs: Float64Array.from(samples, (s) => s.endMs),
    value: Float64Array.from(samples, (s) => s.value),
    sourceId: Float64Array.from(samples, (s) => s.sourceId),
  };
}

const assemble = (samples: readonly SleepSample[], zone: string) => assembleSleepNights(columns(samples), zone);
/** The sessions as the samples they hold. */
const split = (samples: readonly SleepSample[]) => sleepSessions(columns(samples)).map(([from, to]) => samples.slice(from, to));

const IN_BED = 0;
const UNSPECIFIED = 1;
const AWAKE = 2;
const CORE = 3;
const DEEP = 4;
const REM = 5;
const MINUTE = 60_000;

/** A sample on 2026-01-10/11 (UTC); hours past 24 roll into the 11th. */
function at(hour: number, minute = 0): number {
  return Date.UTC(2026, 0, 10, hour, minute);
}

function sample(sourceId: number, value: number, startMs: number, endMs: number): SleepSample {
  return { startMs, endMs, value, sourceId };
}

function byStart(samples: SleepSample[]): SleepSample[] {
  return [...samples].sort((a, b) => a.startMs - b.startMs);
}

test('watch stages and a phone in-bed block: in-bed from the phone, stages from the watch', () => {
  const phone = 1;
  const watch = 2;
  const nights = assemble(
    byStart([
      sample(phone, IN_BED, at(22, 45), at(31, 15)), // 22:45 → 07:15 = 510 min
      sample(watch, IN_BED, at(23), at(30, 30)), // 23:00 → 06:30 = 450 min
      sample(watch, CORE, at(23), at(25)), // 120
      sample(watch, DEEP, at(25), at(26)), // 60
      sample(watch, AWAKE, at(26), at(26, 10)), // 10
      sample(watch, REM, at(26, 10), at(27, 40)), // 90
      sample(watch, CORE, at(27, 40), at(30, 30)), // 170
    ]),
    'UTC',
  );
  assert.deepEqual(nights, [
    {
      date: '2026-01-11',
      start: at(22, 45),
      end: at(31, 15),
      inBedMinutes: 510,
      asleepMinutes: 120 + 60 + 90 + 170,
      stages: { core: 290, deep: 60, rem: 90, unspecified: 0, awake: 10 },
      sources: 2,
    },
  ]);
});

test('a night crossing midnight is dated by its wake-up day in the zone', () => {
  // 04:30Z on 8 March 2026 is 23:30 EST on the 7th; 11:00Z is 07:00 EDT on the 8th
  // (clocks sprang forward overnight): 6 h 30 min really elapsed.
  const nights = assemble(
    [sample(1, CORE, Date.UTC(2026, 2, 8, 4, 30), Date.UTC(2026, 2, 8, 11))],
    'America/New_York',
  );
  assert.equal(nights.length, 1);
  assert.equal(nights[0].date, '2026-03-08');
  assert.equal(nights[0].asleepMinutes, 390);
  // In Kolkata (+05:30) 18:30Z is midnight: a session ending exactly then belongs to the new day.
  const kolkata = assemble(
    [sample(1, CORE, Date.UTC(2026, 2, 7, 17), Date.UTC(2026, 2, 7, 18, 30))],
    'Asia/Kolkata',
  );
  assert.equal(kolkata[0].date, '2026-03-08');
});

test('a gap of 3 h 1 min splits a session, a gap of exactly 3 h does not', () => {
  assert.equal(SLEEP_SESSION_GAP_MS, 10_800_000);
  const first = sample(1, CORE, at(0), at(1));
  assert.equal(split([first, sample(1, CORE, at(4), at(5))]).length, 1);
  const sessions2 = split([first, sample(1, CORE, at(4, 1), at(5))]);
  assert.equal(sessions2.length, 2);
  assert.deepEqual(sessions2[1], [sample(1, CORE, at(4, 1), at(5))]);
});

test('the gap is measured from the latest end so far, not the previous sample', () => {
  // 00:00–05:00 holds 01:00–02:00; the next start 07:30 is 2 h 30 after 05:00.
  const sessions = split([
    sample(1, IN_BED, at(0), at(5)),
    sample(2, CORE, at(1), at(2)),
    sample(2, CORE, at(7, 30), at(8)),
  ]);
  assert.equal(sessions.length, 1);
});

test('equal asleep time: the source with more staged minutes wins, whatever its id', () => {
  const nights = assemble(
    byStart([
      sample(4, UNSPECIFIED, at(23), at(25)), // 120 asleep, 0 staged
      sample(7, CORE, at(23), at(24)), // 60 staged
      sample(7, UNSPECIFIED, at(24), at(25)), // + 60 = 120 asleep
    ]),
    'UTC',
  );
  assert.equal(nights[0].asleepMinutes, 120);
  assert.deepEqual(nights[0].stages, { core: 60, deep: 0, rem: 0, unspecified: 60, awake: 0 });
  assert.equal(nights[0].sources, 2);
});

test('equal asleep and equal staged time: the lower source id wins', () => {
  const nights = assemble(
    byStart([
      sample(9, CORE, at(23), at(24, 40)), // 100 core
      sample(5, DEEP, at(23, 10), at(24, 50)), // 100 deep
    ]),
    'UTC',
  );
  assert.deepEqual(nights[0].stages, { core: 0, deep: 100, rem: 0, unspecified: 0, awake: 0 });
  assert.equal(nights[0].asleepMinutes, 100);
});

test('a legacy unspecified-only source beats a staged one only with more asleep time', () => {
  const legacy = (end: number) => sample(1, UNSPECIFIED, at(22), end);
  const watch = [sample(2, CORE, at(23), at(27)), sample(2, REM, at(27), at(28, 40))]; // 240 + 100 = 340
  const legacyLonger = assemble(byStart([legacy(at(28)), ...watch]), 'UTC'); // 360
  assert.equal(legacyLonger[0].asleepMinutes, 360);
  assert.deepEqual(legacyLonger[0].stages, { core: 0, deep: 0, rem: 0, unspecified: 360, awake: 0 });
  const legacyShorter = assemble(byStart([legacy(at(27)), ...watch]), 'UTC'); // 300
  assert.equal(legacyShorter[0].asleepMinutes, 340);
  assert.deepEqual(legacyShorter[0].stages, { core: 240, deep: 0, rem: 100, unspecified: 0, awake: 0 });
});

test('awake minutes are reported but are not asleep and do not win the choice', () => {
  const nights = assemble(
    byStart([
      sample(1, CORE, at(23), at(28)), // 300 asleep
      sample(1, AWAKE, at(28), at(29, 40)), // 100 awake
      sample(2, CORE, at(23), at(28, 10)), // 310 asleep
      sample(2, AWAKE, at(28, 10), at(28, 25)), // 15 awake
    ]),
    'UTC',
  );
  assert.equal(nights[0].asleepMinutes, 310);
  assert.equal(nights[0].stages.awake, 15);
});

test('a nap is its own session on the same wake-up day', () => {
  const nights = assemble(
    [sample(1, CORE, at(23), at(31)), sample(1, UNSPECIFIED, at(38), at(38, 40))],
    'UTC',
  );
  assert.equal(nights.length, 2);
  assert.deepEqual(
    nights.map((n) => [n.date, n.start, n.end, n.asleepMinutes]),
    [
      ['2026-01-11', at(23), at(31), 480],
      ['2026-01-11', at(38), at(38, 40), 40],
    ],
  );
});

test('duplicates within one source count once; different sources are never summed', () => {
  const nights = assemble(
    byStart([
      sample(1, CORE, at(0), at(1)),
      sample(1, CORE, at(0), at(1)), // exact duplicate
      sample(1, CORE, at(0, 30), at(1, 30)), // overlaps: union 00:00–01:30 = 90
      sample(1, CORE, at(2), at(2, 20)), // separate 20 → 110
      sample(2, CORE, at(0), at(1, 40)), // 100 in another source
    ]),
    'UTC',
  );
  assert.equal(nights[0].asleepMinutes, 110);
  assert.equal(nights[0].stages.core, 110);
});

test('an unknown value counts no minutes but extends the session and counts its source', () => {
  const nights = assemble(
    [sample(2, CORE, at(23), at(30)), sample(3, 99, at(30, 45), at(31, 15))],
    'UTC',
  );
  assert.equal(nights[0].end, at(31, 15));
  assert.equal(nights[0].sources, 2);
  assert.equal(nights[0].asleepMinutes, 420);
  assert.equal(nights[0].inBedMinutes, 0);
});

test('minutes are exact, not rounded', () => {
  const start = at(23);
  const nights = assemble(
    [sample(1, REM, start, start + 90_000), sample(1, AWAKE, start + 90_000, start + 110_000)],
    'UTC',
  );
  assert.equal(nights[0].stages.rem, 1.5);
  assert.equal(nights[0].stages.awake, 1 / 3);
  assert.equal(nights[0].asleepMinutes * MINUTE, 90_000);
});

test('no samples, no nights; unsorted input is refused', () => {
  assert.deepEqual(assemble([], 'UTC'), []);
  assert.throws(() => split([sample(1, CORE, at(2), at(3)), sample(1, CORE, at(1), at(2))]), RangeError);
});
