// Upload batches of a demo day: the phone syncs two to four times, and the
// counts the batches declare add up to the samples written for that day. On
// the demo's last day, syncs after its end instant have not happened yet:
// what they would have carried goes in one sync at that instant.
import { atHour, randomFor, type DemoDay } from './day.js';

export interface UploadBatch {
  receivedAtMs: number;
  sampleCount: number;
}

const SYNC_HOURS: ReadonlyArray<readonly [number, number]> = [[8.5, 9.5], [12.5, 14], [18.5, 21], [22.6, 23.4]];

export function uploadBatches(day: DemoDay, samples: number, endAt = Infinity): UploadBatch[] {
  const random = randomFor(day, 'batches');
  const hours = SYNC_HOURS.filter((_, i) => i === SYNC_HOURS.length - 1 || random.chance(0.6));
  const weights = hours.map(() => random.between(0.5, 1.5));
  const total = weights.reduce((sum, w) => sum + w, 0);
  let left = samples;
  const batches = hours.map(([from, to], i) => {
    const sampleCount = i === hours.length - 1 ? left : Math.floor((samples * weights[i]) / total);
    left -= sampleCount;
    return { receivedAtMs: Math.min(atHour(day, random.between(from, to)), day.endMs - 60_000), sampleCount };
  });
  const synced = batches.filter((batch) => batch.receivedAtMs <= endAt);
  if (synced.length === batches.length) return batches;
  const pending = batches.slice(synced.length).reduce((sum, batch) => sum + batch.sampleCount, 0);
  return pending > 0 ? [...synced, { receivedAtMs: endAt, sampleCount: pending }] : synced;
}
