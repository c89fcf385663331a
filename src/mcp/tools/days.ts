// Day-grained answers: get_activity_rings (/v1/activity/summary), get_sleep
// (/v1/sleep/daily), get_state_of_mind (/v1/state-of-mind). start_date and
// end_date are inclusive local days.
import type { Static } from '@sinclair/typebox';
import { RANGE_CAP_DAYS } from '../../limits.js';
import type { ActivitySummaryResponse, SleepNightsResponse, StateOfMindResponse } from '../../schemas/resources.js';
import { localTime, roundAll, roundValue } from '../compact.js';
import { dayPieces, dayRange, LocalDate } from '../dates.js';
import { UserInput } from '../inputs.js';
import { defineTool } from '../tool.js';

/** The sleep and mood routes' cap: local days, and as many 24-hour days (a DST-lengthened range is asked in two pieces). */
const PER_DAY = { days: RANGE_CAP_DAYS.perDay };

/** A per-day route's answers from start_date to end_date, asked in as many pieces as its cap needs (dayPieces). */
async function perDay<T>(startDate: string, endDate: string, zone: string, read: (query: { start: number; end: number }) => Promise<T[]>): Promise<T[]> {
  const answers: T[] = [];
  for (const piece of dayPieces(dayRange(startDate, endDate, zone, PER_DAY), zone, PER_DAY)) answers.push(...(await read({ start: piece.startMs, end: piece.endMs })));
  return answers;
}

const rangeInputs = {
  start_date: LocalDate('First local day, YYYY-MM-DD (inclusive).'),
  end_date: LocalDate(`Last local day, YYYY-MM-DD (inclusive); at most ${RANGE_CAP_DAYS.perDay} days after start_date counted inclusively.`),
  user: UserInput,
};

export const getActivityRings = defineTool({
  name: 'get_activity_rings',
  title: 'Activity rings',
  description:
    `Move, exercise and stand rings with their goals for each local day from start_date to end_date inclusive (at most ${RANGE_CAP_DAYS.perDay} days), as the watch recorded them. ` +
    'moveKcal is active energy in kcal; exerciseMin minutes; standHours hours. A ring the device does not track is null; ' +
    'moveMode 2 means the move ring counts minutes (moveTimeMin) instead of energy. Days without a record are left out.',
  input: rangeInputs,
  async run({ start_date, end_date, user }, ctx) {
    const range = dayRange(start_date, end_date, ctx.config.timeZone, { days: RANGE_CAP_DAYS.perDay });
    const body = await ctx.json<Static<typeof ActivitySummaryResponse>>('getActivitySummary', { user, query: { start: range.startMs, end: range.endMs } });
    return { json: { days: body.days.map(roundAll) } };
  },
});

export const getSleep = defineTool({
  name: 'get_sleep',
  title: 'Sleep nights',
  description:
    `One entry per sleep session, dated by the local day it ended (the wake-up day), for wake-up days start_date to end_date inclusive (at most ${RANGE_CAP_DAYS.perDay} days). ` +
    'asleepMinutes = core + deep + rem + unspecified (awake is not sleep); inBedMinutes is time in bed; stages in minutes; start and end are when the session began and ended. ' +
    'Deduplicated: watch and phone are never added together (the source that recorded the most sleep is used). ' +
    'A day can have a nap as a session of its own; sessions are split at gaps over 3 hours.',
  input: rangeInputs,
  async run({ start_date, end_date, user }, ctx) {
    const zone = ctx.config.timeZone;
    const nights = await perDay(start_date, end_date, zone, async (query) => (await ctx.json<Static<typeof SleepNightsResponse>>('getSleepNights', { user, query })).nights);
    return {
      json: {
        nights: nights.map((night) => ({
          ...roundAll(night),
          start: localTime(night.start, zone),
          end: localTime(night.end, zone),
        })),
      },
    };
  },
});

export const getStateOfMind = defineTool({
  name: 'get_state_of_mind',
  title: 'Mood and emotions',
  description:
    `Moods and momentary emotions logged on local days start_date to end_date inclusive (at most ${RANGE_CAP_DAYS.perDay} days), oldest first. ` +
    'valence runs from -1 (very unpleasant) to +1 (very pleasant); labels are the feelings picked, associations what they relate to. ' +
    'kind is dailyMood or momentaryEmotion.',
  input: rangeInputs,
  async run({ start_date, end_date, user }, ctx) {
    const zone = ctx.config.timeZone;
    const entries = await perDay(start_date, end_date, zone, async (query) => (await ctx.json<Static<typeof StateOfMindResponse>>('getStateOfMind', { user, query })).entries);
    return {
      json: {
        entries: entries.map(({ uuid: _uuid, ...entry }) => ({ ...entry, timestamp: localTime(entry.timestamp, zone), valence: roundValue(entry.valence) })),
      },
    };
  },
});
