// A uuid's text (uuid::text: 8-4-4-4-12 lowercase hex), and pages of uuids
// read as their texts run together — string_agg(uuid::text, ''), or a binary
// COPY's uuids written out (src/db/binary-copy.ts) — instead of a string each.

/** Characters (and bytes: all ASCII) of a uuid's text. */
export const UUID_TEXT_LENGTH = 36;

/** The i-th uuid of `uuids`, their texts run together. */
export const uuidAt = (uuids: string, i: number): string => uuids.slice(i * UUID_TEXT_LENGTH, (i + 1) * UUID_TEXT_LENGTH);
