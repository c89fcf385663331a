// The /v1/metrics/daily body as text, straight from the page's columns
// (src/db/queries/metrics.ts): the bytes JSON.stringify writes for
// {metrics, nextOffset} — one DailyMetric per run of rows of one type, in
// page order — without the objects in between.
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { unitOf, type DailyMetricType } from '../core/registry.js';
import type { DailyValueColumns } from '../db/queries/metrics.js';

const DATE_CHARS = 10;

export function dailyMetricsBody(types: readonly DailyMetricType[], columns: DailyValueColumns, offset: number): string {
  const { positions, dates, values } = columns;
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
    body += head + dates.slice(i * DATE_CHARS, (i + 1) * DATE_CHARS) + '","value":' + jsonNumber(values[i]) + '}';
  }
  return `${body}${current === null ? '' : ']}'}],"nextOffset":${offset + count}}`;
}
