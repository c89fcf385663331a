// GET /v1/summary — the last N local days as a short markdown page or the
// Summary object. The route's planner (summary-plan.ts) reads the daily
// surfaces (a handful of small indexed queries); the route builds the numbers
// and the page (src/core/summary*.ts) on the event loop: at most 90 days,
// ~0.5 ms of work, less than handing its input to a worker thread cost (a
// copy of the daily values and rings each way; bench/RESULTS.md, issue 12).
import { Type } from '@sinclair/typebox';
import { buildSummary, SUMMARY_RANGES, type SummaryRange } from '../core/summary.js';
import { renderSummaryMarkdown } from '../core/summary-markdown.js';
import { countInWords, SUMMARY } from '../limits.js';
import { Enum } from '../schemas/common.js';
import { Summary as SummarySchema } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { readSummaryInput } from './summary-plan.js';
import { EXAMPLE } from '../schemas/examples.js';

export const summaryRoute = defineRoute({
  operationId: 'getSummary',
  path: '/v1/summary',
  auth: true,
  summary: 'Summary of the last days',
  description:
    `The last N calendar days (range: ${Object.keys(SUMMARY_RANGES).join(', ')}) ending today in SERVICE_TIME_ZONE, as a markdown page of under ${SUMMARY.markdownLinesUnder} lines (format=markdown, text/markdown) or the Summary object (format=json). ` +
    'Every figure comes from the daily surfaces, already deduplicated across devices, never from raw samples. ' +
    'activity: steps (StepCount daily aggregates), active energy (ActiveEnergyBurned daily aggregates, else the move ring), exercise minutes (the exercise ring, else AppleExerciseTime daily aggregates), stand hours (the stand ring). ' +
    'heart: resting heart rate and HRV (SDNN), each day\'s mean from the daily aggregates. ' +
    'Each is a SummaryStat over the days that had a value (days without one are left out, not counted as zero): days, mean, min, max, total for the cumulative ones (steps, energy, exercise minutes), and source, the table the values came from (daily_aggregates or activity_summaries). ' +
    'sleep: time asleep of the longest session (end − start; of two as long, the one with more sleep) of each wake-up day that recorded sleep, nights as in /v1/sleep/daily. ' +
    `workouts: those starting in the range — count, total minutes (sum of durations), total distance in m (absent when no workout recorded one), and byActivityType, the ${countInWords(SUMMARY.topActivityTypes)} most frequent activity types, most frequent first, ties alphabetical. ` +
    'body: the newest raw sample of body mass and of body fat percentage (a fraction), whenever taken. ' +
    'coverage: lastSync (newest upload batch, null when none) and daysWithData (days of the range on which at least one reported figure has a value; body readings are not per day). ' +
    'A section, and a member of a section, is present only when its data exists; coverage always is. ' +
    'The JSON numbers are exact, in the canonical units. The markdown page shows the same numbers the way people read them, rounded half away from zero: ' +
    'steps and kcal whole with thousands grouped (8,432); resting heart rate in bpm, HRV in ms, stand hours in h and weight in kg to one decimal (a whole number shows none); ' +
    'exercise, sleep and workout time in hours and minutes (7 h 12 min); distance in km to one decimal; body fat as a percentage (value × 100, one decimal); ' +
    "where a figure came from in words (the phone's daily figures, the activity rings); instants as local time in the zone.",
  params: Type.Object({
    range: Enum(Object.keys(SUMMARY_RANGES) as SummaryRange[], 'How many days, ending today.', '7d'),
    format: Enum(['markdown', 'json'] as const, 'markdown (text/markdown) or json (the Summary object).', 'markdown'),
  }),
  example: { query: { range: '7d', format: 'json' } },
  responses: [
    {
      status: 200,
      description: 'The markdown page (format=markdown).',
      contentType: 'text/markdown',
      schema: Type.String(),
      example:
        '# Health summary for Ada Lovelace\n\nLast 7 days: 2026-01-05 to 2026-01-11, local days in Europe/Berlin. Generated 2026-01-11 22:27.\n\n' +
        "## Activity\n- Steps: 11,640 steps a day on average, 81,478 steps in total (lowest day 2,142 steps, highest day 21,938 steps; 7 days with data, from the phone's daily figures)\n…\n\n" +
        '## Sleep\n- Asleep: 8 h 9 min a night on average (shortest 7 h 25 min, longest 9 h 38 min; 7 nights, the longest sleep of each wake-up day)\n…\n',
    },
    {
      status: 200,
      description: 'The Summary object (format=json).',
      schema: SummarySchema,
      example: {
        userID: EXAMPLE.user,
        name: 'Ada Lovelace',
        range: '7d',
        days: 7,
        startDate: '2026-01-05',
        endDate: '2026-01-11',
        generatedAt: 1_768_169_236_361,
        timeZone: 'Europe/Berlin',
        activity: { steps: { unit: 'count', days: 7, mean: 11_639.7, min: 2142.2, max: 21_938, total: 81_478.2, source: 'daily_aggregates' } },
        heart: { restingHeartRate: { unit: 'count/min', days: 7, mean: 61.1, min: 57, max: 63, source: 'daily_aggregates' } },
        sleep: { nights: 7, meanAsleepMinutes: 488.6, minAsleepMinutes: 444.8, maxAsleepMinutes: 577.6 },
        workouts: { count: 5, totalMinutes: 307.1, totalDistanceM: 46_517.6, byActivityType: [{ activityType: 'running', count: 2 }, { activityType: 'cycling', count: 1 }] },
        body: { weight: { value: 62.4, unit: 'kg', timestamp: 1_767_770_113_609 } },
        coverage: { lastSync: 1_768_169_229_451, daysWithData: 7 },
      },
    },
  ],
  async handler({ db, query, services, userId }) {
    const input = await readSummaryInput(db, userId, services.config.timeZone, query.range);
    const summary = buildSummary(input);
    if (query.format === 'json') return json(summary);
    return { kind: 'text', contentType: 'text/markdown; charset=utf-8', body: renderSummaryMarkdown(summary) };
  },
});
