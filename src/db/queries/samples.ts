// One page of raw samples of one type, as synced (never deduplicated): an
// ordered range scan of samples (user_id, type_id, start_ms, uuid) that stops
// after offset + limit rows. The type id comes first (cached, src/db/names.ts)
// so the planner sees the real id and its row estimate (a deep offset into a
// dense type then still walks the index instead of sorting the whole range).
//
// The page comes back as PostgreSQL's binary COPY of the plain columns
// (src/db/queries/export-copy.ts), read whole (src/db/copy-out.ts) and
// decoded here into columns: the uuids' text run together, the instants,
// values and source ids as Float64Arrays. Not as rows: parsing a row per
// sample (five text fields, a parser each) cost as much as everything else
// the route does. Not as one row of aggregates (array_agg, array_send,
// base64), as it was until 2026-11-24: that cost PostgreSQL 1.3–1.9 ms a page
// of 1000 against 0.7–0.9 for the COPY (bench/RESULTS.md). Source names come
// from the cache of names.
import { withClient, type Db } from '../pool.js';
import { copyOutWhole, recycleCopyData } from '../copy-out.js';
import { UUID_TEXT_LENGTH } from '../../core/uuid-text.js';
import { checkCopyHeader, COPY_HEADER_BYTES, readInt64, writeUuidText } from '../binary-copy.js';
import { sampleTypeId, sourceNames } from '../names.js';
import { SAMPLE_SELECT_FIELDS as FIELDS, samplesCopySql } from './export-copy.js';

export interface SampleColumns {
  /** The uuids' text (36 characters each), in page order. */
  uuids: string;
  /** Epoch ms (exact below 2^53, as the int8 parser's Number is). */
  starts: Float64Array;
  ends: Float64Array;
  /** NaN for NULL (and for a stored NaN: both are null in JSON). */
  values: Float64Array;
  /** NaN for a sample without a source. */
  sourceIds: Float64Array;
  /** Names of the page's source ids (and maybe more). */
  sources: ReadonlyMap<number, string>;
}

const EMPTY: SampleColumns = Object.freeze({
  uuids: '',
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  values: new Float64Array(0),
  sourceIds: new Float64Array(0),
  sources: new Map(),
});

/** Bytes of a COPY row of these columns at most: field count, then per field its length and data. */
const ROW_BYTES = 2 + (4 + 16) + (4 + 8) * 3 + (4 + 4);
/** At least: value and source NULL. */
const ROW_MIN_BYTES = ROW_BYTES - 8 - 4;
/** uuid, start and end with their lengths. */
const FIXED_FIELD_BYTES = (4 + 16) + (4 + 8) * 2;
/** The header and the trailer. */
const FRAME_BYTES = COPY_HEADER_BYTES + 2;

// The uuids' text is written here, then copied into the page's string: one buffer for every page.
let uuidScratch = Buffer.allocUnsafe(0);

/** The page's rows out of the COPY's data, checked field by field. */
function decodePage(data: Buffer): Omit<SampleColumns, 'sources'> {
  if (data.length < FRAME_BYTES) throw new Error('binary COPY data cut short');
  checkCopyHeader(data, 0);
  const most = Math.floor((data.length - FRAME_BYTES) / ROW_MIN_BYTES);
  if (uuidScratch.length < most * UUID_TEXT_LENGTH) uuidScratch = Buffer.allocUnsafe(most * UUID_TEXT_LENGTH);
  const uuids = uuidScratch;
  // The four number columns share one buffer: one allocation outside V8's heap a page, not four.
  const numbers = new Float64Array(most * 4);
  const starts = numbers.subarray(0, most);
  const ends = numbers.subarray(most, most * 2);
  const values = numbers.subarray(most * 2, most * 3);
  const sourceIds = numbers.subarray(most * 3);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = COPY_HEADER_BYTES;
  let n = 0;
  for (;;) {
    const fields = view.getInt16(at);
    at += 2;
    if (fields === -1) break;
    if (fields !== FIELDS) throw new Error(`expected ${FIELDS} columns per COPY row, got ${fields}`);
    // The fixed fields and the next two lengths; past them the view's reads throw by themselves.
    if (at + FIXED_FIELD_BYTES + 8 > data.length) throw new Error('binary COPY data cut short');
    if (view.getInt32(at) !== 16 || view.getInt32(at + 20) !== 8 || view.getInt32(at + 32) !== 8) throw new Error('unexpected binary COPY field');
    writeUuidText(uuids, n * UUID_TEXT_LENGTH, data, at + 4);
    starts[n] = readInt64(view, at + 24);
    ends[n] = readInt64(view, at + 36);
    at += FIXED_FIELD_BYTES;
    const valueBytes = view.getInt32(at);
    if (valueBytes === -1) {
      values[n] = NaN;
      at += 4;
    } else {
      values[n] = view.getFloat64(at + 4);
      at += 12;
    }
    const sourceBytes = view.getInt32(at);
    if (sourceBytes === -1) {
      sourceIds[n] = NaN;
      at += 4;
    } else {
      sourceIds[n] = view.getInt32(at + 4);
      at += 8;
    }
    n++;
  }
  if (at !== data.length) throw new Error('binary COPY data after its trailer');
  return {
    uuids: uuids.toString('latin1', 0, n * UUID_TEXT_LENGTH),
    starts: starts.subarray(0, n),
    ends: ends.subarray(0, n),
    values: values.subarray(0, n),
    sourceIds: sourceIds.subarray(0, n),
  };
}

export async function samplesPageColumns(
  db: Db,
  userId: string,
  identifier: string,
  start: number,
  end: number,
  limit: number,
  offset: number,
): Promise<SampleColumns> {
  const typeId = await sampleTypeId(db, identifier);
  if (typeId === null) return EMPTY;
  const sql = samplesCopySql(userId, typeId, start, end, { limit, offset });
  const data = await withClient(db, (client) => copyOutWhole(client, sql, FRAME_BYTES + limit * ROW_BYTES));
  const page = decodePage(data);
  // The page holds copies of what it needs: the COPY's buffer can serve the next page.
  recycleCopyData(data);
  return { ...page, sources: await sourceNames(db, page.sourceIds) };
}
