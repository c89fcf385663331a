// One 3-hour ride with four 1 Hz streams (heart rate, power, speed, cadence:
// 4 × 10,800 points) for the series bench: the demo's longest rides last two
// hours, and the issue measures /series on 4 streams × 3 h. Written straight
// into the storage contract's tables, two days before the last demo day.
import pg from 'pg';
import { dayStartMs } from '../../src/core/local-days.js';

export const LONG_RIDE_UUID = 'b3e0c0de-0000-4000-8000-000000000003';
const SECONDS = 3 * 3600;
const STREAMS: Array<[string, (t: number) => number]> = [
  ['HKQuantityTypeIdentifierHeartRate', (t) => Math.round(130 + 25 * Math.sin(t / 600) + 5 * Math.sin(t / 17))],
  ['HKQuantityTypeIdentifierCyclingPower', (t) => Math.round(190 + 60 * Math.sin(t / 300) + 20 * Math.sin(t / 7))],
  ['HKQuantityTypeIdentifierCyclingSpeed', (t) => Math.round((7 + 1.5 * Math.sin(t / 400)) * 100) / 100],
  ['HKQuantityTypeIdentifierCyclingCadence', (t) => Math.round(85 + 8 * Math.sin(t / 90))],
];

export async function addLongRide(adminUrl: string, userId: string, endDay: string, timeZone: string): Promise<void> {
  const startMs = dayStartMs(endDay, timeZone) - 2 * 86_400_000 + 9 * 3_600_000;
  const times = Array.from({ length: SECONDS }, (_, i) => startMs + i * 1000);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const source = await client.query<{ source_id: number }>(`SELECT source_id FROM sources WHERE name = 'Apple Watch' LIMIT 1`);
    await client.query(
      `INSERT INTO workouts (user_id, uuid, activity_type, start_ms, end_ms, duration_s, distance_m, energy_kcal, source_id, statistics, events, activities, metadata)
       VALUES ($1, $2, 'cycling', $3, $4, $5, 75600, 1850, $6, '{}', '[]', '[]', '{}')`,
      [userId, LONG_RIDE_UUID, startMs, startMs + SECONDS * 1000, SECONDS, source.rows[0]?.source_id ?? null],
    );
    for (const [identifier, value] of STREAMS) {
      await client.query(
        `INSERT INTO workout_streams (user_id, workout_uuid, type_id, times_ms, "values")
         VALUES ($1, $2, (SELECT type_id FROM sample_types WHERE identifier = $3), $4::bigint[], $5::float8[])`,
        [userId, LONG_RIDE_UUID, identifier, times, times.map((_, i) => value(i))],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}
