// Where a user's demo samples go: one COPY line each into `samples` with a
// deterministic uuid, and, for quantity types, into that type's daily
// aggregator, so `daily_aggregates` is computed from exactly the rows written.
// A sample that ends after the demo's end instant is not written: the data
// stops at the moment it was generated.
import { DailyAggregator, type DayBucket } from '../core/daily-aggregation.js';
import { typeInfo } from '../core/registry.js';
import { copyJson, type CopyWriter } from './copy-writer.js';
import type { SampleUuids } from './ids.js';

export type SourceKey = 'watch' | 'phone' | 'oura';

/** Overlapping cumulative samples: the watch wins over the phone, the phone over the third-party app. */
const PRIORITY: Readonly<Record<SourceKey, number>> = { watch: 0, phone: 1, oura: 2 };

export interface SampleOut {
  identifier: string;
  startMs: number;
  endMs: number;
  value: number;
  source: SourceKey;
  metadata?: Record<string, unknown>;
}

export interface Series {
  identifier: string;
  typeId: number;
  /** `\t<type id>\t`, ready to splice into a line. */
  readonly typeField: string;
  aggregator: DailyAggregator | null;
}

export interface AggregateRow {
  typeId: number;
  bucket: DayBucket;
  identifier: string;
}

export class UserSamples {
  /** Rows written for the current day, declared by its upload batches. */
  dayRows = 0;
  private readonly series = new Map<string, Series>();
  private readonly userField: string;
  private uuids: SampleUuids | null = null;
  private writer: CopyWriter | null = null;

  constructor(
    userId: string,
    private readonly typeIds: ReadonlyMap<string, number>,
    private readonly sourceFields: Readonly<Record<SourceKey, string>>,
    private readonly zone: string,
    /** The demo's end instant: samples ending later are left out. */
    private readonly endAt: number = Infinity,
  ) {
    this.userField = userId + '\t';
  }

  /** Days may go to different COPY connections: PostgreSQL then loads them on several cores. */
  beginDay(uuids: SampleUuids, writer: CopyWriter): void {
    this.uuids = uuids;
    this.writer = writer;
    this.dayRows = 0;
  }

  seriesOf(identifier: string): Series {
    let series = this.series.get(identifier);
    if (series === undefined) {
      const typeId = this.typeIds.get(identifier);
      if (typeId === undefined) throw new Error(`no sample type row for ${identifier}`);
      const info = typeInfo(identifier);
      const aggregator = info?.kind === 'quantity' ? new DailyAggregator(this.zone, info.aggregation) : null;
      series = { identifier, typeId, typeField: `\t${typeId}\t`, aggregator };
      this.series.set(identifier, series);
    }
    return series;
  }

  /** One sample; per series, calls must come in non-decreasing start order. */
  add(series: Series, startMs: number, endMs: number, value: number, source: SourceKey, metadata?: Record<string, unknown>): void {
    if (endMs > this.endAt) return;
    const uuid = (this.uuids as SampleUuids).next();
    const tail = metadata === undefined ? '\t\\N\n' : '\t' + copyJson(metadata) + '\n';
    (this.writer as CopyWriter).add(this.userField + uuid + series.typeField + startMs + '\t' + endMs + '\t' + value + this.sourceFields[source] + tail);
    this.dayRows++;
    series.aggregator?.add({ startMs, endMs, value, priority: PRIORITY[source] });
  }

  /** Samples of any types in any order: sorted by start (then priority) before they go out. */
  addAll(samples: SampleOut[]): void {
    samples.sort((a, b) => a.startMs - b.startMs || PRIORITY[a.source] - PRIORITY[b.source]);
    for (const s of samples) this.add(this.seriesOf(s.identifier), s.startMs, s.endMs, s.value, s.source, s.metadata);
  }

  /** Buckets no later sample can change. */
  drain(): AggregateRow[] {
    return this.collect((aggregator) => aggregator.drain());
  }

  finish(): AggregateRow[] {
    return this.collect((aggregator) => aggregator.finish());
  }

  private collect(take: (aggregator: DailyAggregator) => DayBucket[]): AggregateRow[] {
    const rows: AggregateRow[] = [];
    for (const { identifier, typeId, aggregator } of this.series.values()) {
      if (aggregator === null) continue;
      for (const bucket of take(aggregator)) rows.push({ typeId, bucket, identifier });
    }
    return rows;
  }
}
