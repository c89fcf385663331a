// The per-user, per-type sample counts the catalog reads (migration 6): a row
// per writing statement and type, summed. Triggers append them for any
// writer; healthd's bulk writers skip the triggers with the foreign-key checks
// (bulk-load.ts) and count themselves: the receiver appends each batch's
// counts with its upload counts (countTypeUploads, ingest.ts), the importer
// and the demo count their users anew when done (recountSamples); the
// importer marks its user stale while it writes (migration 8), so that the
// catalog counts that user's samples itself until the recount, also when the
// import was killed before it. Folding keeps the rows few. The same for the
// upload totals /v1/users reads (migration 7), whose triggers count every
// writer.
import type pg from 'pg';

/** First key of the advisory lock a fold holds for its user (ASCII "cnts"); the second is the user's hash. */
const FOLD_LOCK_KEY = 0x636e7473;

/**
 * Folds a user's rows of `table` into one per `keys` with the `sums` summed
 * (none where every sum is 0). One statement: the transaction-scoped lock
 * (`lockKey`, the user's hash) is taken first (an InitPlan) and nothing is
 * deleted unless it was free, so two folds of one user never wait for each
 * other; rows other sessions append meanwhile are left alone.
 */
const foldSql = (table: string, lockKey: number, keys: readonly string[], sums: readonly string[]): string => `WITH gone AS (
     DELETE FROM ${table}
     WHERE user_id = $1 AND (SELECT pg_try_advisory_xact_lock(${lockKey}, hashtext($1::text)))
     RETURNING ${[...keys, ...sums].join(', ')}
   )
   INSERT INTO ${table} (user_id, ${[...keys, ...sums].join(', ')})
   SELECT $1, ${[...keys, ...sums.map((column) => `sum(${column})`)].join(', ')} FROM gone
   ${keys.length > 0 ? `GROUP BY ${keys.join(', ')}` : ''} HAVING ${sums.map((column) => `sum(${column}) <> 0`).join(' OR ')}`;

const FOLD_COUNTS_SQL = foldSql('sample_counts', FOLD_LOCK_KEY, ['type_id'], ['n']);

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

const FOLD_TOTALS_SQL = foldSql('upload_totals', FOLD_TOTALS_LOCK_KEY, [], ['batches', 'samples']);

/** Folds each user's upload totals into one row, as compactSampleCounts does the sample counts. */
export async function compactUploadTotals(client: pg.ClientBase, userIds: readonly string[]): Promise<void> {
  for (const userId of userIds) await client.query(FOLD_TOTALS_SQL, [userId]);
}

/**
 * First key of the advisory lock a writer that skips the counting triggers
 * holds, shared, for its user while it writes (ASCII "stal"); the second is
 * the user's hash. Held by the session: a killed writer lets go of it.
 */
const UNCOUNTED_LOCK_KEY = 0x7374616c;

/**
 * Before a bulk writer that may skip the counting triggers writes a user's
 * samples: takes the shared lock and marks the user's counts stale (committed
 * at once, so the catalog counts that user's samples itself meanwhile). End
 * with recountSamples, then endUncountedWrites. `client` must not be in a transaction.
 */
export async function beginUncountedWrites(client: pg.ClientBase, userId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_lock_shared(${UNCOUNTED_LOCK_KEY}, hashtext($1::text))`, [userId]);
  await client.query('INSERT INTO stale_sample_counts (user_id, since_ms) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [userId, Date.now()]);
}

/** After the recount: lets go of the lock, and clears the mark unless another such writer of the user is still at it (it clears it when done). */
export async function endUncountedWrites(client: pg.ClientBase, userId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_unlock_shared(${UNCOUNTED_LOCK_KEY}, hashtext($1::text))`, [userId]);
  await whileNoWriter(client, userId, () => client.query('DELETE FROM stale_sample_counts WHERE user_id = $1', [userId]));
}

/**
 * Recounts the users marked stale whose writer is gone (killed before it
 * recounted) and clears their marks; a user whose writer is still at it is
 * left alone. Answers the users recounted. `client` must not be in a transaction.
 */
export async function recoverStaleCounts(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ user_id: string }>('SELECT user_id FROM stale_sample_counts ORDER BY user_id');
  const recounted: string[] = [];
  for (const { user_id: userId } of rows) {
    await whileNoWriter(client, userId, async () => {
      await recountSamples(client, [userId]);
      await client.query('DELETE FROM stale_sample_counts WHERE user_id = $1', [userId]);
      recounted.push(userId);
    });
  }
  return recounted;
}

/** Runs `work` holding the user's lock exclusively, if no writer holds it; otherwise does nothing. */
async function whileNoWriter(client: pg.ClientBase, userId: string, work: () => Promise<unknown>): Promise<void> {
  const { rows } = await client.query<{ free: boolean }>(`SELECT pg_try_advisory_lock(${UNCOUNTED_LOCK_KEY}, hashtext($1::text)) AS free`, [userId]);
  if (!rows[0].free) return;
  try {
    await work();
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${UNCOUNTED_LOCK_KEY}, hashtext($1::text))`, [userId]);
  }
}
