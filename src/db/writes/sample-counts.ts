// The per-user, per-type sample counts the catalog reads (migration 6): a row
// per writing statement and type, summed. Triggers append them for any
// writer; healthd's bulk writers skip the triggers with the foreign-key checks
// (bulk-load.ts) and count themselves: the receiver appends each batch's
// counts with its upload counts (countTypeUploads, ingest.ts), the importer
// and the demo count their users anew when done (recountSamples). Folding
// keeps the rows few. The same for the upload totals /v1/users reads
// (migration 7), whose triggers count every writer.
import type pg from 'pg';

/** First key of the advisory lock a fold holds for its user (ASCII "cnts"); the second is the user's hash. */
const FOLD_LOCK_KEY = 0x636e7473;

// One statement: the transaction-scoped lock is taken first (an InitPlan) and
// nothing is deleted unless it was free, so two folds of one user never wait
// for each other; rows other sessions append meanwhile are left alone.
const FOLD_COUNTS_SQL = `WITH gone AS (
     DELETE FROM sample_counts
     WHERE user_id = $1 AND (SELECT pg_try_advisory_xact_lock(${FOLD_LOCK_KEY}, hashtext($1::text)))
     RETURNING type_id, n
   )
   INSERT INTO sample_counts (user_id, type_id, n)
   SELECT $1, type_id, sum(n) FROM gone GROUP BY type_id HAVING sum(n) <> 0`;

/** Folds each user's sample counts into one row per type (skipped for a user another session is folding). */
export async function compactSampleCounts(client: pg.ClientBase, userIds: readonly string[]): Promise<void> {
  for (const userId of userIds) await client.query(FOLD_COUNTS_SQL, [userId]);
}

// The user's rows replaced by a count of the samples. Under the fold's lock,
// waited for, so no fold is half done; the count's snapshot is then taken
// after it: the rows it deletes and the samples it counts are those
// committed when it starts, and a writer committing later adds its own.
const RECOUNT_SQL = `WITH gone AS (DELETE FROM sample_counts WHERE user_id = $1)
   INSERT INTO sample_counts (user_id, type_id, n)
   SELECT $1, type_id, count(*) FROM samples WHERE user_id = $1 GROUP BY type_id`;

/** Counts each user's samples anew (after a bulk load that skipped the triggers); `client` must not be in a transaction. */
export async function recountSamples(client: pg.ClientBase, userIds: readonly string[]): Promise<void> {
  for (const userId of userIds) {
    await client.query('BEGIN');
    try {
      await client.query(`SELECT pg_advisory_xact_lock(${FOLD_LOCK_KEY}, hashtext($1::text))`, [userId]);
      await client.query(RECOUNT_SQL, [userId]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  }
}

/** First key of the advisory lock an upload-totals fold holds for its user (ASCII "upld"). */
const FOLD_TOTALS_LOCK_KEY = 0x75706c64;

const FOLD_TOTALS_SQL = `WITH gone AS (
     DELETE FROM upload_totals
     WHERE user_id = $1 AND (SELECT pg_try_advisory_xact_lock(${FOLD_TOTALS_LOCK_KEY}, hashtext($1::text)))
     RETURNING batches, samples
   )
   INSERT INTO upload_totals (user_id, batches, samples)
   SELECT $1, sum(batches), sum(samples) FROM gone HAVING sum(batches) <> 0 OR sum(samples) <> 0`;

/** Folds each user's upload totals into one row, as compactSampleCounts does the sample counts. */
export async function compactUploadTotals(client: pg.ClientBase, userIds: readonly string[]): Promise<void> {
  for (const userId of userIds) await client.query(FOLD_TOTALS_SQL, [userId]);
}
