// Per-user cache of /v1/catalog/types. Fresh for `freshMs`; after that the
// cached answer is still served for up to `staleMs` while exactly one
// background refresh per user replaces it. Only a user's first request (or one
// after the stale window) waits. Entries are bounded, least recently used out.

export interface CatalogCacheOptions<T> {
  freshMs: number;
  staleMs: number;
  maxUsers: number;
  compute(userId: string): Promise<T>;
  onRefreshError(error: unknown): void;
}

interface Entry<T> {
  value: T | undefined;
  computedAt: number;
  refreshing: Promise<T> | null;
}

export class CatalogCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** The key set last (the Map's last), or null. */
  private newest: string | null = null;
  /** How many computations ran; the tests read it to prove single-flight refreshes. */
  computations = 0;

  constructor(private readonly options: CatalogCacheOptions<T>) {}

  private refresh(userId: string, entry: Entry<T>): Promise<T> {
    if (entry.refreshing) return entry.refreshing;
    this.computations++;
    entry.refreshing = this.options.compute(userId).then(
      (value) => {
        entry.value = value;
        entry.computedAt = Date.now();
        entry.refreshing = null;
        return value;
      },
      (error: unknown) => {
        entry.refreshing = null;
        if (entry.value === undefined) this.entries.delete(userId);
        throw error;
      },
    );
    return entry.refreshing;
  }

  async get(userId: string, now = Date.now()): Promise<T> {
    let entry = this.entries.get(userId);
    if (entry) {
      // Re-insert (Map order is recency order), unless it is the newest already: a delete
      // that empties the Map shrinks its table, and the set grows it again, every request.
      if (this.newest !== userId) {
        this.entries.delete(userId);
        this.entries.set(userId, entry);
      }
    } else {
      entry = { value: undefined, computedAt: 0, refreshing: null };
      this.entries.set(userId, entry);
      while (this.entries.size > this.options.maxUsers) this.entries.delete(this.entries.keys().next().value!);
    }
    this.newest = userId;
    if (entry.value === undefined) return this.refresh(userId, entry);
    const age = now - entry.computedAt;
    if (age < this.options.freshMs) return entry.value;
    if (age < this.options.freshMs + this.options.staleMs) {
      this.refresh(userId, entry).catch((error: unknown) => this.options.onRefreshError(error));
      return entry.value;
    }
    return this.refresh(userId, entry);
  }
}
