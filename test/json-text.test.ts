// The JSON text pieces the routes build their bodies from write exactly what
// JSON.stringify writes (the routes' bodies are compared whole with it in
// json-bodies.test.ts; this covers every number the pieces may meet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonNumber, jsonStringOrNull } from '../src/core/json-text.js';

test('jsonNumber writes every number as JSON.stringify does: integers around the epoch-ms path\'s bounds, any double, null, NaN and ±Infinity', () => {
  const same = (n: number) => assert.equal(jsonNumber(n), JSON.stringify(n), String(n));
  // The epoch-ms path: every count of trailing digits, its bounds and just outside them.
  for (const n of [1e9, 1e9 - 1, 1e9 + 1, 1e15, 1e15 - 1, 1e15 + 1, 999_999_999, 1_000_000_000_001, 1_795_561_200_000, 1_795_561_000_009, 1_795_561_000_090, 1_795_561_100_000, 2 ** 53, -1_795_561_200_000])
    same(n);
  fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), same), { numRuns: 50_000 });
  fc.assert(fc.property(fc.integer({ min: 1e9, max: 1e15 }), same), { numRuns: 50_000 });
  fc.assert(fc.property(fc.double(), same), { numRuns: 50_000 });
  fc.assert(fc.property(fc.double({ min: 1e9, max: 1e15 }), same), { numRuns: 20_000 });
  for (const n of [NaN, Infinity, -Infinity, -0, 0, 0.1, 1e21, 5e-324]) same(n);
  assert.equal(jsonNumber(null), 'null');
});

test('jsonStringOrNull writes a string as JSON.stringify does, null as null', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => assert.equal(jsonStringOrNull(s), JSON.stringify(s))), { numRuns: 10_000 });
  assert.equal(jsonStringOrNull(null), 'null');
});
