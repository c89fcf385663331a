// Daily buckets by hand: overlap deduplication, instants, DST days and
// half-hour zones, discrete means, and drain() releasing only settled days.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DailyAggregator, type DayBucket } from '../src/core/daily-aggregation.js';

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);

function sums(buckets: DayBucket[]): Record<string, number | null> {
  return Object.fromEntries(buckets.map((b) => [b.day, b.sum]));
}

test('watch 0–60 min 600 steps and phone 30–90 min 300 steps give 600 + 150', () => {
  const steps = new DailyAggregator('UTC', 'cumulative');
  const t0 = at('2026-05-04T10:00:00Z');
  steps.add({ startMs: t0, endMs: t0 + 60 * MIN, value: 600, priority: 0 });
  steps.add({ startMs: t0 + 30 * MIN, endMs: t0 + 90 * MIN, value: 300, priority: 1 });
  // The phone's 30 uncovered minutes of 60: 300 × 30/60 = 150.
  assert.deepEqual(steps.finish(), [{ day: '2026-05-04', sum: 750, avg: null, min: null, max: null }]);
});

test('a later higher-priority sample still covers an earlier lower-priority one', () => {
  const steps = new DailyAggregator('UTC', 'cumulative');
  const t0 = at('2026-05-04T10:00:00Z');
  steps.add({ startMs: t0, endMs: t0 + 40 * MIN, value: 400, priority: 1 }); // phone
  steps.add({ startMs: t0 + 10 * MIN, endMs: t0 + 20 * MIN, value: 100, priority: 0 }); // watch
  steps.add({ startMs: t0 + 15 * MIN, endMs: t0 + 30 * MIN, value: 150, priority: 0 }); // watch, overlaps the first watch one
  // Watch covers 10–30 (20 of the phone's 40 min): phone 400 × 20/40 = 200; watch 100 + 150.
  assert.deepEqual(sums(steps.finish()), { '2026-05-04': 450 });
});

test('same-priority samples add; three priorities cover by the union of everything higher', () => {
  const energy = new DailyAggregator('UTC', 'cumulative');
  const t0 = at('2026-05-04T08:00:00Z');
  energy.add({ startMs: t0, endMs: t0 + 60 * MIN, value: 60, priority: 2 }); // app: 1 per minute
  energy.add({ startMs: t0, endMs: t0 + 30 * MIN, value: 10, priority: 1 }); // phone
  energy.add({ startMs: t0, endMs: t0 + 30 * MIN, value: 5, priority: 1 }); // phone again, same priority
  energy.add({ startMs: t0 + 20 * MIN, endMs: t0 + 40 * MIN, value: 20, priority: 0 }); // watch
  // watch 20; phones each keep 20 of 30 min: 10 × 2/3 + 5 × 2/3 = 10; app keeps 40–60: 60 × 20/60 = 20.
  const [bucket] = energy.finish();
  assert.equal(bucket.day, '2026-05-04');
  assert.ok(Math.abs((bucket.sum as number) - 50) < 1e-9);
});

test('an instant sample counts unless it lies inside a higher-priority interval', () => {
  const steps = new DailyAggregator('UTC', 'cumulative');
  const t0 = at('2026-05-04T12:00:00Z');
  steps.add({ startMs: t0, endMs: t0, value: 7, priority: 1 }); // at the watch start: inside [start, end)
  steps.add({ startMs: t0, endMs: t0 + 10 * MIN, value: 100, priority: 0 });
  steps.add({ startMs: t0 + 10 * MIN, endMs: t0 + 10 * MIN, value: 3, priority: 1 }); // at the watch end: outside
  steps.add({ startMs: t0 + 20 * MIN, endMs: t0 + 20 * MIN, value: 2, priority: 0 }); // an instant covers nothing
  steps.add({ startMs: t0 + 20 * MIN, endMs: t0 + 20 * MIN, value: 4, priority: 1 });
  assert.deepEqual(sums(steps.finish()), { '2026-05-04': 100 + 3 + 2 + 4 });
});

test('a sample belongs to the day of its start, even when it runs past midnight', () => {
  const steps = new DailyAggregator('UTC', 'cumulative');
  steps.add({ startMs: at('2026-05-04T23:50:00Z'), endMs: at('2026-05-05T00:10:00Z'), value: 100, priority: 0 });
  steps.add({ startMs: at('2026-05-05T00:00:00Z'), endMs: at('2026-05-05T00:20:00Z'), value: 40, priority: 1 });
  // The phone's 00:00–00:10 is under the watch: 40 × 10/20 = 20 on the 5th.
  assert.deepEqual(sums(steps.finish()), { '2026-05-04': 100, '2026-05-05': 20 });
});

test('America/New_York: 2026-03-08 has 23 hours and 2026-11-01 has 25', () => {
  const steps = new DailyAggregator('America/New_York', 'cumulative');
  const one = (iso: string) => steps.add({ startMs: at(iso), endMs: at(iso), value: 1, priority: 0 });
  one('2026-03-08T04:59:59.999Z'); // 23:59:59.999 EST on the 7th
  one('2026-03-08T05:00:00Z'); // 00:00 EST on the 8th
  one('2026-03-09T03:59:59.999Z'); // 23:59:59.999 EDT on the 8th (23 h after its start)
  one('2026-03-09T04:00:00Z'); // 00:00 EDT on the 9th
  one('2026-11-01T03:59:59.999Z'); // 23:59:59.999 EDT on Oct 31
  one('2026-11-01T04:00:00Z'); // 00:00 EDT on Nov 1
  one('2026-11-02T04:30:00Z'); // 23:30 EST on Nov 1 (24.5 h after its start)
  one('2026-11-02T05:00:00Z'); // 00:00 EST on Nov 2
  assert.deepEqual(sums(steps.finish()), {
    '2026-03-07': 1,
    '2026-03-08': 2,
    '2026-03-09': 1,
    '2026-10-31': 1,
    '2026-11-01': 2,
    '2026-11-02': 1,
  });
});

test('Asia/Kolkata: the day turns at 18:30 UTC', () => {
  const heart = new DailyAggregator('Asia/Kolkata', 'discrete');
  heart.add({ startMs: at('2026-01-01T18:29:59.999Z'), endMs: at('2026-01-01T18:29:59.999Z'), value: 60, priority: 0 });
  heart.add({ startMs: at('2026-01-01T18:30:00Z'), endMs: at('2026-01-01T18:30:00Z'), value: 70, priority: 0 });
  heart.add({ startMs: at('2026-01-02T18:29:00Z'), endMs: at('2026-01-02T18:30:00Z'), value: 80, priority: 0 });
  assert.deepEqual(heart.finish(), [
    { day: '2026-01-01', sum: null, avg: 60, min: 60, max: 60 },
    { day: '2026-01-02', sum: null, avg: 75, min: 70, max: 80 },
  ]);
});

test('discrete: mean, min and max per day; sources do not deduplicate', () => {
  const heart = new DailyAggregator('Europe/Berlin', 'discrete');
  const t0 = at('2026-06-10T06:00:00Z'); // 08:00 in Berlin
  for (const [offset, value, priority] of [[0, 60, 0], [5, 72, 1], [10, 90, 0], [15, 58, 0]]) {
    heart.add({ startMs: t0 + offset * MIN, endMs: t0 + offset * MIN, value, priority });
  }
  // (60 + 72 + 90 + 58) / 4 = 70
  assert.deepEqual(heart.finish(), [{ day: '2026-06-10', sum: null, avg: 70, min: 58, max: 90 }]);
});

test('drain releases a day only once no later sample can change it', () => {
  const steps = new DailyAggregator('UTC', 'cumulative');
  steps.add({ startMs: at('2026-05-04T23:30:00Z'), endMs: at('2026-05-05T00:30:00Z'), value: 60, priority: 1 });
  assert.deepEqual(steps.drain(), []);
  // The next day has begun, but a watch sample starting before 00:30 may still cover the phone's.
  steps.add({ startMs: at('2026-05-05T00:00:00Z'), endMs: at('2026-05-05T00:15:00Z'), value: 50, priority: 0 });
  assert.deepEqual(steps.drain(), []);
  steps.add({ startMs: at('2026-05-05T00:30:00Z'), endMs: at('2026-05-05T00:40:00Z'), value: 10, priority: 0 });
  // 00:00–00:15 covered: 60 × 45/60 = 45 on the 4th.
  assert.deepEqual(sums(steps.drain()), { '2026-05-04': 45 });
  assert.deepEqual(sums(steps.finish()), { '2026-05-05': 60 });

  const heart = new DailyAggregator('UTC', 'discrete');
  heart.add({ startMs: at('2026-05-04T23:59:00Z'), endMs: at('2026-05-04T23:59:00Z'), value: 50, priority: 0 });
  assert.deepEqual(heart.drain(), []);
  heart.add({ startMs: at('2026-05-05T00:00:00Z'), endMs: at('2026-05-05T00:00:00Z'), value: 52, priority: 0 });
  assert.deepEqual(heart.drain().map((b) => b.day), ['2026-05-04']);
  assert.deepEqual(heart.finish().map((b) => b.day), ['2026-05-05']);
});

test('refuses samples out of start order, backwards samples and unknown zones', () => {
  const steps = new DailyAggregator('UTC', 'cumulative');
  steps.add({ startMs: 2000, endMs: 3000, value: 1, priority: 0 });
  assert.throws(() => steps.add({ startMs: 1000, endMs: 3000, value: 1, priority: 0 }), /start order/);
  assert.throws(() => steps.add({ startMs: 5000, endMs: 4000, value: 1, priority: 0 }), /before it starts/);
  assert.throws(() => new DailyAggregator('Mars/Olympus', 'discrete'), /unknown time zone/);
});

test('random samples: draining as we go matches a brute-force recount', async () => {
  const fc = (await import('fast-check')).default;
  const sampleArb = fc.record({
    startMin: fc.integer({ min: 0, max: 5 * 24 * 60 }),
    spanMin: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 24 * 60 })),
    value: fc.integer({ min: 0, max: 1000 }),
    priority: fc.integer({ min: 0, max: 2 }),
  });
  fc.assert(
    fc.property(fc.array(sampleArb, { maxLength: 40 }), (raw) => {
      const t0 = at('2026-03-06T00:00:00Z');
      const samples = raw
        .map((s) => ({ startMs: t0 + s.startMin * MIN, endMs: t0 + (s.startMin + s.spanMin) * MIN, value: s.value, priority: s.priority }))
        .sort((a, b) => a.startMs - b.startMs);
      const aggregator = new DailyAggregator('America/New_York', 'cumulative');
      const got: DayBucket[] = [];
      for (const s of samples) {
        aggregator.add(s);
        got.push(...aggregator.drain());
      }
      got.push(...aggregator.finish());

      // Brute force: per minute of each sample, is any higher-priority interval over it?
      const expected = new Map<string, number>();
      for (const s of samples) {
        const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(s.startMs);
        let share = 1;
        if (s.endMs === s.startMs) {
          if (samples.some((o) => o.priority < s.priority && o.startMs <= s.startMs && s.startMs < o.endMs)) share = 0;
        } else {
          let uncovered = 0;
          for (let m = s.startMs; m < s.endMs; m += MIN) {
            if (!samples.some((o) => o.priority < s.priority && o.startMs <= m && m < o.endMs)) uncovered++;
          }
          share = uncovered / ((s.endMs - s.startMs) / MIN);
        }
        expected.set(day, (expected.get(day) ?? 0) + s.value * share);
      }
      assert.deepEqual(got.map((b) => b.day), [...expected.keys()]);
      for (const b of got) assert.ok(Math.abs((b.sum as number) - (expected.get(b.day) as number)) < 1e-6, b.day);
    }),
    { numRuns: 300 },
  );
});
