// Piscina entry point: each named export is one task, a thin wrapper over a
// pure function of src/core. Typed arrays travel by transfer, not by copy.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { downsampleStream, type Stream } from '../src/core/downsample.js';

export interface DownsampleTask {
  streams: Stream[];
  /** An integer >= 2. */
  maxPoints: number;
}

/** Downsamples every stream of a workout, in the order given; the result's buffers are moved back. */
export function downsampleSeries(task: DownsampleTask) {
  const streams: Stream[] = task.streams.map((stream) => downsampleStream(stream, task.maxPoints));
  const buffers = streams.flatMap((s) => [s.times.buffer, s.values.buffer]);
  return move({ [transferableSymbol]: buffers, [valueSymbol]: streams } as never);
}

export { gpxDocument } from './gpx.js';
