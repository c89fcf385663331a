// workout-routes/*.gpx → route points. The Health app writes one track of
// `<trkpt lat lon><ele/><time/>…</trkpt>`; points without a time or position
// are dropped, the rest ordered by time. Parsed as a stream: a long ride is a
// few MB of XML but only its numbers are kept.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { parseIsoInstant } from './apple-dates.js';
import { ImportInputError } from './errors.js';
import type { RoutePoints } from './workouts.js';

interface Point {
  time: number;
  latitude: number;
  longitude: number;
  altitude: number | null;
}

export async function readGpx(fileName: string, input: Readable): Promise<RoutePoints> {
  const parser = new SaxesParser({ position: true });
  const points: Point[] = [];
  let point: Point | null = null;
  let field: 'ele' | 'time' | null = null;
  let text = '';
  parser.on('error', (error) => {
    throw new ImportInputError(`${fileName} line ${parser.line}: malformed XML: ${error.message.replace(/^\d+:\d+: /, '')}`);
  });
  parser.on('opentag', (tag) => {
    const name = tag.name;
    if (name === 'trkpt' || name === 'rtept') {
      const attrs = tag.attributes as Record<string, string>;
      point = { time: NaN, latitude: Number(attrs.lat ?? NaN), longitude: Number(attrs.lon ?? NaN), altitude: null };
    } else if (point && (name === 'ele' || name === 'time')) {
      field = name;
      text = '';
    }
  });
  parser.on('text', (chunk) => {
    if (field) text += chunk;
  });
  parser.on('closetag', (tag) => {
    if (field && tag.name === field && point) {
      if (field === 'ele') point.altitude = Number.isFinite(Number(text.trim())) && text.trim() !== '' ? Number(text.trim()) : null;
      else point.time = parseIsoInstant(text.trim());
      field = null;
    } else if ((tag.name === 'trkpt' || tag.name === 'rtept') && point) {
      if (Number.isFinite(point.time) && Number.isFinite(point.latitude) && Number.isFinite(point.longitude)) points.push(point);
      point = null;
    }
  });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of input) parser.write(decoder.write(chunk as Buffer));
  parser.write(decoder.end());
  parser.close();
  points.sort((a, b) => a.time - b.time);
  return {
    timesMs: points.map((p) => p.time),
    latitudes: points.map((p) => p.latitude),
    longitudes: points.map((p) => p.longitude),
    altitudesM: points.map((p) => p.altitude),
  };
}
