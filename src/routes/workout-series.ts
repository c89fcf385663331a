// GET /v1/workouts/{uuid}/series — a workout's streams, each bucket-averaged
// to at most maxPoints points (first and last kept). Large series are
// downsampled in the worker pool on Float64Arrays moved there and back (never
// cloned); small ones inline, where a pool round trip would cost more.
import { Type } from '@sinclair/typebox';
import type { WorkerPool } from '../worker-pool.js';
import { downsampleStream, pointsWithValues, type Stream } from '../core/downsample.js';
import { unitOf } from '../core/registry.js';
import { findWorkoutBounds, workoutStreams, type StreamRow } from '../db/queries/workouts.js';
import { errors } from '../errors.js';
import { POINTS } from '../limits.js';
import { requireKnownTypes } from '../params/checks.js';
import { MaxPoints, TypeList, Uuid } from '../schemas/common.js';
import { WorkoutSeriesResponse, type SeriesStreamT } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';
import { knownTypes } from '../reads/types.js';

// bench/series-inline-vs-pool.ts (2 cores shared with other work): inline
// downsampling costs about 2 ns a point (20,000 points: ~40 µs; 4 × 10,800:
// 70–80 µs; tiny streams of up to 400 points: 1–3 µs), while a pool round trip
// answers in 30–140 µs and keeps the event loop busy 32–66 µs (posting the
// task, taking the result back) whatever the size. Below ~20,000 points the
// work costs the event loop no more than handing it to the pool would.
export const INLINE_SERIES_POINTS = 20_000;

export const workoutSeriesRoute = defineRoute({
  operationId: 'getWorkoutSeries',
  path: '/v1/workouts/{uuid}/series',
  auth: true,
  summary: 'Workout streams, downsampled',
  description:
    'Every recorded stream of the workout (heart rate, power, speed, cadence…), or only those named in types (identifiers not recorded for this workout are simply absent; an unknown identifier is a 400). ' +
    `Each stream is downsampled to at most maxPoints points (default ${POINTS.default}, larger values clamped to ${POINTS.max}, at least ${POINTS.min}) by bucket averaging: ` +
    'the first and last points are kept as they are and the points between are split into maxPoints − 2 contiguous runs of near-equal size, each becoming its mean time (rounded to the millisecond) and mean value. ' +
    'A stream with at most maxPoints points comes back unchanged. totalPoints is the count before downsampling; unit is the type\'s canonical unit. ' +
    'Streams are ordered by identifier, or in the order of types when given. 404 when the workout does not exist for this user.',
  params: Type.Object({
    types: Type.Optional(TypeList('Only these stream identifiers; omitted means every recorded stream.')),
    maxPoints: MaxPoints('Points per stream'),
  }),
  pathParams: Type.Object({ uuid: Uuid('The workout.') }),
  example: { path: { uuid: EXAMPLE.workout }, query: { types: 'HKQuantityTypeIdentifierHeartRate', maxPoints: '3' } },
  responses: [
    {
      status: 200,
      description: 'The workout bounds and its downsampled streams.',
      schema: WorkoutSeriesResponse,
      example: {
        uuid: EXAMPLE.workout,
        start: 1_767_636_856_875,
        end: 1_767_640_425_875,
        maxPoints: 3,
        series: [
          {
            type: 'HKQuantityTypeIdentifierHeartRate',
            unit: 'count/min',
            totalPoints: 3482,
            points: [[1_767_636_856_875, 76], [1_767_638_641_375, 155.4], [1_767_640_425_875, 148]],
          },
        ],
      },
    },
    { status: 404, description: 'The workout does not exist for this user.' },
  ],
  async handler({ db, services, userId, path, query }) {
    const { types, maxPoints } = query;
    if (types) requireKnownTypes(types, await knownTypes(db, userId, types));
    const workout = await findWorkoutBounds(db, userId, path.uuid);
    if (!workout) throw errors.workoutNotFound();
    const rows = await workoutStreams(db, userId, workout.uuid, types);
    if (types) {
      const order = new Map(types.map((identifier, i) => [identifier, i]));
      rows.sort((a, b) => order.get(a.identifier)! - order.get(b.identifier)!);
    }
    const streams = rows.map(toStream);
    // Counted before downsampling: arrays sent to the pool are moved, not copied.
    const totals = streams.map((stream) => stream.times.length);
    const reduced = await downsampleAll(services.workers, streams, maxPoints);
    const series: SeriesStreamT[] = rows.map((row, i) => ({
      type: row.identifier,
      unit: unitOf(row.identifier),
      totalPoints: totals[i],
      points: pointsOf(reduced[i]),
    }));
    return json({ uuid: workout.uuid, start: workout.start, end: workout.end, maxPoints, series });
  },
});

function toStream(row: StreamRow): Stream {
  return pointsWithValues({ times: row.times, values: row.values });
}

async function downsampleAll(workers: WorkerPool, streams: Stream[], maxPoints: number): Promise<Stream[]> {
  const points = streams.reduce((sum, s) => sum + s.times.length, 0);
  if (points < INLINE_SERIES_POINTS) return streams.map((s) => downsampleStream(s, maxPoints));
  const transferList = streams.flatMap((s) => [s.times.buffer, s.values.buffer]) as ArrayBuffer[];
  return (await workers.run({ streams, maxPoints }, { name: 'downsampleSeries', transferList })) as Stream[];
}

function pointsOf(stream: Stream): [number, number][] {
  const points = new Array<[number, number]>(stream.times.length);
  for (let i = 0; i < points.length; i++) points[i] = [stream.times[i], stream.values[i]];
  return points;
}
