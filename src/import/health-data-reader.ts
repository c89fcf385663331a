// Streaming reader of the HealthData XML (export.xml, whatever the phone's
// language named it; HealthKit export DTD versions 1 to 14 and the iOS 8/9
// layout before the DTD). xml-tokenizer.ts tokenizes; this file knows the
// shape: it gathers each top-level element with its children (metadata,
// workout statistics, events, routes, activities) into a plain object and
// hands it over when it closes, so memory holds one element at a time
// whatever the file's size. Records nested in a Correlation are handed over
// too, marked with the correlation's type: exports usually repeat them at top
// level, but not always (xml-intake.ts stores each once).
import { ImportInputError } from './errors.js';
import { utf16Order, XmlSyntaxError, XmlTokenizer } from './xml-tokenizer.js';

export type Attributes = Record<string, string>;
export type Metadata = Record<string, string>;

export interface RawRecord {
  attrs: Attributes;
  /** The type of the Correlation it is nested in (HKCorrelationTypeIdentifierBloodPressure…), or null at top level. */
  correlation: string | null;
  metadata: Metadata | null;
  /** HeartRateVariabilityMetadataList: the instantaneous beats behind an HRV sample. */
  beats: Array<{ bpm: string; time: string }> | null;
  line: number;
}

export interface RawWorkoutEvent {
  attrs: Attributes;
  metadata: Metadata | null;
}

export interface RawWorkoutRoute {
  attrs: Attributes;
  metadata: Metadata | null;
  /** FileReference paths, e.g. `/workout-routes/route_2024-12-13_11.59am.gpx`. */
  files: string[];
  /** Inline Location elements (older exports). */
  locations: Attributes[];
}

export interface RawWorkoutActivity {
  attrs: Attributes;
  metadata: Metadata | null;
  events: RawWorkoutEvent[];
  statistics: Attributes[];
}

export interface RawWorkout {
  attrs: Attributes;
  metadata: Metadata | null;
  events: RawWorkoutEvent[];
  statistics: Attributes[];
  routes: RawWorkoutRoute[];
  activities: RawWorkoutActivity[];
  line: number;
}

export interface HealthDataHandler {
  exportVersion(version: number | null): void;
  exportDate(value: string, line: number): void;
  me(attrs: Attributes, line: number): void;
  record(record: RawRecord): void;
  /** A Correlation has closed (its records were handed over before). */
  correlation(type: string, line: number): void;
  workout(workout: RawWorkout): void;
  activitySummary(attrs: Attributes, line: number): void;
  /** A top-level element with no table of its own (ClinicalRecord, Audiogram, VisionPrescription…). */
  other(name: string, line: number): void;
  /** An element skipped as malformed XML (lenient reading only): its name, the type it names if one can be read, its line. */
  malformed?(name: string, type: string | null, line: number, reason: string): void;
}

export interface ReaderOptions {
  /** Skip a malformed element (counted through `malformed`) instead of stopping. */
  lenient?: boolean;
}

type Level = 'outside' | 'root' | 'record' | 'workout' | 'correlation' | 'ignored';

/** Holds the open top-level element and the child under construction inside it. */
export class HealthDataReader {
  private readonly tokenizer: XmlTokenizer;
  private depth = 0;
  private level: Level = 'outside';
  private record: RawRecord | null = null;
  private workout: RawWorkout | null = null;
  private activity: RawWorkoutActivity | null = null;
  private event: RawWorkoutEvent | null = null;
  private route: RawWorkoutRoute | null = null;
  private correlationAttrs: Attributes | null = null;
  private correlationLine = 0;
  private sawRoot = false;
  /** Names of the open elements by depth (1 is HealthData). */
  private readonly names: string[] = [];
  private readonly lenient: boolean;
  private began = false;

  constructor(
    private readonly fileName: string,
    private readonly handler: HealthDataHandler,
    options: ReaderOptions = {},
  ) {
    this.lenient = options.lenient === true;
    this.tokenizer = new XmlTokenizer(
      {
        doctype: (text) => {
          const version = /HealthKit Export Version:\s*(\d+)/.exec(text);
          handler.exportVersion(version ? Number(version[1]) : null);
        },
        open: (name, attributes, line) => this.open(name, attributes, line),
        close: () => this.close(),
        skipped: (name, tag, line, reason) => handler.malformed?.(name, /\stype="([^"]*)"/.exec(tag)?.[1] ?? null, line, reason),
      },
      { lenient: this.lenient },
    );
  }

  get line(): number {
    return this.tokenizer.line;
  }

  /** The next bytes of the file (UTF-8). */
  write(bytes: Uint8Array): void {
    if (!this.began) {
      this.began = true;
      this.checkEncoding(bytes);
    }
    try {
      this.tokenizer.write(bytes);
    } catch (error) {
      throw this.malformed(error);
    }
  }

  end(): void {
    try {
      this.tokenizer.close();
    } catch (error) {
      throw this.malformed(error);
    }
    if (!this.sawRoot) throw new ImportInputError(`${this.fileName}: no HealthData element; is this an Apple Health export.xml?`);
  }

  /**
   * Phones write export.xml in UTF-8, the only encoding read here. A file
   * saved again in another (UTF-16, or ISO-8859-1 declared) would be misread
   * (names altered, units not recognised): refused, saying how to convert it.
   */
  private checkEncoding(first: Uint8Array): void {
    const declared = utf16Order(first) ? 'UTF-16' : /^(?:\xef\xbb\xbf)?<\?xml\s[^>]*?encoding\s*=\s*["']([^"']*)["']/.exec(Buffer.from(first.subarray(0, 256)).toString('latin1'))?.[1];
    if (declared === undefined || /^utf-?8$/i.test(declared)) return;
    throw new ImportInputError(
      `${this.fileName} is encoded in ${declared}; Apple Health writes export.xml in UTF-8, the only encoding read: convert it first (iconv -f ${declared} -t UTF-8)`,
    );
  }

  private malformed(error: unknown): unknown {
    if (!(error instanceof XmlSyntaxError)) return error;
    // Lenient reading stops only where no element can be skipped (the file cut short, the root closed twice): no hint
    // then, nor for a file cut short read strictly, which --lenient would not take further.
    const hint = this.lenient || error.atEnd ? '' : ' (--lenient skips malformed elements and goes on)';
    return new ImportInputError(`${this.fileName} line ${error.line}, column ${error.column}: malformed XML: ${error.reason}${hint}`);
  }

  private open(name: string, attrs: Attributes, line: number): void {
    const depth = ++this.depth;
    this.names[depth] = name;
    if (depth === 1) {
      if (name !== 'HealthData') throw new ImportInputError(`${this.fileName} line ${line}: the root element is <${name}>, not <HealthData>; is this an Apple Health export.xml?`);
      this.sawRoot = true;
      this.level = 'root';
      return;
    }
    if (depth === 2) {
      this.openTopLevel(name, attrs, line);
      return;
    }
    if (this.level === 'record') this.openInRecord(name, attrs);
    else if (this.level === 'workout') this.openInWorkout(name, attrs, depth);
    else if (this.level === 'correlation') this.openInCorrelation(name, attrs, line, depth);
  }

  private openTopLevel(name: string, attrs: Attributes, line: number): void {
    switch (name) {
      case 'Record':
        this.level = 'record';
        this.record = { attrs, correlation: null, metadata: null, beats: null, line };
        return;
      case 'Correlation':
        this.level = 'correlation';
        this.correlationAttrs = attrs;
        this.correlationLine = line;
        return;
      case 'Workout':
        this.level = 'workout';
        this.workout = { attrs, metadata: null, events: [], statistics: [], routes: [], activities: [], line };
        return;
      case 'ExportDate':
        this.handler.exportDate(attrs.value ?? '', line);
        break;
      case 'Me':
        this.handler.me(attrs, line);
        break;
      case 'ActivitySummary':
        this.handler.activitySummary(attrs, line);
        break;
      default:
        this.handler.other(name, line);
    }
    this.level = 'ignored';
  }

  /** A Record inside a Correlation (depth 3), and its children. */
  private openInCorrelation(name: string, attrs: Attributes, line: number, depth: number): void {
    if (depth === 3) {
      this.record = name === 'Record' ? { attrs, correlation: this.correlationAttrs?.type ?? '', metadata: null, beats: null, line } : null;
    } else if (this.record !== null) {
      this.openInRecord(name, attrs);
    }
  }

  private openInRecord(name: string, attrs: Attributes): void {
    const record = this.record as RawRecord;
    if (name === 'MetadataEntry') addMetadata(record, attrs);
    else if (name === 'InstantaneousBeatsPerMinute') (record.beats ??= []).push({ bpm: attrs.bpm ?? '', time: attrs.time ?? '' });
  }

  private openInWorkout(name: string, attrs: Attributes, depth: number): void {
    const workout = this.workout as RawWorkout;
    const parent = this.names[depth - 1];
    if (depth === 3) {
      if (name === 'MetadataEntry') addMetadata(workout, attrs);
      else if (name === 'WorkoutStatistics') workout.statistics.push(attrs);
      else if (name === 'WorkoutEvent') workout.events.push((this.event = { attrs, metadata: null }));
      else if (name === 'WorkoutRoute') workout.routes.push((this.route = { attrs, metadata: null, files: [], locations: [] }));
      else if (name === 'WorkoutActivity') workout.activities.push((this.activity = { attrs, metadata: null, events: [], statistics: [] }));
    } else if (parent === 'WorkoutRoute' && this.route) {
      if (name === 'FileReference' && attrs.path) this.route.files.push(attrs.path);
      else if (name === 'Location') this.route.locations.push(attrs);
      else if (name === 'MetadataEntry') addMetadata(this.route, attrs);
    } else if (parent === 'WorkoutActivity' && this.activity) {
      if (name === 'MetadataEntry') addMetadata(this.activity, attrs);
      else if (name === 'WorkoutStatistics') this.activity.statistics.push(attrs);
      else if (name === 'WorkoutEvent') this.activity.events.push((this.event = { attrs, metadata: null }));
    } else if (parent === 'WorkoutEvent' && this.event && name === 'MetadataEntry') {
      addMetadata(this.event, attrs);
    }
  }

  private close(): void {
    const depth = this.depth--;
    if (depth === 3 && this.level === 'correlation' && this.record !== null) {
      this.handler.record(this.record);
      this.record = null;
    } else if (depth === 2) {
      if (this.level === 'correlation') this.handler.correlation(this.correlationAttrs?.type ?? '', this.correlationLine);
      this.correlationAttrs = null;
      if (this.level === 'record') this.handler.record(this.record as RawRecord);
      else if (this.level === 'workout') this.handler.workout(this.workout as RawWorkout);
      this.record = null;
      this.workout = null;
      this.activity = null;
      this.event = null;
      this.route = null;
      this.level = 'root';
    }
  }
}

function addMetadata(target: { metadata: Metadata | null }, attrs: Attributes): void {
  if (attrs.key === undefined) return;
  (target.metadata ??= {})[attrs.key] = attrs.value ?? '';
}
