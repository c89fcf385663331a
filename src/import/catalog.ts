// The small ids the fact tables carry: `sample_types.type_id` per identifier
// and `sources.source_id` per (name, device). Known ids are looked up
// synchronously while the XML streams; a name seen for the first time is
// queued and registered between two chunks of input by a resolver: on the
// main thread the database (INSERT … ON CONFLICT DO NOTHING, then read back,
// so other writers' rows are reused, never doubled), in the XML worker a
// round trip to the main thread.
import type pg from 'pg';
import { sourceKey, SOURCE_KEY_SEPARATOR, type SourceRef } from './sources.js';

export interface KnownSource extends SourceRef {
  sourceId: number;
}

export interface CatalogEntries {
  types: Array<[identifier: string, typeId: number]>;
  sources: KnownSource[];
}

/** Registers names and answers their ids (all of them, known before or not). */
export type CatalogResolver = (identifiers: string[], sources: SourceRef[]) => Promise<CatalogEntries>;

export class Catalog {
  private readonly types = new Map<string, number>();
  private readonly sources = new Map<string, number>();
  private readonly wantedTypes = new Set<string>();
  private readonly wantedSources = new Set<string>();
  private lastName: string | null = null;
  private lastDevice: string | null = null;
  private lastSourceId: number | undefined;

  constructor(
    private readonly resolver: CatalogResolver,
    known: CatalogEntries = { types: [], sources: [] },
  ) {
    this.learn(known);
  }

  /** The catalog of the database: what is stored, and the database as resolver. */
  static async load(client: pg.Client): Promise<Catalog> {
    return new Catalog((identifiers, sources) => registerNames(client, identifiers, sources), await storedNames(client));
  }

  private learn(entries: CatalogEntries): void {
    for (const [identifier, typeId] of entries.types) this.types.set(identifier, typeId);
    for (const source of entries.sources) this.sources.set(sourceKey(source.name, source.device), source.sourceId);
  }

  typeId(identifier: string): number | undefined {
    const id = this.types.get(identifier);
    if (id === undefined) this.wantedTypes.add(identifier);
    return id;
  }

  /** The id if known, without asking for it. */
  knownTypeId(identifier: string): number | undefined {
    return this.types.get(identifier);
  }

  /** The identifiers of these type ids, sorted. */
  identifiersOf(typeIds: ReadonlySet<number>): string[] {
    return [...this.types].filter(([, id]) => typeIds.has(id)).map(([identifier]) => identifier).sort();
  }

  sourceId(name: string, device: string): number | undefined {
    // Runs of records come from one source: skip building the key for a repeat.
    if (name === this.lastName && device === this.lastDevice) return this.lastSourceId;
    const key = sourceKey(name, device);
    const id = this.sources.get(key);
    if (id === undefined) {
      this.wantedSources.add(key);
      return undefined;
    }
    this.lastName = name;
    this.lastDevice = device;
    this.lastSourceId = id;
    return id;
  }

  get hasWanted(): boolean {
    return this.wantedTypes.size > 0 || this.wantedSources.size > 0;
  }

  /** Registers every identifier and source asked for but unknown so far. */
  async resolve(): Promise<void> {
    if (!this.hasWanted) return;
    const identifiers = [...this.wantedTypes].sort();
    const sources = [...this.wantedSources].map((key) => {
      const [name, device] = key.split(SOURCE_KEY_SEPARATOR);
      return { name, device };
    });
    this.wantedTypes.clear();
    this.wantedSources.clear();
    this.learn(await this.resolver(identifiers, sources));
  }

  /** Every source known, for the aggregation priorities. */
  knownSources(): KnownSource[] {
    return [...this.sources].map(([key, sourceId]) => {
      const [name, device] = key.split(SOURCE_KEY_SEPARATOR);
      return { name, device, sourceId };
    });
  }

  /** Everything known, to seed another thread's catalog. */
  entries(): CatalogEntries {
    return { types: [...this.types], sources: this.knownSources() };
  }
}

async function storedNames(client: pg.Client): Promise<CatalogEntries> {
  const types = await client.query<{ type_id: number; identifier: string }>('SELECT type_id, identifier FROM sample_types');
  const sources = await client.query<{ source_id: number; name: string; device: string }>('SELECT source_id, name, device FROM sources');
  return {
    types: types.rows.map((row) => [row.identifier, row.type_id]),
    sources: sources.rows.map((row) => ({ name: row.name, device: row.device, sourceId: row.source_id })),
  };
}

async function registerNames(client: pg.Client, identifiers: string[], sources: SourceRef[]): Promise<CatalogEntries> {
  const entries: CatalogEntries = { types: [], sources: [] };
  if (identifiers.length > 0) {
    await client.query('INSERT INTO sample_types (identifier) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (identifier) DO NOTHING', [identifiers]);
    const rows = await client.query<{ type_id: number; identifier: string }>('SELECT type_id, identifier FROM sample_types WHERE identifier = ANY($1::text[])', [
      identifiers,
    ]);
    entries.types = rows.rows.map((row) => [row.identifier, row.type_id]);
  }
  if (sources.length > 0) {
    const names = sources.map((source) => source.name);
    const devices = sources.map((source) => source.device);
    await client.query('INSERT INTO sources (name, device) SELECT * FROM unnest($1::text[], $2::text[]) ORDER BY 1, 2 ON CONFLICT (name, device) DO NOTHING', [
      names,
      devices,
    ]);
    const rows = await client.query<{ source_id: number; name: string; device: string }>(
      'SELECT s.source_id, s.name, s.device FROM sources s JOIN unnest($1::text[], $2::text[]) AS wanted (name, device) USING (name, device)',
      [names, devices],
    );
    entries.sources = rows.rows.map((row) => ({ name: row.name, device: row.device, sourceId: row.source_id }));
  }
  return entries;
}
