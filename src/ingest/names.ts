// Type identifiers and sources as the small ids the fact tables carry, kept in
// memory once known. A new name is registered through setup.ts on a small
// pool of its own, autocommitted (not in the batch's transaction, and never
// waiting for a batch session to free up), so concurrent batches never wait
// on each other's new names; a name whose batch then fails stays registered,
// which is harmless (nothing lists a type without rows).
import type pg from 'pg';
import { registerSources, registerTypes } from '../db/writes/setup.js';

export class NameIds {
  private readonly types = new Map<string, number>();
  /** Source ids by name, then device ('' for none): no key string made per line. */
  private readonly sources = new Map<string, Map<string, number>>();

  constructor(private readonly pool: pg.Pool) {}

  /** The type's id, registering it when new. */
  typeId(identifier: string): number | Promise<number> {
    const known = this.types.get(identifier);
    if (known !== undefined) return known;
    return registerTypes(this.pool, [identifier]).then((ids) => {
      const id = ids.get(identifier)!;
      this.types.set(identifier, id);
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
