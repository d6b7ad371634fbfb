// The rate controller (src/core/rate-controller.ts) on vitest's fake clock: nothing here waits in real time, so the
// outcome is the same on every machine however loaded, and each bound can be as tight as the rule it checks.
// - Whole jobs against the emulator's rate limiter in each style real services use (test/support/rate-simulation.ts):
//   what rate-controller.test.ts checks in wall time (accepted, the steady fraction of the allowed rate, refusals,
//   waits), here in simulated time.
// - Scripted sequences: starts and answers at chosen moments, and the pace, holds and turns they must give, as the
//   rules in the source's comments state them (90 % of what was accepted, a ceiling at 110 %, 70 % of the rate requests
//   went at, regrowth with a 500 ms time constant, a backoff doubling from 250 ms, a reset narrowed by one window's
//   answers).
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AcquireOptions, AdaptiveRateController, type RatePermit } from "../../src/core/rate-controller.js";
import type { RateLimitStyle } from "../../src/emulator/network.js";
import { APIUserAbortError } from "../../src/index.js";
import { simulateJob } from "../support/rate-simulation.js";

beforeEach(() => {
  // Date too: the window style's reset is a Unix time, read against Date.now().
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"], now: Date.parse("2026-11-27T12:00:00.300Z") });
  // The empty-rounds backoff is jittered by Math.random: an eighth off, exactly.
  vi.spyOn(Math, "random").mockReturnValue(0.5);
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Moves the fake clock to `t` (performance.now(), ms), firing the controller's timers due on the way. */
const to = (t: number) => vi.advanceTimersByTimeAsync(t - performance.now());

/** A request started now; the test fails if the controller would make it wait. */
function start(controller: AdaptiveRateController): RatePermit {
  const permit = controller.tryAcquire();
  expect(permit, `a start at ${performance.now()} ms`).toBeDefined();
  return permit!;
}

/** A request started now if nothing holds it back (its permit), else undefined. */
const tryStart = (controller: AdaptiveRateController) => controller.tryAcquire();

/** A request held until exactly `t`: none goes a quarter of a millisecond before, one goes at `t` (its permit). */
async function startsAt(controller: AdaptiveRateController, t: number): Promise<RatePermit> {
  await to(t - 0.25);
  expect(tryStart(controller), `a start at ${t - 0.25} ms`).toBeUndefined();
  await to(t);
  return start(controller);
}

/** A request through `acquire`, started when its turn comes; resolves to the permit and when it started. */
async function acquired(controller: AdaptiveRateController, options: AcquireOptions = {}): Promise<{ permit: RatePermit; at: number }> {
  let permit: RatePermit | undefined;
  let at = Number.NaN;
  void controller.acquire(options).then((p) => {
    permit = p;
    at = performance.now();
  });
  for (let i = 0; !permit; i++) {
    if (i === 50) throw new Error("the request never started");
    await vi.advanceTimersToNextTimerAsync();
  }
  return { permit, at };
}

const noHint = () => new Headers();

/**
 * Ten requests at once at 1 s, one refused with no hint 100 ms on, the others given up: they went at 100 a second and
 * none was accepted, so the pace starts at 50 (its turns 20 ms apart), with no ceiling yet. The clock is at 1,100.
 */
async function pacedAt50(): Promise<AdaptiveRateController> {
  await to(1_000);
  const controller = new AdaptiveRateController();
  const permits = Array.from({ length: 10 }, () => start(controller));
  await to(1_100);
  expect(permits[0]!.observe(429, noHint())).toEqual({ wait: 0, retryAfter: undefined });
  for (const permit of permits.slice(1)) permit.release();
  expect(controller.state.rate).toBe(50);
  return controller;
}

/** `count` requests `every` ms apart from `from`, each accepted 10 ms after it starts (with `headers`). */
async function steady(controller: AdaptiveRateController, from: number, count: number, every = 25, headers = noHint) {
  for (let i = 0; i < count; i++) {
    await to(from + every * i);
    const permit = start(controller);
    await to(from + every * i + 10);
    expect(permit.observe(200, headers())).toBeUndefined();
  }
}

/** One more request at the clock's time plus `after`, refused with no hint 10 ms later; returns when. */
async function refusedAfter(controller: AdaptiveRateController, after: number): Promise<number> {
  await to(performance.now() + after);
  const permit = start(controller);
  await to(performance.now() + 10);
  permit.observe(429, noHint());
  return performance.now();
}

/**
 * The pace after one answer to a request it held back, `ms` after it last changed: below the ceiling the gap closes
 * with a 500 ms time constant, and by at least 5 % a second (past the ceiling, a probe); with no ceiling known, it
 * doubles each second. Time counts up to two of the pace's intervals.
 */
function grown(rate: number, ceiling: number, ms: number): number {
  const seconds = Math.min(2 / rate, ms / 1_000);
  if (ceiling === Infinity) return rate + rate * seconds;
  return rate + Math.max((ceiling - rate) * (1 - Math.exp((-seconds * 1_000) / 500)), 0.05 * rate * seconds);
}

/**
 * One request through `acquire` after the pace changed at `changedAt`, answered `latency` ms after it starts. Returns
 * the ms from the change to the answer.
 */
async function pacedAnswer(controller: AdaptiveRateController, changedAt: number, latency = 10, headers = noHint): Promise<number> {
  const { permit, at } = await acquired(controller);
  await to(at + latency);
  permit.observe(200, headers());
  return performance.now() - changedAt;
}

// The job is deterministic (the fake clock, a seeded latency, Math.random stubbed): each bound is just past what it
// gives, so a change of a constant or a rule of the controller shows here. One changed on purpose may move them; the
// real-time tests keep the wider bounds that hold on any machine.
describe("under each style of rate limit, a job in simulated time goes at the allowed rate", () => {
  // As in rate-controller.test.ts: 20 requests a second, a job of 100 at concurrency 8, a latency of 10-14 ms.
  const rate = 20;
  const count = 100;
  async function job(style: RateLimitStyle, burst?: number) {
    const controller = new AdaptiveRateController();
    const run = await simulateJob(controller, { requestsPerSecond: rate, style, count, ...(burst ? { burst } : {}) });
    // Every request accepted in the end, every start and answer counted once, nothing left behind.
    expect(run.accepted).toHaveLength(count);
    expect(controller.state).toMatchObject({
      started: run.accepted.length + run.refused.length,
      accepted: count,
      refused: run.refused.length,
      inFlight: 0,
      waiting: 0,
    });
    return { ...run, rate: controller.state.rate };
  }
  /** The pace learned is the limit's rate, give or take its probing. */
  const learned = (pace: number) => {
    expect(pace).toBeGreaterThan(rate * 0.95);
    expect(pace).toBeLessThan(rate * 1.1);
  };

  it("a token bucket with a small burst and whole-second Retry-After: a refusal does not stall the job for a second", async () => {
    const run = await job("bucket", 2);
    expect(run.steadyFraction).toBeGreaterThan(0.98);
    // `Retry-After: 1` is rounded up: its certain part is nothing.
    expect(run.waits.every((wait) => wait === 0)).toBe(true);
    expect(run.refused.length).toBeLessThanOrEqual(22);
    learned(run.rate);
  });

  it("fixed windows with X-RateLimit-*: the budget and the reset pace the job, without a refusal", async () => {
    const run = await job("window");
    // Under 1: the second half of each window's quota is spread up to its reset.
    expect(run.steadyFraction).toBeGreaterThan(0.85);
    expect(run.refused).toHaveLength(0);
    expect(run.rate).toBe(Infinity);
  });

  it("a sliding window told by X-RateLimit-Limit and -Remaining", async () => {
    const run = await job("sliding");
    expect(run.steadyFraction).toBeGreaterThan(0.94);
    expect(run.refused.length).toBeLessThanOrEqual(31);
    learned(run.rate);
  });

  it("the IETF draft's RateLimit and RateLimit-Policy, the reset in whole seconds: no refusal", async () => {
    const run = await job("ietf");
    // Each window's quota spread up to the latest its reset can be.
    expect(run.steadyFraction).toBeGreaterThan(0.82);
    expect(run.refused).toHaveLength(0);
    expect(run.rate).toBe(Infinity);
  });

  it("a 429 with no hint at all: the job slows to the rate without flooding the server", async () => {
    const run = await job("no-hint", 2);
    expect(run.steadyFraction).toBeGreaterThan(0.97);
    expect(run.refused.length).toBeLessThanOrEqual(22);
    learned(run.rate);
  });

  it("503 with Retry-After under overload is a throttle too", async () => {
    const run = await job("overload", 2);
    expect(run.steadyFraction).toBeGreaterThan(0.9);
    expect(run.waits.every((wait) => wait === 0)).toBe(true);
    expect(run.refused.length).toBeLessThanOrEqual(16);
    learned(run.rate);
  });
});

describe("a refusal lowers the pace, once per round of requests", () => {
  it("within the first second, to half the rate the burst went at: 10 at once, refused 100 ms on, 50 a second", async () => {
    await pacedAt50();
  });

  it("within the first second, to 90 % of what the service accepted when that is more: 8 of 10 accepted within 100 ms, 72 a second", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const permits = Array.from({ length: 10 }, () => start(controller));
    await to(1_050);
    for (const permit of permits.slice(0, 8)) permit.observe(200, noHint());
    await to(1_100);
    permits[8]!.observe(429, noHint());
    expect(controller.state.rate).toBeCloseTo(72, 9);
  });

  it("a first refusal after a single accepted answer is not an empty round: the pace drops (to 50 a second), no backoff", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const [accepted, refused] = [start(controller), start(controller)];
    await to(1_010);
    accepted.observe(200, noHint());
    await to(1_020);
    refused.observe(429, noHint());
    // Two at once 20 ms ago (100 a second), one accepted (50 a second): the pace's next turn is now.
    expect(controller.state.rate).toBe(50);
    start(controller);
  });

  it("after two starts 100 ms apart, the rate they went at is theirs: 10 a second, so the pace starts at 5", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(1_100);
    const second = start(controller);
    await to(1_110);
    second.observe(429, noHint());
    expect(controller.state.rate).toBeCloseTo(5, 9);
    first.release();
  });

  it("never under the slowest pace, one request every 20 s: after two starts 30 s apart, not half their rate", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(31_000);
    const second = start(controller);
    await to(31_010);
    second.observe(429, noHint());
    expect(controller.state.rate).toBe(0.05);
    first.release();
  });

  it("a refusal of a request started before the pace dropped is of the same round: no second drop, and no backoff", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const permits = Array.from({ length: 10 }, () => start(controller));
    await to(1_100);
    permits[0]!.observe(429, noHint());
    permits[9]!.observe(429, noHint());
    expect(controller.state).toMatchObject({ rate: 50, refused: 2 });
    expect(tryStart(controller)).toBeDefined();
  });

  // Once a pace is known (50 a second, from a refusal at 1,100), 20 requests 25 ms apart are accepted (40 a second, 20
  // of them in the last second), and the next is refused `refusedAt`.
  it.each([
    ["910 ms after the last refusal, the service's rate is what it accepted: 90 % of 20 a second, the ceiling at 110 %", 2_010, 18, 22],
    ["a second after the last refusal, still: 18, the ceiling 22", 2_100, 18, 22],
    ["a second after the first start is no longer the first second: 18, the ceiling 22", 2_000, 18, 22],
    [
      "over a second after the last refusal, what was accepted measures no rate: 70 % of the 40 a second requests went at, the ceiling 40",
      2_110,
      28,
      40,
    ],
  ])("%s", async (_, refusedAt, rate, ceiling) => {
    const controller = await pacedAt50();
    await steady(controller, refusedAt - 510, 20);
    expect(await refusedAfter(controller, 15)).toBe(refusedAt);
    expect(controller.state.rate).toBeCloseTo(rate, 9);
    // It climbs back toward the ceiling: one request the pace holds back, accepted.
    const ms = await pacedAnswer(controller, refusedAt);
    expect(controller.state.rate).toBeCloseTo(grown(rate, ceiling, ms), 9);
  });

  it("a quota told (X-RateLimit-Remaining) says the service counts: what it accepted is its rate even over a second on", async () => {
    const controller = await pacedAt50();
    const quota = () => new Headers({ "x-ratelimit-remaining": "50" });
    await steady(controller, 1_600, 20, 25, quota);
    const refusedAt = await refusedAfter(controller, 15);
    expect(refusedAt).toBe(2_110);
    expect(controller.state.rate).toBeCloseTo(18, 9);
    const ms = await pacedAnswer(controller, refusedAt, 10, quota);
    expect(controller.state.rate).toBeCloseTo(grown(18, 22, ms), 9);
  });

  it("a quota told, but nothing accepted in the last second: 70 % of the 40 a second requests went at, not the slowest pace", async () => {
    const controller = await pacedAt50();
    await to(1_200);
    const told = start(controller);
    await to(1_210);
    told.observe(200, new Headers({ "x-ratelimit-remaining": "50" }));
    const permits: RatePermit[] = [];
    for (let i = 0; i < 8; i++) {
      await to(2_500 + 25 * i);
      permits.push(start(controller));
    }
    await to(2_700);
    permits[0]!.observe(429, noHint());
    expect(controller.state.rate).toBeCloseTo(28, 9);
    const ms = await pacedAnswer(controller, 2_700);
    expect(controller.state.rate).toBeCloseTo(grown(28, 40, ms), 9);
  });

  it("requests at the pace, the service accepting as many: 90 % of the 40 a second accepted, the ceiling at the 40 they went at", async () => {
    const controller = await pacedAt50();
    await steady(controller, 1_500, 40);
    const refusedAt = await refusedAfter(controller, 15);
    expect(controller.state.rate).toBeCloseTo(36, 9);
    const ms = await pacedAnswer(controller, refusedAt);
    expect(controller.state.rate).toBeCloseTo(grown(36, 40, ms), 9);
  });

  it("the service accepting more than requests went at lately: the pace at their 40 a second, which is the ceiling; it probes past it by 5 % a second", async () => {
    const controller = await pacedAt50();
    // 45 requests 20 ms apart, then 8 more 25 ms apart: 48 accepted in the last second, the last 8 at 40 a second.
    await steady(controller, 1_500, 45, 20);
    await steady(controller, 2_405, 7);
    const refusedAt = await refusedAfter(controller, 15);
    expect(refusedAt).toBe(2_590);
    expect(controller.state.rate).toBeCloseTo(40, 9);
    const ms = await pacedAnswer(controller, refusedAt);
    expect(controller.state.rate).toBeCloseTo(40 + 0.05 * 40 * (ms / 1_000), 9);
  });

  it("a first refusal after over a second of requests: the pace from what was accepted, and no ceiling yet (it doubles each second)", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    await steady(controller, 1_000, 60);
    const refusedAt = await refusedAfter(controller, 15);
    // 40 accepted in the last second, at 40 a second: 90 % of it.
    expect(controller.state.rate).toBeCloseTo(36, 9);
    const ms = await pacedAnswer(controller, refusedAt);
    expect(controller.state.rate).toBeCloseTo(grown(36, Infinity, ms), 9);
  });

  it("over 64 accepted within the time measured, the last 64 kept are measured over their own span", async () => {
    // 100 at once at 1 s, 80 of them accepted 1 ms apart from 1,010 (the last 64: 1,026 to 1,089), one refused at 1,400.
    await to(1_000);
    const controller = new AdaptiveRateController();
    const permits = Array.from({ length: 100 }, () => start(controller));
    for (let i = 0; i < 80; i++) {
      await to(1_010 + i);
      permits[i]!.observe(200, noHint());
    }
    await to(1_400);
    permits[80]!.observe(429, noHint());
    // The starts went at 64 in 400 ms (160 a second); the service accepted 64 in 374 ms: 90 % of that is less.
    expect(controller.state.rate).toBeCloseTo((0.9 * 64 * 1_000) / 374, 9);
  });
});

describe("the pace grows only while it is what holds requests back", () => {
  it("before any ceiling, it doubles each second: 50 a second becomes 51 after 20 ms; a request that went at once grows nothing", async () => {
    const controller = await pacedAt50();
    const atOnce = await acquired(controller);
    const held = await acquired(controller);
    expect(held.at).toBe(1_110);
    await to(1_120);
    atOnce.permit.observe(200, noHint());
    expect(controller.state.rate).toBe(50);
    held.permit.observe(200, noHint());
    expect(controller.state.rate).toBeCloseTo(51, 9);
    expect(controller.state.delayed).toBe(1);
  });

  it("an answer counts at most two of the pace's intervals: at 18 a second, one 200 ms late counts 111 ms", async () => {
    const controller = await pacedAt50();
    await steady(controller, 1_500, 20);
    const refusedAt = await refusedAfter(controller, 15);
    const ms = await pacedAnswer(controller, refusedAt, 200);
    expect(ms).toBeGreaterThan(2_000 / 18);
    expect(controller.state.rate).toBeCloseTo(18 + 4 * (1 - Math.exp(-2_000 / 18 / 500)), 9);
  });

  // The pace's turn at 1,119; the request asks for it `waited` ms before, and is answered at 1,130.
  it.each([
    ["a millisecond (a timer's lateness) was not held back: not delayed, and grows nothing", 1, 0, 50],
    ["2 ms was held back by the pace: delayed, and it grows (50 a second for 30 ms)", 2, 1, 51.5],
  ])("a request that waited %s", async (_, waited, delayed, rate) => {
    const controller = await pacedAt50();
    await to(1_109);
    const first = start(controller);
    await to(1_119 - waited);
    const next = await acquired(controller);
    expect(next.at).toBe(1_119);
    await to(1_130);
    first.observe(200, noHint());
    next.permit.observe(200, noHint());
    expect(controller.state.delayed).toBe(delayed);
    expect(controller.state.rate).toBeCloseTo(rate, 9);
  });

  it.each([
    ["after it", 30],
    ["at the same moment as it", 10],
  ])("a request held by a Retry-After ending %s the pace's turn grows nothing", async (_, retryAfterMs) => {
    const controller = await pacedAt50();
    const first = start(controller);
    first.observe(429, new Headers({ "retry-after-ms": String(retryAfterMs) }));
    const held = await acquired(controller);
    expect(held.at).toBe(1_100 + retryAfterMs);
    await to(held.at + 10);
    held.permit.observe(200, noHint());
    expect(controller.state).toMatchObject({ rate: 50, delayed: 1 });
  });

  it("a request started before the last refusal, even the last one started, grows nothing when it is accepted after it", async () => {
    const controller = await pacedAt50();
    start(controller).observe(200, noHint());
    await to(1_110);
    const refused = start(controller);
    // Held by the pace until 1,130: the last request started before the refusal.
    const held = await acquired(controller);
    expect(held.at).toBe(1_130);
    await to(1_135);
    refused.observe(429, noHint());
    // Half the 50 a second requests went at (1 accepted within 135 ms is less).
    expect(controller.state.rate).toBe(25);
    await to(1_140);
    held.permit.observe(200, noHint());
    expect(controller.state.rate).toBe(25);
  });

  it.each([
    [1, 50],
    [2, 51],
  ])("an answer telling %i left (a sliding window at its rate says 0 or 1): the pace becomes %d", async (remaining, rate) => {
    const controller = await pacedAt50();
    await acquired(controller);
    const held = await acquired(controller);
    await to(1_120);
    held.permit.observe(200, new Headers({ "x-ratelimit-remaining": String(remaining) }));
    expect(controller.state.rate).toBeCloseTo(rate, 9);
  });
});

describe("a service that says nothing", () => {
  /** A request started now and answered `status` 10 ms on. */
  async function answered(controller: AdaptiveRateController, status: number, headers = noHint()) {
    const permit = start(controller);
    await to(performance.now() + 10);
    permit.observe(status, headers);
  }

  /** A request started now, refused with `headers` 10 ms on; the next is held until `opensAt`, when the clock is left. */
  async function refusedAndHeld(controller: AdaptiveRateController, headers: Headers, opensAt: number) {
    await answered(controller, 429, headers);
    await to(opensAt - 0.25);
    expect(tryStart(controller), `held until ${opensAt}`).toBeUndefined();
    await to(opensAt);
  }

  it("refusals in a row with nothing accepted hold everything for 250 ms, doubling up to 8 s, jittered down by up to a quarter; the pace stays", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    // The first refusal sets the pace (50 a second); none after it is accepted.
    await answered(controller, 429);
    expect(controller.state.rate).toBe(50);
    await to(1_020);
    for (const backoff of [250, 500, 1_000, 2_000, 4_000, 8_000, 8_000]) {
      await refusedAndHeld(controller, noHint(), performance.now() + 10 + backoff * 0.875);
    }
    expect(controller.state).toMatchObject({ rate: 50, refused: 8 });
  });

  it("an accepted answer starts the backoff over", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    await answered(controller, 429);
    await to(1_020);
    await refusedAndHeld(controller, noHint(), 1_030 + 218.75);
    await refusedAndHeld(controller, noHint(), 1_258.75 + 437.5);
    await answered(controller, 200);
    // A refusal after it lowers the pace (a round with something accepted) and holds nothing; the next backs off 250 ms again.
    await answered(controller, 429);
    expect(controller.state.rate).toBeLessThan(50);
    await to(performance.now() + 1_000);
    await refusedAndHeld(controller, noHint(), performance.now() + 10 + 218.75);
  });

  it("the backoff never holds past the time a Retry-After said requests may go again", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const retryAfter = () => new Headers({ "retry-after": "1" });
    // `Retry-After: 1` from the first refusal, at 1,010: requests may go again by 2,010.
    await answered(controller, 429, retryAfter());
    await to(1_020);
    await refusedAndHeld(controller, retryAfter(), 1_030 + 218.75);
    await refusedAndHeld(controller, retryAfter(), 1_258.75 + 437.5);
    // 875 ms more would be 2,581.25.
    await refusedAndHeld(controller, retryAfter(), 2_010);
  });
});

describe("what the service asks for", () => {
  it("Retry-After: 30 holds every request 29 s, its certain part; one that accepts no hold that long goes at once, for the service to answer", async () => {
    const controller = await pacedAt50();
    const first = start(controller);
    const order: string[] = [];
    const waiting = (name: string, maxHold?: number) =>
      controller.acquire(maxHold === undefined ? {} : { maxHold }).then((permit) => (order.push(name), permit));
    // Three wait their turn of the pace (1,110) when the refusal comes.
    const patient = waiting("patient");
    const impatient = [waiting("impatient 1", 1_000), waiting("impatient 2", 1_000)];
    await to(1_105);
    expect(first.observe(429, new Headers({ "retry-after": "30" }))).toEqual({ wait: 29_000, retryAfter: 30_000 });
    const [one, two] = await Promise.all(impatient);
    expect(order).toEqual(["impatient 1", "impatient 2"]);
    // One that accepts exactly the hold waits it out.
    const exactly = waiting("exactly", 29_000);
    await to(30_104);
    expect(order).toHaveLength(2);
    // The impatient were not held by the pace: their answers grow nothing.
    one!.observe(200, noHint());
    two!.observe(200, noHint());
    expect(controller.state.rate).toBe(50);
    await to(30_105);
    await patient;
    // The pace's next turn, half an interval on.
    await to(30_115);
    await exactly;
    expect(order).toEqual(["impatient 1", "impatient 2", "patient", "exactly"]);
  });

  it("a request that accepts no long hold still waits its turn of the pace when that comes after the hold", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(1_100);
    const second = start(controller);
    await to(1_110);
    second.observe(429, noHint());
    // A pace of 5 a second: the next turn is 1,300. The first request's refusal holds everything until 1,220.
    expect(controller.state.rate).toBeCloseTo(5, 9);
    await to(1_120);
    expect(first.observe(429, new Headers({ "retry-after-ms": "100" }))).toEqual({ wait: 100, retryAfter: 100 });
    expect((await acquired(controller, { maxHold: 50 })).at).toBe(1_300);
  });

  // After an accepted answer (so no backoff), one refused at 1,115 with a wait told: the pace drops to 25 a second
  // (half the 50 the requests went at, as in the first second), its next turn at 1,150.
  it.each([
    [
      "Retry-After: 1 (whole seconds, rounded up) holds nothing: the next request goes at its turn of the pace",
      { "retry-after": "1" },
      0,
      1_000,
      1_150,
    ],
    ["retry-after-ms is exact: its wait holds every request", { "retry-after-ms": "150" }, 150, 150, 1_265],
    ["Retry-After in a fraction of a second is exact too", { "retry-after": "0.5" }, 500, 500, 1_615],
  ])("%s", async (_, headers, wait, retryAfter, next) => {
    const controller = await pacedAt50();
    const accepted = start(controller);
    await to(1_105);
    accepted.observe(200, noHint());
    await to(1_110);
    const refused = start(controller);
    await to(1_115);
    expect(refused.observe(429, new Headers(headers))).toEqual({ wait, retryAfter });
    expect(controller.state.rate).toBe(25);
    expect((await acquired(controller)).at).toBe(next);
  });
});

describe("a quota the service tells, on the fake clock", () => {
  const told = (remaining: number, reset: Record<string, string>) => new Headers({ "x-ratelimit-remaining": String(remaining), ...reset });

  it("past a reset told in whole seconds, with nothing in flight, one request goes to ask, and only one", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(1_010);
    first.observe(200, told(0, { "x-ratelimit-limit": "10", "x-ratelimit-reset": "1" }));
    const asking = await startsAt(controller, 2_010);
    expect(tryStart(controller)).toBeUndefined();
    await to(2_020);
    asking.observe(200, told(9, { "x-ratelimit-limit": "10", "x-ratelimit-reset": "1" }));
    expect(tryStart(controller)).toBeDefined();
  });

  it("past a reset told exactly, every request may go, though others are still in flight", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    start(controller);
    await to(1_010);
    // Nothing left once the second counts; the window resets at 1,510 exactly.
    first.observe(200, told(0, { "x-ratelimit-reset-after": "0.5" }));
    await startsAt(controller, 1_510);
    start(controller);
  });

  it("with half of the window's quota left (5 of 10) a request goes at once; under half, the rest is spread up to the reset", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(1_010);
    first.observe(200, told(5, { "x-ratelimit-limit": "10", "x-ratelimit-reset": "1" }));
    start(controller);
    // Four left, spread evenly from the last start to the reset (by 2,010): the next at (4 × 1,010 + 2,010) / 5.
    await startsAt(controller, 1_210);
  });

  it("a request that waits for an answer (nothing left, no reset told, no pace) sets no timer: the answer lets it go", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const [first, second] = [start(controller), start(controller)];
    first.observe(200, told(0, {}));
    let started = false;
    const waiting = controller.acquire().then((permit) => ((started = true), permit));
    await to(2_000);
    expect(started).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    second.observe(200, noHint());
    await waiting;
  });

  it.each([
    ["at the reset told in whole seconds forgets the quota: a request goes while others are in flight", 2_000, true],
    ["a moment before it leaves the quota as told: nothing left, so requests wait", 1_999.75, false],
  ])("an answer that tells no quota %s", async (_, answeredAt, goes) => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const [first, second] = [start(controller), start(controller)];
    start(controller);
    first.observe(200, told(0, { "x-ratelimit-reset": "1" }));
    await to(answeredAt);
    second.observe(200, noHint());
    expect(tryStart(controller) !== undefined).toBe(goes);
  });

  it("a sliding window's quota spent (no reset told) once refusals taught a pace: requests go at the pace, not one answer at a time", async () => {
    const controller = await pacedAt50();
    const first = start(controller);
    await to(1_110);
    start(controller);
    await to(1_115);
    first.observe(200, new Headers({ "x-ratelimit-limit": "20", "x-ratelimit-remaining": "0" }));
    await startsAt(controller, 1_130);
  });

  it("two answers of one window narrow its reset down (told in whole seconds): the last of the quota waits for the earlier", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(1_400);
    // By 2,400 at the latest, and after 1,400; then by 2,500, after 1,500: so after 1,500 and by 2,400.
    first.observe(200, told(1, { "x-ratelimit-reset": "1" }));
    const last = start(controller);
    await to(1_500);
    last.observe(200, told(0, { "x-ratelimit-reset": "1" }));
    await startsAt(controller, 2_400);
  });

  it("an exact reset is kept when a rounded one of the same window follows: requests wait for the exact one", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    const second = start(controller);
    await to(1_010);
    // Exactly at 2,510, nothing left once the second request counts...
    first.observe(200, told(1, { "x-ratelimit-reset-after": "1.5" }));
    await to(1_100);
    // ...then by 3,100, after 2,100 (whole seconds): a second that holds 2,510, so 2,510 it stays.
    second.observe(200, told(0, { "x-ratelimit-reset": "2" }));
    await startsAt(controller, 2_510);
  });

  it("an answer telling more left than was known is of a new window: the old one's reset does not narrow its own", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const first = start(controller);
    await to(1_400);
    first.observe(200, told(1, { "x-ratelimit-reset": "1" }));
    const second = start(controller);
    await to(1_900);
    // The window reset between: 5 left, by 2,900.
    second.observe(200, told(5, { "x-ratelimit-reset": "1" }));
    const five = Array.from({ length: 5 }, () => start(controller));
    await to(1_950);
    five.forEach((permit, i) => permit.observe(200, told(4 - i, { "x-ratelimit-reset": "1" })));
    await startsAt(controller, 2_900);
  });

  it("an earlier request's answer arriving after a later one's, telling the same budget (counted just before it), is stale: its reset is not taken", async () => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const earlier = start(controller);
    const later = start(controller);
    await to(1_010);
    // Nothing left; the window resets by 2,010 (told in whole seconds).
    later.observe(200, told(0, { "x-ratelimit-reset": "1" }));
    await to(1_020);
    // One left before the later request was counted, so none now; its reset, exactly 1,520, is not the one known.
    earlier.observe(200, told(1, { "x-ratelimit-reset-after": "0.5" }));
    await startsAt(controller, 2_010);
  });

  // Two requests at once; the later one's answer comes first, then the earlier one's. Either way none is left.
  it.each([
    ["more than it could (another client of the key used some meanwhile): stale, ignored", 0, 3],
    ["less (the service counted it after the later one): taken", 1, 0],
  ])("an earlier request's answer arriving after a later one's, telling %s", async (_, laterTells, earlierTells) => {
    await to(1_000);
    const controller = new AdaptiveRateController();
    const earlier = start(controller);
    const later = start(controller);
    await to(1_010);
    later.observe(200, told(laterTells, { "x-ratelimit-reset-after": "2.5" }));
    await to(1_020);
    earlier.observe(200, told(earlierTells, { "x-ratelimit-reset-after": "2.49" }));
    expect(tryStart(controller)).toBeUndefined();
  });
});

describe("each request's turn", () => {
  it("a request's abort listener is removed once it starts: at once, at its turn, or impatient of a hold", async () => {
    const controller = await pacedAt50();
    const signal = new AbortController().signal;
    const listeners = () => getEventListeners(signal, "abort").length;
    await acquired(controller, { signal });
    await acquired(controller, { signal });
    expect(listeners()).toBe(0);
    await to(1_130);
    start(controller).observe(429, new Headers({ "retry-after": "30" }));
    const impatient = controller.acquire({ signal, maxHold: 0 });
    expect(listeners()).toBe(0);
    await impatient;
  });

  it("a request aborted while it waits for its turn leaves no abort listener on its signal", async () => {
    const controller = await pacedAt50();
    start(controller);
    const abort = new AbortController();
    const waiting = controller.acquire({ signal: abort.signal }).catch((e: unknown) => e);
    expect(getEventListeners(abort.signal, "abort")).toHaveLength(1);
    abort.abort();
    expect(await waiting).toBeInstanceOf(APIUserAbortError);
    expect(getEventListeners(abort.signal, "abort")).toHaveLength(0);
  });

  it("a start late by up to half an interval keeps the turns after it; later, the lateness beyond half is lost", async () => {
    const controller = await pacedAt50();
    start(controller); // at 1,100, long after its turn (1,020): the next turn is half an interval on, 1,110
    await to(1_118);
    start(controller); // 8 ms late: the next turn is still 1,130
    await startsAt(controller, 1_130);
    await to(1_165); // 15 ms late: the next turn is 1,175, not 1,170
    start(controller);
    await startsAt(controller, 1_175);
  });

  it("a request tried while another waits for its turn waits behind it, even once the turn has come (a late timer)", async () => {
    // A clock of its own, moved past the turn without firing the controller's timer.
    const clock = { now: 1_000 };
    const controller = new AdaptiveRateController(() => clock.now);
    const permits = Array.from({ length: 10 }, () => start(controller));
    clock.now = 1_100;
    permits[0]!.observe(429, noHint());
    start(controller);
    const waiting = controller.acquire();
    expect(controller.state.waiting).toBe(1);
    clock.now = 1_120;
    expect(tryStart(controller)).toBeUndefined();
    await vi.advanceTimersToNextTimerAsync();
    await waiting;
    expect(controller.state.waiting).toBe(0);
  });
});
