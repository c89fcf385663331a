// Bucket-average downsampling: hand-computed buckets plus invariants on random streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { downsampleStream, type Stream } from '../src/core/downsample.js';

function stream(times: number[], values: number[]): Stream {
  return { times: Float64Array.from(times), values: Float64Array.from(values) };
}

function plain(s: Stream): { times: number[]; values: number[] } {
  return { times: Array.from(s.times), values: Array.from(s.values) };
}

test('7 points to 4: the 5 inner points split 2 + 3', () => {
  const out = downsampleStream(stream([0, 10, 20, 30, 40, 50, 60], [1, 2, 3, 4, 5, 6, 7]), 4);
  // Buckets {10, 20} and {30, 40, 50}: times 15 and 40, values 2.5 and 5.
  assert.deepEqual(plain(out), { times: [0, 15, 40, 60], values: [1, 2.5, 5, 7] });
});

test('12 points to 5: the 10 inner points split 3 + 3 + 4', () => {
  const times = Array.from({ length: 12 }, (_, i) => i * 100);
  const values = Array.from({ length: 12 }, (_, i) => i);
  // Inner indices 1–3, 4–6, 7–10: mean indices 2, 5, 8.5.
  assert.deepEqual(plain(downsampleStream(stream(times, values), 5)), {
    times: [0, 200, 500, 850, 1100],
    values: [0, 2, 5, 8.5, 11],
  });
});

test('a bucket mean time is rounded to the millisecond', () => {
  // One bucket of {1001, 1002, 1004}: mean 1002.33 → 1002.
  const third = downsampleStream(stream([1000, 1001, 1002, 1004, 1010], [0, 3, 6, 9, 0]), 3);
  assert.deepEqual(plain(third), { times: [1000, 1002, 1010], values: [0, 6, 0] });
  // One bucket of {1, 2}: mean 1.5 rounds up to 2.
  const half = downsampleStream(stream([0, 1, 2, 9], [4, 1, 2, 4]), 3);
  assert.deepEqual(plain(half), { times: [0, 2, 9], values: [4, 1.5, 4] });
});

test('maxPoints 2 keeps only the first and last points', () => {
  assert.deepEqual(plain(downsampleStream(stream([5, 6, 7, 8], [1, 9, 9, 2]), 2)), { times: [5, 8], values: [1, 2] });
});

test('n <= maxPoints comes back unchanged, as a copy', () => {
  const input = stream([1, 2, 3], [0.5, NaN, -1]);
  const out = downsampleStream(input, 3);
  assert.deepEqual(plain(out), plain(input));
  assert.notEqual(out.times, input.times);
  assert.notEqual(out.values, input.values);
  assert.deepEqual(plain(downsampleStream(stream([], []), 500)), { times: [], values: [] });
});

test('bucket means of epoch-ms times keep millisecond precision', () => {
  // t0 then t0 + 1000·i for i = 1..10000, then a last point: one bucket of 10000
  // whose mean is t0 + 1000 · 5000.5 = t0 + 5000500.
  const t0 = 1_767_225_600_000; // 2026-01-01T00:00Z
  const times = Array.from({ length: 10_002 }, (_, i) => t0 + 1000 * i);
  const values = times.map(() => 1);
  const out = downsampleStream(stream(times, values), 3);
  assert.deepEqual(plain(out), { times: [t0, t0 + 5_000_500, t0 + 10_001_000], values: [1, 1, 1] });
});

test('bad arguments are refused', () => {
  assert.throws(() => downsampleStream(stream([1, 2, 3], [1, 2, 3]), 1), RangeError);
  assert.throws(() => downsampleStream(stream([1, 2, 3], [1, 2, 3]), 2.5), RangeError);
  assert.throws(() => downsampleStream(stream([1, 2, 3], [1, 2]), 2), RangeError);
});

test('random streams: exact length, first and last kept, strictly ordered, NaN-free, values in range', () => {
  const arbitraryStream = fc
    .array(fc.tuple(fc.integer({ min: 1, max: 60_000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), {
      minLength: 1,
      maxLength: 400,
    })
    .map((steps) => {
      let t = 1_767_225_600_000;
      return stream(
        steps.map(([gap]) => (t += gap)),
        steps.map(([, value]) => value),
      );
    });
  fc.assert(
    fc.property(arbitraryStream, fc.integer({ min: 2, max: 100 }), (input, maxPoints) => {
      const out = downsampleStream(input, maxPoints);
      const n = input.times.length;
      assert.equal(out.times.length, Math.min(n, maxPoints));
      assert.equal(out.values.length, out.times.length);
      assert.equal(out.times[0], input.times[0]);
      assert.equal(out.values[0], input.values[0]);
      assert.equal(out.times[out.times.length - 1], input.times[n - 1]);
      assert.equal(out.values[out.values.length - 1], input.values[n - 1]);
      const low = Math.min(...input.values);
      const high = Math.max(...input.values);
      for (let i = 0; i < out.times.length; i++) {
        assert.ok(Number.isInteger(out.times[i]));
        assert.ok(!Number.isNaN(out.values[i]));
        assert.ok(out.values[i] >= low - 1e-6 && out.values[i] <= high + 1e-6);
        if (i > 0) assert.ok(out.times[i] > out.times[i - 1]);
      }
    }),
    { numRuns: 300 },
  );
});
