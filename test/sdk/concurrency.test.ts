// The AIMD limiter the bulk jobs share (src/core/concurrency.ts), driven by calls that take real time and report
// 429s the way the retry loop (core/send.ts) does (through `onRateLimit`): it never runs more than its cap, halves on a 429 (once per
// round), holds new calls back for the Retry-After, grows back by about one per round of successes, sends a call
// refused with 429 again, and serves waiting calls in order of priority.
import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter, MAX_RATE_LIMITED_ROUNDS, type LimitedCall } from "../../src/core/concurrency.js";
import { DEFAULTS } from "../../src/core/options.js";
import { APIUserAbortError, RateLimitError } from "../../src/index.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rateLimitError = (retryAfterMs?: number) =>
  new RateLimitError(429, new Headers(retryAfterMs === undefined ? {} : { "retry-after-ms": String(retryAfterMs) }), { title: "Too Many Requests" });
const MAX_RETRY_AFTER = 60_000;

/** Runs `count` calls of `ms` each through `limiter`, recording how many ran at once. */
async function runMany(limiter: ConcurrencyLimiter, count: number, call: (i: number) => LimitedCall<number>) {
  let running = 0;
  let most = 0;
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      limiter.run(async (options) => {
        running++;
        most = Math.max(most, running);
        try {
          return await call(i)(options);
        } finally {
          running--;
        }
      }, i),
    ),
  );
  return { results, most };
}

describe("the cap", () => {
  it("never runs more calls than `max`, and runs that many when there is work", async () => {
    const limiter = new ConcurrencyLimiter(4);
    const { results, most } = await runMany(limiter, 30, (i) => async () => {
      await sleep(5);
      return i;
    });
    expect(most).toBe(4);
    expect(results).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("successes never raise the limit above `max`", async () => {
    const limiter = new ConcurrencyLimiter(3);
    await runMany(limiter, 50, () => async () => 0);
    expect(limiter.limit).toBe(3);
  });

  it("`running` counts the calls in flight: up to `max` while there is work, 0 once all are done", async () => {
    const limiter = new ConcurrencyLimiter(3);
    const seen: number[] = [];
    expect(limiter.running).toBe(0);
    await runMany(limiter, 9, () => async () => {
      seen.push(limiter.running);
      await sleep(5);
      return 0;
    });
    expect(Math.max(...seen)).toBe(3);
    expect(seen.every((running) => running >= 1 && running <= 3)).toBe(true);
    expect(limiter.running).toBe(0);
  });
});

describe("multiplicative decrease on 429", () => {
  it("halves the limit, once for the 429s of calls that started in the same round", async () => {
    const limiter = new ConcurrencyLimiter(8);
    // Eight calls in flight together all hear a 429: one decrease, not eight.
    await runMany(limiter, 8, () => async ({ onRateLimit }) => {
      await sleep(5);
      onRateLimit(undefined, MAX_RETRY_AFTER);
      return 0;
    });
    expect(limiter.limit).toBeGreaterThanOrEqual(4);
    expect(limiter.limit).toBeLessThan(8);
  });

  it("goes down to 1 under repeated 429s, never to 0, and runs one call at a time there", async () => {
    const limiter = new ConcurrencyLimiter(16);
    const limits: number[] = [];
    for (let i = 0; i < 6; i++) {
      await limiter.run(async ({ onRateLimit }) => onRateLimit(undefined, MAX_RETRY_AFTER));
      limits.push(limiter.limit);
    }
    expect(limits).toEqual([8, 4, 2, 1, 1, 1]);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        limiter.run(async ({ onRateLimit }) => {
          most = Math.max(most, ++running);
          await sleep(2);
          onRateLimit(undefined, MAX_RETRY_AFTER); // a call that met a 429 does not raise the limit
          running--;
        }),
      ),
    );
    expect([most, limiter.limit]).toEqual([1, 1]);
  });

  it("holds new calls back for the Retry-After, while the call that heard it goes on", async () => {
    const limiter = new ConcurrencyLimiter(4);
    await limiter.run(async ({ onRateLimit }) => onRateLimit(120, MAX_RETRY_AFTER));
    const started = performance.now();
    await limiter.run(async () => 0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe("additive increase", () => {
  it("grows back by one every four rounds of `limit` successes, up to `max`", async () => {
    const limiter = new ConcurrencyLimiter(8);
    await limiter.run(async ({ onRateLimit }) => onRateLimit(undefined, MAX_RETRY_AFTER));
    expect(limiter.limit).toBe(4);
    for (let i = 0; i < 15; i++) await limiter.run(async () => 0);
    expect(limiter.limit).toBe(4);
    await limiter.run(async () => 0);
    expect(limiter.limit).toBe(5);
    for (let i = 0; i < 100; i++) await limiter.run(async () => 0);
    expect(limiter.limit).toBe(8);
  });
});

describe("calls refused with 429", () => {
  it("are sent again after their Retry-After, and succeed without the caller seeing the 429", async () => {
    const limiter = new ConcurrencyLimiter(2);
    let attempts = 0;
    const result = await limiter.run(async () => {
      if (++attempts < 3) throw rateLimitError(10);
      return "applied";
    });
    expect([result, attempts]).toEqual(["applied", 3]);
  });

  it(`give up after ${MAX_RATE_LIMITED_ROUNDS} rounds, or at once when the wait asked for is over maxRetryAfter`, async () => {
    const limiter = new ConcurrencyLimiter(1);
    let attempts = 0;
    const failures: unknown[] = [];
    await expect(
      limiter.run(
        async () => {
          attempts++;
          throw rateLimitError(0);
        },
        0,
        (error) => failures.push(error),
      ),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(attempts).toBe(MAX_RATE_LIMITED_ROUNDS);
    expect(failures).toHaveLength(1);

    attempts = 0;
    await expect(
      limiter.run(async ({ onRateLimit }) => {
        attempts++;
        onRateLimit(90_000, MAX_RETRY_AFTER);
        throw rateLimitError(90_000);
      }),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(attempts).toBe(1);
  });

  it("a 429 without Retry-After is sent again after the first backoff step (DEFAULTS.backoff.initial, less jitter), not a later one", async () => {
    const limiter = new ConcurrencyLimiter(2);
    const attempts: number[] = [];
    const result = await limiter.run(async () => {
      attempts.push(performance.now());
      if (attempts.length === 1) throw rateLimitError();
      return "applied";
    });
    expect(result).toBe("applied");
    const gap = attempts[1]! - attempts[0]!;
    // backoffDelay(0): 500 ms less up to a quarter; the third step would be 1,500-2,000 ms.
    expect(gap).toBeGreaterThanOrEqual(DEFAULTS.backoff.initial * 0.75 - 5);
    expect(gap).toBeLessThan(DEFAULTS.backoff.initial * 2.5);
  });

  it("any other failure is not sent again", async () => {
    const limiter = new ConcurrencyLimiter(2);
    let attempts = 0;
    await expect(
      limiter.run(async () => {
        attempts++;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(attempts).toBe(1);
  });
});

describe("order and abort", () => {
  it("waiting calls start lowest priority first", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const order: number[] = [];
    const blocker = limiter.run(() => sleep(20));
    const waiting = [5, 1, 3, 0, 2].map((priority) => limiter.run(async () => void order.push(priority), priority));
    await Promise.all([blocker, ...waiting]);
    expect(order).toEqual([0, 1, 2, 3, 5]);
  });

  it("an abort rejects the waiting calls and aborts the running ones through their own signal", async () => {
    const controller = new AbortController();
    const limiter = new ConcurrencyLimiter(2, controller.signal);
    const signals: AbortSignal[] = [];
    const calls = Array.from({ length: 5 }, () =>
      limiter.run(
        ({ signal }) =>
          new Promise((_, reject) => {
            signals.push(signal);
            signal.addEventListener("abort", () => reject(new APIUserAbortError()));
          }),
      ),
    );
    await sleep(5);
    controller.abort();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.every((o) => o.status === "rejected" && o.reason instanceof APIUserAbortError)).toBe(true);
    expect(signals).toHaveLength(2);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    await expect(limiter.run(async () => 0)).rejects.toBeInstanceOf(APIUserAbortError);
  });
});
