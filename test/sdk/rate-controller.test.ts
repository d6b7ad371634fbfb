// The rate controller (src/core/rate-controller.ts) against real rate-limited servers on loopback, one per style real
// services use. A job of requests goes through it as the SDK's calls will: acquire, fetch, tell it the answer, and
// after a refusal wait what it says and acquire again. What is checked are counts and ratios within one run (requests
// accepted ÷ what the limit allowed over the same time, refusals ÷ accepted), never a duration: the machine is shared.
import { inspect } from "node:util";
import { describe, expect, it, type TestContext } from "vitest";
import { AdaptiveRateController, type RateController } from "../../src/core/rate-controller.js";
import { rateControllerCount, rateControllerFor } from "../../src/core/rate-registry.js";
import { APIUserAbortError } from "../../src/index.js";
import { startLimiterServer, type LimiterServer, type LimiterServerOptions } from "../support/limiter-server.js";
import { REAL_TIME } from "../setup/tags.js";

/** A limiter server that the test stops when it ends (each test its own, as they may run at once). */
async function limited(options: LimiterServerOptions, test: TestContext): Promise<LimiterServer> {
  const server = await startLimiterServer(options);
  test.onTestFinished(() => server.close());
  return server;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `count` requests to `url`, at most `concurrency` in flight, each through `controller` until it is accepted.
 * Returns the refusals it met and the waits it was told.
 */
async function job(controller: RateController, url: string, count: number, concurrency = 8) {
  let next = 0;
  let refusals = 0;
  const waits: number[] = [];
  const worker = async () => {
    while (next < count) {
      next++;
      for (let retry = false; ; retry = true) {
        const permit = await controller.acquire({ retry });
        const response = await fetch(url, { headers: { Authorization: "Bearer k" } });
        await response.arrayBuffer();
        const throttle = permit.observe(response.status, response.headers);
        if (!throttle) break;
        refusals++;
        waits.push(throttle.wait);
        if (throttle.wait > 0) await sleep(throttle.wait);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { refusals, waits };
}

// The styles run at once (each its own server and controller): the file takes one job's time.
describe.concurrent("under each style of rate limit, a job goes at the allowed rate", { tags: [REAL_TIME] }, () => {
  // 20 requests a second, a job of 100: about 5 s whatever the machine's load (the client is far from busy). Its first
  // second or so is spent learning the rate, so what is checked is the second half of the job (steadyFraction): a
  // controller that waited out each whole-second Retry-After, or kept refusals coming, would be far under 0.8.
  const rate = 20;
  const count = 100;

  it("a token bucket with a small burst and whole-second Retry-After: a refusal does not stall the job for a second", async (test) => {
    const server = await limited({ requestsPerSecond: rate, burst: 2 }, test);
    const { refusals, waits } = await job(new AdaptiveRateController(), server.url, count);
    expect(server.accepted.length).toBe(count);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    // `Retry-After: 1` is rounded up: the certain part of it is nothing, so no refused request waits a second.
    expect(waits.every((wait) => wait === 0)).toBe(true);
    expect(refusals).toBeLessThan(count / 4);
  });

  it("fixed windows with X-RateLimit-*: the budget and the reset pace the job, without a refusal", async (test) => {
    const server = await limited({ requestsPerSecond: rate, style: "window" }, test);
    await job(new AdaptiveRateController(), server.url, count);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    expect(server.refused.length).toBeLessThan(5);
  });

  it("a sliding window told by X-RateLimit-Limit and -Remaining", async (test) => {
    const server = await limited({ requestsPerSecond: rate, style: "sliding" }, test);
    await job(new AdaptiveRateController(), server.url, count);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    expect(server.refused.length).toBeLessThan(count / 4);
  });

  it("the IETF draft's RateLimit and RateLimit-Policy, the reset in whole seconds: hardly a refusal", async (test) => {
    const server = await limited({ requestsPerSecond: rate, style: "ietf" }, test);
    await job(new AdaptiveRateController(), server.url, count);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    expect(server.refused.length).toBeLessThan(5);
  });

  it("a 429 with no hint at all: the job slows to the rate without flooding the server", async (test) => {
    const server = await limited({ requestsPerSecond: rate, burst: 2, style: "no-hint" }, test);
    await job(new AdaptiveRateController(), server.url, count);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    expect(server.refused.length).toBeLessThan(count / 4);
  });

  it("503 with Retry-After under overload is a throttle too", async (test) => {
    const server = await limited({ requestsPerSecond: rate, burst: 2, style: "overload" }, test);
    const controller = new AdaptiveRateController();
    await job(controller, server.url, count);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    expect(controller.state.refused).toBe(server.refused.length);
    expect(server.refused.length).toBeLessThan(count / 4);
  });
});

describe("what the service asks for", () => {
  it("a Retry-After of several seconds holds every request for its certain part", { tags: [REAL_TIME] }, async (test) => {
    // A bucket of 1 at 0.4 a second: the second request is told `Retry-After: 3` (2.5 s, rounded up).
    const server = await limited({ requestsPerSecond: 0.4, burst: 1, latency: 0 }, test);
    const controller = new AdaptiveRateController();
    const started = performance.now();
    await job(controller, server.url, 2, 2);
    // The refused request and the one after it went no sooner than 2 s (3 s told, less its rounding) after the refusal.
    const refusedAt = server.refused[0]!;
    const after = [...server.accepted, ...server.refused].filter((at) => at > refusedAt);
    expect(after.every((at) => at - refusedAt >= 1_990)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it("retry-after-ms is exact: the wait told is the wait", async (test) => {
    const server = await limited({ requestsPerSecond: 5, burst: 1, retryAfterMs: true, latency: 0 }, test);
    const { waits } = await job(new AdaptiveRateController(), server.url, 3, 3);
    expect(waits.length).toBeGreaterThan(0);
    // A 5-a-second bucket never asks for more than one token's 200 ms (how much less depends on when the request came,
    // so on the machine's load); read from the whole-second Retry-After, each wait would be 1,000.
    expect(waits.every((wait) => wait > 0 && wait <= 200)).toBe(true);
  });
});

describe("shared per key and host", () => {
  it("two jobs with the same key and host share one controller, and together go at the allowed rate", {
    tags: [REAL_TIME],
  }, async (test) => {
    const server = await limited({ requestsPerSecond: 20, burst: 2 }, test);
    const a = rateControllerFor("oa-shared-key-1", server.url);
    const b = rateControllerFor("oa-shared-key-1", server.url);
    expect(b).toBe(a);
    expect(rateControllerFor("oa-other-key-22", server.url)).not.toBe(a);
    expect(rateControllerFor("oa-shared-key-1", "http://127.0.0.1:1")).not.toBe(a);
    await Promise.all([job(a, server.url, 50), job(b, server.url, 50)]);
    expect(server.accepted.length).toBe(100);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
    // 16 requests go at once before anything is known (a burst of 2 is accepted), then few.
    expect(server.refused.length).toBeLessThan(40);
  });

  it("the key is in no field of a controller, and idle controllers are let go of past a bound", () => {
    const key = "oa-secret-key-for-inspection";
    const controller = rateControllerFor(key, "http://127.0.0.1:9");
    expect(inspect(controller, { depth: 10, showHidden: true })).not.toContain(key);
    expect(JSON.stringify(controller)).not.toContain(key);
    for (let i = 0; i < 500; i++) rateControllerFor(`oa-key-${i}`, "http://127.0.0.1:9");
    expect(rateControllerCount()).toBeLessThanOrEqual(64);
  });
});

describe("waiting", () => {
  it("an abort ends the wait with APIUserAbortError and leaves no timer or waiter behind", async () => {
    const controller = new AdaptiveRateController();
    // A refusal that asks for 30 s holds everything.
    const permit = await controller.acquire();
    expect(permit.observe(429, new Headers({ "retry-after": "30" }))).toEqual({ wait: 29_000, retryAfter: 30_000 });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const abort = new AbortController();
    const waiting = controller.acquire({ signal: abort.signal });
    expect(controller.state.waiting).toBe(1);
    const timersWhileWaiting = timers();
    abort.abort(new Error("stop"));
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).cause).toEqual(new Error("stop"));
    expect(controller.state.waiting).toBe(0);
    expect(timers()).toBe(timersWhileWaiting - 1);
    await expect(controller.acquire({ signal: abort.signal })).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it("a refused request sent again goes before requests not sent yet; a permit counts once", async () => {
    const controller = new AdaptiveRateController();
    const first = await controller.acquire();
    first.observe(429, new Headers({ "retry-after": "2" })); // holds for 1 s
    const order: string[] = [];
    const fresh = controller.acquire().then((permit) => (order.push("fresh"), permit));
    const again = controller.acquire({ retry: true }).then((permit) => (order.push("retry"), permit));
    const permits = await Promise.all([fresh, again]);
    expect(order).toEqual(["retry", "fresh"]);
    for (const permit of permits) {
      permit.release();
      permit.release();
      expect(permit.observe(200, new Headers())).toBeUndefined();
    }
    expect(controller.state).toMatchObject({ inFlight: 0, waiting: 0, started: 3, refused: 1, accepted: 0 });
  });
});

// The controller's decisions read on a clock the test moves: what a told quota lets start, and when.
describe("a quota the service tells", () => {
  const told = (remaining: number, reset?: string) =>
    new Headers({
      "ratelimit-limit": "10",
      "ratelimit-remaining": String(remaining),
      ...(reset === undefined ? {} : { "ratelimit-reset": reset }),
    });
  const at = (start: number) => {
    const clock = { now: start };
    return { clock, controller: new AdaptiveRateController(() => clock.now) };
  };

  it.each([
    [8, true],
    [5, true],
    [4, false],
  ])("with %i of 10 left and half a second to the reset, the next request goes at once: %s", (remaining, atOnce) => {
    const { controller } = at(1_000);
    controller.tryAcquire()!.observe(200, told(remaining, "0.5"));
    const next = controller.tryAcquire();
    expect(next !== undefined).toBe(atOnce);
  });

  it("under half the quota left, the rest is spread evenly up to the reset: 4 left, 500 ms to go, one every 100 ms", () => {
    const { clock, controller } = at(1_000);
    controller.tryAcquire()!.observe(200, told(4, "0.5"));
    clock.now = 1_099;
    expect(controller.tryAcquire()).toBeUndefined();
    clock.now = 1_100;
    expect(controller.tryAcquire()).toBeDefined();
  });

  it("nothing left and no reset told: one request at a time asks, each after the answer before it", () => {
    const { controller } = at(1_000);
    const [first, second] = [controller.tryAcquire()!, controller.tryAcquire()!];
    first.observe(200, told(0));
    expect(controller.tryAcquire()).toBeUndefined();
    second.observe(200, new Headers());
    expect(controller.tryAcquire()).toBeDefined();
  });

  it.each([
    ["0.5", true],
    ["1", false],
  ])(
    "past a reset told as %s s, a request goes while another is in flight: %s (a reset in whole seconds may not have come yet)",
    (reset, atOnce) => {
      const { clock, controller } = at(1_000);
      const [first, second] = [controller.tryAcquire()!, controller.tryAcquire()!];
      first.observe(200, told(0, reset));
      clock.now = 2_000;
      expect(controller.tryAcquire() !== undefined).toBe(atOnce);
      second.release();
    },
  );

  it("an answer before the reset that tells no quota leaves the quota as told: nothing left, so requests wait", () => {
    const { clock, controller } = at(1_000);
    const [first, second] = [controller.tryAcquire()!, controller.tryAcquire()!];
    first.observe(200, told(0, "1"));
    clock.now = 1_200;
    second.observe(200, new Headers());
    expect(controller.tryAcquire()).toBeUndefined();
  });

  it("an answer after the reset that tells no quota: the quota is forgotten, and requests go while others are in flight", () => {
    const { clock, controller } = at(1_000);
    const [first, second, third] = [controller.tryAcquire()!, controller.tryAcquire()!, controller.tryAcquire()!];
    first.observe(200, told(0, "1")); // whole seconds: the reset may come up to a second early or late
    clock.now = 2_100;
    second.observe(200, new Headers());
    expect(controller.tryAcquire()).toBeDefined();
    third.release();
  });
});
