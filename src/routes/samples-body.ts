// The /v1/samples body as text: the bytes JSON.stringify writes for the
// SamplesPage object — keys in its order, numbers in its form, labels and
// source names as its strings — without a sample object in between: around
// PostgreSQL's JSON text of the samples, or from the page's columns
// (src/db/queries/samples.ts).
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { categoryLabel, kindOfIdentifier, typeInfo, unitOf } from '../core/registry.js';
import type { SampleColumns, SampleText } from '../db/queries/samples.js';

const UUID_CHARS = 36;

/** Everything of the body before the samples' elements. */
function head(type: string): string {
  const kind = kindOfIdentifier(type);
  return `{"type":${JSON.stringify(type)},${kind === undefined ? '' : `"kind":${JSON.stringify(kind)},`}"unit":${jsonStringOrNull(unitOf(type))},"samples":[`;
}

const labelsByType = new Map<string, Readonly<Record<string, string>>>();

/** A type's category labels as JSON text, keyed by String(value) as categoryLabel looks them up ({} for other kinds). */
export function labelsJson(type: string): Readonly<Record<string, string>> {
  let labels = labelsByType.get(type);
  if (!labels) {
    const info = typeInfo(type);
    labels = info?.kind === 'category' ? Object.fromEntries(Object.entries(info.labels).map(([value, label]) => [String(Number(value)), JSON.stringify(label)])) : {};
    labelsByType.set(type, labels);
  }
  return labels;
}

export function samplesPageTextBody(type: string, page: SampleText, offset: number): string {
  return `${head(type)}${page.samples}],"nextOffset":${offset + page.count}}`;
}

export function samplesPageBody(type: string, columns: SampleColumns, offset: number): string {
  const { uuids, starts, ends, values, sourceIds, sources } = columns;
  const count = starts.length;
  const labelled = kindOfIdentifier(type) === 'category';
  // Runs of one source are the rule: its name is encoded once per run.
  let lastSource = NaN;
  let lastSourceJson = 'null';
  let body = head(type);
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
      uuids.slice(i * UUID_CHARS, (i + 1) * UUID_CHARS) +
      '","start":' + jsonNumber(starts[i]) +
      ',"end":' + jsonNumber(ends[i]) +
      ',"value":' + jsonNumber(value) +
      ',"label":' + label +
      ',"source":' + lastSourceJson +
      '}';
  }
  return `${body}],"nextOffset":${offset + count}}`;
}
