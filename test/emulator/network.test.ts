// The emulator as a network and a rate-limited service, both opt-in: a latency on every answer (fixed plus a jitter
// drawn from the seed) and a token bucket per API key that answers 429 with Retry-After, retry-after-ms and the
// Problem body. Requests are sent by hand, so what is measured is the emulator alone. Timings have wide margins:
// other work shares the machine.
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
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 0 } })).rejects.toThrow(/rateLimit\.requestsPerSecond must be a number greater than 0/);
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 5, burst: 0.5 } })).rejects.toThrow(/rateLimit\.burst/);
  });
});

describe("rate limit", () => {
  it("a burst, then 429 with Retry-After (whole seconds), retry-after-ms and the Problem body", async () => {
    const emulator = await emulatorWith({ rateLimit: { requestsPerSecond: 2, burst: 3 } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(emulator));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    const wait = Number(refused.headers.get("retry-after-ms"));
    expect(wait).toBeGreaterThan(300);
    expect(wait).toBeLessThanOrEqual(500);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({ title: "Too Many Requests", status: 429, requestId: expect.any(String) });
    expect(refused.body.detail).toMatch(/over its rate limit; retry in \d+ ms/);
    // After the wait it asked for, the next request goes through.
    await new Promise((resolve) => setTimeout(resolve, wait + 20));
    expect((await get(emulator)).status).toBe(200);
  });

  it("each key has its own bucket, and a request with no valid key is a 401 that spends no token", async () => {
    const emulator = await emulatorWith({ rateLimit: { requestsPerSecond: 1, burst: 1 } });
    expect((await get(emulator, "not-a-key")).status).toBe(401);
    expect((await get(emulator)).status).toBe(200);
    expect((await get(emulator)).status).toBe(429);
    expect((await get(emulator, emulator.keys.manager)).status).toBe(200);
  });

  it("the bucket refills at the rate: over a second, the burst plus the rate", () => {
    let now = 0;
    const take = rateLimiter({ requestsPerSecond: 20, burst: 5 }, () => now)!;
    let admitted = 0;
    for (now = 0; now <= 1000; now += 5) if (take("k") === undefined) admitted++;
    expect(admitted).toBe(25);
    // Just emptied at 1000 ms: the wait is the time to the next token.
    now = 1000;
    expect(take("k")).toBe(50);
    expect(rateLimiter(undefined)).toBeUndefined();
  });
});
