// Progress of the long part of an import, reading export.xml. On a terminal a
// bar redrawn in place (bytes read of total, records/s, time left); otherwise
// (a log, a pipe) a plain line every LOG_EVERY_MS. Notes (phases, warnings)
// print on their own line without tearing the bar.
import { formatCount } from './report.js';

const REDRAW_EVERY_MS = 200;
const LOG_EVERY_MS = 10_000;
const BAR_WIDTH = 24;

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

function size(bytes: number): string {
  if (bytes >= 1e9) return (bytes / 1e9).toFixed(2) + ' GB';
  if (bytes >= 1e6) return (bytes / 1e6).toFixed(1) + ' MB';
  return (bytes / 1e3).toFixed(0) + ' kB';
}

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export class Progress {
  private readonly startedMs = performance.now();
  private lastDrawMs = -Infinity;
  private bytes = 0;
  private records = 0;
  private barShown = false;

  constructor(
    private readonly out: ProgressOutput,
    private readonly label: string,
    private readonly totalBytes: number,
  ) {}

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** Cheap when called often: draws only when due. */
  update(bytes: number, records: number): void {
    this.bytes = bytes;
    this.records = records;
    const now = performance.now();
    if (now - this.lastDrawMs < (this.tty ? REDRAW_EVERY_MS : LOG_EVERY_MS)) return;
    if (!this.tty && this.lastDrawMs === -Infinity) {
      this.lastDrawMs = now; // the first log line after LOG_EVERY_MS, not at 0 %
      return;
    }
    this.lastDrawMs = now;
    this.draw(now);
  }

  private draw(now: number): void {
    const seconds = (now - this.startedMs) / 1000;
    const fraction = this.totalBytes > 0 ? Math.min(1, this.bytes / this.totalBytes) : 0;
    const rate = seconds > 0 ? this.records / seconds : 0;
    const left = fraction > 0 ? (seconds * (1 - fraction)) / fraction : Infinity;
    const figures = `${(fraction * 100).toFixed(0).padStart(3)}%  ${size(this.bytes)} of ${size(this.totalBytes)}  ${formatCount(this.records)} records  ${formatCount(Math.round(rate))} records/s  ETA ${duration(left)}`;
    if (this.tty) {
      const filled = Math.round(fraction * BAR_WIDTH);
      this.out.write(`\r\x1b[K[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${figures}`);
      this.barShown = true;
    } else {
      this.out.write(`import: ${this.label}: ${figures}\n`);
    }
  }

  /** A line of its own (phase, warning), the bar redrawn under it. */
  note(line: string): void {
    if (this.barShown) this.out.write('\r\x1b[K');
    this.out.write(line + '\n');
    if (this.barShown) this.draw(performance.now());
  }

  /** Leaves the bar at its final state. */
  done(): void {
    if (this.tty) {
      this.draw(performance.now());
      this.out.write('\n');
      this.barShown = false;
    }
  }
}
