// Bucket-average downsampling of a workout stream for the series route.
//
// A long workout holds tens of thousands of points per stream; a chart needs a
// few hundred. Runs in the worker pool over typed arrays (moved, not cloned),
// so it makes one pass with no per-point allocation.
//
// Rules (api.md behavior rule 4):
// - n <= maxPoints: the stream comes back unchanged (a copy).
// - Otherwise the output has exactly maxPoints points: the first and last input
//   points as they are, and between them maxPoints − 2 buckets that split the
//   n − 2 inner points into contiguous runs whose sizes differ by at most 1.
//   Each bucket becomes (its mean time rounded to the millisecond, its mean value).
// - Strictly increasing input times give strictly increasing output times: a
//   bucket's rounded mean stays within its own first and last (integer) times.
// - Times are averaged as offsets from the bucket's first time, so a large
//   bucket of epoch-ms values keeps millisecond precision.
// - Only points with a time and a value are a stream's points
//   (pointsWithValues, before the count and the downsampling).

import { isValue } from './values.js';

export interface Stream {
  times: Float64Array;
  values: Float64Array;
}

/**
 * The stream's points that are points: a time and a value, both finite (a
 * NULL element of the stored arrays reads as NaN; src/core/values.ts). The
 * stream itself when all are, the usual case, and when its arrays differ in
 * length (a writer's bug downsampleStream refuses).
 */
export function pointsWithValues(stream: Stream): Stream {
  const { times, values } = stream;
  const n = times.length;
  if (values.length !== n) return stream;
  let kept = 0;
  for (let i = 0; i < n; i++) if (isValue(times[i]) && isValue(values[i])) kept++;
  if (kept === n) return stream;
  const outTimes = new Float64Array(kept);
  const outValues = new Float64Array(kept);
  for (let i = 0, k = 0; i < n; i++) {
    if (!isValue(times[i]) || !isValue(values[i])) continue;
    outTimes[k] = times[i];
    outValues[k++] = values[i];
  }
  return { times: outTimes, values: outValues };
}

/** At most `maxPoints` (an integer >= 2) points of `stream`, keeping its first and last. */
export function downsampleStream(stream: Stream, maxPoints: number): Stream {
  if (!Number.isInteger(maxPoints) || maxPoints < 2) {
    throw new RangeError(`maxPoints must be an integer >= 2, got ${maxPoints}`);
  }
  const { times, values } = stream;
  if (times.length !== values.length) throw new RangeError('a stream needs as many values as times');
  const n = times.length;
  if (n <= maxPoints) return { times: times.slice(), values: values.slice() };

  const outTimes = new Float64Array(maxPoints);
  const outValues = new Float64Array(maxPoints);
  outTimes[0] = times[0];
  outValues[0] = values[0];
  outTimes[maxPoints - 1] = times[n - 1];
  outValues[maxPoints - 1] = values[n - 1];

  const inner = n - 2;
  const buckets = maxPoints - 2;
  let from = 1;
  for (let bucket = 0; bucket < buckets; bucket++) {
    // floor((b + 1) · inner / buckets) cuts runs of floor or ceil of inner / buckets.
    const to = 1 + Math.floor(((bucket + 1) * inner) / buckets);
    const baseTime = times[from];
    let timeOffsets = 0;
    let valueSum = 0;
    for (let i = from; i < to; i++) {
      timeOffsets += times[i] - baseTime;
      valueSum += values[i];
    }
    const count = to - from;
    outTimes[bucket + 1] = baseTime + Math.round(timeOffsets / count);
    outValues[bucket + 1] = valueSum / count;
    from = to;
  }
  return { times: outTimes, values: outValues };
}
