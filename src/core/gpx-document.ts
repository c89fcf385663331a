// A workout's track as a GPX 1.1 file (format=gpx of the route endpoint), for
// the tools people load tracks into. Every recorded point goes in: a download
// is for keeping, and the file stays what the phone recorded. The XML comes
// from fast-xml-parser's builder, which escapes text and attributes; numbers
// are written without an exponent (xsd:decimal has none: 1e-7 is not a
// latitude). Building costs ~7 µs a point, so the route runs this in the
// worker pool.
import { XMLBuilder } from 'fast-xml-parser';
import { plainNumber } from './export-encoding.js';
import type { Track } from './route-track.js';
import { isValue } from './values.js';

export const GPX_NAMESPACE = 'http://www.topografix.com/GPX/1/1';
export const GPX_CONTENT_TYPE = 'application/gpx+xml';

export interface GpxWorkout {
  uuid: string;
  activityType: string;
  /** Epoch ms. */
  start: number;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', suppressEmptyNode: true, format: false });

const iso = (ms: number) => new Date(ms).toISOString();

/** The GPX 1.1 document of one track: metadata time (workout start), one trk of one trkseg. */
export function renderGpx(workout: GpxWorkout, track: Track): string {
  const { times, latitudes, longitudes, altitudes } = track;
  const trkpt = new Array<Record<string, string>>(times.length);
  for (let i = 0; i < times.length; i++) {
    const point: Record<string, string> = { '@lat': plainNumber(latitudes[i]), '@lon': plainNumber(longitudes[i]) };
    // GPX orders a point's children: ele before time.
    if (isValue(altitudes[i])) point.ele = plainNumber(altitudes[i]);
    point.time = iso(times[i]);
    trkpt[i] = point;
  }
  return builder.build({
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    gpx: {
      '@version': '1.1',
      '@creator': 'healthd',
      '@xmlns': GPX_NAMESPACE,
      metadata: { name: `${workout.activityType} workout ${workout.uuid}`, time: iso(workout.start) },
      trk: { name: `${workout.activityType} ${iso(workout.start)}`, type: workout.activityType, trkseg: { trkpt } },
    },
  }) as string;
}
