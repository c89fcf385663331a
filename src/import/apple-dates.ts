// The instants of an Apple Health export. export.xml writes every date as
// `yyyy-MM-dd HH:mm:ss ±hhmm` — iOS 8 and 9 exports before the DTD as
// `yyyyMMddHHmmss±hhmm` — always in the phone's offset at export time, so the
// same instant reads differently after travel; these parsers turn them into
// epoch ms without luxon or Date.parse, because an export holds tens of
// millions.

const DIGIT_0 = 48;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const d = text.charCodeAt(i) - DIGIT_0;
    if (d < 0 || d > 9) return NaN;
    value = value * 10 + d;
  }
  return value;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** UTC midnight of a calendar day, NaN unless it exists (no 2024-02-30). */
function dayMs(year: number, month: number, day: number): number {
  if (!(month >= 1 && month <= 12 && day >= 1)) return NaN;
  const last = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= last ? Date.UTC(year, month - 1, day) : NaN;
}

const NON_ASCII = /[^\x00-\x7f]/;
const DECIMAL_DIGIT = /\p{Nd}/u;

/** The value of a decimal digit of any script: Unicode encodes each script's 0 to 9 as a run of ten, ascending, so the value is its place in the run. */
function digitValue(digit: string): number {
  const code = digit.codePointAt(0)!;
  let zero = code;
  while (zero > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  return (code - zero) % 10;
}

/**
 * `text` with the decimal digits of other scripts written as ASCII ones. A
 * phone set to Arabic writes some dates in Arabic-Indic digits (the birth
 * date: `١٩٨٠-٠١-٠١`); Persian, Devanagari and others would do the same.
 */
export function asciiDigits(text: string): string {
  return NON_ASCII.test(text) ? text.replace(/\p{Nd}/gu, (digit) => String(digitValue(digit))) : text;
}

// Records come roughly in time order: most dates share the day of the one before.
let cachedDay = '';
let cachedDayMs = NaN;

/** Epoch ms of `2024-03-01 07:14:22 -0800` (or the pre-DTD `20240301071422-0800`), in any script's digits; NaN when the text is not one. */
export function parseExportDate(text: string): number {
  const ms = parseAsciiExportDate(text);
  return !Number.isNaN(ms) || !NON_ASCII.test(text) ? ms : parseAsciiExportDate(asciiDigits(text));
}

function parseAsciiExportDate(text: string): number {
  if (text.length === COMPACT_LENGTH) return parseCompactDate(text);
  if (text.length !== 25 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 32) {
    return NaN;
  }
  let midnight: number;
  if (text.startsWith(cachedDay) && cachedDay !== '') {
    midnight = cachedDayMs;
  } else {
    midnight = dayMs(digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2));
    if (Number.isNaN(midnight)) return NaN;
    cachedDay = text.slice(0, 10);
    cachedDayMs = midnight;
  }
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (!(hour <= 23 && minute <= 59 && second <= 60)) return NaN;
  const sign = text.charCodeAt(20);
  if (sign !== 43 && sign !== 45) return NaN;
  const offsetMinutes = digits(text, 21, 2) * 60 + digits(text, 23, 2);
  if (Number.isNaN(offsetMinutes)) return NaN;
  return midnight + hour * 3_600_000 + minute * 60_000 + second * 1000 - (sign === 45 ? -offsetMinutes : offsetMinutes) * 60_000;
}

const COMPACT_LENGTH = 19;

/** Epoch ms of the iOS 8/9 `20151107171924+0100`; NaN when the text is not one. */
function parseCompactDate(text: string): number {
  const midnight = dayMs(digits(text, 0, 4), digits(text, 4, 2), digits(text, 6, 2));
  const hour = digits(text, 8, 2);
  const minute = digits(text, 10, 2);
  const second = digits(text, 12, 2);
  if (Number.isNaN(midnight) || !(hour <= 23 && minute <= 59 && second <= 60)) return NaN;
  const sign = text.charCodeAt(14);
  if (sign !== 43 && sign !== 45) return NaN;
  const offsetMinutes = digits(text, 15, 2) * 60 + digits(text, 17, 2);
  if (Number.isNaN(offsetMinutes)) return NaN;
  return midnight + hour * 3_600_000 + minute * 60_000 + second * 1000 - (sign === 45 ? -offsetMinutes : offsetMinutes) * 60_000;
}

/** UTC midnight (epoch ms) of a `yyyy-MM-dd` day (iOS 8/9: `yyyyMMdd`), in any script's digits; NaN when malformed. */
export function parseDayMs(given: string): number {
  const text = asciiDigits(given);
  if (text.length === 8) return dayMs(digits(text, 0, 4), digits(text, 4, 2), digits(text, 6, 2));
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return NaN;
  return dayMs(digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2));
}

/** A `yyyy-MM-dd` calendar day (in ASCII digits), or null when the text is not one. */
export function calendarDay(given: string): string | null {
  const text = asciiDigits(given);
  if (Number.isNaN(parseDayMs(text))) return null;
  return text.length === 8 ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6)}` : text;
}

/** Epoch ms of a GPX `<time>` (ISO 8601 with a zone); NaN when malformed. */
export function parseIsoInstant(text: string): number {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : NaN;
}

const DURATION_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, min: 60, hr: 3600, d: 86_400 };

/** A duration attribute (`duration` + `durationUnit`, minutes when unnamed) in seconds. */
export function durationSeconds(value: string | undefined, unit: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const scale = DURATION_SECONDS[unit ?? 'min'];
  const amount = Number(value);
  return scale === undefined || !Number.isFinite(amount) ? null : amount * scale;
}
