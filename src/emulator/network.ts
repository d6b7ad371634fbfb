// What a real network and a rate-limited service add to the emulator, both opt-in: a latency on every answer
// (fixed plus a seeded jitter) and a token bucket per API key. Both run on real time, not on the emulator's `now`
// clock: a test that freezes the clock still sees the network's delays and the bucket refilling.
import { Random } from "./random.js";

export interface EmulatorLatency {
  /** Milliseconds added to every answer. */
  ms: number;
  /** Up to this many more milliseconds, drawn per request from the seed. Default 0. */
  jitter?: number;
}

export interface EmulatorRateLimit {
  /** Requests per second each API key may make: the rate at which its token bucket refills. */
  requestsPerSecond: number;
  /** Requests a key may make at once after being idle: the size of its bucket. Default: one second's worth. */
  burst?: number;
}

/** Throws for a latency or rate limit that cannot be one (negative, NaN, a burst under 1). */
export function checkNetworkOptions(latency: EmulatorLatency | undefined, rateLimit: EmulatorRateLimit | undefined): void {
  const check = (name: string, value: number | undefined, ok: boolean, allowed: string) => {
    if (value !== undefined && !ok) throw new Error(`startEmulator: ${name} must be ${allowed}; got ${value}.`);
  };
  if (latency) {
    check("latency.ms", latency.ms, Number.isFinite(latency.ms) && latency.ms >= 0, "a number of milliseconds, 0 or more");
    check("latency.jitter", latency.jitter, Number.isFinite(latency.jitter) && latency.jitter! >= 0, "a number of milliseconds, 0 or more");
  }
  if (rateLimit) {
    const { requestsPerSecond: rate, burst } = rateLimit;
    check("rateLimit.requestsPerSecond", rate, Number.isFinite(rate) && rate > 0, "a number greater than 0");
    check("rateLimit.burst", burst, Number.isFinite(burst) && burst! >= 1, "a number, 1 or more");
  }
}

/** The latency of each request in turn: `ms` plus a jitter from a generator of its own, so the same seed gives the same delays. */
export function latencies(seed: string, latency: EmulatorLatency | undefined): (() => number) | undefined {
  if (!latency || (latency.ms === 0 && !latency.jitter)) return undefined;
  const random = Random.of(seed, "latency");
  const jitter = latency.jitter ?? 0;
  return () => latency.ms + (jitter ? random.next() * jitter : 0);
}

/**
 * Token buckets by API key. `take(key)` spends a token and returns undefined, or, when the bucket is empty, how many
 * milliseconds until the next token (the Retry-After of the 429).
 */
export function rateLimiter(limit: EmulatorRateLimit | undefined, clock: () => number = () => performance.now()) {
  if (!limit) return undefined;
  const perMs = limit.requestsPerSecond / 1000;
  const capacity = limit.burst ?? Math.max(1, limit.requestsPerSecond);
  // Only valid keys get a bucket, so there are as many as the emulator has keys.
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key: string): number | undefined => {
    const now = clock();
    const bucket = buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    buckets.set(key, bucket);
    // A whole token, give or take the rounding of many small refills.
    if (bucket.tokens >= 1 - 1e-9) {
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      return undefined;
    }
    return Math.ceil((1 - bucket.tokens) / perMs);
  };
}
