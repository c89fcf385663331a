// Failed-authentication throttle: a token bucket per client address (burst and
// refill: FAILED_AUTH in limits.ts). Only failures draw from it; it is checked before
// the token. Memory is bounded: a full bucket is the same as no entry, so
// those are pruned first, and past `maxEntries` the least recently failed
// addresses are forgotten (cycling addresses defeats a per-address limit anyway).

import { FAILED_AUTH } from '../limits.js';

export interface ThrottleOptions {
  burst: number;
  refillPerMinute: number;
  maxEntries: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class FailedAuthThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private readonly msPerToken: number;

  constructor(private readonly options: ThrottleOptions = { burst: FAILED_AUTH.burst, refillPerMinute: FAILED_AUTH.refillPerMinute, maxEntries: FAILED_AUTH.maxAddresses }) {
    this.msPerToken = 60_000 / options.refillPerMinute;
  }

  get size(): number {
    return this.buckets.size;
  }

  private tokensAt(bucket: Bucket, now: number): number {
    return Math.min(this.options.burst, bucket.tokens + (now - bucket.at) / this.msPerToken);
  }

  /**
   * retryAfterSeconds for the client `addressOf` names now, asked only while
   * some address holds failures: reading a client's address costs a copy and
   * a parse, and the clock a call into V8's runtime, and with no failure
   * anywhere every request may be evaluated.
   */
  retryAfterFor(addressOf: () => string): number {
    return this.buckets.size === 0 ? 0 : this.retryAfterSeconds(addressOf(), Date.now());
  }

  /** Seconds to wait when the allowance is empty, or 0 when a request may be evaluated. */
  retryAfterSeconds(address: string, now: number): number {
    const bucket = this.buckets.get(address);
    if (!bucket) return 0;
    const tokens = this.tokensAt(bucket, now);
    if (tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - tokens) * this.msPerToken) / 1000));
  }

  recordFailure(address: string, now: number): void {
    const bucket = this.buckets.get(address);
    const tokens = bucket ? this.tokensAt(bucket, now) : this.options.burst;
    if (bucket) this.buckets.delete(address); // re-insert: Map order becomes recency order
    this.buckets.set(address, { tokens: Math.max(0, tokens - 1), at: now });
    if (this.buckets.size > this.options.maxEntries) this.evict(now);
  }

  /** Shrinks to 90% of the cap at once, so the cost is amortized over many failures. */
  private evict(now: number): void {
    const target = Math.floor(this.options.maxEntries * 0.9);
    for (const [address, bucket] of this.buckets) {
      if (this.tokensAt(bucket, now) >= this.options.burst) this.buckets.delete(address);
    }
    for (const address of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(address);
    }
  }
}
