// The /v1/samples body as text, straight from the page's columns
// (src/db/queries/samples.ts): the bytes JSON.stringify writes for the
// SamplesPage object — keys in its order, numbers in its form, labels and
// source names as its strings — without a sample object in between. A page
// runs past 128 KB, so it comes in parts (BodyParts in route.ts).
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { categoryLabel, kindOfIdentifier, unitOf } from '../core/registry.js';
import { uuidAt } from '../core/uuid-text.js';
import type { SampleColumns } from '../db/queries/samples.js';
import type { BodyParts } from './route.js';

/** A part of the body ends after the sample that takes it to this many UTF-16 units (BodyParts). */
const PART_LENGTH = 32 * 1024;

export function samplesPageBody(type: string, columns: SampleColumns, offset: number): BodyParts {
  const parts: string[] = [];
  const { uuids, starts, ends, values, sourceIds, sources } = columns;
  const kind = kindOfIdentifier(type);
  const count = starts.length;
  const labelled = kind === 'category';
  // Runs of one source are the rule: its name is encoded once per run.
  let lastSource = NaN;
  let lastSourceJson = 'null';
  let body = `{"type":${JSON.stringify(type)},${kind === undefined ? '' : `"kind":${JSON.stringify(kind)},`}"unit":${jsonStringOrNull(unitOf(type))},"samples":[`;
  for (let i = 0; i < count; i++) {
    const value = values[i];
    const source = sourceIds[i];
    if (source !== lastSource) {
      lastSource = source;
      lastSourceJson = source === source ? jsonStringOrNull(sources.get(source) ?? null) : 'null';
    }
    if (body.length >= PART_LENGTH) {
      parts.push(body);
      body = '';
    }
    const label = labelled && value === value ? jsonStringOrNull(categoryLabel(type, value)) : 'null';
    body +=
      (i === 0 ? '{"uuid":"' : ',{"uuid":"') +
      uuidAt(uuids, i) +
      '","start":' + jsonNumber(starts[i]) +
      ',"end":' + jsonNumber(ends[i]) +
      ',"value":' + jsonNumber(value) +
      ',"label":' + label +
      ',"source":' + lastSourceJson +
      '}';
  }
  parts.push(`${body}],"nextOffset":${offset + count}}`);
  return parts;
}
