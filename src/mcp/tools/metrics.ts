// Metrics: get_latest_metrics (/v1/metrics/latest), get_daily_metrics
// (/v1/metrics/daily, every page), and get_metric_stats — the same daily
// values summed up per week, month or the whole range, because adding up a
// year of numbers is what an assistant gets wrong and a person asks for
// ("was I more active in March than in February?").
import type { Static } from '@sinclair/typebox';
import { z } from 'zod';
import { typeInfo } from '../../core/registry.js';
import { MCP, PAGE, RANGE_CAP_DAYS } from '../../limits.js';
import type { DailyMetricsResponse, LatestMetricsResponse } from '../../schemas/resources.js';
import { localTime, roundValue } from '../compact.js';
import { dayRange, LocalDate, type DayRange } from '../dates.js';
import { requireQuantity, TypesInput, UserInput } from '../inputs.js';
import { defineTool, type ToolContext } from '../tool.js';

export const getLatestMetrics = defineTool({
  name: 'get_latest_metrics',
  title: 'Latest value of metrics',
  description:
    'The newest single measurement of each quantity type (weight, resting heart rate, VO2 max…), with when it was taken. ' +
    'A raw sample, not deduplicated; types never recorded are listed under noData.',
  input: { types: TypesInput('Quantity types'), user: UserInput },
  async run({ types, user }, ctx) {
    types.forEach(requireQuantity);
    const body = await ctx.json<Static<typeof LatestMetricsResponse>>('getLatestMetrics', { user, query: { types } });
    const zone = ctx.config.timeZone;
    const found = new Set(body.metrics.map((m) => m.identifier));
    const noData = [...new Set(types)].filter((t) => !found.has(t));
    return {
      json: {
        metrics: body.metrics.map((m) => ({ ...m, value: roundValue(m.value), timestamp: localTime(m.timestamp, zone) })),
        ...(noData.length > 0 ? { noData } : {}),
      },
    };
  },
});

interface DailySeries {
  identifier: string;
  unit: string | null;
  /** The day's total for a cumulative type, its mean for a discrete one. */
  aggregation: 'total' | 'mean';
  days: Array<{ date: string; value: number | null }>;
}

/** Every daily value of [range) for the types, following the route's pages to the last. */
async function readDaily(ctx: ToolContext, types: readonly string[], range: DayRange, user: string | undefined): Promise<{ series: DailySeries[]; noData: string[] }> {
  const byType = new Map<string, DailySeries>();
  let offset = 0;
  for (;;) {
    const page = await ctx.json<Static<typeof DailyMetricsResponse>>('getDailyMetrics', {
      user,
      query: { types, start: range.startMs, end: range.endMs, limit: PAGE.dailyRows.default, offset },
    });
    let rows = 0;
    for (const metric of page.metrics) {
      let series = byType.get(metric.identifier);
      if (!series) {
        const info = typeInfo(metric.identifier);
        const aggregation = info?.kind === 'quantity' && info.aggregation === 'cumulative' ? 'total' : 'mean';
        byType.set(metric.identifier, (series = { identifier: metric.identifier, unit: metric.unit, aggregation, days: [] }));
      }
      series.days.push(...metric.days);
      rows += metric.days.length;
    }
    if (rows < PAGE.dailyRows.default) break;
    offset = page.nextOffset;
  }
  const unique = [...new Set(types)];
  return {
    series: unique.flatMap((t) => byType.get(t) ?? []),
    noData: unique.filter((t) => !byType.has(t)),
  };
}

const dailyInputs = {
  start_date: LocalDate('First local day, YYYY-MM-DD (inclusive).'),
  end_date: LocalDate('Last local day, YYYY-MM-DD (inclusive).'),
  user: UserInput,
};

export const getDailyMetrics = defineTool({
  name: 'get_daily_metrics',
  title: 'Daily values of metrics',
  description:
    `One value per local day for each quantity type, start_date to end_date inclusive (at most ${RANGE_CAP_DAYS.perDay} days): the day's total for ` +
    'cumulative types (steps, active energy, distance, exercise minutes) and the day\'s mean for the others (heart rate, weight, HRV). ' +
    'Deduplicated across devices: watch and phone are never double-counted. Only days with a value are listed; every day of the range is returned in one answer. ' +
    'For totals or averages over weeks or months use get_metric_stats.',
  input: { types: TypesInput('Quantity types'), ...dailyInputs },
  async run({ types, start_date, end_date, user }, ctx) {
    types.forEach(requireQuantity);
    const range = dayRange(start_date, end_date, ctx.config.timeZone, { days: RANGE_CAP_DAYS.perDay });
    const { series, noData } = await readDaily(ctx, types, range, user);
    return {
      json: {
        startDate: range.startDate,
        endDate: range.endDate,
        metrics: series.map((s) => ({ ...s, days: s.days.map((d) => ({ date: d.date, value: roundValue(d.value) })) })),
        ...(noData.length > 0 ? { noData } : {}),
      },
    };
  },
});

type GroupBy = 'none' | 'week' | 'month';

/** The first day of the bucket `date` falls in: the range's own start, the Monday of its ISO week, or the 1st of its month. */
function bucketStart(date: string, groupBy: GroupBy, rangeStart: string): string {
  if (groupBy === 'none') return rangeStart;
  if (groupBy === 'month') return `${date.slice(0, 8)}01`;
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() - ((at.getUTCDay() + 6) % 7));
  return at.toISOString().slice(0, 10);
}

function bucketEnd(from: string, groupBy: GroupBy, rangeEnd: string): string {
  if (groupBy === 'none') return rangeEnd;
  const at = new Date(`${from}T00:00:00Z`);
  if (groupBy === 'week') at.setUTCDate(at.getUTCDate() + 6);
  else at.setUTCMonth(at.getUTCMonth() + 1, 0);
  return at.toISOString().slice(0, 10);
}

interface PeriodStats {
  from: string;
  to: string;
  days: number;
  mean: number;
  min: number;
  max: number;
  total?: number;
}

/** Statistics of a series' daily values per bucket; buckets without a value are left out. */
export function periodStats(days: DailySeries['days'], cumulative: boolean, groupBy: GroupBy, range: { startDate: string; endDate: string }): PeriodStats[] {
  const buckets = new Map<string, number[]>();
  for (const { date, value } of days) {
    if (value === null) continue;
    const key = bucketStart(date, groupBy, range.startDate);
    let values = buckets.get(key);
    if (!values) buckets.set(key, (values = []));
    values.push(value);
  }
  return [...buckets].map(([start, values]) => {
    const total = values.reduce((sum, v) => sum + v, 0);
    const from = start < range.startDate ? range.startDate : start;
    const end = bucketEnd(start, groupBy, range.endDate);
    return {
      from,
      to: end > range.endDate ? range.endDate : end,
      days: values.length,
      mean: roundValue(total / values.length),
      min: roundValue(Math.min(...values)),
      max: roundValue(Math.max(...values)),
      ...(cumulative ? { total: roundValue(total) } : {}),
    };
  });
}

export const getMetricStats = defineTool({
  name: 'get_metric_stats',
  title: 'Metric statistics per week, month or range',
  description:
    'Mean, lowest and highest day, and (for cumulative types such as steps or active energy) the total, over the daily values of get_daily_metrics, ' +
    'per ISO week (Monday to Sunday), per calendar month, or for the whole range (group_by none, the default); weeks and months are clipped to the range. ' +
    `Ranges up to ${MCP.statsDays} days, so trends over years fit in a short answer. ` +
    'days counts the days that had a value (days without data are left out, not counted as zero); periods without any value are left out. ' +
    'For a discrete type (heart rate, weight) mean, min and max are over the daily means.',
  input: {
    types: TypesInput('Quantity types'),
    ...dailyInputs,
    group_by: z.enum(['none', 'week', 'month']).default('none').describe('none (the whole range), week (ISO weeks) or month.'),
  },
  async run({ types, start_date, end_date, group_by, user }, ctx) {
    types.forEach(requireQuantity);
    const range = dayRange(start_date, end_date, ctx.config.timeZone, { days: MCP.statsDays });
    const { series, noData } = await readDaily(ctx, types, range, user);
    return {
      json: {
        startDate: range.startDate,
        endDate: range.endDate,
        groupBy: group_by,
        metrics: series.map((s) => ({
          identifier: s.identifier,
          unit: s.unit,
          aggregation: s.aggregation,
          periods: periodStats(s.days, s.aggregation === 'total', group_by, range),
        })),
        ...(noData.length > 0 ? { noData } : {}),
      },
    };
  },
});
