// The small ids the fact tables carry: `sample_types.type_id` per identifier
// and `sources.source_id` per (name, device). Known ids are looked up
// synchronously while the XML streams; a name seen for the first time is
// queued and registered between two chunks of input by a resolver: on the
// main thread the database (db/writes/setup.ts, shared by every writer), in
// the XML worker a round trip to the main thread.
import type pg from 'pg';
import { registerSources, registerTypes, storedNames, type SourceId } from '../db/writes/setup.js';
import { sourceKey, SOURCE_KEY_SEPARATOR, type SourceRef } from './sources.js';


export interface NameIdEntries {
  types: Array<[identifier: string, typeId: number]>;
  sources: SourceId[];
}

/** Registers names and answers their ids (all of them, known before or not). */
export type NameResolver = (identifiers: string[], sources: SourceRef[]) => Promise<NameIdEntries>;

export class NameIds {
  private readonly types = new Map<string, number>();
  private readonly sources = new Map<string, number>();
  private readonly wantedTypes = new Set<string>();
  private readonly wantedSources = new Set<string>();
  private lastName: string | null = null;
  private lastDevice: string | null = null;
  private lastSourceId: number | undefined;

  constructor(
    private readonly resolver: NameResolver,
    known: NameIdEntries = { types: [], sources: [] },
  ) {
    this.learn(known);
  }

  /** The ids the database holds: what is stored, and the database as resolver. */
  static async load(client: pg.Client): Promise<NameIds> {
    return new NameIds((identifiers, sources) => registerNames(client, identifiers, sources), await storedNames(client));
  }

  private learn(entries: NameIdEntries): void {
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
  knownSources(): SourceId[] {
    return [...this.sources].map(([key, sourceId]) => {
      const [name, device] = key.split(SOURCE_KEY_SEPARATOR);
      return { name, device, sourceId };
    });
  }

  /** Everything known, to seed another thread's name ids. */
  entries(): NameIdEntries {
    return { types: [...this.types], sources: this.knownSources() };
  }
}

async function registerNames(client: pg.Client, identifiers: string[], sources: SourceRef[]): Promise<NameIdEntries> {
  return { types: [...(await registerTypes(client, identifiers))], sources: await registerSources(client, sources) };
}
