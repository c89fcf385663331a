// Raw records and the summary: get_samples (/v1/samples) and get_summary
// (/v1/summary, its markdown page).
import type { Static } from '@sinclair/typebox';
import { z } from 'zod';
import { SUMMARY_RANGES, type SummaryRange } from '../../core/summary.js';
import { MCP, PAGE, RANGE_CAP_DAYS } from '../../limits.js';
import type { SamplesPage } from '../../schemas/resources.js';
import { localTime, roundValue } from '../compact.js';
import { DAY_MS } from '../../core/local-days.js';
import { dayRange, LocalDate } from '../dates.js';
import { knownType, NameInput, Offset, TOOL_FOR_KIND, UserInput } from '../inputs.js';
import { defineTool, ToolError } from '../tool.js';
import { SAMPLE_KINDS } from '../../core/registry.js';

export const getSamples = defineTool({
  name: 'get_samples',
  title: 'Raw samples of one type',
  description:
    `Individual records of one type as the devices synced them, from local days start_date to end_date inclusive (at most ${RANGE_CAP_DAYS.samples} days), ordered by start. ` +
    'NOT deduplicated: when watch and phone both measured, both appear — for totals use get_daily_metrics. ' +
    'samples are rows of the columns named in columns: start and end (local time), value (canonical unit; for category types the integer whose name is label), source (app or device). ' +
    `limit rows per call (default ${MCP.defaultSamples}, at most ${PAGE.samples.max}); when a page is full, note says how to get the next one.`,
  input: {
    type: NameInput.describe('One HealthKit identifier, e.g. HKQuantityTypeIdentifierHeartRate or HKCategoryTypeIdentifierSleepAnalysis.'),
    start_date: LocalDate('First local day, YYYY-MM-DD (inclusive).'),
    end_date: LocalDate(`Last local day, YYYY-MM-DD (inclusive); at most ${RANGE_CAP_DAYS.samples} days counted inclusively.`),
    limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(PAGE.samples.max, `must be at most ${PAGE.samples.max}`).default(MCP.defaultSamples).describe(`Samples per call: default ${MCP.defaultSamples}, at most ${PAGE.samples.max}.`),
    offset: Offset,
    user: UserInput,
  },
  async run({ type, start_date, end_date, limit, offset, user }, ctx) {
    const kind = knownType(type);
    if (!SAMPLE_KINDS.has(kind)) throw new ToolError(`${type} is a ${kind} type, not stored as samples: read it with ${TOOL_FOR_KIND[kind]}`);
    const zone = ctx.config.timeZone;
    const range = dayRange(start_date, end_date, zone, { days: RANGE_CAP_DAYS.samples });
    // The route caps end - start at that many 24-hour days: a fall-back day makes 31 local days an hour longer, which is left out and said.
    const end = Math.min(range.endMs, range.startMs + RANGE_CAP_DAYS.samples * DAY_MS);
    const body = await ctx.json<Static<typeof SamplesPage>>('getSamples', { user, query: { type, start: range.startMs, end, limit, offset } });
    const labelled = body.kind === 'category';
    const full = body.samples.length === limit;
    const notes = [
      ...(end < range.endMs
        ? [`samples from ${localTime(end, zone)} on are left out: a clock change makes this range ${(range.endMs - range.startMs) / 3_600_000} hours, past the ${RANGE_CAP_DAYS.samples} × 24 a call covers; ask for ${end_date} alone to read that day whole`]
        : []),
      ...(full ? [`page full: there may be more; call again with offset ${body.nextOffset}`] : []),
    ];
    return {
      json: {
        type: body.type,
        kind: body.kind,
        unit: body.unit,
        columns: labelled ? ['start', 'end', 'value', 'label', 'source'] : ['start', 'end', 'value', 'source'],
        samples: body.samples.map((s) =>
          labelled
            ? [localTime(s.start, zone), localTime(s.end, zone), s.value, s.label, s.source]
            : [localTime(s.start, zone), localTime(s.end, zone), roundValue(s.value), s.source],
        ),
        nextOffset: body.nextOffset,
        ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      },
    };
  },
});

export const getSummary = defineTool({
  name: 'get_summary',
  title: 'Health summary',
  description:
    'A short markdown summary of the last 7, 14, 30 or 90 local days ending today: activity (steps, active energy, exercise, stand), resting heart rate and HRV, ' +
    'sleep, workouts and the newest weight and body fat, with how many days had data. Deduplicated across devices. The best first call for "how am I doing?".',
  input: {
    range: z.enum(Object.keys(SUMMARY_RANGES) as [SummaryRange, ...SummaryRange[]]).default('7d').describe('How many days, ending today: 7d, 14d, 30d or 90d.'),
    user: UserInput,
  },
  async run({ range, user }, ctx) {
    return { markdown: await ctx.text('getSummary', { user, query: { range, format: 'markdown' } }) };
  },
});
