// What the bulk writers (the importer's sample lanes, the demo's COPY
// connections, the sync receiver) share: the COPY statements of the storage
// contract's tables, a COPY of data already whole, and skipping the per-row foreign-key checks on a session whose rows only
// carry ids it has just read back from the referenced tables; and the COPY
// stream they all write through.
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { SAMPLE_COUNT_TRIGGERS } from '../migrations.js';

/** `COPY table (columns) FROM STDIN` in PostgreSQL's text or binary format. */
export function copyFromStdinSql(table: string, columns: readonly string[], format: 'text' | 'binary'): string {
  const quoted = columns.map((c) => `"${c}"`).join(', ');
  return `COPY ${table} (${quoted}) FROM STDIN${format === 'binary' ? ' WITH (FORMAT binary)' : ''}`;
}

/** What a COPY stream writes to once its COPY failed: nothing, at once. */
const LET_GO = Object.freeze({ stream: Object.freeze({ write: () => true, once: () => {} }), sendCopyFail: () => {} });

/**
 * pg-copy-streams' COPY … FROM STDIN stream (`sql`), mended. When its COPY
 * fails (a refused row, or a session ended under it) the stream emits the
 * error and lets go of its connection, yet a write made after, or waiting for
 * the socket to drain, still goes to that connection and throws where no
 * handler is: the process dies (brianc/node-pg-copy-streams#171, open in
 * 7.0.0; an import whose database went away died so). Once it has failed, its
 * writes go nowhere: the error it emitted is what its writer acts on.
 */
export function copyFromStdin(sql: string): CopyStreamQuery {
  const stream = copyFrom(sql) as CopyStreamQuery & { connection: unknown; handleError(error: Error): void };
  const handleError = stream.handleError;
  stream.handleError = function (error) {
    handleError.call(this, error);
    this.connection = LET_GO;
  };
  return stream;
}

/** Runs `sql` (a COPY … FROM STDIN) with `data`, all of it at hand; resolves once PostgreSQL took it. */
export async function copyWhole(client: pg.ClientBase, sql: string, data: Buffer | string): Promise<void> {
  const stream = client.query(copyFromStdin(sql));
  stream.end(data);
  await finished(stream);
}

/**
 * Makes this session stop firing triggers (session_replication_role =
 * replica), as pg_restore --disable-triggers does — but only when every
 * trigger on the table and its partitions belongs to a foreign key or counts
 * samples (migration 6) and it has no rules, so nothing but those checks (half
 * the load time of `samples`) and the counting is skipped, and only where the
 * role may set it (superusers, or a grant on the parameter). Answers whether
 * the checks are off; otherwise they run. When they are off, the caller
 * counts the samples it writes and deletes itself
 * (src/db/writes/sample-counts.ts).
 */
export async function skipForeignKeyChecks(client: pg.ClientBase, table: string): Promise<boolean> {
  const { rows } = await client.query<{ only_foreign_keys: boolean }>(
    `WITH tree AS (SELECT $1::regclass AS relid UNION SELECT relid FROM pg_partition_tree($1::regclass))
     SELECT NOT EXISTS (
              SELECT 1 FROM pg_trigger t LEFT JOIN pg_constraint c ON c.oid = t.tgconstraint
              WHERE t.tgrelid IN (SELECT relid FROM tree) AND c.contype IS DISTINCT FROM 'f' AND t.tgname <> ALL ($2::text[]))
        AND NOT EXISTS (SELECT 1 FROM pg_rewrite r WHERE r.ev_class IN (SELECT relid FROM tree)) AS only_foreign_keys`,
    [table, SAMPLE_COUNT_TRIGGERS],
  );
  if (!rows[0].only_foreign_keys) return false;
  // Asked first where PostgreSQL can say (15 and later): a refused SET writes an ERROR to its log for every session.
  const { rows: asks } = await client.query<{ can_ask: boolean }>(`SELECT to_regprocedure('has_parameter_privilege(text, text)') IS NOT NULL AS can_ask`);
  if (asks[0].can_ask) {
    const { rows: allowed } = await client.query<{ may: boolean }>(
      `SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR has_parameter_privilege('session_replication_role', 'SET') AS may`,
    );
    if (!allowed[0].may) return false;
  }
  return client.query('SET session_replication_role = replica').then(
    () => true,
    () => false,
  );
}
