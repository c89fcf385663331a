// Type ids and source names, cached per pool: writers only ever insert them
// (INSERT … ON CONFLICT DO NOTHING, src/db/writes/setup.ts), so an id, once
// read, names the same thing for the life of the database. A type not stored
// yet is not cached (a writer may add it any time); a source id a sample
// refers to always exists (foreign key).
import { RequestDb, type Db } from './pool.js';

interface Names {
  typeIds: Map<string, number>;
  typeIdentifiers: Map<number, string>;
  sources: Map<number, string>;
  /** Lists of type ids, comma-separated, → the JSON of their identifiers sorted. */
  typeLists: Map<string, string>;
}

const byPool = new WeakMap<Db, Names>();

function namesOf(db: Db): Names {
  const key = db instanceof RequestDb ? db.pool : db;
  let names = byPool.get(key);
  if (!names) byPool.set(key, (names = { typeIds: new Map(), typeIdentifiers: new Map(), sources: new Map(), typeLists: new Map() }));
  return names;
}

export const SAMPLE_TYPE_ID_SQL = `SELECT type_id FROM sample_types WHERE identifier = $1`;

/** The type id of an identifier, or null when no writer has stored the type. */
export async function sampleTypeId(db: Db, identifier: string): Promise<number | null> {
  const { typeIds } = namesOf(db);
  const known = typeIds.get(identifier);
  if (known !== undefined) return known;
  const { rows } = await db.query<{ type_id: number }>(SAMPLE_TYPE_ID_SQL, [identifier]);
  if (rows.length === 0) return null;
  typeIds.set(identifier, rows[0].type_id);
  return rows[0].type_id;
}

/**
 * The names `cache` holds for `ids`, those it lacks read first with `sql`
 * (an int[] of ids → rows of id and name). NaN ids are skipped.
 */
async function namesOfIds(db: Db, cache: Map<number, string>, ids: ArrayLike<number>, sql: string): Promise<ReadonlyMap<number, string>> {
  let missing: Set<number> | null = null;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (id === id && !cache.has(id)) (missing ??= new Set()).add(id);
  }
  if (missing) {
    const { rows } = await db.query<[number, string]>({ text: sql, values: [[...missing]], rowMode: 'array' });
    for (const [id, name] of rows) cache.set(id, name);
  }
  return cache;
}

/** The names of source ids (NaN entries are samples without a source and are skipped). */
export const sourceNames = (db: Db, ids: ArrayLike<number>): Promise<ReadonlyMap<number, string>> =>
  namesOfIds(db, namesOf(db).sources, ids, 'SELECT source_id, name FROM sources WHERE source_id = ANY ($1::int[])');

/** The identifiers of type ids (every id a row refers to exists: foreign key). */
const typeIdentifiers = (db: Db, ids: ArrayLike<number>): Promise<ReadonlyMap<number, string>> =>
  namesOfIds(db, namesOf(db).typeIdentifiers, ids, 'SELECT type_id, identifier FROM sample_types WHERE type_id = ANY ($1::int[])');

const TYPE_LISTS_LIMIT = 10_000;

/** A list of type ids as its identifiers sorted bytewise (identifiers are ASCII): how a workout's streams are listed. */
const sortedIdentifiers = (names: ReadonlyMap<number, string>, ids: readonly number[]): string[] => ids.map((id) => names.get(id)!).sort();

/** Lists of type ids as their identifiers, each list sorted (sortedIdentifiers). */
export async function typeLists(db: Db, lists: readonly (readonly number[])[]): Promise<string[][]> {
  const names = await typeIdentifiers(db, lists.flat());
  return lists.map((ids) => sortedIdentifiers(names, ids));
}

/**
 * Lists of type ids, each its ids comma-separated ('' for none), as the JSON
 * of typeLists' answer for them. A list names the same types for the life of
 * the database, so its JSON is cached too.
 */
export async function typeListsJson(db: Db, lists: readonly string[]): Promise<string[]> {
  const cache = namesOf(db).typeLists;
  const out = lists.map((list) => (list === '' ? '[]' : cache.get(list)));
  const missing = new Map<number, number[]>();
  out.forEach((json, i) => json === undefined && missing.set(i, lists[i].split(',').map(Number)));
  if (missing.size === 0) return out as string[];
  const names = await typeIdentifiers(db, [...missing.values()].flat());
  return out.map((cached, i) => {
    if (cached !== undefined) return cached;
    const json = JSON.stringify(sortedIdentifiers(names, missing.get(i)!));
    if (cache.size >= TYPE_LISTS_LIMIT) cache.clear();
    cache.set(lists[i], json);
    return json;
  });
}
