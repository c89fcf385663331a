// The /v1/samples body, written as bytes straight from the page's binary COPY
// (src/db/queries/samples.ts, which has checked it field by field): the bytes
// JSON.stringify writes for the SamplesPage object — keys in its order,
// numbers in its form, labels and source names as its strings — with no
// sample object, column or string between. A page runs past 128 KB; it is
// written when it is sent, into the HTTP front's buffer (BodyBytes, route.ts).
import { jsonNumber, jsonStringOrNull } from '../core/json-text.js';
import { writeSimpleNumber } from '../core/number-bytes.js';
import { kindOfIdentifier, typeInfo, unitOf } from '../core/registry.js';
import { COPY_HEADER_BYTES, readInt64, writeUuidText } from '../db/binary-copy.js';
import type { SamplesPageData } from '../db/queries/samples.js';
import type { BodyBytes } from './route.js';

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
const NULL = ascii('null');
const CLOSE = 0x7d; // }
const AFTER_VALUE = ascii(',"label":');
const AFTER_LABEL = ascii(',"source":');

/**
 * A sample up to its value's text, when its start and end are 13 digits (every
 * instant from 2001-09-09 to 2286-11-20): copied whole, then the uuid's hex
 * and the digits written into it two bytes at a time. Byte by byte, a page of
 * 1000 took twice as long (bench/RESULTS.md, 2026-11-25, samples written as
 * bytes).
 */
const TEMPLATE = ascii(',{"uuid":"________-____-____-____-____________","start":_____________,"end":_____________,"value":');
const TEMPLATE_FIRST = TEMPLATE.subarray(1);
const UUID_AT = TEMPLATE.indexOf(ascii('"uuid":"')) + 8;
const START_AT = TEMPLATE.indexOf(ascii('"start":')) + 8;
const END_AT = TEMPLATE.indexOf(ascii('"end":')) + 6;
/** Where each of a uuid's 16 bytes goes in its 8-4-4-4-12 text. */
const UUID_BYTE_AT = Uint8Array.from([0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]);
/** Two ASCII characters as one big-endian 16-bit store (DataView.setUint16): the hex of each byte value, and each number below 100 as two digits. */
const twoChars = (texts: string[]): Uint16Array => Uint16Array.from(texts, (text) => (text.charCodeAt(0) << 8) | text.charCodeAt(1));
const HEX = twoChars(Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0')));
const DIGIT_PAIRS = twoChars(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')));
const ZERO = 0x30;
const THIRTEEN_DIGITS_FROM = 1e12;
const THIRTEEN_DIGITS_BELOW = 1e13;

/** Bytes of any number's JSON text at most: String(-0.0000012345678901234567) is 25. */
const NUMBER_BYTES = 25;
/** A sample's bytes but for its label's and source's text, at most (start and end written as any number, not 13 digits). */
const SAMPLE_BYTES = TEMPLATE.length + 2 * (NUMBER_BYTES - 13) + NUMBER_BYTES + AFTER_VALUE.length + AFTER_LABEL.length + 1;

/** A category type's label per value, as JSON text (categoryLabel looks a value up as the property key String(value)). */
const labelsByType = new Map<string, ReadonlyMap<number, Uint8Array>>();
function labelsOf(type: string): ReadonlyMap<number, Uint8Array> | null {
  const info = typeInfo(type);
  if (info?.kind !== 'category') return null;
  let labels = labelsByType.get(type);
  if (!labels) {
    const entries = Object.entries(info.labels).filter(([value]) => String(Number(value)) === value);
    labels = new Map(entries.map(([value, label]) => [Number(value), Buffer.from(JSON.stringify(label), 'utf8')]));
    labelsByType.set(type, labels);
  }
  return labels;
}

/** A source (or none) as written: its name's JSON text, and the rest of an unlabelled sample after its value. */
interface SourceText {
  json: Uint8Array;
  /** A null label, the source's name, the object's end. */
  unlabelledRest: Uint8Array;
}
const sourceText = (json: Uint8Array): SourceText => ({ json, unlabelledRest: Buffer.concat([AFTER_VALUE, NULL, AFTER_LABEL, json, Buffer.of(CLOSE)]) });
const NO_SOURCE = sourceText(NULL);

/** Sources as written, per map of names (a name never changes for its id: src/db/names.ts). */
const sourceTexts = new WeakMap<ReadonlyMap<number, string>, Map<number, SourceText>>();
function sourceTextOf(sources: ReadonlyMap<number, string>, id: number): SourceText {
  let texts = sourceTexts.get(sources);
  if (!texts) sourceTexts.set(sources, (texts = new Map()));
  let text = texts.get(id);
  if (!text) {
    const name = sources.get(id);
    if (name === undefined) throw new Error(`source id ${id} has no name`);
    texts.set(id, (text = sourceText(Buffer.from(JSON.stringify(name), 'utf8'))));
  }
  return text;
}

/** `bytes` at `o`; answers the offset after them (a loop: these are a few bytes, and a call to copy costs more). */
function put(out: Uint8Array, o: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) out[o++] = bytes[i];
  return o;
}

/** A number as JSON.stringify writes it (jsonNumber), at `o`. */
function putNumber(out: Buffer, o: number, n: number): number {
  const end = writeSimpleNumber(out, o, n);
  return end >= 0 ? end : o + out.write(jsonNumber(n), o, 'latin1');
}

/** The 13 digits of 1e12 ≤ n < 1e13 at `o` of the view, two at a time. */
function putThirteenDigits(out: DataView, o: number, n: number): void {
  const high = Math.floor(n / 1e8); // five digits
  let low = n - high * 1e8; // eight
  for (let i = o + 11; i > o + 4; i -= 2) {
    const next = (low / 100) | 0;
    out.setUint16(i, DIGIT_PAIRS[low - next * 100]);
    low = next;
  }
  let rest = high;
  for (let i = o + 3; i > o; i -= 2) {
    const next = (rest / 100) | 0;
    out.setUint16(i, DIGIT_PAIRS[rest - next * 100]);
    rest = next;
  }
  out.setUint8(o, ZERO + rest);
}

/** The uuid's 16 bytes at `at` of `data` as hex into a template's 8-4-4-4-12 slots at `o` of the view. */
function putUuidHex(out: DataView, o: number, data: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++) out.setUint16(o + UUID_BYTE_AT[i], HEX[data[at + i]]);
}

export function samplesPageBody(type: string, page: SamplesPageData, offset: number): BodyBytes {
  const kind = kindOfIdentifier(type);
  const head = Buffer.from(
    `{"type":${JSON.stringify(type)},${kind === undefined ? '' : `"kind":${JSON.stringify(kind)},`}"unit":${jsonStringOrNull(unitOf(type))},"samples":[`,
    'utf8',
  );
  const tail = Buffer.from(`],"nextOffset":${offset + page.count}}`, 'latin1');
  const labels = labelsOf(type);
  let longestLabel = NULL.length;
  for (const label of labels?.values() ?? []) longestLabel = Math.max(longestLabel, label.length);
  // The sources' names as written, row by row (a long name on a few rows does not size every row).
  let sourceBytes = 0;
  let named = 0;
  page.sourceIds.forEach((id, run) => {
    sourceBytes += sourceTextOf(page.sources, id).json.length * page.sourceRows[run];
    named += page.sourceRows[run];
  });
  sourceBytes += (page.count - named) * NULL.length;
  let written = false;
  return {
    maxBytes: head.length + page.count * (SAMPLE_BYTES + longestLabel) + sourceBytes + tail.length,
    writeInto(out: Buffer): number {
      if (written) throw new Error('a samples page body is written once');
      written = true;
      const { data, sources } = page;
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const outView = new DataView(out.buffer, out.byteOffset, out.byteLength);
      out.set(head, 0);
      let o = head.length;
      // Runs of one source are the rule: its text is looked up once a run.
      let lastSource = NaN;
      let lastText = NO_SOURCE;
      let at = COPY_HEADER_BYTES;
      for (let i = 0; i < page.count; i++) {
        // A row: its field count, then uuid (16 bytes), start and end (8 each), value (8 or NULL), source id (4 or NULL), each after its length.
        const start = readInt64(view, at + 26);
        const end = readInt64(view, at + 38);
        if (start >= THIRTEEN_DIGITS_FROM && start < THIRTEEN_DIGITS_BELOW && end >= THIRTEEN_DIGITS_FROM && end < THIRTEEN_DIGITS_BELOW) {
          const template = i === 0 ? TEMPLATE_FIRST : TEMPLATE;
          const from = o - (i === 0 ? 1 : 0);
          out.set(template, o);
          putUuidHex(outView, from + UUID_AT, data, at + 6);
          putThirteenDigits(outView, from + START_AT, start);
          putThirteenDigits(outView, from + END_AT, end);
          o += template.length;
        } else {
          o = put(out, o, i === 0 ? TEMPLATE_FIRST.subarray(0, UUID_AT - 1) : TEMPLATE.subarray(0, UUID_AT));
          o = writeUuidText(out, o, data, at + 6);
          o = put(out, o, TEMPLATE.subarray(UUID_AT + 36, START_AT));
          o = putNumber(out, o, start);
          o = put(out, o, TEMPLATE.subarray(START_AT + 13, END_AT));
          o = putNumber(out, o, end);
          o = put(out, o, TEMPLATE.subarray(END_AT + 13));
        }
        at += 46;
        let label: Uint8Array = NULL;
        if (view.getInt32(at) === -1) {
          out.set(NULL, o);
          o += NULL.length;
          at += 4;
        } else {
          const value = view.getFloat64(at + 4);
          o = putNumber(out, o, value);
          if (labels) label = labels.get(value) ?? NULL;
          at += 12;
        }
        // The rest of the sample: label and source; without labels, one piece per source.
        if (view.getInt32(at) === -1) {
          lastSource = NaN;
          lastText = NO_SOURCE;
          at += 4;
        } else {
          const source = view.getInt32(at + 4);
          if (source !== lastSource) lastText = sourceTextOf(sources, (lastSource = source));
          at += 8;
        }
        if (labels) {
          o = put(out, o, AFTER_VALUE);
          out.set(label, o);
          o += label.length;
          o = put(out, o, AFTER_LABEL);
          out.set(lastText.json, o);
          o += lastText.json.length;
          out[o++] = CLOSE;
        } else {
          out.set(lastText.unlabelledRest, o);
          o += lastText.unlabelledRest.length;
        }
      }
      out.set(tail, o);
      o += tail.length;
      // Writes past the end of `out` would have been dropped: a bound that does not hold is a failure, not a short body.
      if (o > out.length) throw new Error(`samples page body of ${o} bytes overran its ${out.length}-byte buffer`);
      page.release();
      return o;
    },
  };
}
