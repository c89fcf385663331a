// Users (with their upload totals) and profiles.
import { prepared, type Db } from '../pool.js';
import type { ProfileT, UserT } from '../../schemas/resources.js';

// A user's batches and samples are the sums of their upload_totals rows
// (migration 7: a few rows a user, whatever the history); the newest upload
// is one backward step of the upload_batches (user_id, received_at_ms) index.
/** SQL: the newest upload of the user `userId` (an SQL expression) names, null when none. */
export const newestUploadSql = (userId: string): string => `(SELECT max(received_at_ms) FROM upload_batches WHERE user_id = ${userId})`;

const USER_COLUMNS = `
  u.user_id::text AS "userID", p.name, p.email, u.created_at_ms AS "createdAt",
  ${newestUploadSql('u.user_id')} AS "lastSync",
  coalesce(b.batches, 0)::bigint AS batches, coalesce(b.uploaded, 0)::bigint AS "uploadedSamples"`;

const BATCH_TOTALS = `
  SELECT user_id, sum(batches) AS batches, sum(samples) AS uploaded
  FROM upload_totals`;

const ALL_USERS = prepared(`
  SELECT ${USER_COLUMNS}
  FROM users u
  LEFT JOIN profiles p ON p.user_id = u.user_id
  LEFT JOIN (${BATCH_TOTALS} GROUP BY user_id) b ON b.user_id = u.user_id
  ORDER BY u.created_at_ms, u.user_id`);

const ONE_USER = prepared(`
  SELECT ${USER_COLUMNS}
  FROM users u
  LEFT JOIN profiles p ON p.user_id = u.user_id
  LEFT JOIN (${BATCH_TOTALS} WHERE user_id = $1 GROUP BY user_id) b ON b.user_id = u.user_id
  WHERE u.user_id = $1`);

const PROFILE = prepared(
  `SELECT user_id::text AS "userID", name, email, date_of_birth_ms AS "dateOfBirth", biological_sex AS "biologicalSex"
   FROM profiles WHERE user_id = $1`,
);

export async function listAllUsers(db: Db): Promise<UserT[]> {
  const { rows } = await db.query<UserT>(ALL_USERS([]));
  return rows;
}

export async function findUser(db: Db, userId: string): Promise<UserT | undefined> {
  const { rows } = await db.query<UserT>(ONE_USER([userId]));
  return rows[0];
}

export async function findProfile(db: Db, userId: string): Promise<ProfileT | undefined> {
  const { rows } = await db.query<ProfileT>(PROFILE([userId]));
  return rows[0];
}

