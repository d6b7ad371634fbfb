// Throttles as every call meets them: a 429 (or a 503 of an idempotent call under overload) is waited out as the rate
// controller of the key and host says and sent again through it, without using up maxRetries; a single call gives up
// after 10 throttles in a row, a bulk job's call never (its deadline and signal still end it); a wait over
// maxRetryAfter, past the deadline, or an abort ends the call; every attempt, the first and each retry, takes its turn
// from the controller, which two clients of the same key share. Against loopback servers that rate-limit in each style
// real services use (test/support/limiter-server.ts) and scripted ones: what is checked are counts (requests, refusals,
// waits) and ratios within one run, never a duration beyond a wide bound.
import { describe, expect, it, vi, type TestContext } from "vitest";
import type { RateController, RatePermit } from "../../src/core/rate-controller.js";
import { rateControllerCount, rateControllerFor } from "../../src/core/rate-registry.js";
import {
  APIConnectionTimeoutError,
  APIUserAbortError,
  InternalServerError,
  OrgAgent,
  RateLimitError,
  type ClientOptions,
} from "../../src/index.js";
import { RATE_LIMIT_STYLES } from "../../src/emulator/network.js";
import { startLimiterServer, type LimiterServer, type LimiterServerOptions } from "../support/limiter-server.js";
import { startFaultServer, type Fault } from "../resilience/fault-server.js";
import { specOperation, successExample } from "../support/spec.js";
import { startLoopback, type Loopback, type Reply } from "./support/loopback.js";
import { REAL_TIME } from "../setup/tags.js";

type Entry = { email: string; limit: number };
/** The limits PUT answered as the API does when every entry is applied. */
const applied = (body: unknown) => ({ updated: (body as { users?: Entry[] } | undefined)?.users ?? [], errors: [] });
const entries = (count: number, tag = "p") =>
  Array.from({ length: count }, (_, i) => ({ email: `${tag}${i}@acme-robotics.example`, limit: i }));
const session = specOperation("createSession").requestExample as Parameters<OrgAgent["sessions"]["create"]>[0];

let keys = 0;
/** A client with a key of its own (so a controller of its own, unless given the same key as another). */
function clientOf(url: string, options: ClientOptions = {}): OrgAgent {
  return new OrgAgent({ apiKey: `throttle-key-${++keys}`, baseUrl: url, maxRetries: 0, logLevel: "off", ...options });
}

/** A limiter server the test stops when it ends. */
async function limited(options: LimiterServerOptions, test: TestContext): Promise<LimiterServer> {
  const server = await startLimiterServer({ answer: applied, ...options });
  test.onTestFinished(() => server.close());
  return server;
}

/** A server answering its n-th request with `replies[n - 1]`, and the limits PUT's success after them. */
async function scripted(test: TestContext, ...replies: Reply[]): Promise<Loopback> {
  const server = await startLoopback((request) => replies[server.requests.length - 1] ?? { body: applied(request.body) });
  test.onTestFinished(() => server.close());
  return server;
}

const tooMany = (headers: Record<string, string> = { "retry-after-ms": "0" }): Reply => ({
  status: 429,
  headers,
  body: { title: "Too Many Requests", status: 429 },
});
const overloaded = (headers: Record<string, string> = { "retry-after": "0" }): Reply => ({
  status: 503,
  headers,
  body: { title: "Service Unavailable", status: 503 },
});
/** One limits PUT as a single call (not a bulk job). */
const putOne = (client: OrgAgent, options: object = {}) => client.request("setUserLimits", { body: { users: entries(1) } }, options);

describe("a single call", () => {
  it("throttled by a token bucket: every call succeeds with maxRetries 0, and every attempt took its turn from the controller", {
    tags: [REAL_TIME],
  }, async (test) => {
    const server = await limited({ requestsPerSecond: 20, burst: 1 }, test);
    const client = clientOf(server.url);
    const answers = await Promise.all(Array.from({ length: 12 }, () => putOne(client)));
    expect(answers).toHaveLength(12);
    expect(server.accepted).toHaveLength(12);
    expect(server.refused.length).toBeGreaterThan(0);
    // Every request that reached the server, the first attempts and every retry, was started by the controller.
    const controller = rateControllerFor(`throttle-key-${keys}`, server.url);
    expect(controller.state.started).toBe(server.accepted.length + server.refused.length);
    expect(controller.state.refused).toBe(server.refused.length);
  });

  it("gives up after 10 throttles in a row, with the last 429: 11 requests", async (test) => {
    const server = await scripted(test, ...Array.from({ length: 20 }, () => tooMany()));
    const error = await putOne(clientOf(server.url, { maxRetries: 5 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(11);
  });

  it("a failure between throttles starts the count again, and counts against maxRetries itself", async (test) => {
    const throttles = Array.from({ length: 9 }, () => tooMany());
    const server = await scripted(test, ...throttles, { status: 500, body: {} }, ...throttles);
    const answer = await putOne(clientOf(server.url, { maxRetries: 1, backoff: { initial: 1, max: 1 } }));
    expect(answer).toEqual(applied({ users: entries(1) }));
    expect(server.requests).toHaveLength(20);
  });

  it("a wait asked for over maxRetryAfter fails at once with its retryAfter; the next call is not held that long, the service answers it", async (test) => {
    const server = await scripted(test, tooMany({ "retry-after": "120" }), tooMany({ "retry-after": "120" }));
    const client = clientOf(server.url, { maxRetryAfter: 30_000 });
    const started = performance.now();
    const first = await putOne(client).catch((e: unknown) => e);
    const second = await putOne(client).catch((e: unknown) => e);
    expect([first, second].map((e) => (e as RateLimitError).retryAfter)).toEqual([120_000, 120_000]);
    expect(server.requests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("a wait that would pass the deadline ends the call with the throttle, without waiting", async (test) => {
    const server = await scripted(test, tooMany({ "retry-after-ms": "10000" }));
    const started = performance.now();
    const error = await putOne(clientOf(server.url), { deadline: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("a hold of the key's controller longer than the deadline ends the next call as a deadline timeout, before it is sent", {
    tags: [REAL_TIME],
  }, async (test) => {
    const server = await scripted(test, tooMany({ "retry-after-ms": "4000" }));
    const client = clientOf(server.url);
    // The first call waits out 4 s; the second waits for the same hold and its 300 ms deadline ends it first.
    const first = putOne(client);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await putOne(client, { deadline: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error).toMatchObject({ limit: "deadline", ms: 300 });
    expect(server.requests).toHaveLength(1);
    await first;
    expect(server.requests).toHaveLength(2);
  });

  it("the attempt's timeout stops while it waits for its turn, and runs on from where it stopped once it is sent", async () => {
    // On a moved clock (timers and performance.now() alike): the first call's 429 holds the key's controller 2 s; the
    // second call, timeout 1 s, waits that hold out and is sent; its fetch never answers, so its timeout ends it.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      let refused = 0;
      let sentAt: number | undefined;
      const fetch: typeof globalThis.fetch = (input) => {
        if (String(input).endsWith("/cmp_held")) {
          sentAt = performance.now();
          return new Promise<Response>(() => {});
        }
        return Promise.resolve(
          refused++
            ? Response.json(successExample("getComputer"))
            : Response.json({ status: 429 }, { status: 429, headers: { "retry-after-ms": "2000" } }),
        );
      };
      const client = clientOf("http://127.0.0.1:9", { fetch, timeout: 1_000 });
      const start = performance.now();
      const first = client.computers.get("cmp_first");
      await vi.advanceTimersByTimeAsync(0);
      expect(refused).toBe(1);
      let outcome: unknown;
      client.computers.get("cmp_held").then(
        (value) => (outcome = value),
        (error: unknown) => (outcome = error),
      );
      await vi.advanceTimersByTimeAsync(1_500);
      expect(outcome).toBeUndefined();
      expect(sentAt).toBeUndefined();
      while (sentAt === undefined && outcome === undefined && performance.now() - start < 10_000) await vi.advanceTimersByTimeAsync(10);
      expect(outcome).toBeUndefined();
      expect(sentAt! - start).toBeGreaterThanOrEqual(2_000);
      await vi.advanceTimersByTimeAsync(sentAt! + 900 - performance.now());
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(200);
      expect(outcome).toBeInstanceOf(APIConnectionTimeoutError);
      expect(outcome).toMatchObject({ limit: "timeout", ms: 1_000 });
      await first;
    } finally {
      vi.useRealTimers();
    }
  });

  /** A fetch answering each request with the next of `statuses` (429s telling `retryAfterMs`), then the computer. */
  const answering = (retryAfterMs: string, ...statuses: number[]) => {
    const sent: number[] = [];
    const fetch: typeof globalThis.fetch = async () => {
      sent.push(performance.now());
      const status = statuses[sent.length - 1];
      return status
        ? Response.json({ status }, { status, headers: { "retry-after-ms": retryAfterMs } })
        : Response.json(successExample("getComputer"));
    };
    return { sent, fetch };
  };

  it("a wait asked for of exactly maxRetryAfter is waited out: maxRetryAfter 0 and a Retry-After of 0", async () => {
    const { sent, fetch } = answering("0", 429);
    await expect(clientOf("http://127.0.0.1:9", { fetch, maxRetryAfter: 0 }).computers.get("cmp_1")).resolves.toEqual(
      successExample("getComputer"),
    );
    expect(sent).toHaveLength(2);
  });

  it("a throttle's wait is waited out before the next attempt starts, and one that ends at the deadline is not waited", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const waited = answering("500", 429);
      let outcome: unknown;
      const start = performance.now();
      // A plugin hears of the next attempt once the wait is over, not before.
      const heard: number[] = [];
      const plugins = [{ beforeAttempt: () => void heard.push(performance.now() - start) }];
      clientOf("http://127.0.0.1:9", { fetch: waited.fetch, plugins })
        .computers.get("cmp_1")
        .then((value) => (outcome = value));
      await vi.advanceTimersByTimeAsync(400);
      expect(waited.sent).toHaveLength(1);
      expect(heard).toEqual([0]);
      await vi.advanceTimersByTimeAsync(200);
      expect(waited.sent.map((at) => at - start)).toEqual([0, 500]);
      expect(heard).toEqual([0, 500]);
      expect(outcome).toEqual(successExample("getComputer"));

      const atDeadline = answering("1000", 429);
      let error: unknown;
      clientOf("http://127.0.0.1:9", { fetch: atDeadline.fetch, deadline: 1_000 })
        .computers.get("cmp_1")
        .catch((e: unknown) => (error = e));
      await vi.advanceTimersByTimeAsync(1_500);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(atDeadline.sent).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a 429 after a redirect within the host is the host's throttle: waited out, not counted", async (test) => {
    const moved: Reply = { status: 307, headers: { location: "/api/v0/organization/usage/limits/users-moved" } };
    const server = await scripted(test, moved, tooMany(), moved);
    await expect(putOne(clientOf(server.url))).resolves.toMatchObject({ errors: [] });
    expect(server.requests).toHaveLength(4);
  });

  it("a 429 from another host a GET was redirected to is not this host's throttle: it counts as a failure", async (test) => {
    const other = await startLoopback(() => (other.requests.length === 1 ? tooMany() : { body: successExample("getComputer") }));
    test.onTestFinished(() => other.close());
    const server = await scripted(test, { status: 302, headers: { location: `${other.url}/api/v0/computers/cmp_1` } });
    const error = await clientOf(server.url)
      .computers.get("cmp_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(other.requests).toHaveLength(1);
  });

  it("an abort during the wait ends the call at once, and nothing more is sent", async (test) => {
    const server = await scripted(test, tooMany({ "retry-after-ms": "10000" }));
    const controller = new AbortController();
    const started = performance.now();
    const pending = putOne(clientOf(server.url), { signal: controller.signal }).catch((e: unknown) => e);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    expect(server.requests).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("a 503 with Retry-After is a throttle for an idempotent call (the PUT): sent again, without using up maxRetries", async (test) => {
    const server = await scripted(test, overloaded(), overloaded(), overloaded());
    expect(await putOne(clientOf(server.url))).toEqual(applied({ users: entries(1) }));
    expect(server.requests).toHaveLength(4);
  });

  it("a 503 is not a throttle for a write that is not idempotent (creating a session): it may have been acted on, so it is not sent again", async (test) => {
    const server = await scripted(test, overloaded());
    const error = await clientOf(server.url, { maxRetries: 2 })
      .sessions.create(session)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });

  it("a 429 on that write is: the service refused it before acting on it", async (test) => {
    const server = await scripted(test, tooMany(), tooMany(), { status: 201, body: successExample("createSession") });
    await expect(clientOf(server.url).sessions.create(session)).resolves.toEqual(successExample("createSession"));
    expect(server.requests).toHaveLength(3);
  });

  it("a bare 503 of a single call (no Retry-After) is a server failure: retried within maxRetries", async (test) => {
    const server = await scripted(test, overloaded({}), overloaded({}), overloaded({}));
    const error = await putOne(clientOf(server.url, { maxRetries: 1, backoff: { initial: 1, max: 1 } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(2);
  });

  it("with rateLimiting: false a 429 is retried as any retryable failure, within maxRetries", async (test) => {
    const server = await scripted(test, tooMany(), tooMany(), tooMany());
    const error = await putOne(clientOf(server.url, { rateLimiting: false, maxRetries: 1, backoff: { initial: 1, max: 1 } })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(2);
  });

  it("with rateLimiting: false a write refused with 429 is sent again within maxRetries: the server did not act on it", async (test) => {
    const server = await scripted(test, tooMany(), { status: 201, body: successExample("createSession") });
    const client = clientOf(server.url, { rateLimiting: false, maxRetries: 1, backoff: { initial: 1, max: 1 } });
    await expect(client.sessions.create(session)).resolves.toEqual(successExample("createSession"));
    expect(server.requests).toHaveLength(2);
  });
});

describe("every way an attempt ends gives its turn back", () => {
  it("resets, stalls, cut-off bodies, bad bytes, errors and aborts: every request sent had its turn, and none is left in flight", async (test) => {
    const faults: Fault[] = [
      { kind: "reset-before-read" },
      { kind: "reset-after-apply" },
      { kind: "stall" },
      { kind: "truncate" },
      { kind: "raw", status: 200, headers: { "content-type": "application/json" }, body: "{not json" },
      { kind: "status", status: 500 },
      { kind: "status", status: 404 },
    ];
    const server = await startFaultServer(({ n }) => faults[(n - 1) % faults.length]!);
    test.onTestFinished(() => server.close());
    const client = clientOf(server.url, { timeout: 200, maxRetries: 1, backoff: { initial: 1, max: 1 } });
    const aborted = new AbortController();
    const calls = Array.from({ length: 28 }, (_, i) =>
      client.computers.get("cmp_3e9d0a4b7c2f4e61", i % 7 === 6 ? { signal: aborted.signal } : {}).catch((e: unknown) => e),
    );
    setTimeout(() => aborted.abort(), 20);
    await Promise.all(calls);
    const controller = rateControllerFor(`throttle-key-${keys}`, server.url);
    expect(controller.state.inFlight).toBe(0);
    expect(controller.state.waiting).toBe(0);
    // Every request the server saw was started by the controller. An aborted call's attempt may have had its turn
    // and ended before it reached the server (the abort lands 20 ms in: on a cold start, before the connection):
    // one such attempt at most for each of the 4 aborted calls.
    expect(controller.state.started).toBeGreaterThanOrEqual(server.requests.length);
    expect(controller.state.started).toBeLessThanOrEqual(server.requests.length + calls.length / 7);
    expect(server.requests.length).toBeGreaterThan(28);
  });
});

describe("a bulk job's call", () => {
  it("waits out more than 10 throttles in a row: setUserLimits applies the chunk, and says how many waits it took", async (test) => {
    const server = await scripted(test, ...Array.from({ length: 14 }, () => tooMany()));
    const input = entries(5);
    const result = await clientOf(server.url).usageLimits.setUserLimits(input);
    expect(result).toEqual({ updated: input, errors: [], superseded: [], throttled: 14 });
    expect(server.requests).toHaveLength(15);
  });

  it("setUserLimits under overload (503 with Retry-After) never gives up while its deadline allows: every entry applied", {
    tags: [REAL_TIME],
  }, async (test) => {
    const server = await limited({ requestsPerSecond: 40, burst: 1, style: "overload" }, test);
    const input = entries(3_000);
    const result = await clientOf(server.url).usageLimits.setUserLimits(input, { concurrency: 8 });
    expect(result.updated).toEqual(input);
    expect(result.errors).toEqual([]);
    expect(server.accepted).toHaveLength(30);
    expect(result.throttled).toBe(server.refused.length);
  });
});

describe("one controller per key and host", () => {
  it("two clients with the same key share one: together they stay at the limit, with few refusals", { tags: [REAL_TIME] }, async (test) => {
    const server = await limited({ requestsPerSecond: 20, burst: 2 }, test);
    const key = `shared-key-${++keys}`;
    const [a, b] = [clientOf(server.url, { apiKey: key }), clientOf(server.url, { apiKey: key })];
    const [first, second] = await Promise.all([
      a.usageLimits.setUserLimits(entries(3_000, "a"), { concurrency: 8 }),
      b.usageLimits.setUserLimits(entries(3_000, "b"), { concurrency: 8 }),
    ]);
    expect(first.updated.length + second.updated.length).toBe(6_000);
    expect(rateControllerFor(key, server.url).state.started).toBe(server.accepted.length + server.refused.length);
    // Sixty requests at 20 a second: about 3 s. Two controllers fighting would each climb past the limit and meet
    // far more refusals than one that learned it.
    expect(server.refused.length).toBeLessThan(server.accepted.length / 2);
    expect(server.steadyFraction()).toBeGreaterThan(0.8);
  });

  it("two keys are two controllers: what one is told does not hold the other back", { tags: [REAL_TIME] }, async (test) => {
    const server = await scripted(test, tooMany({ "retry-after-ms": "3000" }));
    const held = clientOf(server.url);
    const pending = putOne(held);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    await putOne(clientOf(server.url));
    expect(performance.now() - started).toBeLessThan(2_500);
    await pending;
  });

  it("a rotated key has a controller of its own: a hold told to the old key does not hold back the new one", async (test) => {
    // 30 s is within maxRetryAfter: the 429 holds every request of its key, and the first call's deadline ends it.
    const server = await scripted(test, tooMany({ "retry-after-ms": "30000" }));
    const old = `rotating-key-${++keys}`;
    let key = old;
    const client = clientOf(server.url, { apiKey: () => key });
    expect(await putOne(client, { deadline: 1_000 }).catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    key = `${old}-rotated`;
    expect(await putOne(client, { deadline: 1_000 })).toEqual(applied({ users: entries(1) }));
    // Back to the old key: still held, so its deadline ends the call before it is sent.
    key = old;
    expect(await putOne(client, { deadline: 300 }).catch((e: unknown) => e)).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${old}`, `Bearer ${old}-rotated`]);
  });

  it("a client whose controller the registry let go of shares the one made after it: a hold told to either holds both", async (test) => {
    const server = await scripted(test, { body: applied({ users: entries(1) }) }, tooMany({ "retry-after-ms": "30000" }));
    const key = `retired-key-${++keys}`;
    const [kept, later] = [clientOf(server.url, { apiKey: key }), clientOf(server.url, { apiKey: key })];
    await putOne(kept);
    // 64 keys used after it: its controller, idle, is the one let go of.
    for (let i = 0; i < 64; i++) rateControllerFor(`${key}-other-${i}`, new URL(server.url).origin);
    // A new controller for the key, told to hold every request for 30 s...
    expect(await putOne(later, { deadline: 1_000 }).catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    // ...which holds the first client's next call too: its deadline ends it before it is sent.
    expect(await putOne(kept, { deadline: 300 }).catch((e: unknown) => e)).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(2);
  });

  it("of the idle controllers exactly the 64 used last are kept, as they were; those used before are let go", () => {
    const origin = "http://127.0.0.1:7";
    const made = Array.from({ length: 70 }, (_, i) => rateControllerFor(`registry-key-${i}`, origin));
    // Asking again makes a controller the one used last: the 64th from the end (registry-key-6) is asked for first.
    expect([6, 30, 60, 69].map((i) => rateControllerFor(`registry-key-${i}`, origin) === made[i])).toEqual([true, true, true, true]);
    expect(rateControllerFor("registry-key-5", origin)).not.toBe(made[5]);
    // Each controller asked for past the bound lets exactly one go.
    const counts = [70, 71].map((i) => (rateControllerFor(`registry-key-${i}`, origin), rateControllerCount()));
    expect(counts).toEqual([64, 64]);
  });

  it("a busy controller is never let go, nor the one just asked for when every other is busy", () => {
    const origin = "http://127.0.0.1:8";
    const busy: RateController[] = [];
    const permits: RatePermit[] = [];
    for (let i = 0; i < 65; i++) {
      busy.push(rateControllerFor(`busy-key-${i}`, origin));
      permits.push(busy[i]!.tryAcquire()!);
    }
    try {
      const fresh = rateControllerFor("busy-key-new", origin);
      expect(rateControllerFor("busy-key-new", origin)).toBe(fresh);
      for (let i = 0; i < 70; i++) rateControllerFor(`idle-key-${i}`, origin);
      expect(busy.map((controller, i) => rateControllerFor(`busy-key-${i}`, origin) === controller)).toEqual(Array(65).fill(true));
    } finally {
      for (const permit of permits) permit.release();
    }
  });

  it("a controller with a request waiting out its hold is busy too, though none is in flight: it is kept, hold and all", async () => {
    const origin = "http://127.0.0.1:9";
    const held = rateControllerFor("waiting-key", origin);
    held.tryAcquire()!.observe(429, new Headers({ "retry-after-ms": "30000" }));
    const abort = new AbortController();
    const waiting = held.acquire({ signal: abort.signal }).catch((e: unknown) => e);
    for (let i = 0; i < 70; i++) rateControllerFor(`waiting-other-${i}`, origin);
    const now = rateControllerFor("waiting-key", origin);
    expect(now).toBe(held);
    expect(now.tryAcquire()).toBeUndefined();
    abort.abort();
    expect(await waiting).toBeInstanceOf(APIUserAbortError);
  });
});

// Each style at once (a server of its own each): the file takes about one job's time.
describe.concurrent("setUserLimits at concurrency 8 under each style of rate limit: every entry applied, at the allowed rate", {
  tags: [REAL_TIME],
}, () => {
  it.for(RATE_LIMIT_STYLES)("%s", async (style, test) => {
    const server = await limited({ requestsPerSecond: 20, style }, test);
    const input = entries(10_000);
    const result = await clientOf(server.url).usageLimits.setUserLimits(input, { concurrency: 8 });
    expect(result.updated).toEqual(input);
    expect(result.throttled).toBe(server.refused.length);
    // 100 requests at 20 a second: 5 s, in which learning the limit is a small part (see rate-controller.test.ts).
    expect(server.fraction()).toBeGreaterThan(0.75);
    expect(server.refused.length).toBeLessThan(server.accepted.length / 3);
  });
});
