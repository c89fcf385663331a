// The three activity rings of a day as an SVG: move (or move time), exercise
// and stand, each the fraction of its goal (a full ring at 100 %; beyond it
// the ring stays closed and the number tells). Colours come from CSS.
import { svg } from './dom.js';

export interface Ring {
  name: 'move' | 'exercise' | 'stand';
  value: number | null;
  goal: number | null;
}

const RADII = [44, 32, 20];
const WIDTH = 10;

export function ringsSvg(rings: Ring[], label: string): SVGElement {
  const figure = svg('svg', { viewBox: '0 0 100 100', class: 'rings', role: 'img', 'aria-label': label });
  rings.forEach((ring, i) => {
    const r = RADII[i];
    const circumference = 2 * Math.PI * r;
    const fraction = ring.value !== null && ring.goal ? Math.min(1, ring.value / ring.goal) : 0;
    figure.append(svg('circle', { cx: 50, cy: 50, r, class: `ring-track ring-${ring.name}`, 'stroke-width': WIDTH, fill: 'none' }));
    // Nothing to draw at 0: a round cap on an empty dash would still paint a dot.
    if (fraction <= 0) return;
    figure.append(
      svg('circle', {
        cx: 50, cy: 50, r, class: `ring-fill ring-${ring.name}`, 'stroke-width': WIDTH, fill: 'none', 'stroke-linecap': 'round',
        'stroke-dasharray': `${(fraction * circumference).toFixed(2)} ${circumference.toFixed(2)}`,
        transform: 'rotate(-90 50 50)',
      }),
    );
  });
  return figure;
}
