// Streams rows into one table with COPY FROM STDIN (text format) on a
// connection of its own. Rows are encoded straight into a reusable buffer (one
// big string per batch would keep the garbage collector busy); callers flush
// once per batch (a user-day), and a flush waits while several MB are still
// queued, so memory stays flat however many millions of rows go through.
import pg from 'pg';
import type { CopyStreamQuery } from 'pg-copy-streams';
import { copyFromStdin, copyFromStdinSql, skipForeignKeyChecks } from '../db/writes/bulk-load.js';
import { DEMO_COPY_COLUMNS, type DemoTable } from '../db/writes/demo.js';

const CHUNK_BYTES = 1 << 20;
const MAX_QUEUED_BYTES = 8 << 20;

export class CopyWriter {
  rows = 0;
  private readonly chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private failure: Error | null = null;
  private readonly finished: Promise<void>;

  private constructor(
    private readonly client: pg.Client,
    private readonly stream: CopyStreamQuery,
  ) {
    this.finished = new Promise((resolve, reject) => {
      client.on('error', (error: Error) => {
        this.failure = error;
        reject(error);
      });
      stream.on('finish', resolve);
      stream.on('error', (error: Error) => {
        this.failure = error;
        reject(error);
      });
    });
    this.finished.catch(() => {}); // observed through flush() and end()
  }

  /**
   * `trustedForeignKeys`: the rows only reference ids this run has just read
   * back from the referenced tables, so the per-row foreign-key checks (half
   * the load time of `samples`) can be skipped where that is safe.
   */
  static async open(connectionString: string, table: DemoTable, trustedForeignKeys = false): Promise<CopyWriter> {
    const client = new pg.Client({ connectionString });
    await client.connect();
    if (trustedForeignKeys) await skipForeignKeyChecks(client, table);
    return new CopyWriter(client, client.query(copyFromStdin(copyFromStdinSql(table, DEMO_COPY_COLUMNS[table], 'text'))));
  }

  /** One row: tab-separated fields made with the helpers below, ending in '\n'. */
  add(line: string): void {
    const worstCaseBytes = line.length * 3; // UTF-8 bytes per UTF-16 unit, at most
    if (this.used + worstCaseBytes > CHUNK_BYTES) this.pushChunk();
    if (worstCaseBytes > CHUNK_BYTES) this.stream.write(line);
    else this.used += this.chunk.write(line, this.used);
    this.rows++;
  }

  /** Hands the rows so far to the socket; waits only once several MB are queued, so PostgreSQL always has work. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    this.pushChunk();
    if (this.stream.writableLength <= MAX_QUEUED_BYTES) return;
    await new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        this.stream.off('error', onError);
        resolve();
      };
      const onError = (error: Error) => {
        this.stream.off('drain', onDrain);
        reject(error);
      };
      this.stream.once('drain', onDrain);
      this.stream.once('error', onError);
    });
  }

  private pushChunk(): void {
    if (this.used === 0) return;
    this.stream.write(Buffer.from(this.chunk.subarray(0, this.used)));
    this.used = 0;
  }

  /** Sends the rest, waits for the server to commit the COPY, closes the connection. */
  async end(): Promise<void> {
    try {
      await this.flush();
      this.stream.end();
      await this.finished;
    } finally {
      await this.client.end();
    }
  }

  /** Abandons the COPY: closing the connection mid-COPY rolls it back. */
  async abort(): Promise<void> {
    this.stream.destroy();
    await this.client.end().catch(() => {});
  }
}

const NULL = '\\N';

/** A text value escaped for COPY's text format. */
function copyText(value: string | null): string {
  if (value === null) return NULL;
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

export function copyNumber(value: number | null): string {
  return value === null ? NULL : String(value);
}

export function copyJson(value: unknown): string {
  return value === undefined || value === null ? NULL : copyText(JSON.stringify(value));
}

/** A numeric array literal; numbers need no quoting. */
export function copyNumberArray(values: readonly number[]): string {
  return '{' + values.join(',') + '}';
}

/** A text array literal with every element quoted. */
export function copyTextArray(values: readonly string[]): string {
  return copyText('{' + values.map((v) => '"' + v.replace(/[\\"]/g, (c) => '\\' + c) + '"').join(',') + '}');
}
