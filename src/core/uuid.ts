// What counts as a UUID wherever one comes in (settings, parameters, command
// lines, uploads): 8-4-4-4-12 hex digits, any case. Stored and answered
// lowercase, so every comparison is on the lowercase form.

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** The canonical (lowercase) form of a UUID, or null when `value` is not one. */
export function canonicalUuid(value: string): string | null {
  return UUID_PATTERN.test(value) ? value.toLowerCase() : null;
}

const NIBBLES = new Int8Array(128);
for (let i = 0; i < 16; i++) {
  NIBBLES['0123456789abcdef'.charCodeAt(i)] = i;
  NIBBLES['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** Writes the 16 bytes of a UUID (one isUuid accepts, any case) at `offset`. */
export function writeUuidText(uuid: string, buffer: Uint8Array, offset: number): void {
  let at = offset;
  for (let i = 0; i < 36; i += 2) {
    if (i === 8 || i === 13 || i === 18 || i === 23) i++;
    buffer[at++] = (NIBBLES[uuid.charCodeAt(i)] << 4) | NIBBLES[uuid.charCodeAt(i + 1)];
  }
}
