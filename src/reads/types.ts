// Which type identifiers the server knows, for every route that takes them:
// the registry's, and those a writer stored that the registry does not know
// (the importer or a phone met a type first — the protocol requires keeping
// unknown identifiers), whose kind comes from their prefix. An identifier
// neither knows is refused as unknown, with a suggestion.
import { kindOfIdentifier, typeInfo, type TypeKind } from '../core/registry.js';
import { sampleTypeId } from '../db/names.js';
import type { Db } from '../db/pool.js';

export interface KnownTypes {
  /** The kind of each identifier the server knows; absent: unknown. */
  kinds: ReadonlyMap<string, TypeKind>;
  /** Those known only because a writer stored them. */
  stored: ReadonlySet<string>;
}

export async function knownTypes(db: Db, identifiers: readonly string[]): Promise<KnownTypes> {
  const kinds = new Map<string, TypeKind>();
  const stored = new Set<string>();
  for (const identifier of identifiers) {
    const info = typeInfo(identifier);
    if (info) {
      kinds.set(identifier, info.kind);
      continue;
    }
    const kind = kindOfIdentifier(identifier);
    if (kind !== undefined && (await sampleTypeId(db, identifier)) !== null) {
      kinds.set(identifier, kind);
      stored.add(identifier);
    }
  }
  return { kinds, stored };
}
