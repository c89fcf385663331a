// GET /v1/workouts/{uuid}/route — a workout's GPS track: as JSON, the points a
// map needs (picked evenly, first and last kept) with the distance and climb
// of the whole track; as GPX 1.1, every recorded point for download. The
// math lives in core/route-track.ts, the GPX document in core/gpx-document.ts
// (built in the worker pool: ~7 µs a point).
import { Type } from '@sinclair/typebox';
import { GPX_CONTENT_TYPE } from '../core/gpx-document.js';
import { elevationGainM, evenIndices, normalizeTrack, routePoints, trackDistanceM, type Track } from '../core/route-track.js';
import { findWorkoutRoute } from '../db/queries/workouts.js';
import { errors } from '../errors.js';
import { POINTS } from '../limits.js';
import { Enum, MaxPoints, Uuid } from '../schemas/common.js';
import { WorkoutRouteResponse, type WorkoutRouteResponseT } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

export const workoutRouteRoute = defineRoute({
  operationId: 'getWorkoutRoute',
  path: '/v1/workouts/{uuid}/route',
  auth: true,
  summary: 'Workout GPS track (JSON or GPX)',
  description:
    'The GPS track of the workout. Points without a time or position are left out and the rest ordered by time; totalPoints counts them. ' +
    'format=json (default): points as [epoch ms, latitude, longitude, altitude] with altitude null where none was recorded, downsampled to at most maxPoints ' +
    `(default ${POINTS.default}, larger values clamped to ${POINTS.max}, at least ${POINTS.min}) by picking recorded points evenly by index: ` +
    'point i of maxPoints is recorded point round(i × (totalPoints − 1) / (maxPoints − 1)), so the first and last are always kept and no position or altitude is averaged or invented. ' +
    'A track with at most maxPoints points comes back whole. ' +
    'distanceM is the length of the full-resolution track: the sum of haversine (great-circle) steps between consecutive points on a sphere of the mean Earth radius, 6,371,008.8 m (within ~0.5 % of the WGS-84 ellipsoid). ' +
    'elevationGainM is the sum of the rises between consecutive known altitudes of the full-resolution track, unsmoothed (points without an altitude are skipped); null when fewer than two points have one. ' +
    'format=gpx: a GPX 1.1 file (application/gpx+xml) as a download named workout-<uuid>.gpx holding every point at full resolution (maxPoints does not apply): ' +
    'one trk (name: activity type and start, type: activity type) of one trkseg, each trkpt with ele (when recorded) and time (UTC, ISO 8601). ' +
    'A workout without route points (hasRoute false) has an empty track: totalPoints 0, distanceM 0, elevationGainM null, no points (in GPX, an empty trkseg). ' +
    "404 'workout not found' when the workout does not exist for this user.",
  params: Type.Object({
    format: Enum(['json', 'gpx'] as const, 'json (default): downsampled points with distance and elevation gain; gpx: a GPX 1.1 download of every point.', 'json'),
    maxPoints: MaxPoints('format=json only: points returned'),
  }),
  pathParams: Type.Object({ uuid: Uuid('The workout.') }),
  example: { path: { uuid: EXAMPLE.workout }, query: { maxPoints: '3' } },
  responses: [
    {
      status: 200,
      description: 'The track, downsampled, with its distance and elevation gain (format=json).',
      schema: WorkoutRouteResponse,
      example: {
        uuid: EXAMPLE.workout,
        start: 1_767_636_856_875,
        end: 1_767_640_425_875,
        maxPoints: 3,
        totalPoints: 3482,
        distanceM: 10_334.6,
        elevationGainM: 31.1,
        points: [
          [1_767_636_856_875, 48.129214, 11.572164, 520.8],
          [1_767_638_641_875, 48.137512, 11.601433, null],
          [1_767_640_425_875, 48.129301, 11.572212, 521.4],
        ],
      },
    },
    {
      status: 200,
      description: 'The whole track as a GPX 1.1 file (format=gpx).',
      contentType: GPX_CONTENT_TYPE,
      headers: { 'Content-Disposition': 'attachment; filename="workout-<uuid>.gpx"' },
      example:
        '<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="healthd" xmlns="http://www.topografix.com/GPX/1/1">' +
        `<metadata><name>running workout ${EXAMPLE.workout}</name><time>2026-01-05T18:14:16.875Z</time></metadata>` +
        '<trk><name>running 2026-01-05T18:14:16.875Z</name><type>running</type><trkseg>' +
        '<trkpt lat="48.129214" lon="11.572164"><ele>520.8</ele><time>2026-01-05T18:14:16.875Z</time></trkpt>' +
        '<trkpt lat="48.129221" lon="11.572204"><ele>520.9</ele><time>2026-01-05T18:14:17.875Z</time></trkpt>' +
        '…</trkseg></trk></gpx>',
    },
    { status: 404, description: "The workout does not exist for this user ('workout not found')." },
  ],
  async handler({ db, services, userId, path, query }) {
    const { format, maxPoints } = query;
    const workout = await findWorkoutRoute(db, userId, path.uuid);
    if (!workout) throw errors.workoutNotFound();
    // A workout without points has an empty track, not a 404: only a missing workout is one (api.md).
    const track: Track = normalizeTrack(workout);

    if (format === 'gpx') {
      const task = { workout: { uuid: workout.uuid, activityType: workout.activityType, start: workout.start }, track };
      const transferList = [track.times.buffer, track.latitudes.buffer, track.longitudes.buffer, track.altitudes.buffer] as ArrayBuffer[];
      const body = (await services.workers.run(task, { name: 'gpxDocument', transferList })) as string;
      return {
        kind: 'text',
        contentType: GPX_CONTENT_TYPE,
        body,
        headers: { 'Content-Disposition': `attachment; filename="workout-${workout.uuid}.gpx"` },
      };
    }

    const body: WorkoutRouteResponseT = {
      uuid: workout.uuid,
      start: workout.start,
      end: workout.end,
      maxPoints,
      totalPoints: track.times.length,
      distanceM: trackDistanceM(track),
      elevationGainM: elevationGainM(track),
      points: routePoints(track, evenIndices(track.times.length, maxPoints)),
    };
    return json(body);
  },
});
