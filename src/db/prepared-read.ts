// A read through one of healthd's prepared statements (src/db/pool.ts
// `prepared`), without pg's Query: the same messages through pg's own
// connection (its serializer, parser, timeouts and error handling, as a
// pg.Submittable, the way pg-cursor reads), minus what a read of known shape
// does not need. pg's Query asks PostgreSQL to describe the result on every
// execution, then builds from that description, a statement at a time, a
// dictionary-mode object that every row is spread from, with an event
// emitter and a Result around it. A statement prepared on a connection
// answers rows of one shape for as long as it lives there (PostgreSQL refuses
// to run it otherwise: "cached plan must not change result type"), so here
// its description is asked for once a connection, and each row is made from
// it directly. The read API's statements are small and frequent: this took
// pg's own CPU a statement from 67.7 to 45.3 µs (the users list) and from
// 45.8 to 34.4 (a profile) in bench/prepared-read.ts (bench/RESULTS.md,
// "prepared reads without pg's Query").
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { withClient, type Db, type PreparedStatement } from './pool.js';

/** What a statement's rows are made with: each column's name and text parser. */
interface Shape {
  names: string[];
  parsers: Array<(text: string) => unknown>;
}

/** The shape of each statement prepared on a connection, by its name: a connection's statements live as long as it does. */
const shapes = new WeakMap<pg.Connection, Map<string, Shape>>();

function shapesOf(connection: pg.Connection): Map<string, Shape> {
  let known = shapes.get(connection);
  if (!known) shapes.set(connection, (known = new Map()));
  return known;
}

/** pg's connection as a Submittable sees it: the statements it parsed, or has sent to be parsed (pg keeps both). */
interface StatementsOf {
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
}

interface RowDescription {
  fields: Array<{ name: string; dataTypeID: number }>;
}

class PreparedRead<R> implements pg.Submittable {
  readonly name: string;
  /** Read by pg when PostgreSQL has parsed it (the connection's parsedStatements). */
  readonly text: string;
  private readonly values: unknown[];
  private shape: Shape | undefined;
  private known: Map<string, Shape> | undefined;
  private readonly rows: R[] = [];
  private failed: Error | null = null;
  /** Set before the read is submitted; pg wraps it with its read timeout. Called once. */
  callback?: (error: Error | null, rows?: R[]) => void;

  constructor(
    statement: PreparedStatement,
    private readonly arrays: boolean,
  ) {
    this.name = statement.name;
    this.text = statement.text;
    this.values = statement.values;
  }

  submit(connection: pg.Connection): void {
    const statements = connection as unknown as StatementsOf;
    this.known = shapesOf(connection);
    this.shape = this.known.get(this.name);
    const stream = connection.stream;
    stream.cork();
    try {
      if (statements.parsedStatements[this.name] === undefined && statements.submittedNamedStatements[this.name] === undefined) {
        connection.parse({ text: this.text, name: this.name, types: [] }, false);
        statements.submittedNamedStatements[this.name] = this.text;
      }
      connection.bind({ portal: '', statement: this.name, values: this.values, valueMapper: pgUtils.prepareValue } as pg.BindConfig, false);
      if (this.shape === undefined) connection.describe({ type: 'P', name: '' }, false);
      connection.execute({ portal: '' }, false);
      connection.sync();
    } finally {
      stream.uncork();
    }
  }

  handleRowDescription(message: RowDescription): void {
    this.shape = {
      names: message.fields.map((field) => field.name),
      parsers: message.fields.map((field) => pg.types.getTypeParser(field.dataTypeID, 'text')),
    };
    this.known!.set(this.name, this.shape);
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.failed) return;
    const { names, parsers } = this.shape!;
    const fields = message.fields;
    try {
      if (this.arrays) {
        const row: unknown[] = new Array(fields.length);
        for (let i = 0; i < fields.length; i++) row[i] = fields[i] === null ? null : parsers[i](fields[i]!);
        this.rows.push(row as R);
      } else {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) row[names[i]] = fields[i] === null ? null : parsers[i](fields[i]!);
        this.rows.push(row as R);
      }
    } catch (error) {
      // As pg's Query: the rest of the answer is read, then the read fails.
      this.failed = error as Error;
    }
  }

  handleError(error: Error): void {
    this.callback?.(error);
  }

  handleReadyForQuery(): void {
    if (this.failed) this.callback?.(this.failed);
    else this.callback?.(null, this.rows);
  }

  // Nothing else comes for one statement read whole: pg calls these on whatever query is active.
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('a prepared read takes no COPY');
  }
}

/**
 * The rows of a prepared statement (src/db/pool.ts `prepared`) run on `db`:
 * objects named by the columns, or arrays with `rowMode` 'array'. As
 * `db.query(statement)` answers them, and fails the same way (PostgreSQL's
 * error, pg's read timeout, a client gone before it was sent).
 */
export function readPrepared<R>(db: Db, statement: PreparedStatement, rowMode?: 'array'): Promise<R[]> {
  return withClient(
    db,
    (client) =>
      new Promise<R[]>((resolve, reject) => {
        const read = new PreparedRead<R>(statement, rowMode === 'array');
        read.callback = (error, rows) => (error ? reject(error) : resolve(rows!));
        client.query(read);
      }),
  );
}
