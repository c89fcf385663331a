// The /v1/samples body as text, straight from the page's columns
// (src/db/queries/samples.ts): the bytes JSON.stringify writes for the
// SamplesPage object — keys in its order, numbers in its form, labels and
// source names as its strings — without a sample object in between.
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { categoryLabel, kindOfIdentifier, unitOf } from '../core/registry.js';
import { uuidAt } from '../core/uuid-text.js';
import type { SampleColumns } from '../db/queries/samples.js';

export function samplesPageBody(type: string, columns: SampleColumns, offset: number): string {
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
  return `${body}],"nextOffset":${offset + count}}`;
}
