// Unit tests of two pure in-memory mechanisms: the failed-auth throttle's
// arithmetic and bound, and the catalog cache's fresh/stale/single-refresh rules, and the client address the throttle keys on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FailedAuthThrottle } from '../src/http/throttle.js';
import { CatalogCache } from '../src/catalog/cache.js';
import { canonicalAddress } from '../src/http/auth.js';

test('throttle: 10 failures empty the bucket; one token returns every 6 s', () => {
  const throttle = new FailedAuthThrottle();
  const t = 1_000_000;
  for (let i = 0; i < 10; i++) {
    assert.equal(throttle.retryAfterSeconds('a', t), 0);
    throttle.recordFailure('a', t);
  }
  // Empty bucket: a whole token takes 60 s / 10 = 6 s.
  assert.equal(throttle.retryAfterSeconds('a', t), 6);
  assert.equal(throttle.retryAfterSeconds('a', t + 1_000), 5);
  assert.equal(throttle.retryAfterSeconds('a', t + 5_500), 1);
  assert.equal(throttle.retryAfterSeconds('a', t + 6_000), 0);
  assert.equal(throttle.retryAfterSeconds('b', t), 0, 'addresses are independent');
});

test('throttle: memory stays bounded under a million distinct addresses', () => {
  const throttle = new FailedAuthThrottle({ burst: 10, refillPerMinute: 10, maxEntries: 100_000 });
  for (let i = 0; i < 1_000_000; i++) {
    throttle.recordFailure(`addr-${i}`, 1_000 + i);
    assert.ok(throttle.size <= 100_000 || i % 100_000 !== 0);
  }
  assert.ok(throttle.size <= 100_000, `size ${throttle.size}`);
  // The most recent offender is still remembered.
  for (let i = 0; i < 9; i++) throttle.recordFailure('addr-999999', 1_001_000);
  assert.ok(throttle.retryAfterSeconds('addr-999999', 1_001_000) > 0);
});

test('catalog cache: first request waits; fresh hits; stale served during one background refresh', async () => {
  let value = 1;
  let calls = 0;
  let release: (() => void) | null = null;
  const cache = new CatalogCache<number>({
    freshMs: 1_000,
    staleMs: 10_000,
    maxUsers: 10,
    compute: async () => {
      calls++;
      if (calls > 1) await new Promise<void>((resolve) => (release = resolve));
      return value;
    },
    onRefreshError: () => {},
  });
  assert.equal(await cache.get('u', 0), 1);
  value = 2;
  assert.equal(await cache.get('u', 500), 1, 'fresh');
  const t = Date.now() + 2_000; // stale
  assert.equal(await cache.get('u', t), 1, 'stale answer while refreshing');
  assert.equal(await cache.get('u', t), 1);
  assert.equal(await cache.get('u', t), 1);
  assert.equal(calls, 2, 'exactly one background refresh');
  release!();
  await new Promise((r) => setImmediate(r));
  assert.equal(await cache.get('u', Date.now()), 2, 'refreshed');
});

test('catalog cache: past the stale window the request waits for a new count', async () => {
  let value = 1;
  const cache = new CatalogCache<number>({ freshMs: 100, staleMs: 100, maxUsers: 10, compute: async () => value, onRefreshError: () => {} });
  assert.equal(await cache.get('u', 0), 1);
  value = 2;
  assert.equal(await cache.get('u', Date.now() + 1_000), 2);
});

test('catalog cache: bounded number of users', async () => {
  const cache = new CatalogCache<number>({ freshMs: 1e9, staleMs: 0, maxUsers: 3, compute: async () => 1, onRefreshError: () => {} });
  for (let i = 0; i < 10; i++) await cache.get(`u${i}`);
  assert.equal(cache.computations, 10);
  await cache.get('u9');
  assert.equal(cache.computations, 10, 'recent users stay cached');
  await cache.get('u0');
  assert.equal(cache.computations, 11, 'old users were evicted');
});

test('catalog cache: a user read again becomes the newest, so the least recently read goes first', async () => {
  const cache = new CatalogCache<number>({ freshMs: 1e9, staleMs: 0, maxUsers: 3, compute: async () => 1, onRefreshError: () => {} });
  for (const user of ['a', 'b', 'c', 'a', 'a', 'c', 'c']) await cache.get(user); // a and c read again; b least recently
  assert.equal(cache.computations, 3);
  await cache.get('d'); // evicts b
  await cache.get('a');
  await cache.get('c');
  assert.equal(cache.computations, 4, 'a and c, read again, stayed');
  await cache.get('b');
  assert.equal(cache.computations, 5, 'b, read least recently, was evicted');
});

test('a client address is written one way whoever read it: uWS full IPv6, node compressed, IPv4', () => {
  assert.equal(canonicalAddress('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
  assert.equal(canonicalAddress('0000:0000:0000:0000:0000:ffff:c0a8:0a0b'), '192.168.10.11');
  assert.equal(canonicalAddress('::ffff:192.168.10.11'), '192.168.10.11');
  assert.equal(canonicalAddress('192.168.10.11'), '192.168.10.11');
  assert.equal(canonicalAddress('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1');
  assert.equal(canonicalAddress('0000:0000:0000:0000:0000:0000:0000:0001'), '::1');
});
