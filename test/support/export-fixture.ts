// The export tests' shared fixture (America/New_York): hand-made rows of every
// dataset for two users, a bulk type that outlasts the socket buffers, and
// the clients the tests read files with (whole responses, raw bytes with the
// chunk framing kept, CSV and JSONL parsing). Expected files in the tests are
// written out by hand from these rows.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before } from 'node:test';
import { createTestDatabase, stopOwnCluster, type TestDatabase } from './db.js';
import { bearer, getRequest, rawRequest, type RawResponse } from './faults.js';
import { DEFAULT_USER, TEST_TOKEN, startServer, type TestServer } from './server.js';

export const ZONE = 'America/New_York';
export const OTHER_USER = '00000000-0000-4000-8000-000000000002';
export const Q = 'HKQuantityTypeIdentifier';
export const HEART = `${Q}HeartRate`;
export const STEPS = `${Q}StepCount`;
export const RHR = `${Q}RestingHeartRate`;
export const POWER = `${Q}RunningPower`;
export const TEMP = `${Q}BodyTemperature`;
export const BULK = `${Q}EnvironmentalAudioExposure`;
export const SLEEP = 'HKCategoryTypeIdentifierSleepAnalysis';
export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const BULK_ROWS = 150_000;
export const BULK_START = Date.UTC(2025, 11, 1);
/** Thirty quantity types: 20 cumulative (daily sum), then 10 discrete (daily mean). */
export const DAILY_TYPES = [
  'ActiveEnergyBurned', 'AppleExerciseTime', 'AppleMoveTime', 'AppleStandTime', 'BasalEnergyBurned', 'DietaryCaffeine', 'DietaryCarbohydrates',
  'DietaryEnergyConsumed', 'DietaryFatTotal', 'DietaryFiber', 'DietaryProtein', 'DietarySodium', 'DietarySugar', 'DietaryWater', 'DistanceCycling',
  'DistanceSwimming', 'DistanceWalkingRunning', 'FlightsClimbed', 'SwimmingStrokeCount', 'TimeInDaylight',
  'BloodGlucose', 'BodyMass', 'BodyMassIndex', 'Height', 'LeanBodyMass', 'OxygenSaturation', 'VO2Max', 'WalkingHeartRateAverage', 'WaistCircumference', 'WalkingSpeed',
].map((name) => Q + name);

export const at = (iso: string) => Date.parse(iso);
export const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;


/**
 * A test file's fixture: a database with the rows below and a server on it
 * (multi-user reads on), made before the file's tests and dropped after; the
 * clients read through that server.
 */
export function exportFixture(env: Record<string, string> = {}) {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;
  before(async () => {
    ({ db, server } = await startExportFixture(env));
  });
  after(async () => {
    await server?.stop();
    await db?.drop();
    await stopOwnCluster();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the export fixture is not started yet');
    return value;
  };
  return {
    get db() {
      return started(db);
    },
    get server() {
      return started(server);
    },
    fetchRaw: (query: string) => fetchRaw(started(server), query),
    download: (query: string) => download(started(server), query),
    advisoryLocks: () => advisoryLocks(started(db)),
    rawExport: (query: string, options: { target?: TestServer; pauseAtHead?: boolean; readNothing?: boolean; token?: string } = {}) => rawExport(options.target ?? started(server), query, options),
  };
}

/** A database with the fixture and a server on it (multi-user reads on). */
export async function startExportFixture(env: Record<string, string> = {}): Promise<{ db: TestDatabase; server: TestServer }> {
  const db = await createTestDatabase();
  await seedExportFixture(db);
  const server = await startServer({ databaseUrl: db.url, env: { SERVICE_TIME_ZONE: ZONE, SERVICE_MULTI_USER: 'true', ...env } });
  return { db, server };
}

export async function seedExportFixture(db: TestDatabase): Promise<void> {
  const q = db.query;
  await q(`INSERT INTO settings VALUES ('time_zone', $1)`, [ZONE]);
  await q(`INSERT INTO users VALUES ($1, 1), ($2, 2)`, [DEFAULT_USER, OTHER_USER]);
  await q(`INSERT INTO sample_types (type_id, identifier) VALUES (1, $1), (2, $2), (3, $3), (4, $4), (5, $5), (6, $6), (7, $7)`, [HEART, STEPS, RHR, SLEEP, TEMP, BULK, POWER]);
  await q(`INSERT INTO sample_types (type_id, identifier) SELECT 100 + k, identifier FROM unnest($1::text[]) WITH ORDINALITY AS u (identifier, k)`, [DAILY_TYPES]);
  await q(
    `INSERT INTO sources (source_id, name, device) VALUES
     (1, 'Apple Watch', 'Watch7,1'), (2, 'Watch, "Series 9"', ''), (3, '=HYPERLINK("x")', ''), (4, 'Zürich ⌚', ''), (5, '', ''), (6, 'iPhone', '')`,
  );

  // samples: heart rate in [10:00:00Z, 10:01:00Z) on 2026-01-10, and around it.
  const t = at('2026-01-10T10:00:00Z');
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     ($1, '${uuid(2)}', 1, ${t}, ${t + 1000}, 72, 1),
     ($1, '${uuid(1).toUpperCase()}', 1, ${t}, ${t + 1000}, NULL, NULL),
     ($1, '${uuid(3)}', 1, ${t + 5000}, ${t + 6000}, 0.30000000000000004, 2),
     ($1, '${uuid(4)}', 1, ${t + 6000}, ${t + 6000}, 1e21, 3),
     ($1, '${uuid(5)}', 1, ${t + 7000}, ${t + 8000}, 1e-7, 4),
     ($1, '${uuid(6)}', 1, ${t + 8000}, ${t + 9000}, '-0', 5),
     ($1, '${uuid(7)}', 1, ${t - 1}, ${t}, 60, 1),
     ($1, '${uuid(8)}', 1, ${t + 60000}, ${t + 61000}, 61, 1),
     ($2, '${uuid(9)}', 1, ${t + 1000}, ${t + 2000}, 150, 1),
     ($1, '${uuid(10)}', 4, ${t}, ${t + 600000}, 3, 1),
     ($1, '${uuid(11)}', 4, ${t + 600000}, ${t + 900000}, 9, 1),
     ($1, '${uuid(12)}', 5, ${t}, ${t + 1000}, 36.6, 1),
     ($1, '${uuid(13)}', 5, ${t + 1000}, ${t + 2000}, 'NaN', 1)`,
    [DEFAULT_USER, OTHER_USER],
  );
  // Bulk rows for exports that must outlast the socket buffers.
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id)
     SELECT $1, gen_random_uuid(), 6, $2::bigint + i * 10000, $2::bigint + i * 10000 + 5000, 40 + i % 50, 1 FROM generate_series(0, $3 - 1) AS i`,
    [DEFAULT_USER, BULK_START, BULK_ROWS],
  );

  // daily_metrics: steps 01-04…01-07, resting heart rate 01-05 (mean) and 01-06 (no mean: left out).
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg, min, max) VALUES
     ($1, 2, '2026-01-04', 999, NULL, NULL, NULL), ($1, 2, '2026-01-05', 1234, NULL, NULL, NULL),
     ($1, 2, '2026-01-06', 1e21, NULL, NULL, NULL), ($1, 2, '2026-01-07', 777, NULL, NULL, NULL),
     ($1, 3, '2026-01-05', NULL, 58.25, 50, 70), ($1, 3, '2026-01-06', NULL, NULL, 50, 50),
     ($2, 2, '2026-01-05', 5555, NULL, NULL, NULL)`,
    [DEFAULT_USER, OTHER_USER],
  );
  // daily_metrics, whole range: 30 types × every day from 2024-12-31 to 2026-01-01; value = type index × 1000 + day of 2025.
  await q(
    `INSERT INTO daily_aggregates (user_id, type_id, day, sum, avg)
     SELECT $1, t.type_id, d::date,
            CASE WHEN k <= 20 THEN k * 1000 + (d::date - '2024-12-31'::date) END,
            CASE WHEN k > 20 THEN k * 1000 + (d::date - '2024-12-31'::date) END
     FROM unnest($2::text[]) WITH ORDINALITY AS ty (identifier, k)
     JOIN sample_types t ON t.identifier = ty.identifier
     CROSS JOIN generate_series('2024-12-31'::date, '2026-01-01'::date, '1 day') AS d`,
    [DEFAULT_USER, DAILY_TYPES],
  );

  // workouts: three by hand in [01-09, 01-12), 250 walks from 2025-06-01 hourly, one of someone else's.
  await q(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal) VALUES
     ($1, '${uuid(21)}', 'running', ${at('2026-01-10T12:00Z')}, ${at('2026-01-10T12:30Z')}, 1800, 5000.5, 300),
     ($1, '${uuid(22)}', 'yoga', ${at('2026-01-11T12:00Z')}, ${at('2026-01-11T13:00Z')}, NULL, NULL, NULL),
     ($1, '${uuid(23)}', 'running', ${at('2026-01-09T12:00Z')}, ${at('2026-01-09T12:20Z')}, 1200.5, 3000, 150.25),
     ($2, '${uuid(24)}', 'running', ${at('2026-01-10T13:00Z')}, ${at('2026-01-10T14:00Z')}, 3600, 1, 1)`,
    [DEFAULT_USER, OTHER_USER],
  );
  await q(
    `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s)
     SELECT $1, gen_random_uuid(), 'walking', $2::bigint + i * ${HOUR}, $2::bigint + i * ${HOUR} + 600000, 600 FROM generate_series(0, 249) AS i`,
    [DEFAULT_USER, at('2025-06-01T00:00Z')],
  );
  await q(
    `INSERT INTO workout_routes (user_id, workout_uuid, times_ms, latitudes, longitudes, altitudes_m) VALUES
     ($1, '${uuid(21)}', '{1,2}', '{47.1,47.2}', '{8.1,8.2}', '{400,401}'),
     ($1, '${uuid(22)}', '{}', '{}', '{}', '{}')`,
    [DEFAULT_USER],
  );
  await q(
    `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values") VALUES
     ($1, '${uuid(21)}', 7, '{1}', '{250}'), ($1, '${uuid(21)}', 1, '{1}', '{150}')`,
    [DEFAULT_USER],
  );

  // sleep: a night waking on 01-20 (watch staged, phone in bed) and one from 21:00 on 01-20 to 04:00 on 01-21.
  await q(
    `INSERT INTO samples (user_id, uuid, type_id, start_ms, end_ms, value, source_id) VALUES
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T03:00Z')}, ${at('2026-01-20T11:00Z')}, 0, 6),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T03:30Z')}, ${at('2026-01-20T07:30Z')}, 3, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T07:30Z')}, ${at('2026-01-20T08:30Z')}, 4, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T08:30Z')}, ${at('2026-01-20T10:30Z')}, 5, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-20T10:30Z')}, ${at('2026-01-20T10:40:30Z')}, 2, 1),
     ($1, gen_random_uuid(), 4, ${at('2026-01-21T02:00Z')}, ${at('2026-01-21T09:00Z')}, 1, 6)`,
    [DEFAULT_USER],
  );

  // activity: 01-20 in active-energy mode; 01-21 in move-time mode with the other rings untracked.
  await q(
    `INSERT INTO activity_summaries VALUES
     ($1, '2026-01-20', 500.5, 600, 30, 30, 10, 12, NULL, NULL, 1),
     ($1, '2026-01-21', NULL, NULL, NULL, NULL, NULL, NULL, 45, 60, 2),
     ($1, '2026-01-22', 1, 1, 1, 1, 1, 1, NULL, NULL, 1)`,
    [DEFAULT_USER],
  );

  // state of mind: 01-20 at 07:00 local, and at 23:30 local (04:30Z on 01-21) with no lists.
  await q(
    `INSERT INTO state_of_mind VALUES
     ($1, '${uuid(31)}', ${at('2026-01-20T12:00Z')}, 'momentaryEmotion', -0.5, 'slightlyUnpleasant', '{Stressed,Anxious}', '{Work}'),
     ($1, '${uuid(32)}', ${at('2026-01-21T04:30Z')}, 'dailyMood', NULL, NULL, NULL, '{}'),
     ($1, '${uuid(33)}', ${at('2026-01-21T05:00Z')}, 'dailyMood', 1, 'veryPleasant', '{Happy}', '{}')`,
    [DEFAULT_USER],
  );
  await q('ANALYZE');
}

export const exportPath = (query: string) => `/v1/export?${query}`;

/** The whole response over a raw socket: status, headers, body, and whether it ended cleanly. */
export async function fetchRaw(server: TestServer, query: string): Promise<RawResponse> {
  const response = await rawRequest(server.port, getRequest(exportPath(query), bearer(TEST_TOKEN)), { timeoutMs: 60_000 });
  assert.ok(response, 'the server answered');
  return response;
}

export async function download(server: TestServer, query: string): Promise<string> {
  const response = await fetchRaw(server, query);
  assert.equal(response.status, 200, `${query} → ${response.body.toString()}`);
  assert.equal(response.complete, true, 'the file ends cleanly');
  return response.body.toString('utf8');
}

export const jsonl = (text: string): any[] => text.split('\n').slice(0, -1).map((line) => JSON.parse(line));

/** Splits one CSV file into records of cells (null for an unquoted empty cell), per RFC 4180. */
export function parseCsv(text: string): (string | null)[][] {
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    let cell: string | null;
    if (text[i] === '"') {
      cell = '';
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        cell += text.slice(i, close);
        if (text[close + 1] === '"') i = close + 2, (cell += '"');
        else {
          i = close + 1;
          break;
        }
      }
    } else {
      const stop = text.slice(i).search(/,|\r\n/);
      const raw = text.slice(i, i + stop);
      cell = raw === '' ? null : raw;
      i += stop;
    }
    record.push(cell);
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else i++;
  }
  return records;
}

/** Export slots held right now (advisory locks in the fixture's database). */
export const advisoryLocks = async (db: TestDatabase): Promise<number> =>
  Number((await db.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`))[0].n);

/**
 * An export over a raw socket, the bytes kept as they came: uWS sends a
 * chunk's closing CRLF with the next one, so a parser waiting for whole chunks
 * would not show the bytes of a cut-off file. `pauseAtHead` stops reading once
 * the head is in (until `resume`). `clean` is whether the terminating
 * zero-length chunk arrived (the client then hangs up; otherwise the server
 * closed the connection). `readNothing` reads not even the head (until
 * `resume`): the kernel then buffers no more than its defaults, where a
 * client that has read keeps growing its receive window. `token`: the bearer
 * (SERVICE_API_TOKEN when not given).
 */
export function rawExport(target: TestServer, query: string, options: { pauseAtHead?: boolean; readNothing?: boolean; token?: string } = {}) {
  const socket = connect(target.port, '127.0.0.1');
  const parts: Buffer[] = [];
  let headArrived!: () => void;
  const headSeen = new Promise<void>((resolve) => (headArrived = resolve));
  const received = () => Buffer.concat(parts).toString('utf8');
  let paused = false;
  const TERMINATOR = '\r\n0\r\n\r\n';
  /** The last bytes seen, to spot the terminating chunk without joining everything on every read. */
  let tail = '';
  const finished = new Promise<{ status: number; body: string; clean: boolean }>((resolve) => {
    const done = () => {
      const text = received();
      const bodyAt = text.indexOf('\r\n\r\n') + 4;
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(bodyAt), clean: text.endsWith(TERMINATOR) });
    };
    socket.on('data', (data: Buffer) => {
      parts.push(data);
      if (!paused && received().includes('\r\n\r\n')) {
        paused = true;
        if (options.pauseAtHead) socket.pause();
        headArrived();
      }
      tail = (tail + data.toString('latin1')).slice(-TERMINATOR.length);
      // The file is whole: no need to wait for the server to close the kept-alive connection.
      if (tail === TERMINATOR) socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', done);
  });
  socket.write(getRequest(exportPath(query), bearer(options.token ?? TEST_TOKEN)));
  if (options.readNothing) socket.pause();
  return {
    headSeen,
    finished,
    /** The body bytes so far (chunk framing included). */
    body: () => received().slice(received().indexOf('\r\n\r\n') + 4),
    resume: () => socket.resume(),
    hangUp: () => socket.destroy(),
  };
}

