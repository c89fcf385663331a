// One page of raw samples of one type, as synced (never deduplicated): an
// ordered range scan of samples (user_id, type_id, start_ms, uuid) that stops
// after offset + limit rows. The type id comes first (cached, src/db/names.ts)
// so the planner sees the real id and its row estimate (a deep offset into a
// dense type then still walks the index instead of sorting the whole range).
//
// The page comes back as PostgreSQL's binary COPY of the plain columns
// (src/db/queries/export-copy.ts), read whole (src/db/copy-out.ts), checked
// here field by field and kept as it came: the body is written from these
// bytes when it is sent (src/routes/samples-body.ts), with no row, column or
// string between. Not rows: parsing a row per sample (five text fields, a
// parser each) cost as much as everything else the route does. Not one row
// of aggregates (array_agg, array_send, base64), as it was until 2026-11-24:
// that cost PostgreSQL 1.3–1.9 ms a page of 1000 against 0.7–0.9 for the COPY
// (bench/RESULTS.md). Not columns decoded from the COPY, as until 2026-11-25:
// the columns, a string of the page, and its UTF-8 made for uWS cost a third
// of the server's time a page (bench/RESULTS.md). Source names come from the
// cache of names.
import { withClient, type Db } from '../pool.js';
import { copyOutWhole, recycleCopyData } from '../copy-out.js';
import { checkCopyHeader, COPY_HEADER_BYTES } from '../binary-copy.js';
import { BINARY_COPY_HEADER } from '../writes/sample-copy.js';
import { sampleTypeId, sourceNames } from '../names.js';
import { SAMPLE_SELECT_FIELDS as FIELDS, samplesCopySql } from './export-copy.js';

/** One page, checked: what samplesPageBody writes from. */
export interface SamplesPageData {
  /** The rows as a binary COPY of (uuid, start_ms, end_ms, value, source_id), header and trailer included. */
  data: Buffer;
  /** Rows on the page. */
  count: number;
  /** The source ids the rows name, each run of one id once (rows without a source do not end a run). */
  sourceIds: readonly number[];
  /** Rows of each run: sourceRows[k] rows name sourceIds[k]; the rest have no source. */
  sourceRows: readonly number[];
  /** Names of those ids (and maybe more). */
  sources: ReadonlyMap<number, string>;
  /** Hands `data` back for a later page to fill, once nothing reads it any more. */
  release(): void;
}

/** Bytes of a COPY row of these columns at most: field count, then per field its length and data. */
const ROW_BYTES = 2 + (4 + 16) + (4 + 8) * 3 + (4 + 4);
/** uuid, start and end with their lengths. */
const FIXED_FIELD_BYTES = (4 + 16) + (4 + 8) * 2;
/** The header and the trailer. */
const FRAME_BYTES = COPY_HEADER_BYTES + 2;
const EMPTY_COPY = Buffer.concat([BINARY_COPY_HEADER, Buffer.from([0xff, 0xff])]);

/**
 * Checks the page's COPY data field by field — the header, five fields a
 * row of the lengths these columns have, the trailer at the very end — so
 * that the body can be written from it without a check; answers its rows
 * and the source ids they name (each run of one id once, with its rows).
 */
function checkPage(data: Buffer): { count: number; sourceIds: number[]; sourceRows: number[] } {
  if (data.length < FRAME_BYTES) throw new Error('binary COPY data cut short');
  checkCopyHeader(data, 0);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const sourceIds: number[] = [];
  const sourceRows: number[] = [];
  let lastSource = NaN;
  let at = COPY_HEADER_BYTES;
  let count = 0;
  for (;;) {
    const fields = view.getInt16(at);
    at += 2;
    if (fields === -1) break;
    if (fields !== FIELDS) throw new Error(`expected ${FIELDS} columns per COPY row, got ${fields}`);
    // The fixed fields and the next two lengths; past them the view's reads throw by themselves.
    if (at + FIXED_FIELD_BYTES + 8 > data.length) throw new Error('binary COPY data cut short');
    if (view.getInt32(at) !== 16 || view.getInt32(at + 20) !== 8 || view.getInt32(at + 32) !== 8) throw new Error('unexpected binary COPY field');
    at += FIXED_FIELD_BYTES;
    const valueBytes = view.getInt32(at);
    if (valueBytes !== -1 && valueBytes !== 8) throw new Error('unexpected binary COPY field');
    at += valueBytes === -1 ? 4 : 12;
    const sourceBytes = view.getInt32(at);
    if (sourceBytes !== -1 && sourceBytes !== 4) throw new Error('unexpected binary COPY field');
    if (sourceBytes === 4) {
      const source = view.getInt32(at + 4);
      if (source !== lastSource) {
        sourceIds.push((lastSource = source));
        sourceRows.push(0);
      }
      sourceRows[sourceRows.length - 1]++;
    }
    at += sourceBytes === -1 ? 4 : 8;
    count++;
  }
  if (at !== data.length) throw new Error('binary COPY data after its trailer');
  return { count, sourceIds, sourceRows };
}

export async function samplesPage(
  db: Db,
  userId: string,
  identifier: string,
  start: number,
  end: number,
  limit: number,
  offset: number,
): Promise<SamplesPageData> {
  const typeId = await sampleTypeId(db, identifier);
  if (typeId === null) return { data: EMPTY_COPY, count: 0, sourceIds: [], sourceRows: [], sources: new Map(), release() {} };
  const sql = samplesCopySql(userId, typeId, start, end, { limit, offset });
  const data = await withClient(db, (client) => copyOutWhole(client, sql, FRAME_BYTES + limit * ROW_BYTES));
  const { count, sourceIds, sourceRows } = checkPage(data);
  return { data, count, sourceIds, sourceRows, sources: await sourceNames(db, sourceIds), release: () => recycleCopyData(data) };
}
