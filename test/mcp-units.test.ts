// Issue 14, the parts without a server: how tools write numbers and instants,
// how inclusive local dates become half-open ranges (DST days, caps), how
// daily values group into weeks and months, and how a route's failure becomes
// a tool error — a cancelled statement (SQLSTATE 57014) the 504's message, an
// unexpected one `internal error` — through the SDK's in-memory transport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { QUERY_TIMEOUT_MESSAGE } from '../src/errors.js';
import { localTime, roundValue } from '../src/mcp/compact.js';
import { dayRange } from '../src/mcp/dates.js';
import { createMcpServer, McpCore } from '../src/mcp/server.js';
import { periodStats } from '../src/mcp/tools/metrics.js';
import { ageOn } from '../src/mcp/tools/people.js';
import { defineRoute, type Route } from '../src/routes/route.js';
import type { Services } from '../src/services.js';
import { toolError } from './support/mcp.js';
import { provokingErrors } from './support/provoked.js';

const NY = 'America/New_York';

test('values: one decimal from 10, two from 1, three significant digits below; half away from zero; no whole digit lost', () => {
  const cases: Array<[number | null, number | null]> = [
    [72.333, 72.3], [135.456, 135.5], [10234.56, 10234.6], [100.45, 100.5], [4.751, 4.75], [1.005, 1.01],
    [0.2153, 0.215], [0.97, 0.97], [0.0012345, 0.00123], [1.23456e-9, 1.23e-9], [-0.4567, -0.457], [-12.25, -12.3], [0, 0], [null, null], [1e21, 1e21],
  ];
  for (const [value, expected] of cases) assert.equal(roundValue(value), expected, String(value));
});

test('values: never further from the value than half the last digit kept', () => {
  fc.assert(
    fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), (value) => {
      const rounded = roundValue(value);
      const magnitude = Math.abs(value);
      const bound = magnitude >= 10 ? 0.05 : magnitude >= 1 ? 0.005 : 0.005 * magnitude;
      // Rounded as written: the written decimal and the answer each lie within half an ulp of their doubles.
      return Math.abs(rounded - value) <= bound + magnitude * Number.EPSILON;
    }),
    { numRuns: 5000 },
  );
});

test('instants: local time with the offset of the moment, to the second, the repeated hour told apart', () => {
  assert.equal(localTime(Date.UTC(2026, 2, 8, 6, 59, 59, 999), NY), '2026-03-08T01:59:59-05:00');
  assert.equal(localTime(Date.UTC(2026, 2, 8, 7), NY), '2026-03-08T03:00:00-04:00');
  assert.equal(localTime(Date.UTC(2026, 10, 1, 5, 30), NY), '2026-11-01T01:30:00-04:00');
  assert.equal(localTime(Date.UTC(2026, 10, 1, 6, 30), NY), '2026-11-01T01:30:00-05:00');
  assert.equal(localTime(Date.UTC(2026, 0, 1), 'UTC'), '2026-01-01T00:00:00+00:00');
  assert.equal(localTime(Date.UTC(2026, 0, 1), 'Asia/Kathmandu'), '2026-01-01T05:45:00+05:45');
});

test('dates: inclusive local days become the half-open range of those days, DST exact; caps in local days and in 24-hour spans', () => {
  assert.deepEqual(dayRange('2026-03-08', '2026-03-08', NY), { startDate: '2026-03-08', endDate: '2026-03-08', startMs: Date.UTC(2026, 2, 8, 5), endMs: Date.UTC(2026, 2, 9, 4), days: 1 });
  assert.equal(dayRange('2026-11-01', '2026-11-01', NY).endMs - dayRange('2026-11-01', '2026-11-01', NY).startMs, 25 * 3_600_000);
  assert.equal(dayRange('2025-01-01', '2025-12-31', NY, { days: 366 }).days, 365);
  assert.throws(() => dayRange('2025-01-01', '2026-01-01', NY, { days: 365 }), /covers 366 days; at most 365/);
  assert.throws(() => dayRange('2026-03-02', '2026-03-01', NY), { message: 'end_date 2026-03-01 is before start_date 2026-03-02' });
  // 31 local days holding the fall-back day are 31 days for the cap, 745 hours long (get_samples leaves the last hour out, saying so).
  const fallBack = dayRange('2026-10-15', '2026-11-14', NY, { days: 31 });
  assert.deepEqual([fallBack.days, (fallBack.endMs - fallBack.startMs) / 3_600_000], [31, 745]);
  // Pacific/Apia went from 2011-12-29 to 2011-12-31: the day between has no instant. Alone it is refused in the tool's own terms
  // (the route would refuse the empty range as "end must be after start", in epoch ms); around it, a range is the days that were.
  assert.throws(() => dayRange('2011-12-30', '2011-12-30', 'Pacific/Apia'), { message: 'start_date 2011-12-30 to end_date 2011-12-30 covers no time in Pacific/Apia: its clocks skipped that day' });
  const aroundSkip = dayRange('2011-12-29', '2011-12-31', 'Pacific/Apia');
  assert.equal((aroundSkip.endMs - aroundSkip.startMs) / 3_600_000, 48);
});

test('periods: ISO weeks from Monday and calendar months, clipped to the range; days without a value left out', () => {
  const days = [
    { date: '2026-03-01', value: 10 }, // a Sunday: the week of Monday 02-23
    { date: '2026-03-02', value: 20 },
    { date: '2026-03-04', value: null },
    { date: '2026-03-08', value: 30 },
    { date: '2026-03-09', value: 40 },
    { date: '2026-04-01', value: 5 },
  ];
  const range = { startDate: '2026-03-01', endDate: '2026-04-02' };
  assert.deepEqual(periodStats(days, true, 'week', range), [
    { from: '2026-03-01', to: '2026-03-01', days: 1, mean: 10, min: 10, max: 10, total: 10 },
    { from: '2026-03-02', to: '2026-03-08', days: 2, mean: 25, min: 20, max: 30, total: 50 },
    { from: '2026-03-09', to: '2026-03-15', days: 1, mean: 40, min: 40, max: 40, total: 40 },
    { from: '2026-03-30', to: '2026-04-02', days: 1, mean: 5, min: 5, max: 5, total: 5 },
  ]);
  assert.deepEqual(periodStats(days, false, 'month', range), [
    { from: '2026-03-01', to: '2026-03-31', days: 4, mean: 25, min: 10, max: 40 },
    { from: '2026-04-01', to: '2026-04-02', days: 1, mean: 5, min: 5, max: 5 },
  ]);
  assert.deepEqual(periodStats([], true, 'none', range), []);
});

test('age: whole years, the birthday itself counted', () => {
  assert.equal(ageOn('1990-05-17', '2026-05-16'), 35);
  assert.equal(ageOn('1990-05-17', '2026-05-17'), 36);
  assert.equal(ageOn('2000-02-29', '2026-02-28'), 25);
});

test('a cancelled statement is the 504 message as a tool error; an unexpected failure says internal error', async () => {
  const failing = (operationId: string, error: unknown): Route =>
    defineRoute({
      operationId,
      path: `/v1/${operationId}`,
      auth: true,
      summary: '',
      description: '',
      responses: [],
      example: {},
      params: Type.Object({}),
      handler: async () => {
        throw error;
      },
    });
  const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
  const services = { config: { timeZone: 'UTC', multiUser: false, defaultUserId: '00000000-0000-4000-8000-000000000001' } } as unknown as Services;
  const core = new McpCore(services, [failing('getDailyMetrics', cancelled), failing('getProfile', new Error('connection reset with secrets in it'))]);
  const server = createMcpServer(core, () => ({ boundUser: null }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'healthd-tests', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    await provokingErrors('a route failing as a timed-out and a broken query would', async () => {
      assert.equal(await toolError(client, 'get_daily_metrics', { types: ['HKQuantityTypeIdentifierStepCount'], start_date: '2026-01-01', end_date: '2026-01-02' }), QUERY_TIMEOUT_MESSAGE);
      assert.equal(await toolError(client, 'get_profile', {}), 'internal error');
    });
  } finally {
    await client.close();
  }
});
