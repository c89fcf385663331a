// The samples export encodes rows from PostgreSQL's own text of each column
// (src/export/sample-encoding.ts); these tests hold it to csvLine / jsonlLine
// of the parsed row, byte for byte, on PostgreSQL's real output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import pg from 'pg';
import { csvLine, jsonlLine, plainNumber, type Cell } from '../src/core/export-encoding.js';
import { floatText, integerText, sampleTextEncoder } from '../src/export/sample-encoding.js';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './support/db.js';
import { HEART, SLEEP, uuid } from './support/export-fixture.js';

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
});

after(async () => {
  await db?.drop();
  await stopOwnCluster();
});

describe('samples encoding from PostgreSQL text equals csvLine / jsonlLine of the parsed row', () => {
  test('float8 and int8 text from PostgreSQL', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`SET extra_float_digits = 1`);
      const special = [0, -0, 1e-4, 9.99e-5, 1e-5, 1e-7, 1e14, 1e15 - 1, 1e15, 123456789012345.6, 1e16, 1e21, 1e22, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, -1.5e-10, 2 ** 53 + 2];
      const randoms = fc.sample(fc.double({ noNaN: true, noDefaultInfinity: true }), 20_000);
      const scaled = fc.sample(fc.tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -12, max: 24 })), 20_000).map(([m, e]) => m * 10 ** e);
      const values = [...special, ...randoms, ...scaled];
      const { rows } = await client.query<{ t: string }>({ text: 'SELECT v::text AS t FROM unnest($1::float8[]) AS v', values: [values.map(String)] });
      rows.forEach(({ t }, i) => assert.equal(floatText(t), plainNumber(values[i]), `${values[i]} (PostgreSQL: ${t})`));
      assert.equal(floatText('-0'), plainNumber(-0));
      for (const text of ['NaN', 'Infinity', '-Infinity']) assert.throws(() => floatText(text), RangeError);
      const integers = ['0', '-1', '253402300799999', '999999999999999', '9007199254740993', '-9223372036854775808'];
      for (const text of integers) assert.equal(integerText(text), plainNumber(Number(text)));
    } finally {
      await client.end();
    }
  });

  test('whole rows: random uuids, instants, values and source names, both formats', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const labelled = [0, 1, 2, 3, 4, 5, 9, 3.5].map((value) => ({ uuid: uuid(1), start: 1, end: 2, value, source: 'x' as string | null }));
      const random = fc.sample(
        fc.record({
          uuid: fc.uuid(),
          start: fc.integer({ min: 0, max: 253402300799999 }),
          end: fc.integer({ min: 0, max: 253402300799999 }),
          value: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
          source: fc.option(fc.oneof(fc.string(), fc.constantFrom('', '"', ',', '\r\n', '=1+1', 'a"b,c', 'Zürich ⌚'))),
        }),
        2_000,
      );
      const rows = [...labelled, ...random];
      const { rows: texts } = await client.query<{ v: string | null }>({ text: 'SELECT v::text AS v FROM unnest($1::float8[]) AS v', values: [rows.map((r) => r.value)] });
      const sleepLabels: Record<number, string> = { 0: 'inBed', 1: 'asleepUnspecified', 2: 'awake', 3: 'asleepCore', 4: 'asleepDeep', 5: 'asleepREM' };
      const columns = ['type', 'unit', 'uuid', 'start', 'end', 'value', 'label', 'source'];
      for (const [format, identifier, unit] of [['csv', HEART, 'count/min'], ['jsonl', HEART, 'count/min'], ['csv', SLEEP, null], ['jsonl', SLEEP, null]] as const) {
        const encoder = sampleTextEncoder(format, identifier);
        rows.forEach((row, i) => {
          const label = identifier === SLEEP && row.value !== null ? sleepLabels[row.value] ?? null : null;
          const cells: Cell[] = [identifier, unit, row.uuid.toLowerCase(), row.start, row.end, row.value, label, row.source];
          const expected = format === 'csv' ? csvLine(cells) : jsonlLine(columns, cells);
          assert.equal(encoder.row([row.uuid.toLowerCase(), String(row.start), String(row.end), texts[i].v, row.source]), expected);
        });
      }
    } finally {
      await client.end();
    }
  });
});
