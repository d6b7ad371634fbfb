// The emulator as a network and a rate-limited service, both opt-in: a latency on every answer (fixed plus a jitter
// drawn from the seed) and a rate limit per API key in the styles real services use (a token bucket, fixed and
// sliding windows, the IETF draft's headers, a 429 with no hint, 503 under overload). Requests are sent by hand, so
// what is measured is the emulator alone. Timings have wide margins: other work shares the machine.
import { afterEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { latencies, rateLimiter } from "../../src/emulator/network.js";

const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function emulatorWith(options: Parameters<typeof startEmulator>[0]) {
  const emulator = await startEmulator(options);
  started.push(emulator);
  return emulator;
}

/** GET a computer by name, by hand, timed. */
async function get(emulator: Emulator, key: string = emulator.keys.owner) {
  const path = operations.getComputerByName.path.replace("{name}", "build-box-eu-1");
  const at = performance.now();
  const response = await fetch(`${emulator.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, headers: response.headers, body, ms: performance.now() - at };
}

describe("latency", () => {
  it("every answer takes at least the latency; without the option it is not delayed", async () => {
    const slow = await emulatorWith({ latency: { ms: 120 } });
    const fast = await emulatorWith({});
    await get(fast); // the first request of a process pays for connecting and compiling
    const [delayed, direct] = await Promise.all([get(slow), get(fast)]);
    expect(delayed.status).toBe(200);
    expect(delayed.ms).toBeGreaterThanOrEqual(115);
    expect(direct.ms).toBeLessThan(100);
  });

  it("errors are delayed too: it is the network, not the handler", async () => {
    const slow = await emulatorWith({ latency: { ms: 120 } });
    const refused = await get(slow, "not-a-key");
    expect(refused.status).toBe(401);
    expect(refused.ms).toBeGreaterThanOrEqual(115);
  });

  it("the jitter is drawn from the seed: the same seed gives the same delays, each within [ms, ms + jitter]", () => {
    const draw = (seed: string) => {
      const next = latencies(seed, { ms: 50, jitter: 20 })!;
      return Array.from({ length: 200 }, () => next());
    };
    const a = draw("7");
    expect(draw("7")).toEqual(a);
    expect(draw("8")).not.toEqual(a);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...a)).toBeLessThan(70);
    expect(new Set(a.map((ms) => Math.floor(ms / 5))).size).toBe(4); // spread over the whole jitter
    expect(latencies("7", { ms: 0 })).toBeUndefined();
  });

  it("bad options are refused at start", async () => {
    await expect(startEmulator({ latency: { ms: -1 } })).rejects.toThrow(/latency\.ms must be a number of milliseconds, 0 or more; got -1/);
    await expect(startEmulator({ latency: { ms: 1, jitter: Number.NaN } })).rejects.toThrow(/latency\.jitter/);
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 0 } })).rejects.toThrow(
      /rateLimit\.requestsPerSecond must be a number greater than 0/,
    );
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 5, burst: 0.5 } })).rejects.toThrow(/rateLimit\.burst/);
  });
});

describe("rate limit", () => {
  it("a burst, then 429 with Retry-After in whole seconds and the Problem body; the exact wait only when asked for", async () => {
    const emulator = await emulatorWith({ rateLimit: { requestsPerSecond: 2, burst: 3 } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(emulator));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("retry-after-ms")).toBeNull();
    expect(refused.body).toMatchObject({ title: "Too Many Requests", status: 429, requestId: expect.any(String) });
    expect(refused.body.detail).toMatch(/over its rate limit; retry in \d+ ms/);

    const exact = await emulatorWith({ rateLimit: { requestsPerSecond: 2, burst: 1, retryAfterMs: true } });
    expect((await get(exact)).status).toBe(200);
    const told = await get(exact);
    const wait = Number(told.headers.get("retry-after-ms"));
    expect(wait).toBeGreaterThan(300);
    expect(wait).toBeLessThanOrEqual(500);
    // After the wait it asked for, the next request goes through.
    await new Promise((resolve) => setTimeout(resolve, wait + 20));
    expect((await get(exact)).status).toBe(200);
  });

  it("each key has its own bucket, and a request with no valid key is a 401 that spends no token", async () => {
    const emulator = await emulatorWith({ rateLimit: { requestsPerSecond: 1, burst: 1 } });
    expect((await get(emulator, "not-a-key")).status).toBe(401);
    expect((await get(emulator)).status).toBe(200);
    expect((await get(emulator)).status).toBe(429);
    expect((await get(emulator, emulator.keys.manager)).status).toBe(200);
  });

  it("the bucket refills at the rate: over a second, the burst plus the rate; the default burst is a quarter second's worth", () => {
    let now = 0;
    const take = rateLimiter({ requestsPerSecond: 20, burst: 5 }, () => now)!;
    let admitted = 0;
    for (now = 0; now <= 1000; now += 5) if (!take("k").refused) admitted++;
    expect(admitted).toBe(25);
    // Just emptied at 1000 ms: the wait is the time to the next token, and Retry-After rounds it up to a second.
    now = 1000;
    expect(take("k")).toEqual({ headers: { "Retry-After": "1" }, refused: { status: 429, wait: 50 } });
    expect(rateLimiter(undefined)).toBeUndefined();

    const byDefault = rateLimiter({ requestsPerSecond: 20 }, () => 0)!;
    expect(Array.from({ length: 8 }, () => byDefault("k").refused === undefined)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it("no-hint: a 429 that says nothing; overload: 503 with Retry-After", () => {
    const silent = rateLimiter({ requestsPerSecond: 10, burst: 1, style: "no-hint", retryAfterMs: true }, () => 0)!;
    expect(silent("k")).toEqual({ headers: {} });
    expect(silent("k")).toEqual({ headers: {}, refused: { status: 429, wait: 100 } });
    const overloaded = rateLimiter({ requestsPerSecond: 0.4, burst: 1, style: "overload" }, () => 0)!;
    overloaded("k");
    expect(overloaded("k")).toEqual({ headers: { "Retry-After": "3" }, refused: { status: 503, wait: 2500 } });
  });

  it("window: fixed windows on the clock, X-RateLimit-Limit, -Remaining and -Reset (Unix seconds) on every answer", () => {
    let now = 1_700_000_000_250;
    const take = rateLimiter({ requestsPerSecond: 3, style: "window", windowSeconds: 2 }, () => now)!;
    const reset = "1700000002"; // the window […000, …002) ends there
    expect(
      [take("k"), take("k"), take("k"), take("k"), take("k"), take("k")].map((v) => [
        v.headers["X-RateLimit-Remaining"],
        v.refused?.status,
      ]),
    ).toEqual([
      ["5", undefined],
      ["4", undefined],
      ["3", undefined],
      ["2", undefined],
      ["1", undefined],
      ["0", undefined],
    ]);
    const refused = take("k");
    expect(refused).toEqual({
      headers: { "X-RateLimit-Limit": "6", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset, "Retry-After": "2" },
      refused: { status: 429, wait: 1750 },
    });
    expect(take("other").refused).toBeUndefined();
    now = 1_700_000_002_000;
    expect(take("k").headers).toEqual({ "X-RateLimit-Limit": "6", "X-RateLimit-Remaining": "5", "X-RateLimit-Reset": "1700000004" });
  });

  it("sliding: at most the quota in any window's length, told by X-RateLimit-Limit and -Remaining", () => {
    let now = 0;
    const take = rateLimiter({ requestsPerSecond: 2, style: "sliding", retryAfterMs: true }, () => now)!;
    expect(take("k").headers).toEqual({ "X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1" });
    now = 600;
    expect(take("k").headers["X-RateLimit-Remaining"]).toBe("0");
    now = 900;
    expect(take("k")).toEqual({
      headers: { "X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0", "Retry-After": "1", "retry-after-ms": "100" },
      refused: { status: 429, wait: 100 },
    });
    now = 1000; // the first request has left the window, the second has not
    expect(take("k").refused).toBeUndefined();
    now = 1100;
    expect(take("k").refused?.wait).toBe(500);
  });

  it("ietf: the draft's RateLimit-Policy and RateLimit structured headers, seconds to the reset rounded up", () => {
    let now = 10_400;
    const take = rateLimiter({ requestsPerSecond: 2, style: "ietf", windowSeconds: 2 }, () => now)!;
    expect(take("k").headers).toEqual({ "RateLimit-Policy": '"default";q=4;w=2', RateLimit: '"default";r=3;t=2' });
    now = 11_100;
    for (let i = 0; i < 3; i++) take("k");
    expect(take("k")).toEqual({
      headers: { "RateLimit-Policy": '"default";q=4;w=2', RateLimit: '"default";r=0;t=1', "Retry-After": "1" },
      refused: { status: 429, wait: 900 },
    });
  });

  it("the style's headers come on every answer of the emulator, and an overload is a 503 Problem", async () => {
    const windowed = await emulatorWith({ rateLimit: { requestsPerSecond: 50, style: "window" } });
    const answer = await get(windowed);
    expect(answer.status).toBe(200);
    expect(Number(answer.headers.get("x-ratelimit-limit"))).toBe(50);
    expect(Number(answer.headers.get("x-ratelimit-remaining"))).toBeLessThan(50);
    expect(Number(answer.headers.get("x-ratelimit-reset")) * 1000).toBeGreaterThan(Date.now() - 100);

    const overloaded = await emulatorWith({ rateLimit: { requestsPerSecond: 1, burst: 1, style: "overload" } });
    await get(overloaded);
    const refused = await get(overloaded);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({
      title: "Service Unavailable",
      status: 503,
      detail: expect.stringMatching(/overloaded; retry in \d+ ms/),
    });
  });

  it("a bad style or window is refused at start", async () => {
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 5, style: "leaky" as "bucket" } })).rejects.toThrow(
      /rateLimit\.style must be bucket, window, sliding, no-hint, overload, ietf; got leaky/,
    );
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 5, style: "window", windowSeconds: 0.5 } })).rejects.toThrow(
      /rateLimit\.windowSeconds/,
    );
  });
});
