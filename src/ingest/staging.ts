// A batch's rows on their way into the session's staging tables
// (src/db/writes/ingest.ts STAGING): encoded as COPY text rows, held until a
// table has INGEST.stagingRows of them, then COPYed in, so a batch of any size
// holds at most a few thousand rows in memory.
import type pg from 'pg';
import { copyWhole } from '../db/writes/bulk-load.js';
import { copyStagingSql, STAGING, type StagingName } from '../db/writes/ingest.js';
import { INGEST } from '../limits.js';

/** A staging column's value: null, a number, text, or JSON (written as text). */
export type Cell = number | string | null;

/** COPY text format: backslash, tab, newline and carriage return escaped; null is \N. */
function encodeCell(cell: Cell): string {
  if (cell === null) return '\\N';
  if (typeof cell === 'number') return String(cell);
  return /[\\\t\n\r]/.test(cell) ? cell.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : cell;
}

interface Pending {
  text: string[];
  rows: number;
  /** Rows written to the table so far. */
  staged: number;
}

export class Staging {
  private readonly pending = new Map<StagingName, Pending>();
  /** The session's work under way (a COPY, a chunk of samples): the next rows are encoded meanwhile, and the next work waits for it. */
  private working: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: pg.ClientBase) {}

  /**
   * Starts `work` on the session once the work before it is done, and
   * resolves once it has started: every statement of the batch's session goes
   * through here, one piece of work after another, so none lands inside
   * another's savepoint. A failure surfaces from the next call or from
   * flushAll.
   */
  async queue(work: () => Promise<unknown>): Promise<void> {
    await this.working;
    this.working = work();
    this.working.catch(() => {});
  }

  /** Resolves once the work under way has ended, however it ended: nothing of this batch runs on the session after. */
  async idle(): Promise<void> {
    await this.working.catch(() => {});
  }

  /** Whether any row went into `name` in this batch. */
  has(name: StagingName): boolean {
    const p = this.pending.get(name);
    return p !== undefined && p.rows + p.staged > 0;
  }

  /** Queues a row; when the table's queue is full, resolves once the previous COPY is done and this one started. */
  add(name: StagingName, cells: readonly Cell[]): Promise<void> | undefined {
    let p = this.pending.get(name);
    if (!p) this.pending.set(name, (p = { text: [], rows: 0, staged: 0 }));
    let row = encodeCell(cells[0]);
    for (let i = 1; i < cells.length; i++) row += '\t' + encodeCell(cells[i]);
    p.text.push(row + '\n');
    p.rows++;
    return p.rows >= INGEST.stagingRows ? this.flush(name, p) : undefined;
  }

  private async flush(name: StagingName, p: Pending): Promise<void> {
    if (p.rows === 0) return;
    const text = p.text.join('');
    p.text = [];
    p.staged += p.rows;
    p.rows = 0;
    // Not awaited here: the batch's next lines are parsed while PostgreSQL takes these.
    await this.queue(() => copyWhole(this.client, copyStagingSql(STAGING[name]), text));
  }

  /** COPYs whatever is still queued, and waits for all the work. */
  async flushAll(): Promise<void> {
    for (const [name, p] of this.pending) await this.flush(name, p);
    await this.working;
  }
}
