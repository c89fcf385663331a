// Export row encoding: RFC 4180 quoting, nulls, lists, exponent-free numbers, JSONL key order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { csvLine, EXPORT_COLUMNS, jsonlLine, plainNumber } from '../src/core/export-encoding.js';

/** A small RFC 4180 reader for one CRLF-terminated record: cells, or null for an unquoted empty cell. */
function parseCsvRecord(line: string): (string | null)[] {
  assert.ok(line.endsWith('\r\n'), 'a record ends with CRLF');
  const text = line.slice(0, -2);
  const cells: (string | null)[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let cell = '';
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        assert.ok(close >= 0, 'a quoted cell is closed');
        cell += text.slice(i, close);
        if (text[close + 1] === '"') {
          cell += '"';
          i = close + 2;
        } else {
          i = close + 1;
          break;
        }
      }
      cells.push(cell);
    } else {
      const comma = text.indexOf(',', i);
      const end = comma < 0 ? text.length : comma;
      const cell = text.slice(i, end);
      assert.ok(!/["\r\n]/.test(cell), 'an unquoted cell holds no quote, CR or LF');
      cells.push(cell === '' ? null : cell);
      i = end;
    }
    if (i === text.length) return cells;
    assert.equal(text[i], ',', 'cells are separated by commas');
    i++;
  }
}

test('plainNumber writes no exponent', () => {
  assert.equal(plainNumber(1e21), '1000000000000000000000');
  assert.equal(plainNumber(1e-7), '0.0000001');
  assert.equal(plainNumber(1.5e-7), '0.00000015');
  assert.equal(plainNumber(-2.5e22), '-25000000000000000000000');
  assert.equal(plainNumber(1.2345678901234568e25), '12345678901234568000000000');
  assert.equal(plainNumber(123.456), '123.456');
  assert.equal(plainNumber(1e20), '100000000000000000000');
  assert.equal(plainNumber(0.000001), '0.000001');
  assert.equal(plainNumber(-0), '0');
  assert.equal(plainNumber(0), '0');
  assert.equal(plainNumber(42), '42');
  assert.equal(plainNumber(-0.5), '-0.5');
  assert.equal(plainNumber(1767225600000), '1767225600000');
  assert.equal(plainNumber(5e-324), `0.${'0'.repeat(323)}5`);
  assert.equal(plainNumber(Number.MAX_VALUE), `17976931348623157${'0'.repeat(292)}`);
  assert.throws(() => plainNumber(NaN), RangeError);
  assert.throws(() => plainNumber(Infinity), RangeError);
  assert.throws(() => plainNumber(-Infinity), RangeError);
});

test('plainNumber round-trips every finite double', () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      const text = plainNumber(n);
      assert.ok(/^-?\d+(\.\d+)?$/.test(text), text);
      assert.equal(Number(text), n === 0 ? 0 : n);
    }),
    { numRuns: 2000 },
  );
});

test('CSV quoting follows RFC 4180', () => {
  assert.equal(csvLine(['plain']), 'plain\r\n');
  assert.equal(csvLine(['say "hi"']), '"say ""hi"""\r\n');
  assert.equal(csvLine(['a,b']), '"a,b"\r\n');
  assert.equal(csvLine(['line\nbreak']), '"line\nbreak"\r\n');
  assert.equal(csvLine(['carriage\rreturn']), '"carriage\rreturn"\r\n');
  assert.equal(csvLine(['=SUM(A1)', ' padded ']), '=SUM(A1), padded \r\n');
  assert.equal(csvLine(['']), '""\r\n');
});

test('CSV nulls, numbers, booleans and lists', () => {
  assert.equal(csvLine(['x', 1, null, true, false, 1e21, -0]), 'x,1,,true,false,1000000000000000000000,0\r\n');
  assert.equal(csvLine([null, null]), ',\r\n');
  assert.equal(
    csvLine([['HKQuantityTypeIdentifierHeartRate', 'HKQuantityTypeIdentifierDistanceWalkingRunning']]),
    '"HKQuantityTypeIdentifierHeartRate,HKQuantityTypeIdentifierDistanceWalkingRunning"\r\n',
  );
  assert.equal(csvLine([['work']]), '"work"\r\n');
  assert.equal(csvLine([[]]), '""\r\n');
  // A comma inside an element is joined like any other; the cell stays one cell.
  assert.equal(csvLine([['a,b', 'c'], 'next']), '"a,b,c",next\r\n');
  assert.equal(csvLine([['say "hi"', 'x']]), '"say ""hi"",x"\r\n');
});

test('a CSV record parses back to its cells', () => {
  const line = csvLine([
    'uuid-1',
    'Jane\'s "Watch", v2\r\nline two',
    null,
    0.0000001,
    true,
    ['family', 'work, mostly'],
    '',
    [],
  ]);
  assert.deepEqual(parseCsvRecord(line), [
    'uuid-1',
    'Jane\'s "Watch", v2\r\nline two',
    null,
    '0.0000001',
    'true',
    'family,work, mostly',
    '',
    '',
  ]);
});

test('a CSV header row is the column list', () => {
  assert.equal(csvLine(EXPORT_COLUMNS.daily_metrics), 'identifier,unit,date,value\r\n');
});

test('JSONL keeps the column order, explicit nulls, arrays and plain numbers', () => {
  const line = jsonlLine(EXPORT_COLUMNS.workouts, [
    'b3c1a5e2-0000-4000-8000-000000000001',
    'running',
    1767225600000,
    1767229200000,
    3600,
    null,
    1e21,
    true,
    ['HKQuantityTypeIdentifierHeartRate', 'a,b'],
  ]);
  assert.equal(
    line,
    '{"uuid":"b3c1a5e2-0000-4000-8000-000000000001","activityType":"running","start":1767225600000,' +
      '"end":1767229200000,"durationS":3600,"distanceM":null,"energyKcal":1000000000000000000000,' +
      '"hasRoute":true,"availableMetrics":["HKQuantityTypeIdentifierHeartRate","a,b"]}\n',
  );
  const parsed = JSON.parse(line) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), [...EXPORT_COLUMNS.workouts]);
  assert.equal(parsed.distanceM, null);
});

test('JSONL escapes strings and writes small numbers without an exponent', () => {
  assert.equal(
    jsonlLine(['stages.core', 'label', 'value', 'labels'], [1e-7, 'quote " and\nnewline', -0, []]),
    '{"stages.core":0.0000001,"label":"quote \\" and\\nnewline","value":0,"labels":[]}\n',
  );
  assert.throws(() => jsonlLine(['a', 'b'], [1]), RangeError);
  // No value (src/core/values.ts): null, as JSON.stringify writes them.
  assert.equal(jsonlLine(['a', 'b', 'c'], [NaN, Infinity, -Infinity]), '{"a":null,"b":null,"c":null}\n');
  assert.equal(csvLine([NaN, 1, Infinity, -Infinity]), ',1,,\r\n');
});

test('the export column lists are the ones open-details.md fixes', () => {
  assert.deepEqual(EXPORT_COLUMNS, {
    daily_metrics: ['identifier', 'unit', 'date', 'value'],
    samples: ['type', 'unit', 'uuid', 'start', 'end', 'value', 'label', 'source'],
    workouts: [
      'uuid',
      'activityType',
      'start',
      'end',
      'durationS',
      'distanceM',
      'energyKcal',
      'hasRoute',
      'availableMetrics',
    ],
    // Not in open-details.md (an additive dataset): one row per GPS point.
    routes: ['uuid', 'activityType', 'time', 'latitude', 'longitude', 'altitude'],
    sleep: [
      'date',
      'start',
      'end',
      'inBedMinutes',
      'asleepMinutes',
      'stages.core',
      'stages.deep',
      'stages.rem',
      'stages.unspecified',
      'stages.awake',
      'sources',
    ],
    activity: [
      'date',
      'moveKcal',
      'moveGoalKcal',
      'exerciseMin',
      'exerciseGoalMin',
      'standHours',
      'standGoalHours',
      'moveMode',
      'moveTimeMin',
      'moveTimeGoalMin',
    ],
    state_of_mind: ['uuid', 'date', 'timestamp', 'kind', 'valence', 'valenceClassification', 'labels', 'associations'],
  });
  assert.ok(Object.isFrozen(EXPORT_COLUMNS) && Object.isFrozen(EXPORT_COLUMNS.sleep));
});
