// Where a local day begins, written once for the server (src/core/local-days.ts,
// offsets from luxon) and the viewer (viewer/src/zone.ts, offsets from the
// browser's Intl), so both cut days at the same instants. Plain arithmetic, no
// imports: the viewer's bundle takes it as it is.

/**
 * The first instant of a local day: `utcMidnight` is the day's position on a
 * zone-free calendar (its date at 00:00 UTC), `offsetAt` the zone's offset
 * from UTC at an instant (ms; local = UTC + offset), `inDay` whether an
 * instant's local date is that day.
 *
 * The zone's 00:00 is placed from a guess of its offset, tried twice, as luxon
 * places a local time: the offset at the day's UTC midnight (a day away at
 * most; the offset of now put 17 June 1993 in the Azores an hour late), then
 * the offset at that first answer. Offsets that disagree both times mean a
 * skipped midnight: the day begins where the later offset starts (a day that
 * never came, Samoa's 30 December 2011, begins and ends where the next one
 * begins). A 00:00 that comes twice (the clock turned back to it) may be
 * placed on its second pass: the day began an offset change earlier, where
 * the instant before is already this day.
 */
export function firstInstantOfDay(utcMidnight: number, offsetAt: (ms: number) => number, inDay: (ms: number) => boolean): number {
  const first = offsetAt(utcMidnight);
  let start = utcMidnight - first;
  const second = offsetAt(start);
  if (second !== first) {
    start = utcMidnight - second;
    const third = offsetAt(start);
    if (third !== second) start = utcMidnight - Math.min(second, third);
  }
  if (inDay(start - 1)) start -= offsetAt(start - 1) - offsetAt(start);
  return start;
}
