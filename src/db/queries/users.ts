// Users (with their upload totals) and profiles.
import { prepared, type Db } from '../pool.js';
import { foldedRead } from '../fold.js';
import { readPrepared } from '../prepared-read.js';
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

/** Every user, oldest first (bench/baselines/fastify.ts runs it too, unprepared). */
export const ALL_USERS_SQL = `
  SELECT ${USER_COLUMNS}
  FROM users u
  LEFT JOIN profiles p ON p.user_id = u.user_id
  LEFT JOIN (${BATCH_TOTALS} GROUP BY user_id) b ON b.user_id = u.user_id
  ORDER BY u.created_at_ms, u.user_id`;

const ALL_USERS = prepared(ALL_USERS_SQL);

// Users and profiles are read for every request that names one: the requests
// of a turn fold into one statement (src/db/fold.ts), each user looked up once.
const SOME_USERS = prepared(`
  SELECT ${USER_COLUMNS}
  FROM users u
  LEFT JOIN profiles p ON p.user_id = u.user_id
  LEFT JOIN (${BATCH_TOTALS} WHERE user_id = ANY($1::uuid[]) GROUP BY user_id) b ON b.user_id = u.user_id
  WHERE u.user_id = ANY($1::uuid[])`);

/** The profiles of the users $1 (uuid[]) names (bench/prepared-read.ts reads it too). */
export const PROFILES_SQL = `SELECT user_id::text AS "userID", name, email, date_of_birth_ms AS "dateOfBirth", biological_sex AS "biologicalSex"
   FROM profiles WHERE user_id = ANY($1::uuid[])`;

const PROFILES = prepared(PROFILES_SQL);

/** The rows of `userIds` (uuids in lower case, as the rows give them back) in their order; undefined for one without a row. */
const byUser = <T extends { userID: string }>(rows: T[], userIds: readonly string[]): Array<T | undefined> => {
  const found = new Map(rows.map((row) => [row.userID, row]));
  return userIds.map((id) => found.get(id));
};

const allUsers = foldedRead<null, UserT[]>(async (db) => [await readPrepared<UserT>(db, ALL_USERS([]))]);
const oneUser = foldedRead<string, UserT | undefined>(async (db, userIds) => byUser(await readPrepared<UserT>(db, SOME_USERS([userIds])), userIds));
const oneProfile = foldedRead<string, ProfileT | undefined>(async (db, userIds) => byUser(await readPrepared<ProfileT>(db, PROFILES([userIds])), userIds));

export const listAllUsers = (db: Db): Promise<UserT[]> => allUsers(db, '', null);

/** `userId` a uuid in lower case. */
export const findUser = (db: Db, userId: string): Promise<UserT | undefined> => oneUser(db, userId, userId);

/** `userId` a uuid in lower case. */
export const findProfile = (db: Db, userId: string): Promise<ProfileT | undefined> => oneProfile(db, userId, userId);
