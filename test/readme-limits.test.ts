// README states the receiver's and the MCP tools' limits in words;
// src/limits.ts holds them. The words must say what the code enforces: this
// fails when one changes alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INGEST, MCP, PAGE, POINTS, RANGE_CAP_DAYS, TOKEN_REFRESH_MS, TOKEN_TAKE_UP_MS, TOKENS_STALE_MS } from '../src/limits.js';

const MIB = 1024 * 1024;
const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8').replace(/\s+/g, ' ');
const n = (value: number) => value.toLocaleString('en-US');

test("README's receiver limits are the ones src/limits.ts enforces", () => {
  const stated = [
    `${INGEST.compressedBodyBytes / MIB} MiB compressed`,
    `${INGEST.decompressedBytes / MIB} MiB once inflated`,
    `${INGEST.lineBytes / MIB} MiB a line`,
    `${n(INGEST.linesPerType)} lines of a kind and ${n(INGEST.linesTotal)} in all`,
    `${n(INGEST.pointsPerLine)} points a route or series line and ${n(INGEST.pointsPerBatch)} a batch`,
    `at most ${INGEST.nameChars} characters`,
    `\`intervalValue\` is at most ${n(INGEST.intervalValueMax)}`,
    `uuids in \`[from, to)\` (at most ${INGEST.uuidsRangeDays} days)`,
    `while the store holds fewer than ${n(INGEST.typesHeldMax)} types`,
    `kept as sent down to ${INGEST.freeFormDepth} levels of nesting`,
  ];
  for (const words of stated) assert.ok(readme.includes(words), `README should say "${words}"`);
});

test("README's token timings are the ones src/limits.ts keeps", () => {
  for (const words of [
    `re-reads the tokens every ${TOKEN_REFRESH_MS / 1000} s`,
    `could not re-read them for ${TOKENS_STALE_MS / 1000} s`,
    `have taken the change up, ${TOKEN_TAKE_UP_MS / 1000} s later`,
    `servers take it up within ${TOKEN_TAKE_UP_MS / 1000} s`,
  ]) {
    assert.ok(readme.includes(words), `README should say "${words}"`);
  }
});

test("README's MCP tool table gives the tools' limits as src/limits.ts holds them", () => {
  const row = (tool: string) => readme.match(new RegExp(`\\| \`${tool}\` \\| ([^|]*) \\|`))?.[1] ?? assert.fail(`README has no row for ${tool}`);
  const stated: Array<[tool: string, words: string]> = [
    ['list_users', `\`limit\` (≤ ${MCP.usersPerCall}, default ${MCP.defaultUsers})`],
    ['list_workouts', `\`limit\` (≤ ${PAGE.workouts.max}, default ${MCP.defaultWorkouts})`],
    ['get_samples', `\`limit\` (≤ ${PAGE.samples.max}, default ${MCP.defaultSamples})`],
    ['get_samples', `(≤ ${RANGE_CAP_DAYS.samples} days)`],
    ['get_workout_series', `\`max_points\` (≤ ${POINTS.max}, default ${MCP.defaultPoints})`],
    ['get_workout_route', `\`max_points\` (≤ ${POINTS.max}, default ${MCP.defaultPoints})`],
    ['get_metric_stats', `(≤ ${MCP.statsDays} days)`],
    ...['get_latest_metrics', 'get_daily_metrics', 'get_metric_stats'].map((tool): [string, string] => [tool, `\`types\` (1–${MCP.typesPerCall})`]),
    ...['get_daily_metrics', 'get_activity_rings', 'get_sleep', 'get_state_of_mind'].map((tool): [string, string] => [tool, `(≤ ${RANGE_CAP_DAYS.perDay} days)`]),
  ];
  for (const [tool, words] of stated) assert.ok(row(tool).includes(words), `README's ${tool} row should say "${words}"`);
});
