// A workout's GPS track drawn to scale with no map tiles: positions projected
// equirectangularly around the track's middle latitude (east–west distances
// shrunk by its cosine), so a kilometre is as long north–south as east–west;
// a scale bar and the start and finish marked. Accurate to well under a
// percent across a workout's few kilometres.
import { svg } from './dom.js';
import { kilometres } from './format.js';

const SIZE = 320;
const PAD = 16;
const METRES_PER_DEGREE = (6_371_008.8 * Math.PI) / 180;

/** Points as [t, lat, lon, alt]. */
export function trackSvg(points: [number, number, number, number | null][], distanceM: number): SVGElement {
  const lats = points.map((p) => p[1]);
  const lons = points.map((p) => p[2]);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  const xScale = Math.cos((midLat * Math.PI) / 180) * METRES_PER_DEGREE;
  const xs = lons.map((lon) => lon * xScale);
  const ys = lats.map((lat) => lat * METRES_PER_DEGREE);
  const minX = Math.min(...xs);
  const maxY = Math.max(...ys);
  const spanX = Math.max(Math.max(...xs) - minX, 1);
  const spanY = Math.max(maxY - Math.min(...ys), 1);
  const spanM = Math.max(spanX, spanY);
  // The longer side fills the drawing; the other keeps the same metres per pixel.
  const pxPerM = (SIZE - 2 * PAD) / spanM;
  const width = Math.max(spanX * pxPerM + 2 * PAD, 120);
  const height = spanY * pxPerM + 2 * PAD;
  const px = (i: number) => (PAD + (xs[i] - minX) * pxPerM).toFixed(1);
  const py = (i: number) => (PAD + (maxY - ys[i]) * pxPerM).toFixed(1);
  const path = points.map((_, i) => `${i ? 'L' : 'M'}${px(i)} ${py(i)}`).join('');

  // A scale bar of a round length near a quarter of the drawing.
  const target = spanM / 4;
  const magnitude = 10 ** Math.floor(Math.log10(target));
  const barM = [1, 2, 5, 10].map((k) => k * magnitude).filter((m) => m <= target).pop() ?? magnitude;
  const barPx = barM * pxPerM;
  const last = points.length - 1;
  return svg(
    'svg',
    { viewBox: `0 0 ${width.toFixed(0)} ${(height + 24).toFixed(0)}`, class: 'track', role: 'img', 'aria-label': `GPS track, ${kilometres(distanceM)}, drawn to scale` },
    svg('path', { d: path, class: 'track-line', fill: 'none' }),
    svg('circle', { cx: px(0), cy: py(0), r: 5, class: 'track-start' }),
    svg('circle', { cx: px(last), cy: py(last), r: 5, class: 'track-finish' }),
    svg('line', { x1: PAD, y1: height + 8, x2: PAD + barPx, y2: height + 8, class: 'track-scale' }),
    svg('text', { x: PAD + barPx + 6, y: height + 12, class: 'track-scale-label' }, barM >= 1000 ? `${barM / 1000} km` : `${barM} m`),
  );
}
