// The samples dataset is the one that runs to millions of rows, so its lines
// are written straight from the COPY's bytes (sample-lines.ts). What the
// lines hold that is fixed per type — the type and unit cells, and a category
// type's label cell per value — is encoded here, by the same rules as every
// other cell (csvLine / jsonlLine, src/core/export-encoding.ts).
import { csvLine, jsonlLine, type Cell } from '../core/export-encoding.js';
import { typeInfo, unitOf } from '../core/registry.js';
import type { ExportFormat } from './plan.js';

/** One cell exactly as csvLine / jsonlLine encode it. */
export function encodeCell(format: ExportFormat, cell: Cell): string {
  if (format === 'csv') return csvLine([cell]).slice(0, -2);
  return jsonlLine(['v'], [cell]).slice('{"v":'.length, -'}\n'.length);
}

/** What a sample type's lines hold that is fixed, encoded. */
export interface SampleCells {
  /** Everything of a line before the uuid (type and unit cells with their separators). */
  head: string;
  /** The label cell per value text (String(value) of an integer value), category types only. */
  labels: Record<string, string> | null;
}

/** The constant cells of one sample type's lines. */
export function sampleCells(format: ExportFormat, identifier: string): SampleCells {
  const type = encodeCell(format, identifier);
  const unit = encodeCell(format, unitOf(identifier));
  const head = format === 'csv' ? `${type},${unit},` : `{"type":${type},"unit":${unit},"uuid":"`;
  const info = typeInfo(identifier);
  if (info?.kind !== 'category') return { head, labels: null };
  // categoryLabel looks a value up as a property key: String(value).
  const labels = Object.fromEntries(Object.entries(info.labels).map(([value, label]) => [String(Number(value)), encodeCell(format, label)]));
  return { head, labels };
}
