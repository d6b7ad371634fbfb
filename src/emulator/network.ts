// What a real network and a rate-limited service add to the emulator, both opt-in: a latency on every answer
// (fixed plus a seeded jitter) and a rate limit per API key, kept and told the way real services do it (the styles
// below). Both run on real time, not on the emulator's `now` clock: a test that freezes the clock still sees the
// network's delays and the limits refilling.
import { Random } from "./random.js";

export interface EmulatorLatency {
  /** Milliseconds added to every answer. */
  ms: number;
  /** Up to this many more milliseconds, drawn per request from the seed. Default 0. */
  jitter?: number;
}

/**
 * How a rate limit is kept and what its answers say, as real services do it:
 * - `bucket`: a token bucket (a small burst, then the rate); over it, 429 with `Retry-After` in whole seconds.
 * - `window`: fixed windows on the clock; every answer says `X-RateLimit-Limit`, `-Remaining` and `-Reset` (the
 *   window's end, Unix seconds), as GitHub does; over it, 429 with `Retry-After`.
 * - `sliding`: at most the window's quota in any window's length (a sliding log); every answer says
 *   `X-RateLimit-Limit` and `-Remaining` (no reset: the quota comes back one request at a time); over it, 429 with
 *   `Retry-After`.
 * - `no-hint`: a token bucket whose 429 says nothing at all (no header).
 * - `overload`: a token bucket whose refusals are 503 with `Retry-After`, as a service shedding load answers.
 * - `ietf`: fixed windows told by the IETF draft's structured headers on every answer, `RateLimit-Policy:
 *   "default";q=<quota>;w=<seconds>` and `RateLimit: "default";r=<remaining>;t=<seconds to the reset>`; over it, 429
 *   with `Retry-After`.
 */
export type RateLimitStyle = "bucket" | "window" | "sliding" | "no-hint" | "overload" | "ietf";
export const RATE_LIMIT_STYLES: readonly RateLimitStyle[] = ["bucket", "window", "sliding", "no-hint", "overload", "ietf"];

export interface EmulatorRateLimit {
  /** Requests per second each API key may make, sustained: the bucket's refill rate, or a window's quota ÷ its length. */
  requestsPerSecond: number;
  /** How the limit is kept and told. Default `bucket`. */
  style?: RateLimitStyle;
  /**
   * The bucket's size (`bucket`, `no-hint`, `overload`): requests a key may make at once after being idle. Default a
   * quarter of a second's worth, at least 1.
   */
  burst?: number;
  /** The window's length in whole seconds (`window`, `sliding`, `ietf`). Default 1. */
  windowSeconds?: number;
  /** Also send the exact wait as `retry-after-ms` (a header some services add; most send whole seconds only). Default false. */
  retryAfterMs?: boolean;
}

/** What the rate limit says of one request: headers for its answer, and whether it is refused. */
export interface RateVerdict {
  /** Headers every answer to the request carries (the `X-RateLimit-*` or `RateLimit` family of the style). */
  readonly headers: Record<string, string>;
  /** The request is refused: the status to answer with and the exact wait until it could go (ms). */
  readonly refused?: { readonly status: 429 | 503; readonly wait: number };
}

/** Throws for a latency or rate limit that cannot be one (negative, NaN, a burst under 1, an unknown style). */
export function checkNetworkOptions(latency: EmulatorLatency | undefined, rateLimit: EmulatorRateLimit | undefined): void {
  const check = (name: string, value: unknown, ok: boolean, allowed: string) => {
    if (value !== undefined && !ok) throw new Error(`startEmulator: ${name} must be ${allowed}; got ${String(value)}.`);
  };
  if (latency) {
    check("latency.ms", latency.ms, Number.isFinite(latency.ms) && latency.ms >= 0, "a number of milliseconds, 0 or more");
    check("latency.jitter", latency.jitter, Number.isFinite(latency.jitter) && latency.jitter! >= 0, "a number of milliseconds, 0 or more");
  }
  if (rateLimit) {
    const { requestsPerSecond: rate, burst, style, windowSeconds } = rateLimit;
    check("rateLimit.requestsPerSecond", rate, Number.isFinite(rate) && rate > 0, "a number greater than 0");
    check("rateLimit.burst", burst, Number.isFinite(burst) && burst! >= 1, "a number, 1 or more");
    check("rateLimit.style", style, RATE_LIMIT_STYLES.includes(style!), RATE_LIMIT_STYLES.join(", "));
    check(
      "rateLimit.windowSeconds",
      windowSeconds,
      Number.isInteger(windowSeconds) && windowSeconds! >= 1,
      "a whole number of seconds, 1 or more",
    );
  }
}

/** The latency of each request in turn: `ms` plus a jitter from a generator of its own, so the same seed gives the same delays. */
export function latencies(seed: string, latency: EmulatorLatency | undefined): (() => number) | undefined {
  if (!latency || (latency.ms === 0 && !latency.jitter)) return undefined;
  const random = Random.of(seed, "latency");
  const jitter = latency.jitter ?? 0;
  return () => latency.ms + (jitter ? random.next() * jitter : 0);
}

/** The bucket's size when none is given: a quarter of a second's worth, at least 1. */
export const defaultBurst = (requestsPerSecond: number): number => Math.max(1, Math.ceil(requestsPerSecond / 4));

/** A window's quota: the rate times the window, at least 1. */
export const windowQuota = (requestsPerSecond: number, windowSeconds: number): number =>
  Math.max(1, Math.round(requestsPerSecond * windowSeconds));

/**
 * The rate limit by API key: `take(key)` counts a request of the key and says what its answer carries. `clock` is
 * Unix milliseconds (the `window` style's reset is a Unix time, so it must be the wall clock the client sees).
 * Only valid keys are counted, so the state is as large as the emulator's keys.
 */
export function rateLimiter(
  limit: EmulatorRateLimit | undefined,
  clock: () => number = Date.now,
): ((key: string) => RateVerdict) | undefined {
  if (!limit) return undefined;
  const style = limit.style ?? "bucket";
  const rate = limit.requestsPerSecond;
  const windowMs = (limit.windowSeconds ?? 1) * 1000;
  const quota = windowQuota(rate, windowMs / 1000);
  /** The refusal's headers: Retry-After in whole seconds, rounded up; the exact wait too when asked for. */
  const refusal = (status: 429 | 503, wait: number, headers: Record<string, string> = {}): RateVerdict => {
    const told =
      style === "no-hint"
        ? {}
        : { "Retry-After": String(Math.ceil(wait / 1000)), ...(limit.retryAfterMs ? { "retry-after-ms": String(Math.ceil(wait)) } : {}) };
    return { headers: { ...headers, ...told }, refused: { status, wait } };
  };

  if (style === "window" || style === "ietf") {
    const windows = new Map<string, { index: number; count: number }>();
    return (key) => {
      const now = clock();
      const index = Math.floor(now / windowMs);
      let window = windows.get(key);
      if (!window || window.index !== index) windows.set(key, (window = { index, count: 0 }));
      const admitted = window.count < quota;
      if (admitted) window.count++;
      const end = (index + 1) * windowMs;
      const remaining = quota - window.count;
      const headers: Record<string, string> =
        style === "window"
          ? { "X-RateLimit-Limit": String(quota), "X-RateLimit-Remaining": String(remaining), "X-RateLimit-Reset": String(end / 1000) }
          : {
              "RateLimit-Policy": `"default";q=${quota};w=${windowMs / 1000}`,
              RateLimit: `"default";r=${remaining};t=${Math.ceil((end - now) / 1000)}`,
            };
      return admitted ? { headers } : refusal(429, end - now, headers);
    };
  }

  if (style === "sliding") {
    // Each key's admitted requests of the last window, oldest first: at most `quota` of them.
    const logs = new Map<string, number[]>();
    return (key) => {
      const now = clock();
      const log = logs.get(key) ?? [];
      logs.set(key, log);
      while (log.length && log[0]! <= now - windowMs) log.shift();
      const admitted = log.length < quota;
      if (admitted) log.push(now);
      const headers = { "X-RateLimit-Limit": String(quota), "X-RateLimit-Remaining": String(quota - log.length) };
      return admitted ? { headers } : refusal(429, log[0]! + windowMs - now, headers);
    };
  }

  // bucket, no-hint, overload: a token bucket.
  const perMs = rate / 1000;
  const capacity = limit.burst ?? defaultBurst(rate);
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key) => {
    const now = clock();
    const bucket = buckets.get(key) ?? { tokens: capacity, at: now };
    // A wall clock can step back: time never refills a bucket negatively.
    bucket.tokens = Math.min(capacity, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = now;
    buckets.set(key, bucket);
    // A whole token, give or take the rounding of many small refills.
    if (bucket.tokens >= 1 - 1e-9) {
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      return { headers: {} };
    }
    return refusal(style === "overload" ? 503 : 429, (1 - bucket.tokens) / perMs);
  };
}
