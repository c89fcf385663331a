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
