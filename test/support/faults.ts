// Shared tools of the reliability and security tests: a raw HTTP/1.1 client
// (bytes in, parsed response out, and whether the body ended cleanly — fetch
// hides both), clients that hang up on purpose, the database-side counters a
// leak would show in (the API's sessions, export slots), and one hand-made
// person's worth of data in every table, each value traceable to its owner.
import { connect, type Socket } from 'node:net';
import pg from 'pg';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body ended as the protocol says (length reached, or the last chunk); false when the connection was cut first. */
  complete: boolean;
}

interface ParseState {
  head?: { status: number; headers: Record<string, string>; bodyStart: number };
}

/** The response in `data`, or undefined while its head has not fully arrived. */
function parse(data: Buffer, state: ParseState): RawResponse | undefined {
  if (!state.head) {
    const end = data.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const lines = data.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? NaN);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    state.head = { status, headers, bodyStart: end + 4 };
  }
  const { status, headers, bodyStart } = state.head;
  const raw = data.subarray(bodyStart);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = raw.indexOf('\r\n', at);
      if (lineEnd === -1) break;
      const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) break;
      if (size === 0) {
        const complete = raw.length >= lineEnd + 4;
        return { status, headers, body: Buffer.concat(chunks), complete };
      }
      if (raw.length < lineEnd + 2 + size + 2) break;
      chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    return { status, headers, body: Buffer.concat(chunks), complete: false };
  }
  const length = Number(headers['content-length'] ?? 0);
  return { status, headers, body: raw.subarray(0, length), complete: raw.length >= length };
}

export interface RawOptions {
  timeoutMs?: number;
  /** Called with the socket once the head arrived (e.g. to pause reading). */
  onHead?: (socket: Socket, response: RawResponse) => void;
}

/**
 * Sends `request` as is and reads one response. Resolves with the response
 * (complete or cut off), or null when the server closed without answering.
 */
export function rawRequest(port: number, request: string | Buffer, options: RawOptions = {}): Promise<RawResponse | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const parts: Buffer[] = [];
    let received = Buffer.alloc(0);
    const state: ParseState = {};
    let headSeen = false;
    let settled = false;
    const finish = (result: RawResponse | null | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => finish(new Error(`no complete response in ${options.timeoutMs ?? 15_000} ms`)), options.timeoutMs ?? 15_000);
    socket.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      received = Buffer.concat(parts);
      parts.length = 0;
      parts.push(received);
      const response = parse(received, state);
      if (!response) return;
      if (!headSeen) {
        headSeen = true;
        options.onHead?.(socket, response);
      }
      if (response.complete) finish(response);
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(state.head ? parse(received, state)! : null));
    socket.write(request);
  });
}

export function getRequest(path: string, headers: Record<string, string> = {}): string {
  const lines = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return lines.join('\r\n') + '\r\n\r\n';
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * Sends a request and hangs up: right after sending (`afterMs` 0), after a
 * delay, once `afterBytes` of the response arrived, or when the whole response
 * did. `reset` ends with a TCP RST instead of a FIN. Resolves with the bytes received.
 */
export function requestAndHangUp(port: number, request: string, how: { afterMs?: number; afterBytes?: number; reset?: boolean } = {}): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let bytes = 0;
    let done = false;
    const hangUp = () => {
      if (done) return;
      done = true;
      if (how.reset) socket.resetAndDestroy();
      else socket.destroy();
      resolve(bytes);
    };
    socket.on('error', hangUp);
    socket.on('close', hangUp);
    const parts: Buffer[] = [];
    const state: ParseState = {};
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (how.afterBytes !== undefined && bytes >= how.afterBytes) return hangUp();
      parts.push(chunk);
      // A whole answer (a 503, say) ends it too: the connection would idle until uWS closes it.
      if (parse(Buffer.concat(parts), state)?.complete) hangUp();
    });
    socket.write(request, () => {
      if (how.afterBytes !== undefined) return;
      if (!how.afterMs) hangUp();
      else setTimeout(hangUp, how.afterMs);
    });
  });
}

/** Runs `count` jobs with at most `width` at a time. */
export async function inParallel(count: number, width: number, job: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The API's sessions on one database, seen from an admin connection. */
export interface SessionCounts {
  /** Sessions of the query pool (application_name healthd). */
  api: number;
  /** Sessions of the export pool (healthd-export). */
  export: number;
  /** Sessions running a statement now. */
  active: number;
  /** Sessions left inside a transaction (a leaked cursor or client shows here). */
  idleInTransaction: number;
  /** Query-pool sessions waiting for a lock. */
  waitingOnLock: number;
  /** Advisory locks held: the export slots in use. */
  exportSlots: number;
}

/** Sessions on one database, of any application, left inside a transaction. */
export async function sessionsIdleInTransaction(adminUrl: string, database: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state LIKE 'idle in transaction%'`,
      [database],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

export async function sessionCounts(adminUrl: string, database: string): Promise<SessionCounts> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT
         count(*) FILTER (WHERE application_name = 'healthd')::int AS api,
         count(*) FILTER (WHERE application_name = 'healthd-export')::int AS export,
         count(*) FILTER (WHERE state = 'active')::int AS active,
         count(*) FILTER (WHERE state LIKE 'idle in transaction%')::int AS "idleInTransaction",
         count(*) FILTER (WHERE application_name = 'healthd' AND wait_event_type = 'Lock')::int AS "waitingOnLock",
         (SELECT count(*)::int FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE l.locktype = 'advisory' AND l.granted AND d.datname = $1) AS "exportSlots"
       FROM pg_stat_activity
       WHERE datname = $1 AND application_name IN ('healthd', 'healthd-export')`,
      [database],
    );
    return rows[0] as SessionCounts;
  } finally {
    await client.end();
  }
}

/** One person's data in every table the API reads, with values and names that say whose they are. */
export interface PersonData {
  userId: string;
  name: string;
  email: string;
  workoutUuid: string;
  sampleUuid: string;
  moodUuid: string;
  /** A source name only this person's samples carry. */
  source: string;
  /** Quantity values only this person has (steps per sample, per-day step sums; move kcal is daySum / 10). */
  stepValue: number;
  daySum: number;
  activityType: string;
  /** How far this person's nights are shifted (odd milliseconds), so their instants are theirs alone. */
  sleepShiftMs: number;
}

export const T0 = Date.UTC(2026, 0, 5); // a Monday, 00:00 UTC
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export const IDENTIFIERS = [
  'HKQuantityTypeIdentifierStepCount',
  'HKQuantityTypeIdentifierHeartRate',
  'HKQuantityTypeIdentifierActiveEnergyBurned',
  'HKQuantityTypeIdentifierRestingHeartRate',
  'HKQuantityTypeIdentifierBodyMass',
  'HKCategoryTypeIdentifierSleepAnalysis',
];

type Query = (sql: string, params?: unknown[]) => Promise<unknown[]>;

const typeId = (identifier: string) => `(SELECT type_id FROM sample_types WHERE identifier = '${identifier}')`;

/** Settings and the type rows every person's data needs; once per database. */
export async function seedCommon(query: Query, timeZone = 'UTC'): Promise<void> {
  await query(`INSERT INTO settings VALUES ('time_zone', $1) ON CONFLICT (key) DO UPDATE SET value = $1`, [timeZone]);
  await query(`INSERT INTO sample_types (identifier) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [IDENTIFIERS]);
}

/**
 * Seven days from T0 of one person's data: a profile, an upload batch, step
 * and heart-rate samples, daily step sums, activity rings, one workout with a
 * heart-rate stream of `streamPoints` points and a route, a night of sleep per
 * day, and one mood entry per day.
 */
export async function seedPerson(query: Query, person: PersonData, streamPoints = 600): Promise<void> {
  const { userId } = person;
  await query(`INSERT INTO users VALUES ($1, $2)`, [userId, T0 - DAY]);
  await query(`INSERT INTO profiles VALUES ($1, $2, $3, 315532800000, 'other', $4)`, [userId, person.name, person.email, T0]);
  await query(`INSERT INTO upload_batches VALUES ($1, $2, 100)`, [userId, T0 + 7 * DAY]);
  const [source] = (await query(`INSERT INTO sources (name) VALUES ($1) RETURNING source_id`, [person.source])) as { source_id: number }[];
  const sourceId = source.source_id;
  // Steps: one sample every hour for 7 days; heart rate every 10 minutes.
  await query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, CASE WHEN h = 0 THEN $2::uuid ELSE gen_random_uuid() END, ${typeId('HKQuantityTypeIdentifierStepCount')},
            $3::bigint + h * 3600000, $3::bigint + h * 3600000 + 60000, $4, $5
     FROM generate_series(0, 7 * 24 - 1) AS h`,
    [userId, person.sampleUuid, T0, person.stepValue, sourceId],
  );
  await query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), ${typeId('HKQuantityTypeIdentifierHeartRate')}, $2::bigint + m * 600000, $2::bigint + m * 600000, 60 + m % 40, $3
     FROM generate_series(0, 7 * 144 - 1) AS m`,
    [userId, T0, sourceId],
  );
  await query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), ${typeId('HKQuantityTypeIdentifierBodyMass')}, $2::bigint + d * 86400000 + 7 * 3600000, $2::bigint + d * 86400000 + 7 * 3600000, 70, $3
     FROM generate_series(0, 6) AS d`,
    [userId, T0, sourceId],
  );
  // Sleep: in bed 23:00–07:00, asleep (core) 23:30–06:30, ending on days 1..7; shifted by sleepShiftMs.
  await query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), ${typeId('HKCategoryTypeIdentifierSleepAnalysis')}, b, e, v, $3
     FROM generate_series(0, 6) AS d,
          LATERAL (VALUES ($2::bigint + d * 86400000 + 23 * 3600000, $2::bigint + d * 86400000 + 31 * 3600000, 0),
                          ($2::bigint + d * 86400000 + 23 * 3600000 + 1800000, $2::bigint + d * 86400000 + 30 * 3600000 + 1800000, 3)) AS s(b, e, v)`,
    [userId, T0 + person.sleepShiftMs, sourceId],
  );
  await query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum)
     SELECT $1, ${typeId('HKQuantityTypeIdentifierStepCount')}, (to_timestamp($2::bigint / 1000) AT TIME ZONE 'UTC')::date + d, $3
     FROM generate_series(0, 6) AS d`,
    [userId, T0, person.daySum],
  );
  await query(
    `INSERT INTO daily_aggregates (user_id, type_id, day, avg, min, max)
     SELECT $1, ${typeId('HKQuantityTypeIdentifierRestingHeartRate')}, (to_timestamp($2::bigint / 1000) AT TIME ZONE 'UTC')::date + d, 55, 50, 60
     FROM generate_series(0, 6) AS d`,
    [userId, T0],
  );
  await query(
    `INSERT INTO activity_summaries (user_id, day, move_kcal, move_goal_kcal, exercise_min, exercise_goal_min, stand_hours, stand_goal_hours, move_mode)
     SELECT $1, (to_timestamp($2::bigint / 1000) AT TIME ZONE 'UTC')::date + d, $3, 500, 30, 30, 12, 12, 1
     FROM generate_series(0, 6) AS d`,
    [userId, T0, person.daySum / 10],
  );
  const start = T0 + 2 * DAY + 18 * HOUR;
  await query(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, source_id, statistics, events, activities)
     VALUES ($1, $2, $3, $4::bigint, $4::bigint + 3600000, 3600, 10000, 600, $5, '{"HKQuantityTypeIdentifierHeartRate": {"avg": 150}}', '[]', '[]')`,
    [userId, person.workoutUuid, person.activityType, start, sourceId],
  );
  await query(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
     SELECT $1, $2, ${typeId('HKQuantityTypeIdentifierHeartRate')}, array_agg($3::bigint + i * 1000 ORDER BY i), array_agg(120 + i % 50 ORDER BY i)
     FROM generate_series(0, $4::int - 1) AS i`,
    [userId, person.workoutUuid, start, streamPoints],
  );
  await query(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m)
     VALUES ($1, $2, ARRAY[$3::bigint], ARRAY[52.5::float8], ARRAY[13.4::float8], ARRAY[40::float8])`,
    [userId, person.workoutUuid, start],
  );
  await query(
    `INSERT INTO state_of_mind (user_id, uuid, logged_at_ms, kind, valence, valence_classification, labels, associations)
     SELECT $1, CASE WHEN d = 0 THEN $2::uuid ELSE gen_random_uuid() END, $3::bigint + d * 86400000 + 20 * 3600000, 'dailyMood', 0.5, 'slightlyPleasant', ARRAY[$4], ARRAY['work']
     FROM generate_series(0, 6) AS d`,
    [userId, person.moodUuid, T0, person.name + '-feeling'],
  );
}

/** `count` extra heart-rate samples spread over the 30 days from T0: bulk for exports that must outlast a socket buffer. */
export async function seedBulkSamples(query: Query, userId: string, count: number): Promise<void> {
  await query(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), ${typeId('HKQuantityTypeIdentifierHeartRate')}, t, t, 70.25, NULL
     FROM (SELECT $2::bigint + (i::bigint * 30 * 86400000) / $3 AS t FROM generate_series(0, $3::int - 1) AS i) AS s`,
    [userId, T0, count],
  );
}

export const person = (n: number, overrides: Partial<PersonData> = {}): PersonData => {
  const hex = n.toString(16).padStart(12, '0');
  return {
    userId: `00000000-0000-4000-8000-${hex}`,
    name: `Person${n}`,
    email: `person${n}@example.org`,
    workoutUuid: `10000000-0000-4000-8000-${hex}`,
    sampleUuid: `20000000-0000-4000-8000-${hex}`,
    moodUuid: `30000000-0000-4000-8000-${hex}`,
    source: `Watch of person ${n}`,
    stepValue: 7777.125 + n,
    daySum: 88888.5 + n,
    activityType: n % 2 ? 'running' : 'cycling',
    sleepShiftMs: n * 7_013,
    ...overrides,
  };
};

/**
 * One well-formed request per /v1 operation, for the given person's seeded
 * week. test/foundation.test.ts checks these are every /v1 operation of the
 * route table, so no check that walks them can miss one.
 */
export function validPaths(who: PersonData, user?: string): { operationId: string; path: string }[] {
  const end = T0 + 7 * DAY;
  const u = user === undefined ? '' : `&user=${user}`;
  const all: Record<string, string> = {
    listUsers: `/v1/users?x=1${u}`,
    getProfile: `/v1/profile?x=1${u}`,
    listCatalogTypes: `/v1/catalog/types?x=1${u}`,
    getLatestMetrics: `/v1/metrics/latest?types=HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierHeartRate${u}`,
    getDailyMetrics: `/v1/metrics/daily?types=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${end}${u}`,
    getActivitySummary: `/v1/activity/summary?start=${T0}&end=${end}${u}`,
    listWorkouts: `/v1/workouts?start=${T0}&end=${end}${u}`,
    getWorkout: `/v1/workouts/${who.workoutUuid}?x=1${u}`,
    getWorkoutSeries: `/v1/workouts/${who.workoutUuid}/series?maxPoints=100${u}`,
    getWorkoutRoute: `/v1/workouts/${who.workoutUuid}/route?maxPoints=100${u}`,
    getSleepNights: `/v1/sleep/daily?start=${T0}&end=${end}${u}`,
    getSamples: `/v1/samples?type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${end}${u}`,
    getStateOfMind: `/v1/state-of-mind?start=${T0}&end=${end}${u}`,
    getSummary: `/v1/summary?range=7d&format=json${u}`,
    exportDataset: `/v1/export?format=csv&dataset=samples&type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${end}${u}`,
  };
  return Object.entries(all).map(([operationId, path]) => ({ operationId, path }));
}

/** Strings only this person's data contains: none of them may appear in an answer for anyone else. */
export function markersOf(who: PersonData): string[] {
  return [
    who.userId, who.name, who.email, who.workoutUuid, who.sampleUuid, who.moodUuid, who.source,
    String(who.stepValue), String(who.daySum), String(who.daySum / 10), String(T0 + 23 * HOUR + who.sleepShiftMs),
  ];
}

/** Writes `parts` on one connection as they are (what fetch would merge, drop or refuse to send), answered with all the server sent until it closed (3 s at most). */
export function rawExchange(port: number, parts: Array<string | Buffer>): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
    setTimeout(() => socket.destroy(), 3_000);
    for (const part of parts) socket.write(part);
  });
}

/**
 * A read that sends a statement of its own for every request, the samples
 * page's COPY (most reads fold the requests of a turn into one statement,
 * src/db/fold.ts): to hold queries on a lock of its table.
 */
export const OWN_STATEMENT_READ = { path: `/v1/samples?type=HKQuantityTypeIdentifierStepCount&start=${T0}&end=${T0 + DAY}`, table: 'samples' } as const;
