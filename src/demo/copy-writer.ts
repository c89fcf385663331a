// Streams rows into one table with COPY FROM STDIN (text format) on a
// connection of its own. Callers add rows and flush once per batch (a user-day);
// a flush waits while several MB are still queued, so memory stays flat however
// many millions of rows go through.
import pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';

const MAX_QUEUED_BYTES = 8 << 20;

export class CopyWriter {
  rows = 0;
  private chunk = '';
  private failure: Error | null = null;
  private readonly finished: Promise<void>;

  private constructor(
    private readonly client: pg.Client,
    private readonly stream: CopyStreamQuery,
  ) {
    this.finished = new Promise((resolve, reject) => {
      stream.on('finish', resolve);
      stream.on('error', (error: Error) => {
        this.failure = error;
        reject(error);
      });
    });
    this.finished.catch(() => {}); // observed through write() and end()
  }

  static async open(connectionString: string, table: string, columns: readonly string[]): Promise<CopyWriter> {
    const client = new pg.Client({ connectionString });
    await client.connect();
    const quoted = columns.map((c) => `"${c}"`).join(', ');
    return new CopyWriter(client, client.query(copyFrom(`COPY ${table} (${quoted}) FROM STDIN`)));
  }

  /** One row: tab-separated fields made with the helpers below, ending in '\n'. */
  add(line: string): void {
    this.chunk += line;
    this.rows++;
  }

  /** Hands the rows so far to the socket; waits only once several MB are queued, so PostgreSQL always has work. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.chunk.length === 0) return;
    this.stream.write(this.chunk);
    this.chunk = '';
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

export const NULL = '\\N';

/** A text value escaped for COPY's text format. */
export function copyText(value: string | null): string {
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
export function copyNumberArray(values: ArrayLike<number>): string {
  return '{' + Array.prototype.join.call(values, ',') + '}';
}

/** A text array literal with every element quoted. */
export function copyTextArray(values: readonly string[]): string {
  return copyText('{' + values.map((v) => '"' + v.replace(/[\\"]/g, (c) => '\\' + c) + '"').join(',') + '}');
}
