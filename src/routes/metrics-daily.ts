// GET /v1/metrics/daily — the phone's daily buckets (already deduplicated
// across devices) for every local day the range touches, paged as day rows
// across the requested types.
import { Type } from '@sinclair/typebox';
import { localDayOf } from '../core/local-days.js';
import { dailyMetricTypes } from '../core/registry.js';
import { dailyFirstPageColumns, dailyValueColumns, dailyValuesText } from '../db/queries/metrics.js';
import { PAGE } from '../limits.js';
import { checkRange, requireKnownTypes } from '../params/checks.js';
import { End, Limit, Offset, Start, TypeList } from '../schemas/common.js';
import { DailyMetricsResponse } from '../schemas/resources.js';
import { EXAMPLE } from '../schemas/examples.js';
import { dailyMetricsBody, dailyMetricsTextBody } from './metrics-daily-body.js';
import { defineRoute } from './route.js';
import { knownTypes } from '../reads/types.js';

export const dailyMetricsRoute = defineRoute({
  operationId: 'getDailyMetrics',
  path: '/v1/metrics/daily',
  auth: true,
  summary: 'Daily values per type',
  description:
    'One value per local day (SERVICE_TIME_ZONE) for each requested type, from the daily aggregates the phone computed, ' +
    'already deduplicated across devices (watch and phone are never double-counted). Every local day that [start, end) touches ' +
    'is covered, so a range grazing one minute of a day returns that whole day; the range has no cap. ' +
    'The value is the day\'s total for a cumulative type and the day\'s mean for a discrete type. ' +
    'Only days with a value appear, ascending; a type appears only if it has an aggregate in the range, and types keep the request order. ' +
    `Paging counts day rows across all types in that nesting order: limit (default ${PAGE.dailyRows.default}, at most ${PAGE.dailyRows.max}; larger values are clamped) ` +
    'and offset; nextOffset = offset + the rows on this page, and a page with fewer rows than limit is the last. ' +
    'A page boundary can fall inside a type\'s days, so the same identifier may open the next page; append its days. ' +
    'An unknown identifier is a 400; identifiers that are not quantity types have no daily aggregates and are left out.',
  params: Type.Object({
    types: TypeList('Type identifiers; the response keeps this order.'),
    start: Start(),
    end: End(),
    limit: Limit(PAGE.dailyRows, 'Day rows'),
    offset: Offset(),
  }),
  example: { query: { types: 'HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierRestingHeartRate', start: String(EXAMPLE.start), end: String(EXAMPLE.end) } },
  responses: [
    {
      status: 200,
      description: 'Daily values per type, one page of day rows.',
      schema: DailyMetricsResponse,
      example: {
        metrics: [
          { identifier: 'HKQuantityTypeIdentifierStepCount', unit: 'count', days: [{ date: '2026-01-05', value: 9412 }, { date: '2026-01-06', value: 11_873 }] },
          { identifier: 'HKQuantityTypeIdentifierRestingHeartRate', unit: 'count/min', days: [{ date: '2026-01-05', value: 58 }, { date: '2026-01-06', value: 61.5 }] },
        ],
        nextOffset: 4,
      },
    },
  ],
  async handler({ db, query, services, userId }) {
    const { limit, offset } = query;
    const known = await knownTypes(db, userId, query.types);
    requireKnownTypes(query.types, known);
    checkRange(query.start, query.end);
    const zone = services.config.timeZone;
    const types = dailyMetricTypes(query.types, known.stored);
    if (types.length === 0) return { kind: 'text', contentType: 'application/json', body: dailyMetricsTextBody([], offset) };
    const firstDay = localDayOf(query.start, zone);
    const lastDay = localDayOf(query.end - 1, zone);
    const page = { userId, types, firstDay, lastDay, limit, offset };
    const firstPage = offset === 0 ? await dailyFirstPageColumns(db, page) : null;
    if (firstPage) return { kind: 'text', contentType: 'application/json', body: dailyMetricsBody(types, firstPage, 0) };
    const text = await dailyValuesText(db, page);
    const body = text ? dailyMetricsTextBody(text, offset) : dailyMetricsBody(types, await dailyValueColumns(db, page), offset);
    return { kind: 'text', contentType: 'application/json', body };
  },
});
