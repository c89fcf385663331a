// /v1/export's files on the fixture's hand-made rows (America/New_York): the
// attachment's name and type, CSV quoting and the null and list conventions
// of every dataset, rows equal to what the JSON routes show, whole ranges
// with no paging, and isolation between users.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BULK, BULK_START, DAILY_TYPES, HEART, HOUR, OTHER_USER, POWER, Q, RHR, SLEEP, STEPS, at, exportFixture, jsonl, parseCsv, uuid } from './support/export-fixture.js';
import { plainNumber } from '../src/core/export-encoding.js';

const fixture = exportFixture();
const { fetchRaw, download } = fixture;

describe('files', () => {
  const t = at('2026-01-10T10:00:00Z');
  const range = `start=${t}&end=${t + 60000}`;

  test('attachment name, content type and chunked transfer', async () => {
    for (const [format, type] of [['csv', 'text/csv'], ['jsonl', 'application/x-ndjson']]) {
      const response = await fetchRaw(`format=${format}&dataset=samples&type=${HEART}&${range}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-type'], type);
      assert.equal(response.headers['content-disposition'], `attachment; filename="service-samples-${t}-${t + 60000}.${format}"`);
      assert.equal(response.headers['transfer-encoding'], 'chunked');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.complete, true);
    }
  });

  test('samples CSV: RFC 4180 quoting, empty cell for null, no exponents, lowercase uuids, formulas kept as recorded', async () => {
    const csv = await download(`format=csv&dataset=samples&type=${HEART}&${range}`);
    assert.equal(
      csv,
      'type,unit,uuid,start,end,value,label,source\r\n' +
        `${HEART},count/min,${uuid(1)},${t},${t + 1000},,,\r\n` +
        `${HEART},count/min,${uuid(2)},${t},${t + 1000},72,,Apple Watch\r\n` +
        `${HEART},count/min,${uuid(3)},${t + 5000},${t + 6000},0.30000000000000004,,"Watch, ""Series 9"""\r\n` +
        `${HEART},count/min,${uuid(4)},${t + 6000},${t + 6000},1000000000000000000000,,"=HYPERLINK(""x"")"\r\n` +
        `${HEART},count/min,${uuid(5)},${t + 7000},${t + 8000},0.0000001,,Zürich ⌚\r\n` +
        `${HEART},count/min,${uuid(6)},${t + 8000},${t + 9000},0,,""\r\n`,
    );
  });

  test('samples JSONL: the same columns as keys, explicit nulls', async () => {
    const text = await download(`format=jsonl&dataset=samples&type=${HEART}&${range}`);
    const lines = text.split('\n');
    assert.equal(lines.pop(), '', 'every line ends with LF');
    assert.equal(lines[0], `{"type":"${HEART}","unit":"count/min","uuid":"${uuid(1)}","start":${t},"end":${t + 1000},"value":null,"label":null,"source":null}`);
    assert.equal(lines[3], `{"type":"${HEART}","unit":"count/min","uuid":"${uuid(4)}","start":${t + 6000},"end":${t + 6000},"value":1000000000000000000000,"label":null,"source":"=HYPERLINK(\\"x\\")"}`);
    assert.deepEqual(JSON.parse(lines[5]), { type: HEART, unit: 'count/min', uuid: uuid(6), start: t + 8000, end: t + 9000, value: 0, label: null, source: '' });
    assert.equal(lines.length, 6);
  });

  test('samples of a category type: no unit, the label names the value (null for an unknown one)', async () => {
    const csv = await download(`format=csv&dataset=samples&type=${SLEEP}&start=${t}&end=${t + HOUR}`);
    assert.equal(
      csv,
      'type,unit,uuid,start,end,value,label,source\r\n' +
        `${SLEEP},,${uuid(10)},${t},${t + 600000},3,asleepCore,Apple Watch\r\n` +
        `${SLEEP},,${uuid(11)},${t + 600000},${t + 900000},9,,Apple Watch\r\n`,
    );
  });

  test('daily_metrics: types in request order, every local day the range touches, days without a value left out', async () => {
    // 23:00 local on 01-05 to one millisecond into 01-06 local: both days, nothing of 01-04 or 01-07.
    const query = `dataset=daily_metrics&types=${RHR},${STEPS},${SLEEP}&start=${at('2026-01-06T04:00Z')}&end=${at('2026-01-06T05:00Z') + 1}`;
    assert.equal(
      await download(`format=csv&${query}`),
      'identifier,unit,date,value\r\n' +
        `${RHR},count/min,2026-01-05,58.25\r\n` +
        `${STEPS},count,2026-01-05,1234\r\n` +
        `${STEPS},count,2026-01-06,1000000000000000000000\r\n`,
    );
    assert.deepEqual(jsonl(await download(`format=jsonl&${query}`)), [
      { identifier: RHR, unit: 'count/min', date: '2026-01-05', value: 58.25 },
      { identifier: STEPS, unit: 'count', date: '2026-01-05', value: 1234 },
      { identifier: STEPS, unit: 'count', date: '2026-01-06', value: 1e21 },
    ]);
  });

  test('daily_metrics returns the whole range: 30 types × 365 days, more than a page of /v1/metrics/daily', async () => {
    const types = [...DAILY_TYPES].reverse();
    const csv = await download(`format=csv&dataset=daily_metrics&types=${types.join(',')}&start=${at('2025-01-01T05:00Z')}&end=${at('2026-01-01T05:00Z')}`);
    const records = parseCsv(csv);
    assert.deepEqual(records[0], ['identifier', 'unit', 'date', 'value']);
    assert.equal(records.length, 1 + 30 * 365); // 10,950 rows
    // The first requested type is WalkingSpeed (k = 30, discrete, m/s): 30 × 1000 + 1 on 2025-01-01.
    assert.deepEqual(records[1], [`${Q}WalkingSpeed`, 'm/s', '2025-01-01', '30001']);
    assert.deepEqual(records[365], [`${Q}WalkingSpeed`, 'm/s', '2025-12-31', '30365']);
    // The last requested type is ActiveEnergyBurned (k = 1, cumulative, kcal): 1000 + 365 on 2025-12-31.
    assert.deepEqual(records[records.length - 1], [`${Q}ActiveEnergyBurned`, 'kcal', '2025-12-31', '1365']);
  });

  test('workouts: newest first, routes and streams, lists in one quoted cell, nulls empty', async () => {
    const query = `dataset=workouts&start=${at('2026-01-09T00:00Z')}&end=${at('2026-01-12T00:00Z')}`;
    assert.equal(
      await download(`format=csv&${query}`),
      'uuid,activityType,start,end,durationS,distanceM,energyKcal,hasRoute,availableMetrics\r\n' +
        `${uuid(22)},yoga,${at('2026-01-11T12:00Z')},${at('2026-01-11T13:00Z')},,,,false,""\r\n` +
        `${uuid(21)},running,${at('2026-01-10T12:00Z')},${at('2026-01-10T12:30Z')},1800,5000.5,300,true,"${HEART},${POWER}"\r\n` +
        `${uuid(23)},running,${at('2026-01-09T12:00Z')},${at('2026-01-09T12:20Z')},1200.5,3000,150.25,false,""\r\n`,
    );
    const rows = jsonl(await download(`format=jsonl&${query}&activityType=running`));
    assert.deepEqual(rows, [
      { uuid: uuid(21), activityType: 'running', start: at('2026-01-10T12:00Z'), end: at('2026-01-10T12:30Z'), durationS: 1800, distanceM: 5000.5, energyKcal: 300, hasRoute: true, availableMetrics: [HEART, POWER] },
      { uuid: uuid(23), activityType: 'running', start: at('2026-01-09T12:00Z'), end: at('2026-01-09T12:20Z'), durationS: 1200.5, distanceM: 3000, energyKcal: 150.25, hasRoute: false, availableMetrics: [] },
    ]);
  });

  test('workouts return the whole range: 250 walks, more than the 200 a page of /v1/workouts holds', async () => {
    const rows = jsonl(await download(`format=jsonl&dataset=workouts&start=${at('2025-06-01T00:00Z')}&end=${at('2025-06-12T00:00Z')}`));
    assert.equal(rows.length, 250);
    assert.equal(rows[0].start, at('2025-06-01T00:00Z') + 249 * HOUR);
    assert.equal(rows[249].start, at('2025-06-01T00:00Z'));
    assert.ok(rows.every((row, i) => row.activityType === 'walking' && (i === 0 || row.start < rows[i - 1].start)));
  });

  test('sleep: nights of the local days touched, a night begun before the range whole, stages flattened', async () => {
    // 01-21 local only (05:00Z to 05:00Z): the night from 21:00 on 01-20 (02:00Z) to 04:00 on 01-21, phone only.
    const oneDay = `dataset=sleep&start=${at('2026-01-21T05:00Z')}&end=${at('2026-01-22T05:00Z')}`;
    assert.equal(
      await download(`format=csv&${oneDay}`),
      'date,start,end,inBedMinutes,asleepMinutes,stages.core,stages.deep,stages.rem,stages.unspecified,stages.awake,sources\r\n' +
        `2026-01-21,${at('2026-01-21T02:00Z')},${at('2026-01-21T09:00Z')},0,420,0,0,0,420,0,1\r\n`,
    );
    // Both nights. 01-20: phone in bed 03:00–11:00 (480); the watch slept core 240, deep 60, rem 120 (420), awake 10.5.
    const rows = jsonl(await download(`format=jsonl&dataset=sleep&start=${at('2026-01-20T05:00Z')}&end=${at('2026-01-21T05:00Z') + 1}`));
    assert.deepEqual(rows[0], {
      date: '2026-01-20', start: at('2026-01-20T03:00Z'), end: at('2026-01-20T11:00Z'), inBedMinutes: 480, asleepMinutes: 420,
      'stages.core': 240, 'stages.deep': 60, 'stages.rem': 120, 'stages.unspecified': 0, 'stages.awake': 10.5, sources: 2,
    });
    assert.equal(rows.length, 2);
  });

  test('activity: one row per recorded day, untracked rings empty', async () => {
    assert.equal(
      await download(`format=csv&dataset=activity&start=${at('2026-01-20T05:00Z')}&end=${at('2026-01-22T05:00Z')}`),
      'date,moveKcal,moveGoalKcal,exerciseMin,exerciseGoalMin,standHours,standGoalHours,moveMode,moveTimeMin,moveTimeGoalMin\r\n' +
        '2026-01-20,500.5,600,30,30,10,12,1,,\r\n' +
        '2026-01-21,,,,,,,2,45,60\r\n',
    );
  });

  test('state_of_mind: local date of each entry, lists comma-joined in CSV and arrays in JSONL', async () => {
    // 07:00 to 08:00 local on 01-20 touches 01-20: both entries of that local day, not the one at 00:00 on 01-21.
    const query = `dataset=state_of_mind&start=${at('2026-01-20T12:00Z')}&end=${at('2026-01-20T13:00Z')}`;
    assert.equal(
      await download(`format=csv&${query}`),
      'uuid,date,timestamp,kind,valence,valenceClassification,labels,associations\r\n' +
        `${uuid(31)},2026-01-20,${at('2026-01-20T12:00Z')},momentaryEmotion,-0.5,slightlyUnpleasant,"Stressed,Anxious","Work"\r\n` +
        `${uuid(32)},2026-01-20,${at('2026-01-21T04:30Z')},dailyMood,,,"",""\r\n`,
    );
    assert.deepEqual(jsonl(await download(`format=jsonl&${query}`))[1], {
      uuid: uuid(32), date: '2026-01-20', timestamp: at('2026-01-21T04:30Z'), kind: 'dailyMood', valence: null, valenceClassification: null, labels: [], associations: [],
    });
  });

  test('every dataset: JSONL rows equal the JSON route for the same range, CSV the same rows', async () => {
    const get = async (path: string) => {
      const { status, body } = await fixture.server.getJson(path);
      assert.equal(status, 200, path);
      return body;
    };
    const span = (start: string, end: string) => `start=${at(start)}&end=${at(end)}`;
    const s = span('2026-01-04T00:00Z', '2026-01-23T00:00Z');
    const flattenNight = ({ stages, ...night }: { stages: Record<string, number> }) => ({
      ...night,
      ...Object.fromEntries(Object.entries(stages).map(([k, v]) => [`stages.${k}`, v])),
    });
    const workoutPages = async (query: string) => {
      const all = [];
      for (let offset = 0; ; ) {
        const page = await get(`/v1/workouts?${query}&limit=200&offset=${offset}`);
        all.push(...page.workouts);
        if (page.workouts.length < 200) return all;
        offset = page.nextOffset;
      }
    };
    const samplesJson = async (type: string, query: string) => {
      const page = await get(`/v1/samples?type=${type}&${query}&limit=5000`);
      return page.samples.map((sample: object) => ({ type: page.type, unit: page.unit, ...sample }));
    };
    const bulkRange = `start=${BULK_START}&end=${BULK_START + 4999 * 10000 + 1}`; // the first 5,000 bulk rows
    const cases: [string, Record<string, unknown>[]][] = [
      [`dataset=daily_metrics&types=${STEPS},${RHR}&${s}`, (await get(`/v1/metrics/daily?types=${STEPS},${RHR}&${s}`)).metrics.flatMap(
        (m: { identifier: string; unit: string; days: object[] }) => m.days.map((d) => ({ identifier: m.identifier, unit: m.unit, ...d })),
      )],
      [`dataset=samples&type=${HEART}&${span('2026-01-10T09:00Z', '2026-01-10T11:00Z')}`, await samplesJson(HEART, span('2026-01-10T09:00Z', '2026-01-10T11:00Z'))],
      [`dataset=samples&type=${SLEEP}&${s}`, await samplesJson(SLEEP, s)],
      [`dataset=samples&type=${BULK}&${bulkRange}`, await samplesJson(BULK, bulkRange)],
      [`dataset=workouts&${span('2025-06-01T00:00Z', '2026-01-23T00:00Z')}`, await workoutPages(span('2025-06-01T00:00Z', '2026-01-23T00:00Z'))],
      [`dataset=sleep&${s}`, (await get(`/v1/sleep/daily?${s}`)).nights.map(flattenNight)],
      [`dataset=activity&${s}`, (await get(`/v1/activity/summary?${s}`)).days],
      [`dataset=state_of_mind&${s}`, (await get(`/v1/state-of-mind?${s}`)).entries],
    ];
    for (const [query, expected] of cases) {
      assert.ok(expected.length > 0, `${query} has rows to compare`);
      const rows = jsonl(await download(`format=jsonl&${query}`));
      assert.deepEqual(rows, expected, query);
      const records = parseCsv(await download(`format=csv&${query}`));
      const keys = Object.keys(rows[0]);
      assert.deepEqual(records[0], keys, `${query}: CSV header = JSONL keys`);
      const asCsvCell = (value: unknown) =>
        value === null ? null : Array.isArray(value) ? value.join(',') : typeof value === 'number' ? plainNumber(value) : String(value);
      assert.deepEqual(records.slice(1), rows.map((row) => keys.map((key) => asCsvCell(row[key]))), `${query}: CSV rows`);
    }
  });

  test("another user's rows never appear, and that user's export is their own", async () => {
    const t2 = at('2026-01-10T10:00:00Z');
    const rows = jsonl(await download(`format=jsonl&dataset=samples&type=${HEART}&start=${t2}&end=${t2 + 60000}&user=${OTHER_USER}`));
    assert.deepEqual(rows.map((r: { uuid: string; value: number }) => [r.uuid, r.value]), [[uuid(9), 150]]);
  });
});
