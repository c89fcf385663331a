// What an import did, per type: records taken, records skipped and why, and
// notes on records taken with a reservation (a type outside the registry,
// stored with its unit as given). The first record skipped for each reason is
// also worth a warning naming its file and line, so `skip` says whether this
// is the first of its kind. Counts only: no health value ever reaches the
// report.

interface Tally {
  records: number;
  skipped: Map<string, number>;
  /** Of the records taken, how many carry each reservation. */
  notes: Map<string, number>;
}

const number = new Intl.NumberFormat('en-US');

/** A report as plain data, to cross from the XML worker to the main thread. */
export type ReportSnapshot = Array<[what: string, records: number, skipped: Array<[reason: string, count: number]>, notes: Array<[note: string, count: number]>]>;

export class ImportReport {
  private readonly tallies = new Map<string, Tally>();

  private tally(what: string): Tally {
    let tally = this.tallies.get(what);
    if (tally === undefined) this.tallies.set(what, (tally = { records: 0, skipped: new Map(), notes: new Map() }));
    return tally;
  }

  /** One record (or workout, route, ECG…) taken. */
  took(what: string, count = 1): void {
    this.tally(what).records += count;
  }

  /** One skipped; true when it is the first for this reason. */
  skip(what: string, reason: string): boolean {
    const skipped = this.tally(what).skipped;
    const before = skipped.get(reason) ?? 0;
    skipped.set(reason, before + 1);
    return before === 0;
  }

  /** One record taken (counted by `took`) carries this reservation. */
  note(what: string, note: string): void {
    const notes = this.tally(what).notes;
    notes.set(note, (notes.get(note) ?? 0) + 1);
  }

  snapshot(): ReportSnapshot {
    return [...this.tallies].map(([what, tally]) => [what, tally.records, [...tally.skipped], [...tally.notes]]);
  }

  absorb(snapshot: ReportSnapshot): void {
    for (const [what, records, skipped, notes] of snapshot) {
      const tally = this.tally(what);
      tally.records += records;
      for (const [reason, count] of skipped) tally.skipped.set(reason, (tally.skipped.get(reason) ?? 0) + count);
      for (const [note, count] of notes) tally.notes.set(note, (tally.notes.get(note) ?? 0) + count);
    }
  }

  /** A table: one line per type, sorted by name, skip reasons spelled out. */
  lines(): string[] {
    const rows = [...this.tallies].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const width = Math.max(4, ...rows.map(([what]) => what.length));
    const lines = [`${'type'.padEnd(width)}  ${'records'.padStart(11)}  ${'skipped'.padStart(9)}`];
    for (const [what, tally] of rows) {
      let skipped = 0;
      for (const count of tally.skipped.values()) skipped += count;
      const reasons = [...tally.notes, ...tally.skipped].map(([reason, count]) => `${reason}: ${number.format(count)}`).join('; ');
      lines.push(`${what.padEnd(width)}  ${number.format(tally.records).padStart(11)}  ${number.format(skipped).padStart(9)}${reasons ? `  (${reasons})` : ''}`);
    }
    return lines;
  }
}

export function formatCount(value: number): string {
  return number.format(value);
}
