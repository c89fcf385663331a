// /v1/export refuses every bad request with a 400 naming the problem before
// any byte of a file: no attachment head, a JSON error body.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY, HEART, Q, STEPS, at, exportFixture } from './support/export-fixture.js';

const fixture = exportFixture();
const { fetchRaw } = fixture;

describe('refusals come before any byte of the file', () => {
  const range = `start=${at('2026-01-10T00:00Z')}&end=${at('2026-01-11T00:00Z')}`;
  const cases: [string, string][] = [
    ['', 'format is required'],
    [`format=xml&dataset=samples&type=${HEART}&${range}`, 'format must be one of csv, jsonl'],
    [`format=csv&${range}`, 'dataset is required'],
    [`format=csv&dataset=steps&${range}`, 'dataset must be one of daily_metrics, samples, workouts, routes, sleep, activity, state_of_mind'],
    [`format=csv&dataset=workouts&end=${at('2026-01-11T00:00Z')}`, 'start is required'],
    [`format=csv&dataset=daily_metrics&${range}`, 'types is required for dataset daily_metrics'],
    [`format=csv&dataset=samples&${range}`, 'type is required for dataset samples'],
    [`format=csv&dataset=samples&type=${Q}Foo&${range}`, `unknown type: ${Q}Foo (the types stored for a user are listed at /v1/catalog/types)`],
    [`format=jsonl&dataset=daily_metrics&types=${STEPS},${Q}Bar&${range}`, `unknown type: ${Q}Bar (the types stored for a user are listed at /v1/catalog/types)`],
    [`format=csv&dataset=samples&type=HKWorkoutTypeIdentifier&${range}`, 'type must be a sample type; HKWorkoutTypeIdentifier has its own route'],
    [`format=csv&dataset=samples&type=${HEART}&start=0&end=${31 * DAY + 1}`, 'range must not exceed 31 days (start and end are epoch milliseconds)'],
    [`format=csv&dataset=workouts&start=0&end=${366 * DAY + 1}`, 'range must not exceed 366 days (start and end are epoch milliseconds)'],
    // 366 × 24 h from 23:00 local on 2025-01-01 reaches 23:00 local on 2026-01-02: 367 local days.
    [`format=csv&dataset=sleep&start=${at('2025-01-02T04:00Z')}&end=${at('2025-01-02T04:00Z') + 366 * DAY}`, 'range must not touch more than 366 local days (start and end are epoch milliseconds)'],
    [`format=csv&dataset=activity&start=${at('2026-01-11T00:00Z')}&end=${at('2026-01-11T00:00Z')}`, 'end must be after start (start and end are epoch milliseconds)'],
  ];
  for (const [query, message] of cases) {
    test(`${message} (${query || 'no parameters'})`, async () => {
      const response = await fetchRaw(query);
      assert.equal(response.status, 400);
      assert.equal(response.headers['content-type'], 'application/json');
      assert.equal(response.headers['content-disposition'], undefined);
      assert.deepEqual(JSON.parse(response.body.toString()), { error: message });
    });
  }
});
