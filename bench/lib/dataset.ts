// The bench's demo cluster in bench/data/demo/: a few heavy users (≥ 10 M
// samples), generated once and reused while the marker file's parameters
// match. The cluster runs with fsync off (unsafeFast): a killed bench leaves
// the data intact, only an OS crash could not; a cluster without a marker (an
// interrupted generation) is wiped and generated again.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { localDayOf } from '../../src/core/local-days.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { demoUserId, generateDemo } from '../../src/demo/generate.js';
import { addLongRide, LONG_RIDE_UUID } from './long-ride.js';

export interface DatasetParams {
  users: number;
  days: number;
  seed: number;
  timeZone: string;
  scale: 'heavy';
}

export interface Dataset {
  db: EmbeddedDatabase;
  params: DatasetParams;
  /** Last generated local day. */
  endDay: string;
  userIds: string[];
  samples: number;
  /** Seconds the generation took, or null when the data was reused. */
  generatedIn: number | null;
  /** The 3 h, 4-stream workout the series bench reads. */
  longRideUuid: string;
}

export const DATASET: DatasetParams = { users: 3, days: 120, seed: 7, timeZone: 'Europe/Berlin', scale: 'heavy' };

interface Marker {
  params: DatasetParams;
  endDay: string;
  samples: number;
  seconds: number;
}

const sameParams = (a: DatasetParams, b: DatasetParams) => JSON.stringify(a) === JSON.stringify(b);

export async function openDataset(dataDir: string, params: DatasetParams, log: (line: string) => void): Promise<Dataset> {
  const markerFile = join(dataDir, 'dataset.json');
  const marker: Marker | null = existsSync(markerFile) ? JSON.parse(await readFile(markerFile, 'utf8')) : null;
  const reuse = marker !== null && sameParams(marker.params, params);
  if (!reuse && existsSync(dataDir)) {
    log(`dataset: ${marker ? 'parameters changed' : 'no complete dataset'}; generating a new one in ${dataDir}`);
    await rm(dataDir, { recursive: true, force: true });
  }
  const db = await startEmbeddedDatabase({ dir: dataDir, unsafeFast: true, log });
  const userIds = Array.from({ length: params.users }, (_, i) => demoUserId(params.seed, i));
  if (reuse) {
    // A dataset made before a newer migration gets it (versioned: nothing else changes).
    await applyMigrations(db.adminUrl, () => {});
    log(`dataset: reusing ${marker.samples} samples (${params.users} users × ${params.days} days ending ${marker.endDay})`);
    return { db, params, endDay: marker.endDay, userIds, samples: marker.samples, generatedIn: null, longRideUuid: LONG_RIDE_UUID };
  }
  try {
    await applyMigrations(db.adminUrl, () => {});
    const endDay = localDayOf(Date.now(), params.timeZone);
    log(`dataset: generating ${params.users} users × ${params.days} days (heavy), ending ${endDay} — a few minutes, once`);
    const result = await generateDemo(db.adminUrl, { ...params, endDay, log });
    await addLongRide(db.adminUrl, userIds[0], endDay, params.timeZone);
    const client = new pg.Client({ connectionString: db.adminUrl });
    await client.connect();
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
    await client.end();
    const seconds = Math.round(result.seconds);
    await writeFile(markerFile, JSON.stringify({ params, endDay, samples: result.samples, seconds } satisfies Marker, null, 2) + '\n');
    log(`dataset: ${result.samples} samples in ${seconds} s`);
    return { db, params, endDay, userIds, samples: result.samples, generatedIn: seconds, longRideUuid: LONG_RIDE_UUID };
  } catch (error) {
    await db.stop();
    throw error;
  }
}
