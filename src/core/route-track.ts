// A workout's GPS track for the route endpoint: its length, its climb, and
// the few hundred points a map needs out of thousands recorded.
//
// - Distance is the sum of great-circle (haversine) steps between consecutive
//   recorded points on a sphere of the mean Earth radius (IUGG, 6,371,008.8 m).
//   Against the WGS-84 ellipsoid that is off by at most ~0.5 %, well under
//   what GPS scatter adds on a walk or run. Computed over every point.
// - Elevation gain is the sum of the positive steps between consecutive known
//   altitudes, unsmoothed: a point without an altitude is skipped, not zeroed.
//   The phone's GPX altitudes are already filtered by Core Location; smoothing
//   here would make the figure depend on a window nobody can check by hand.
// - Downsampling picks points evenly by index (the first and last always), so
//   every point sent is one that was recorded: a bucket mean of positions would
//   cut corners and invent altitudes.

import { isValue } from './values.js';

export interface Track {
  /** Epoch ms, ascending. */
  times: Float64Array;
  latitudes: Float64Array;
  longitudes: Float64Array;
  /** NaN where a point has no altitude (any non-finite number is none: src/core/values.ts). */
  altitudes: Float64Array;
}

export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in metres between two positions in degrees. */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Length of the track through every point, metres. */
export function trackDistanceM(track: Track): number {
  const { latitudes: lat, longitudes: lon } = track;
  let sum = 0;
  for (let i = 1; i < lat.length; i++) sum += haversineM(lat[i - 1], lon[i - 1], lat[i], lon[i]);
  return sum;
}

/** Sum of rises between consecutive known altitudes, metres; null when fewer than two are known. */
export function elevationGainM(track: Track): number | null {
  let previous = NaN;
  let known = 0;
  let gain = 0;
  for (const altitude of track.altitudes) {
    if (!isValue(altitude)) continue;
    if (known > 0 && altitude > previous) gain += altitude - previous;
    previous = altitude;
    known++;
  }
  return known >= 2 ? gain : null;
}

/**
 * Indices of at most `maxPoints` (an integer >= 2) points out of `n`, evenly
 * spread, first and last included, strictly increasing.
 */
export function evenIndices(n: number, maxPoints: number): number[] {
  if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`maxPoints must be an integer >= 2, got ${maxPoints}`);
  if (n <= maxPoints) return Array.from({ length: n }, (_, i) => i);
  // round(i · (n − 1) / (maxPoints − 1)) steps by at least 1 since n − 1 > maxPoints − 1.
  return Array.from({ length: maxPoints }, (_, i) => Math.round((i * (n - 1)) / (maxPoints - 1)));
}

export type RoutePoint = [time: number, latitude: number, longitude: number, altitude: number | null];

/** The points at `indices` as [t, lat, lon, alt] with a missing altitude as null. */
export function routePoints(track: Track, indices: readonly number[]): RoutePoint[] {
  return indices.map((i) => {
    const altitude = track.altitudes[i];
    return [track.times[i], track.latitudes[i], track.longitudes[i], isValue(altitude) ? altitude : null];
  });
}

/**
 * The track cut to the points that have a time and a position, ordered by
 * time. Route points may be synced out of order across batches; sorting is
 * skipped when they are already in order (the usual case).
 */
export function normalizeTrack(track: Track): Track {
  const n = Math.min(track.times.length, track.latitudes.length, track.longitudes.length);
  const keep: number[] = [];
  let ordered = true;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(track.times[i]) || !Number.isFinite(track.latitudes[i]) || !Number.isFinite(track.longitudes[i])) continue;
    if (keep.length > 0 && track.times[i] < track.times[keep[keep.length - 1]]) ordered = false;
    keep.push(i);
  }
  if (ordered && keep.length === track.times.length && keep.length === track.altitudes.length) return track;
  if (!ordered) keep.sort((a, b) => track.times[a] - track.times[b] || a - b);
  const pick = (from: Float64Array) => Float64Array.from(keep, (i) => (i < from.length ? from[i] : NaN));
  return { times: pick(track.times), latitudes: pick(track.latitudes), longitudes: pick(track.longitudes), altitudes: pick(track.altitudes) };
}
