// Issue 13, our line schemas against the protocol's: the protocol's own JSON
// Schemas (../shared/protocol/schema/, draft 2020-12, run with ajv) and ours
// (src/ingest/lines.ts, TypeBox) both accept every line of the fixture corpus,
// and both refuse each hand-made bad line below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ApiError } from '../src/errors.js';
import { checkPayload } from '../src/ingest/batch.js';
import { lineKind, parseHeader } from '../src/ingest/framing.js';
import { fixtures, PROTOCOL_DIR } from './support/ingest.js';

const ajv = new Ajv2020({ strict: false, allErrors: false });
const schemaDir = join(PROTOCOL_DIR, 'schema');
for (const file of readdirSync(schemaDir).filter((f) => f.endsWith('.json'))) ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, file), 'utf8')));
const BASE = 'https://raw.githubusercontent.com/PulsHealth/pulshealth/main/docs/protocol/schema/';
const protocolHeader = ajv.getSchema(BASE + 'header.schema.json')!;
const protocolLine = ajv.getSchema(BASE + 'batch-line.schema.json')!;

/** Whether our checks accept the line (the header through its own parser). */
function oursAccept(value: unknown, header: boolean): boolean {
  try {
    if (header) parseHeader(value, 1, null);
    else checkPayload(lineKind(value, 2), value, 2);
    return true;
  } catch (error) {
    // 400 for a malformed line, 413 for one past a limit (a line's points).
    if (error instanceof ApiError && (error.status === 400 || error.status === 413)) return false;
    throw error;
  }
}

const corpus = fixtures().map((f) => ({ name: f.name, lines: f.ndjson.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) }));
const lineOf = (fixture: string, index: number) => structuredClone(corpus.find((f) => f.name.startsWith(fixture))!.lines[index]);

test('both accept every line of the corpus', () => {
  assert.equal(corpus.length, 8);
  for (const { name, lines } of corpus) {
    lines.forEach((line, i) => {
      const protocol = i === 0 ? protocolHeader : protocolLine;
      assert.ok(protocol(line), `${name} line ${i + 1}: protocol schema refuses: ${JSON.stringify(protocol.errors)}`);
      assert.ok(oursAccept(line, i === 0), `${name} line ${i + 1}: our schemas refuse`);
    });
  }
});

test('both refuse the bad lines', () => {
  const bad: Array<[what: string, line: Record<string, any>, header?: boolean]> = [];
  const mutate = (what: string, fixture: string, index: number, change: (line: Record<string, any>) => void, header = false) => {
    const line = lineOf(fixture, index);
    change(line);
    bad.push([what, line, header]);
  };
  mutate('header without batchID', '01', 0, (l) => delete l.batchID, true);
  mutate('header with a malformed batchID', '01', 0, (l) => (l.batchID = 'A1000000'), true);
  mutate('header with a negative count', '01', 0, (l) => (l.sampleCount = -1), true);
  mutate('header with profileCount 2', '03', 0, (l) => (l.profileCount = 2), true);
  mutate('header with schemaVersion 2', '01', 0, (l) => (l.schemaVersion = 2), true);
  mutate('sample without uuid', '01', 1, (l) => delete l.uuid);
  mutate('sample of kind activitySummary', '01', 1, (l) => (l.kind = 'activitySummary'));
  mutate('sample with start 0', '01', 1, (l) => (l.start = 0));
  mutate('sample starting after 9999', '01', 1, (l) => (l.start = 253402300800000));
  mutate('category sample without category', '01', 3, (l) => delete l.category);
  mutate('category beyond 16 bits', '01', 3, (l) => (l.category = 40000));
  mutate('metadata with an object value', '01', 1, (l) => (l.metadata = { a: { b: 1 } }));
  mutate('workout without duration', '02', 1, (l) => delete l.workout.duration);
  mutate('workout with a null detail', '02', 1, (l) => (l.workout = null));
  mutate('heartbeat triple', '07', 1, (l) => (l.heartbeats = [[0.5, false, 1]]));
  mutate('ECG without voltages', '07', 2, (l) => delete l.ecg.voltagesUV);
  mutate('state of mind valence 2', '07', 3, (l) => (l.stateOfMind.valence = 2));
  mutate('medication dose without status', '07', 4, (l) => delete l.medicationDose.status);
  mutate('route point without lat', '02', 2, (l) => delete l.route.points[0].lat);
  mutate('series of 4,001 points', '02', 3, (l) => (l.series.points = Array.from({ length: 4001 }, (_, i) => ({ t: 1 + i, value: 1 }))));
  mutate('series point without value', '02', 3, (l) => delete l.series.points[0].value);
  mutate('aggregate func median', '03', 1, (l) => (l.aggregate.func = 'median'));
  mutate('aggregate interval 0', '03', 1, (l) => (l.aggregate.intervalValue = 0));
  mutate('aggregate without bucketEnd', '03', 1, (l) => delete l.aggregate.bucketEnd);
  mutate('aggregate with a bad context', '03', 1, (l) => delete l.aggregate.bucketStartContext.source);
  mutate('summary moveMode 2', '03', 3, (l) => (l.activitySummary.moveMode = 2));
  mutate('summary with a bad localDate', '03', 3, (l) => (l.activitySummary.localDate = '10.06.2024'));
  mutate('profile with biologicalSex unknown', '03', 5, (l) => (l.profile.biologicalSex = 'unknown'));
  mutate('profile null', '03', 5, (l) => (l.profile = null));
  mutate('deletion without type', '05', 1, (l) => delete l.deleted.type);
  mutate('unknown wrapper', '05', 1, (l) => ((l.tombstone = l.deleted), delete l.deleted));
  for (const [what, line, header] of bad) {
    assert.equal((header ? protocolHeader : protocolLine)(line), false, `${what}: the protocol schema accepts it`);
    assert.equal(oursAccept(line, header === true), false, `${what}: our schemas accept it`);
  }
});

test('FACTS.md §6 beyond the schemas: a wrapped line has exactly one key', () => {
  const line = { ...lineOf('05', 1), extra: 1 };
  assert.equal(protocolLine(line), true, 'the protocol schema lets extra top-level keys through');
  assert.equal(oursAccept(line, false), false);
});
