// Daily aggregates computed while export.xml streams, so a first import need
// not read its millions of samples back. It gives the same buckets as the
// read-back (daily-aggregates.ts) only when the stored samples of a type are
// exactly this export's: the user had no samples before the import, and the
// type's records arrive in start order (exports list records type by type,
// in time order within a type, as far as we have seen).
// A type whose order breaks is handed to the read-back instead, which
// recomputes all its days; buckets already written for it are overwritten.
// Records identical in content (same uuid) are stored once, so they are
// counted once here too: equal records share a start, so remembering the ids
// seen at the latest start is enough.
import { DailyAggregator, type DayBucket } from '../core/daily-aggregation.js';
import { typeInfo } from '../core/registry.js';
import type { SampleRow } from './records.js';
import { sourceKey, sourcePriority } from './sources.js';

interface TypeStream {
  aggregator: DailyAggregator;
  latestStartMs: number;
  idsAtLatestStart: Set<string>;
}

export interface SettledDays {
  identifier: string;
  buckets: DayBucket[];
}

export class InlineAggregates {
  private readonly streams = new Map<string, TypeStream>();
  /** Identifiers whose records came out of start order: aggregated by read-back. */
  readonly outOfOrder = new Set<string>();
  private readonly priorities = new Map<string, number>();
  private lastName: string | null = null;
  private lastDevice: string | null = null;
  private lastPriority = 0;

  constructor(
    private readonly timeZone: string,
    private readonly preferredSources: readonly string[],
  ) {}

  add(row: SampleRow): void {
    if (row.value === null || this.outOfOrder.has(row.identifier)) return;
    let stream = this.streams.get(row.identifier);
    if (stream === undefined) {
      const info = typeInfo(row.identifier);
      if (info?.kind !== 'quantity') return;
      stream = { aggregator: new DailyAggregator(this.timeZone, info.aggregation), latestStartMs: -Infinity, idsAtLatestStart: new Set() };
      this.streams.set(row.identifier, stream);
    }
    if (row.startMs < stream.latestStartMs) {
      this.outOfOrder.add(row.identifier);
      this.streams.delete(row.identifier);
      return;
    }
    if (row.startMs > stream.latestStartMs) {
      stream.latestStartMs = row.startMs;
      stream.idsAtLatestStart.clear();
    } else if (stream.idsAtLatestStart.has(row.idHash)) {
      return;
    }
    stream.idsAtLatestStart.add(row.idHash);
    stream.aggregator.add({ startMs: row.startMs, endMs: row.endMs, value: row.value, priority: this.priority(row.sourceName, row.device) });
  }

  private priority(name: string, device: string): number {
    if (name === this.lastName && device === this.lastDevice) return this.lastPriority;
    const key = sourceKey(name, device);
    let priority = this.priorities.get(key);
    if (priority === undefined) this.priorities.set(key, (priority = sourcePriority({ name, device }, this.preferredSources)));
    this.lastName = name;
    this.lastDevice = device;
    this.lastPriority = priority;
    return priority;
  }

  /** The days no later sample can change, per type; `all` at the end hands out the rest. */
  drain(all = false): SettledDays[] {
    const settled: SettledDays[] = [];
    for (const [identifier, stream] of this.streams) {
      const buckets = all ? stream.aggregator.finish() : stream.aggregator.drain();
      if (buckets.length > 0) settled.push({ identifier, buckets });
    }
    return settled;
  }
}
