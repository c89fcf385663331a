// GET /v1/sleep/daily — one night per sleep session, dated by its local
// wake-up day, deduplicated across devices (src/core/sleep-nights.ts).
//
// A night belongs to the answer when its session ends on a local day the range
// touches (sleepWindow). Its samples may begin well before that day, and a
// sample after the last day may still extend a session past it, so the
// samples read reach forward to a session gap past the last day and back as
// far as src/reads/sleep.ts decides.
//
// Assembly stays inline, even for 366 days: bench/series-inline-vs-pool.ts
// measured 2.1–3.4 ms inline for 366 nights (11,346 samples), while a worker
// round trip took 8–16 ms, and cloning the samples to post them alone blocked
// the event loop 1.8–4.5 ms — more than doing the work.
import { Type } from '@sinclair/typebox';
import { MAX_LOCAL_DAYS, RANGE_CAP_DAYS, SLEEP_SESSION_GAP_MS, spokenDuration } from '../limits.js';
import { checkRange } from '../params/checks.js';
import { readSleepNights } from '../reads/sleep.js';
import { End, Start } from '../schemas/common.js';
import { SleepNightsResponse } from '../schemas/resources.js';
import { defineRoute, json } from './route.js';
import { EXAMPLE } from '../schemas/examples.js';

export const sleepRoute = defineRoute({
  operationId: 'getSleepNights',
  path: '/v1/sleep/daily',
  auth: true,
  summary: 'Sleep nights',
  description:
    `One night per sleep session, ascending. Sessions are built from the sleep-analysis samples of all sources together and split where the gap between samples exceeds ${spokenDuration(SLEEP_SESSION_GAP_MS)}. ` +
    'A night is dated by the local day (SERVICE_TIME_ZONE) on which its session ended, and every local day that [start, end) touches is answered, so a range grazing one minute of a day returns that day\'s night; ' +
    'a session that began before the range but ended in it comes back whole. start and end are the first and last sample instants of the session, any source. ' +
    'Deduplicated across devices, never summed: inBedMinutes is the highest single-source in-bed total; asleepMinutes (core + deep + rem + unspecified) and stages come from the one source with the most sleep ' +
    '(ties: more staged core/deep/rem time, then the lower source id); awake is reported in stages but is not asleep. sources counts the distinct sources with a sample in the session. ' +
    `The range may span at most ${RANGE_CAP_DAYS.perDay} days (and touch at most ${MAX_LOCAL_DAYS} local days).`,
  params: Type.Object({ start: Start(), end: End() }),
  example: { query: { start: String(EXAMPLE.start), end: String(EXAMPLE.end) } },
  responses: [
    {
      status: 200,
      description: 'The nights, ascending.',
      schema: SleepNightsResponse,
      example: {
        nights: [
          {
            date: '2026-01-06',
            start: 1_767_651_726_879,
            end: 1_767_680_826_605,
            inBedMinutes: 485,
            asleepMinutes: 455.4,
            stages: { core: 242.2, deep: 98.4, rem: 114.8, unspecified: 0, awake: 12.1 },
            sources: 2,
          },
        ],
      },
    },
  ],
  async handler({ db, services, userId, query }) {
    const { timeZone } = services.config;
    checkRange(query.start, query.end, { capDays: RANGE_CAP_DAYS.perDay, dayGrainedIn: timeZone });
    return json({ nights: await readSleepNights(db, userId, query.start, query.end, timeZone) });
  },
});
