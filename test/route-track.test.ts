// The route endpoint's pure math: haversine distance, unsmoothed elevation
// gain, evenly picked indices (first and last kept) and track normalization,
// against figures worked out by hand plus invariants on random tracks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EARTH_RADIUS_M, elevationGainM, evenIndices, haversineM, normalizeTrack, routePoints, trackDistanceM, type Track } from '../src/core/route-track.js';

const track = (points: [number, number, number, number | null][]): Track => ({
  times: Float64Array.from(points, (p) => p[0]),
  latitudes: Float64Array.from(points, (p) => p[1]),
  longitudes: Float64Array.from(points, (p) => p[2]),
  altitudes: Float64Array.from(points, (p) => p[3] ?? NaN),
});

// One degree of a great circle on the mean-radius sphere: 6,371,008.8 · π / 180.
const DEGREE_M = (EARTH_RADIUS_M * Math.PI) / 180; // 111,195.0802… m

test('haversine: a degree along a meridian and along the equator; a quarter circle; zero', () => {
  assert.ok(Math.abs(haversineM(0, 0, 1, 0) - DEGREE_M) < 1e-6);
  assert.ok(Math.abs(haversineM(0, 10, 0, 11) - DEGREE_M) < 1e-6);
  // Equator to pole: a quarter of the circumference, 6,371,008.8 · π / 2 = 10,007,557.2 m.
  assert.ok(Math.abs(haversineM(0, 0, 90, 0) - 10_007_557.2) < 0.1);
  // Berlin → Paris, about 878 km on this sphere.
  assert.ok(Math.abs(haversineM(52.52, 13.405, 48.8566, 2.3522) / 1000 - 877.5) < 1);
  assert.equal(haversineM(47.1, 8.5, 47.1, 8.5), 0);
});

test('distance: north 0.001°, then east 0.001° — 2 × 111.19508 m', () => {
  const t = track([[0, 0, 0, null], [1000, 0.001, 0, null], [2000, 0.001, 0.001, null]]);
  // At latitude 0.001° the east step shrinks by cos(0.001°) = 1 − 1.5e-10: far below a millimetre.
  assert.ok(Math.abs(trackDistanceM(t) - 2 * 0.001 * DEGREE_M) < 1e-3, String(trackDistanceM(t)));
  assert.equal(trackDistanceM(track([[0, 1, 2, 3]])), 0);
});

test('elevation gain: rises only, unknown altitudes skipped, null with fewer than two', () => {
  // 10 → 12 (+2), null skipped, 12 → 11, 11 → 15 (+4), 15 → 15, 15 → 14: 6 m.
  const t = track([[0, 0, 0, 10], [1, 0, 0, 12], [2, 0, 0, null], [3, 0, 0, 11], [4, 0, 0, 15], [5, 0, 0, 15], [6, 0, 0, 14]]);
  assert.equal(elevationGainM(t), 6);
  assert.equal(elevationGainM(track([[0, 0, 0, 100], [1, 0, 0, 90]])), 0);
  assert.equal(elevationGainM(track([[0, 0, 0, null], [1, 0, 0, 90], [2, 0, 0, null]])), null);
  assert.equal(elevationGainM(track([])), null);
});

test('even indices: hand-worked cuts, whole tracks unchanged', () => {
  assert.deepEqual(evenIndices(10, 4), [0, 3, 6, 9]);
  // round(4.5) = 5.
  assert.deepEqual(evenIndices(10, 3), [0, 5, 9]);
  assert.deepEqual(evenIndices(10, 2), [0, 9]);
  assert.deepEqual(evenIndices(3, 500), [0, 1, 2]);
  assert.deepEqual(evenIndices(1, 2), [0]);
  assert.deepEqual(evenIndices(0, 2), []);
  assert.throws(() => evenIndices(10, 1), RangeError);
});

test('even indices: exactly min(n, maxPoints), strictly increasing, first and last kept', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: 2, max: 5000 }), (n, maxPoints) => {
      const picked = evenIndices(n, maxPoints);
      assert.equal(picked.length, Math.min(n, maxPoints));
      assert.equal(picked[0], 0);
      assert.equal(picked[picked.length - 1], n - 1);
      for (let i = 1; i < picked.length; i++) assert.ok(picked[i] > picked[i - 1]);
    }),
  );
});

test('route points: [t, lat, lon, alt] with a missing altitude as null', () => {
  const t = track([[5, 1.5, 2.5, 7], [6, 1.6, 2.6, null]]);
  assert.deepEqual(routePoints(t, [0, 1]), [[5, 1.5, 2.5, 7], [6, 1.6, 2.6, null]]);
});

test('normalize: points without time or position dropped, order by time, short altitudes padded', () => {
  const ordered = track([[0, 1, 1, 1], [1, 2, 2, 2]]);
  assert.equal(normalizeTrack(ordered), ordered, 'an ordered, complete track is returned as it is');
  const messy: Track = {
    times: Float64Array.from([3000, 1000, NaN, 2000]),
    latitudes: Float64Array.from([3, 1, 9, NaN]),
    longitudes: Float64Array.from([30, 10, 90, 20]),
    altitudes: Float64Array.from([300]),
  };
  const out = normalizeTrack(messy);
  assert.deepEqual(Array.from(out.times), [1000, 3000]);
  assert.deepEqual(Array.from(out.latitudes), [1, 3]);
  assert.deepEqual(Array.from(out.longitudes), [10, 30]);
  assert.deepEqual(Array.from(out.altitudes), [NaN, 300]);
});
