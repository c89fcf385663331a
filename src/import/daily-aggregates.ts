// `daily_aggregates` by read-back. The export carries no statistics of its
// own, so the importer computes them the way HealthKit's statistics queries
// do: per local day in the stored zone, cumulative types summed with
// overlapping sources deduplicated by priority (watch, phone, other apps —
// see sources.ts), discrete types as mean, min and max (the rules:
// src/core/daily-aggregation.ts). A first import does most types in-stream
// (inline-aggregates.ts); this is for the rest, and for every later import.
//
// Each type's samples — everything stored for the user, not only this
// export's — stream back in start order through COPY TO STDOUT, feed the
// shared DailyAggregator, and settled days are upserted as they come, so
// memory stays bounded whatever the history's length.
import pg from 'pg';
import { StringDecoder } from 'node:string_decoder';
import { DailyAggregator, type DayBucket } from '../core/daily-aggregation.js';
import { typeInfo } from '../core/registry.js';
import type { NameIds } from './name-ids.js';
import { ImportInterrupted } from './errors.js';
import { sourcePriority } from './sources.js';
import { copyOut } from '../db/copy-out.js';
import { READ_BACK_SESSION_SQL, samplesInStartOrderCopySql, upsertDailyBuckets } from '../db/writes/import.js';

const BUCKETS_PER_WRITE = 2000;

interface AggregatedType {
  typeId: number;
  aggregation: 'cumulative' | 'discrete';
}

interface AggregationInput {
  /** Streams the samples out (one COPY at a time). */
  reader: pg.Client;
  /** Upserts the buckets. */
  writer: pg.Client;
  userId: string;
  timeZone: string;
  /** Priority per source id; sources not in it (and samples without one) rank last. */
  priorities: ReadonlyMap<number, number>;
  lowestPriority: number;
}

/** Rebuilds every bucket of one type. */
async function aggregateType(input: AggregationInput, type: AggregatedType): Promise<void> {
  const aggregator = new DailyAggregator(input.timeZone, type.aggregation);
  const stream = copyOut(input.reader, samplesInStartOrderCopySql(input.userId, type.typeId));
  const decoder = new StringDecoder('utf8');
  let buckets: DayBucket[] = [];
  let rest = '';
  const flush = async (all: boolean) => {
    if (buckets.length >= BUCKETS_PER_WRITE || (all && buckets.length > 0)) {
      await upsertDailyBuckets(input.writer, input.userId, type.typeId, buckets);
      buckets = [];
    }
  };
  for await (const chunk of stream) {
    const text = rest + decoder.write(chunk as Buffer);
    let from = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', from)) {
      const line = text.slice(from, end);
      from = end + 1;
      const [start, stop, value, source] = line.split('\t');
      const amount = Number(value);
      if (!Number.isFinite(amount)) continue;
      aggregator.add({
        startMs: Number(start),
        endMs: Number(stop),
        value: amount,
        priority: source === '\\N' ? input.lowestPriority : (input.priorities.get(Number(source)) ?? input.lowestPriority),
      });
    }
    rest = text.slice(from);
    for (const bucket of aggregator.drain()) buckets.push(bucket);
    await flush(false);
  }
  for (const bucket of aggregator.finish()) buckets.push(bucket);
  await flush(true);
}

export interface ReadBackOptions {
  databaseUrl: string;
  userId: string;
  timeZone: string;
  preferredSources: readonly string[];
  signal?: AbortSignal;
}

/** Reads the samples of these quantity types back in start order and rebuilds all their days. */
export async function readBackDailyAggregates(options: ReadBackOptions, writer: pg.Client, nameIds: NameIds, identifiers: readonly string[]): Promise<void> {
  const quantities = identifiers.filter((identifier) => typeInfo(identifier)?.kind === 'quantity');
  if (quantities.length === 0) return;
  const priorities = new Map<number, number>();
  let lowestPriority = 0;
  for (const source of nameIds.knownSources()) {
    const priority = sourcePriority(source, options.preferredSources);
    priorities.set(source.sourceId, priority);
    lowestPriority = Math.max(lowestPriority, priority);
  }
  const reader = new pg.Client({ connectionString: options.databaseUrl });
  reader.on('error', () => {}); // its queries fail instead (importer.ts)
  await reader.connect();
  try {
    for (const setting of READ_BACK_SESSION_SQL) await reader.query(setting);
    const input = { reader, writer, userId: options.userId, timeZone: options.timeZone, priorities, lowestPriority: lowestPriority + 1 };
    for (const identifier of quantities) {
      if (options.signal?.aborted) throw new ImportInterrupted();
      const info = typeInfo(identifier);
      if (info?.kind !== 'quantity') continue;
      await aggregateType(input, { typeId: nameIds.knownTypeId(identifier) as number, aggregation: info.aggregation });
    }
  } finally {
    await reader.end();
  }
}
