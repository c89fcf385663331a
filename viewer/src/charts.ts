// uPlot charts in the page's colours (light or dark, read from the CSS
// variables), as wide as their container and redrawn when it resizes.
// Times are epoch ms; the time axis is labelled in the zone given, so a
// workout reads in SERVICE_TIME_ZONE. Daily charts pass UTC midnight of each
// calendar date with zone UTC: a date is a date, whatever DST does.
import uPlot from 'uplot';
import { h } from './dom.js';
import { dayLabel, timeOfDay } from './format.js';
import { localDate } from './zone.js';

export interface ChartSeries {
  label: string;
  /** Formats a hovered value for the legend. */
  format: (value: number) => string;
  /** Index into the palette (CSS variables --series-0 … --series-5). */
  color?: number;
  bars?: boolean;
  /** A shaded band between this series and the next (min–max ranges). */
  fillTo?: 'next';
}

export interface ChartSpec {
  title: string;
  series: ChartSeries[];
  /** [x (epoch ms), ...y per series]; null where a series has no value. */
  data: [number[], ...(number | null)[][]];
  zone: string;
  height?: number;
  /** Fix the x range (so several charts share one time axis). */
  xRange?: [number, number];
  /** Charts with the same key move their cursors together. */
  syncKey?: string;
  /** x values are calendar days (UTC midnight of each date): ticks fall on whole days. */
  daily?: boolean;
  /** Formats the y axis ticks (default: the numbers as they are). */
  yTicks?: (value: number) => string;
  /** Spacings the y ticks may take (default: uPlot's), e.g. whole hours of minutes. */
  yIncrements?: number[];
}

const DAY_MS = 86_400_000;
/** Tick spacings of a daily axis: whole days, weeks, months. */
const DAY_INCREMENTS = [1, 2, 7, 14, 28, 56, 91, 182, 364].map((d) => d * DAY_MS);

/** How an x value reads, on the axis and in the legend. */
/** A daily axis spanning more than this names the year too: "Nov 25" would be ambiguous across a year. */
const YEAR_SHOWN_FROM_MS = 180 * DAY_MS;

function xLabel(ts: number, spec: ChartSpec, wide: boolean): string {
  // A daily axis places each local date at its UTC midnight; any other axis holds instants, whose date is the zone's.
  const date = spec.daily ? new Date(ts).toISOString().slice(0, 10) : localDate(ts, spec.zone);
  if (spec.daily) {
    const span = spec.data[0].length > 1 ? spec.data[0][spec.data[0].length - 1] - spec.data[0][0] : 0;
    return dayLabel(date, span > YEAR_SHOWN_FROM_MS ? { day: 'numeric', month: 'short', year: '2-digit' } : { day: 'numeric', month: 'short' });
  }
  return wide ? `${dayLabel(date, { day: 'numeric', month: 'short' })} ${timeOfDay(ts, spec.zone)}` : timeOfDay(ts, spec.zone);
}

const live = new Set<{ chart: uPlot; observer: ResizeObserver }>();

/** Destroys every chart on the page (before the next page renders). */
export function disposeCharts(): void {
  for (const { chart, observer } of live) {
    observer.disconnect();
    chart.destroy();
  }
  live.clear();
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** A chart in a figure with its title; returns the figure to place in the page. */
export function chart(spec: ChartSpec): HTMLElement {
  const figure = h('figure', { class: 'chart', 'data-chart': spec.title }, h('figcaption', {}, spec.title));
  const plot = h('div', { class: 'plot', role: 'img', 'aria-label': spec.title });
  figure.append(plot);
  // uPlot needs a width: draw once the figure is in the document.
  requestAnimationFrame(() => {
    if (!figure.isConnected) return;
    const foreground = cssVar('--fg');
    const grid = cssVar('--grid');
    const axis = (): uPlot.Axis => ({ stroke: foreground, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } });
    const series: uPlot.Series[] = [
      { label: spec.daily ? 'Day' : 'Time', value: (_u, v) => (v === null || v === undefined ? '–' : xLabel(v, spec, !spec.daily)) },
      ...spec.series.map((s, i): uPlot.Series => {
        const color = cssVar(`--series-${s.color ?? i}`);
        return {
          label: s.label,
          stroke: color,
          width: s.bars ? 0 : 2,
          fill: s.bars ? color : s.fillTo ? `${color}33` : undefined,
          paths: s.bars ? uPlot.paths.bars!({ size: [0.7, 48] }) : undefined,
          points: { show: spec.data[0].length < 60 && !s.bars },
          spanGaps: false,
          value: (_u, v) => (v === null || v === undefined ? '–' : s.format(v)),
        };
      }),
    ];
    const bands: uPlot.Band[] = [];
    spec.series.forEach((s, i) => {
      if (s.fillTo === 'next') bands.push({ series: [i + 2, i + 1] });
    });
    const options: uPlot.Options = {
      width: Math.max(200, plot.clientWidth),
      height: spec.height ?? 200,
      ms: 1,
      tzDate: (ts) => uPlot.tzDate(new Date(ts), spec.zone),
      scales: {
        x: { time: true, ...(spec.xRange ? { range: () => spec.xRange! } : {}) },
        // Bars grow from zero.
        ...(spec.series.some((s) => s.bars) ? { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] as uPlot.Range.MinMax } } : {}),
      },
      axes: [
        {
          ...axis(),
          ...(spec.daily ? { incrs: DAY_INCREMENTS } : {}),
          values: (_u, splits) => splits.map((ts) => xLabel(ts, spec, false)),
        },
        { ...axis(), size: 60, ...(spec.yTicks ? { values: (_u, splits) => splits.map(spec.yTicks!) } : {}), ...(spec.yIncrements ? { incrs: spec.yIncrements } : {}) },
      ],
      series,
      bands,
      legend: { live: true },
      cursor: spec.syncKey ? { sync: { key: spec.syncKey } } : {},
    };
    const instance = new uPlot(options, spec.data as uPlot.AlignedData, plot);
    const observer = new ResizeObserver(() => {
      const width = Math.max(200, plot.clientWidth);
      if (width !== instance.width) instance.setSize({ width, height: instance.height });
    });
    observer.observe(plot);
    live.add({ chart: instance, observer });
    figure.dataset.drawn = 'true';
  });
  return figure;
}
