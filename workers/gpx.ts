// Piscina task of /v1/workouts/{uuid}/route?format=gpx: the GPX document of a
// whole track, off the HTTP thread. The track's arrays arrive transferred.
import { renderGpx, type GpxWorkout } from '../src/core/gpx-document.js';
import type { Track } from '../src/core/route-track.js';

export interface GpxTask {
  workout: GpxWorkout;
  track: Track;
}

export function gpxDocument(task: GpxTask): string {
  return renderGpx(task.workout, task.track);
}
