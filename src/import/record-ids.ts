// Deterministic ids for what an export holds. export.xml carries no UUIDs, so
// each record, workout and ECG gets a name-based UUID (RFC 4122 version 5)
// from the user and the record's content. Instants enter as epoch ms, not as
// the text, because the export writes them in the phone's current offset:
// the same record exported again after travel keeps its id, so re-importing
// the same or a newer export converges instead of duplicating.
import { hash } from 'node:crypto';

/** Our own namespace, fixed once: changing it would give every imported record a new id. */
const NAMESPACE = Buffer.from('4f1b7f55c6a35b7e9a4b6f0a2c1d9e37', 'hex');
const SEPARATOR = '\u001f';

// SHA-1 over namespace + name, hashed one-shot from a reused buffer: tens of
// millions of ids, and a Hash object per id would cost three times as much.
let scratch = Buffer.alloc(4096);
const VARIANT_DIGITS = '89ab';

/** SHA-1 (hex) of `name` (UTF-8) in `namespace`: the 40 digits a version 5 UUID is cut from. */
export function nameHash(name: string, namespace: Buffer = NAMESPACE): string {
  if (16 + name.length * 3 > scratch.length) scratch = Buffer.alloc(16 + name.length * 3);
  namespace.copy(scratch, 0, 0, 16);
  const length = 16 + scratch.write(name, 16, 'utf8');
  return hash('sha1', scratch.subarray(0, length), 'hex');
}

/** The RFC 4122 version 5 UUID (text) of a name hash. */
export function uuidFromHash(hex: string): string {
  // Version nibble 5; variant bits 10xx on the 17th hex digit.
  const digit = hex.charCodeAt(16);
  const variant = VARIANT_DIGITS[(digit <= 57 ? digit - 48 : digit - 87) & 3];
  return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-5' + hex.slice(13, 16) + '-' + variant + hex.slice(17, 20) + '-' + hex.slice(20, 32);
}

/** The same UUID as its 16 bytes, written at `offset` (for binary COPY). */
export function writeUuidBytes(hex: string, buffer: Buffer, offset: number): void {
  buffer.write(hex, offset, 16, 'hex');
  buffer[offset + 6] = (buffer[offset + 6] & 0x0f) | 0x50;
  buffer[offset + 8] = (buffer[offset + 8] & 0x3f) | 0x80;
}

/** RFC 4122 name-based UUID, version 5 (SHA-1), of `name` (UTF-8) in `namespace`. */
export function uuidV5(name: string, namespace: Buffer = NAMESPACE): string {
  return uuidFromHash(nameHash(name, namespace));
}

/** The name hash of a record's id, from everything that tells two records apart (the hot path of contentHash('record', …)). */
export function recordHash(userId: string, type: string, source: string, creation: number | '', start: number, end: number, unit: string, value: string): string {
  const S = SEPARATOR;
  return nameHash(`record${S}${userId}${S}${type}${S}${source}${S}${creation}${S}${start}${S}${end}${S}${unit}${S}${value}`);
}

/** The name hash of one stored thing's id: a kind tag, the user, then the fields that tell it apart. */
export function contentHash(kind: string, userId: string, fields: ReadonlyArray<string | number>): string {
  return nameHash(kind + SEPARATOR + userId + SEPARATOR + fields.join(SEPARATOR));
}

/** The id of one stored thing (its UUID text). */
export function contentUuid(kind: string, userId: string, fields: ReadonlyArray<string | number>): string {
  return uuidFromHash(contentHash(kind, userId, fields));
}
