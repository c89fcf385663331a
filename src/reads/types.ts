// Which type identifiers the server knows, for every route that takes them:
// the registry's, and those a writer stored that the registry does not know
// (the importer or a phone met a type first — the protocol requires keeping
// unknown identifiers), whose kind comes from their prefix. Such a stored
// identifier is known to a reader only when the user read holds data of it
// (samples, daily values or a workout's stream): whether another user stored
// a made-up name is not theirs to learn. An identifier neither knows is
// refused as unknown, with a suggestion.
import { kindOfIdentifier, typeInfo, type TypeKind } from '../core/registry.js';
import { sampleTypeId } from '../db/names.js';
import { prepared, type Db } from '../db/pool.js';
import { readPrepared } from '../db/prepared-read.js';

/** Whether a user holds data of a type: one index probe each where the routes read it (streams: migration 9). */
export const USER_HOLDS_TYPE = prepared(
  `SELECT EXISTS (SELECT 1 FROM samples WHERE user_id = $1 AND type_id = $2)
       OR EXISTS (SELECT 1 FROM daily_aggregates WHERE user_id = $1 AND type_id = $2)
       OR EXISTS (SELECT 1 FROM workout_streams WHERE user_id = $1 AND type_id = $2) AS held`,
);

export interface KnownTypes {
  /** The kind of each identifier the server knows; absent: unknown. */
  kinds: ReadonlyMap<string, TypeKind>;
  /** Those known only because a writer stored them. */
  stored: ReadonlySet<string>;
}

/** The identifiers as `userId`'s reader knows them. */
export async function knownTypes(db: Db, userId: string, identifiers: readonly string[]): Promise<KnownTypes> {
  const kinds = new Map<string, TypeKind>();
  const stored = new Set<string>();
  for (const identifier of identifiers) {
    const info = typeInfo(identifier);
    if (info) {
      kinds.set(identifier, info.kind);
      continue;
    }
    const kind = kindOfIdentifier(identifier);
    const typeId = kind === undefined ? null : await sampleTypeId(db, identifier);
    if (kind !== undefined && typeId !== null && (await readPrepared<{ held: boolean }>(db, USER_HOLDS_TYPE([userId, typeId])))[0].held) {
      kinds.set(identifier, kind);
      stored.add(identifier);
    }
  }
  return { kinds, stored };
}
