// Debian's Chromium, driven by playwright-core, for the tests that need a real
// browser (the viewer, /docs, the MCP port's CORS). A browser test that cannot
// run must fail, never skip: .ci/run installs Chromium.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** Asserts Chromium is there, before a test file spends time on its data. */
export function assertChromium(): void {
  assert.ok(existsSync(CHROMIUM), `Chromium is missing at ${CHROMIUM}: apt-get install -y chromium (.ci/run installs it)`);
}

/** A headless Chromium; playwright gives each launch a fresh profile directory of its own. */
export function launchChromium(): Promise<Browser> {
  assertChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
