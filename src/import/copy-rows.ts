// `samples` rows as COPY text (the columns of sample-loader.ts, in order).
// A row whose type or source has no id yet waits until the catalog has
// registered the name; `take` does that and hands over the text so far as
// UTF-8, ready for the socket.
import type { Catalog } from './catalog.js';
import type { SampleRow } from './records.js';

/** One COPY field of text format: backslash is the escape character. */
function copyText(text: string): string {
  return text.includes('\\') ? text.replace(/\\/g, '\\\\') : text;
}

export interface CopyChunk {
  bytes: Buffer;
  rows: number;
}

export class CopyRows {
  private text = '';
  private rows = 0;
  private pending: SampleRow[] = [];
  private readonly linePrefix: string;
  /** Type ids that received rows. */
  readonly typeIds = new Set<number>();

  constructor(
    userId: string,
    private readonly catalog: Catalog,
  ) {
    this.linePrefix = userId + '\t';
  }

  /** Characters of COPY text waiting. */
  get size(): number {
    return this.text.length;
  }

  /** Rows wait on names the catalog has yet to register. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  add(row: SampleRow): void {
    const typeId = this.catalog.typeId(row.identifier);
    const sourceId = this.catalog.sourceId(row.sourceName, row.device);
    if (typeId === undefined || sourceId === undefined) this.pending.push(row);
    else this.text += this.line(row, typeId, sourceId);
  }

  private line(row: SampleRow, typeId: number, sourceId: number): string {
    this.rows++;
    this.typeIds.add(typeId);
    const value = row.value === null ? '\\N' : String(row.value);
    const metadata = row.metadata === null ? '\\N' : copyText(row.metadata);
    return `${this.linePrefix}${row.uuid}\t${typeId}\t${row.startMs}\t${row.endMs}\t${value}\t${sourceId}\t${metadata}\n`;
  }

  /** Registers the names still unknown, then hands over every row so far (null when there is none). */
  async take(): Promise<CopyChunk | null> {
    if (this.pending.length > 0) {
      await this.catalog.resolve();
      const pending = this.pending;
      this.pending = [];
      for (const row of pending) {
        this.text += this.line(row, this.catalog.typeId(row.identifier) as number, this.catalog.sourceId(row.sourceName, row.device) as number);
      }
    }
    if (this.rows === 0) return null;
    const chunk = { bytes: Buffer.from(this.text, 'utf8'), rows: this.rows };
    this.text = '';
    this.rows = 0;
    return chunk;
  }
}
