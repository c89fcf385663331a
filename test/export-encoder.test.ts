// The samples export's lines are written from PostgreSQL's binary COPY of the
// plain columns (src/db/queries/export-copy.ts, src/export/sample-lines.ts);
// these tests hold its bytes to the encoder — csvLine / jsonlLine
// (src/core/export-encoding.ts) of the parsed rows — on random and edge-case
// rows: floats across the exponent ranges, -0, nulls, instants past 15
// digits and past 2^53, source names with quotes, commas, line breaks,
// control characters and non-ASCII text, category labels, and COPY data cut
// at any byte.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { csvLine, EXPORT_COLUMNS, jsonlLine, plainNumber, type Cell } from '../src/core/export-encoding.js';
import { categoryLabel, unitOf } from '../src/core/registry.js';
import { copyOut } from '../src/db/copy-out.js';
import { allSourceNames, samplesCopySql } from '../src/db/queries/export-copy.js';
import { SampleLineWriter } from '../src/export/sample-lines.js';
import { databaseWithClient } from './support/db.js';
import { HEART, SLEEP } from './support/export-fixture.js';

const USER = '00000000-0000-4000-8000-0000000000aa';
const T0 = Date.UTC(2026, 0, 10);
const DAY = 86_400_000;

const own = databaseWithClient((db) => db.query(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (4, $2)`, [HEART, SLEEP]));

interface Row {
  uuid: string;
  start: number;
  end: string;
  value: number | null;
  source: string | null;
}

/** The export file of `identifier` over [start, end) as the export writes it, the COPY data fed to the line writer in pieces of `piece` bytes. */
async function copyFile(format: 'csv' | 'jsonl', identifier: string, typeId: number, start: number, end: number, piece = Infinity): Promise<string> {
  const lines = new SampleLineWriter(format, identifier, await allSourceNames(own.client));
  const stream = copyOut(own.client, samplesCopySql(USER, typeId, start, end));
  const out: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let at = 0; at < chunk.length; at += piece) lines.push(chunk.subarray(at, Math.min(chunk.length, at + piece)), (bytes) => out.push(Buffer.from(bytes)));
  }
  assert.equal(lines.done, true, 'the trailer arrived');
  return Buffer.concat(out).toString('utf8');
}

/** The same file from today's encoder: csvLine / jsonlLine of each row's cells, rows by start then uuid. */
function expectedFile(format: 'csv' | 'jsonl', identifier: string, rows: readonly Row[]): string {
  const sorted = [...rows].sort((a, b) => a.start - b.start || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return sorted
    .map((row) => {
      const cells: Cell[] = [identifier, unitOf(identifier), row.uuid, row.start, Number(row.end), row.value, categoryLabel(identifier, row.value), row.source];
      return format === 'csv' ? csvLine(cells) : jsonlLine(EXPORT_COLUMNS.samples, cells);
    })
    .join('');
}

async function insert(typeId: number, rows: readonly Row[]): Promise<void> {
  await own.db.query(`DELETE FROM samples`);
  await own.db.query(`DELETE FROM sources`);
  const names = [...new Set(rows.map((r) => r.source).filter((s): s is string => s !== null))];
  await own.db.query(`INSERT INTO sources (source_id, name) SELECT k, name FROM unnest($1::text[]) WITH ORDINALITY AS u (name, k)`, [names]);
  await own.db.query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, u, $2, s, e, v, (SELECT source_id FROM sources WHERE name = n)
     FROM unnest($3::uuid[], $4::bigint[], $5::bigint[], $6::float8[], $7::text[]) AS r (u, s, e, v, n)`,
    [USER, typeId, rows.map((r) => r.uuid), rows.map((r) => r.start), rows.map((r) => r.end), rows.map((r) => (r.value === null ? null : Object.is(r.value, -0) ? '-0' : String(r.value))), rows.map((r) => r.source)],
  );
}

const SPECIAL_VALUES = [0, -0, 1e-4, 9.99e-5, 1e-5, 1e-6, 1e-7, 1.5e-7, 1e14, 1e15 - 1, 1e15, 1e15 + 2, 123456789012345.6, 1234567890123456.7, 1e16, 1e20, 1e21, 1.5e21, 1e22,
  5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 0.1 + 0.2, -1.5e-10, 2 ** 53 + 2, -(2 ** 63), 99999999999999.98, 0.00010000000000000002];

describe('the samples COPY writes what csvLine / jsonlLine write for the parsed rows', () => {
  test('NaN and ±Infinity are no value: written as a null is, with no label, in both formats', async () => {
    const rows: Row[] = ['NaN', 'Infinity', '-Infinity'].map((value, i) => ({ uuid: `00000000-0000-4000-8000-00000000000${i + 3}`, start: T0 + i, end: String(T0 + i), value: Number(value), source: null }));
    for (const [identifier, typeId] of [[HEART, 1], [SLEEP, 4]] as const) {
      await insert(typeId, rows);
      const nulls: Row[] = rows.map((row) => ({ ...row, value: null }));
      const csv = await copyFile('csv', identifier, typeId, T0, T0 + DAY);
      assert.equal(csv, expectedFile('csv', identifier, nulls), `csv ${identifier}`);
      assert.equal(csv.split('\r\n').filter((line) => line.endsWith(',,,')).length, 3, 'value, label and source cells empty');
      const jsonl = await copyFile('jsonl', identifier, typeId, T0, T0 + DAY);
      assert.equal(jsonl, expectedFile('jsonl', identifier, nulls), `jsonl ${identifier}`);
      for (const line of jsonl.trimEnd().split('\n')) assert.deepEqual([JSON.parse(line).value, JSON.parse(line).label], [null, null]);
      // The encoder of the other datasets writes them the same way; plainNumber itself refuses them.
      for (const row of rows) assert.equal(csvLine([row.value]), '\r\n');
      assert.throws(() => plainNumber(rows[0].value!), RangeError);
    }
  });

  test('whole files: random rows in both formats, a quantity and a category type, across windows, decoded from any cut', async () => {
    const sourceNames = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', ',', '\r\n', '\n', '\r', '=1+1', 'a"b,c', 'Zürich ⌚', 'tab\there', '\u0001\u001f\u007f', '\\', 'é\u2028x', '😀'));
    const random = fc.sample(
      fc.record({
        uuid: fc.uuid(),
        start: fc.oneof(fc.integer({ min: T0, max: T0 + 3 * DAY - 1 }), fc.constantFrom(T0, T0 + 1, T0 + 3 * DAY - 1)),
        end: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: 0n, max: 253402300799999n })).map(String),
        value: fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(...SPECIAL_VALUES), fc.integer({ min: -1, max: 9 }), fc.constant(3.5), fc.integer({ min: -100_000, max: 100_000 }).map((k) => k / 10)), { freq: 5 }),
        source: fc.option(sourceNames.filter((s) => !s.includes('\u0000') && Buffer.from(s, 'utf8').toString('utf8') === s), { freq: 4 }),
      }),
      1_500,
    );
    // Outside the range: before its start, at its end.
    const outside: Row[] = [
      { uuid: '00000000-0000-4000-8000-000000000001', start: T0 - 1, end: '0', value: 1, source: 'x' },
      { uuid: '00000000-0000-4000-8000-000000000002', start: T0 + 3 * DAY, end: '0', value: 1, source: 'x' },
    ];
    const rows: Row[] = random.map((r) => ({ ...r, uuid: r.uuid.toLowerCase() }));
    for (const [identifier, typeId] of [[HEART, 1], [SLEEP, 4]] as const) {
      await insert(typeId, [...rows, ...outside]);
      for (const format of ['csv', 'jsonl'] as const) {
        const expected = expectedFile(format, identifier, rows);
        assert.equal(await copyFile(format, identifier, typeId, T0, T0 + 3 * DAY), expected, `${format} ${identifier}`);
        for (const piece of [1, 5, 7, 4096]) assert.equal(await copyFile(format, identifier, typeId, T0, T0 + 3 * DAY, piece), expected, `${format} ${identifier} in pieces of ${piece}`);
      }
    }
  });

  test('an empty range is an empty file', async () => {
    for (const format of ['csv', 'jsonl'] as const) assert.equal(await copyFile(format, HEART, 1, T0 + 10 * DAY, T0 + 11 * DAY), '');
  });

  test('the COPY SQL takes uuids and integers only', () => {
    assert.throws(() => samplesCopySql("x'; DROP TABLE samples; --", 1, 0, 1));
    assert.throws(() => samplesCopySql(USER, 1.5, 0, 1));
    assert.throws(() => samplesCopySql(USER, 1, 0, Number.NaN));
  });
});
