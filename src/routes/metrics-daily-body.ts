// The /v1/metrics/daily body as text: the bytes JSON.stringify writes for
// {metrics, nextOffset} — one DailyMetric per run of rows of one type, in
// page order — without the objects in between: around PostgreSQL's text of
// the days, or from the page's columns (src/db/queries/metrics.ts).
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { unitOf, type DailyMetricType } from '../core/registry.js';
import { DayReader, type DailyValueColumns } from '../core/daily-columns.js';
import type { DailyDaysText } from '../db/queries/metrics.js';

/** The body around PostgreSQL's text of each position's days; consecutive positions of one type make one metric. */
export function dailyMetricsTextBody(groups: readonly DailyDaysText[], offset: number): string {
  let body = '{"metrics":[';
  let current: string | null = null;
  let count = 0;
  for (const group of groups) {
    count += group.count;
    if (group.identifier === current) {
      body += ',' + group.days;
      continue;
    }
    body += `${current === null ? '' : ']},'}{"identifier":${JSON.stringify(group.identifier)},"unit":${jsonStringOrNull(unitOf(group.identifier))},"days":[${group.days}`;
    current = group.identifier;
  }
  return `${body}${current === null ? '' : ']}'}],"nextOffset":${offset + count}}`;
}

export function dailyMetricsBody(types: readonly DailyMetricType[], columns: DailyValueColumns, offset: number): string {
  const { positions, values } = columns;
  const days = new DayReader(columns.dates);
  const count = values.length;
  let body = '{"metrics":[';
  let current: string | null = null;
  for (let i = 0; i < count; i++) {
    const identifier = types[positions[i] - 1].identifier;
    let head: string;
    // A type repeated in the request continues the same metric, as the nesting by identifier did.
    if (identifier !== current) {
      // A new type: close the last one's days, open this one's.
      head = `${current === null ? '' : ']},'}{"identifier":${JSON.stringify(identifier)},"unit":${jsonStringOrNull(unitOf(identifier))},"days":[{"date":"`;
      current = identifier;
    } else {
      head = ',{"date":"';
    }
    body += head + days.next() + '","value":' + jsonNumber(values[i]) + '}';
  }
  return `${body}${current === null ? '' : ']}'}],"nextOffset":${offset + count}}`;
}
