// Type identifiers and sources as the small ids the fact tables carry, kept in
// memory once known. A new name is registered through setup.ts on a small
// pool of its own, autocommitted (not in the batch's transaction, and never
// waiting for a batch session to free up), so concurrent batches never wait
// on each other's new names; a name whose batch then fails stays registered,
// which is harmless (nothing lists a type without rows). An identifier the
// registry does not know is registered only while the store holds fewer than
// INGEST.typesHeldMax types; past that its lines are dropped (typeId answers
// null, and not kept: another writer, the importer, may store it later), so
// made-up identifiers cannot use up the ids the real ones need.
import type pg from 'pg';
import { registerSources, registerTypes, registerUnknownType } from '../db/writes/setup.js';
import { typeInfo } from '../core/registry.js';
import { INGEST } from '../limits.js';

export class NameIds {
  private readonly types = new Map<string, number>();
  /** Source ids by name, then device ('' for none): no key string made per line. */
  private readonly sources = new Map<string, Map<string, number>>();

  constructor(private readonly pool: pg.Pool) {}

  /** The type's id, registering it when new; null when it is unknown to the registry and there is no room for another type. */
  typeId(identifier: string): number | Promise<number | null> {
    const known = this.types.get(identifier);
    if (known !== undefined) return known;
    const registered =
      typeInfo(identifier) !== undefined
        ? registerTypes(this.pool, [identifier]).then((ids) => ids.get(identifier)!)
        : registerUnknownType(this.pool, identifier, INGEST.typesHeldMax);
    return registered.then((id) => {
      if (id !== null) this.types.set(identifier, id);
      return id;
    });
  }

  /** The source's id (null when the line names none), registering it when new. */
  sourceId(name: string | null | undefined, device: string | null | undefined): number | null | Promise<number> {
    if (name === null || name === undefined) return null;
    const deviceKey = device ?? '';
    const known = this.sources.get(name)?.get(deviceKey);
    if (known !== undefined) return known;
    return registerSources(this.pool, [{ name, device: deviceKey }]).then(([source]) => {
      let devices = this.sources.get(name);
      if (devices === undefined) this.sources.set(name, (devices = new Map()));
      devices.set(deviceKey, source.sourceId);
      return source.sourceId;
    });
  }
}
