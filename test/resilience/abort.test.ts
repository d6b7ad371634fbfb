// A caller's AbortSignal stops a call at once wherever it is (before sending, mid-request, during a backoff wait,
// while a rotating key is fetched), with the signal's reason as the error's cause (so an AbortSignal.timeout reads
// differently from a manual abort), and nothing of a call outlives it: 10,000 calls sharing one signal leave no
// listener and no timer, and print no MaxListenersExceededWarning.
import { getEventListeners } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { APIUserAbortError, UserLimitsAbortedError } from "../../src/index.js";
import type { Fault } from "./fault-server.js";
import { captureLogger, leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted, serve } from "./support.js";
import { scaled } from "../support/scale.js";

const SEQUENTIAL = scaled(10_000);

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

const elapsedSince = (started: number) => performance.now() - started;

it("an already aborted signal sends nothing", async () => {
  const server = await scripted();
  const error = await rejection(clientOf(server).computers.get("cmp_1", { signal: AbortSignal.abort() }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(server.requests).toHaveLength(0);
});

it("aborts a request in flight at once", async () => {
  const controller = new AbortController();
  // Aborted once the server holds the request, which it never answers.
  const server = await serve(() => (setTimeout(() => controller.abort(), 10), { kind: "stall" }));
  const started = performance.now();
  const error = await rejection(clientOf(server).computers.get("cmp_1", { signal: controller.signal }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(elapsedSince(started)).toBeLessThan(2_000);
  expect(server.requests).toHaveLength(1);
});

// The client logs "retrying in …" just before it starts waiting: the logger aborts then, 10 ms into the wait or as it
// begins.
it.each([
  ["during a backoff wait", (abort: () => void) => setTimeout(abort, 10)],
  ["just as the backoff wait begins (by the logger, on the retrying line)", (abort: () => void) => abort()],
])("aborted %s: the call ends at once, without another attempt, and the wait lets go of the signal", async (_, abortOn) => {
  const server = await scripted({ kind: "status", status: 503 });
  const controller = new AbortController();
  const logger = captureLogger();
  logger.info = () => void abortOn(() => controller.abort());
  const client = clientOf(server, { backoff: { initial: 10_000, max: 10_000 }, logger, logLevel: "info" });
  const started = performance.now();
  const error = await rejection(client.computers.get("cmp_1", { signal: controller.signal }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(elapsedSince(started)).toBeLessThan(2_000);
  expect(server.requests).toHaveLength(1);
  expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
});

it("a call that waited and retried leaves no listener on its signal", async () => {
  const server = await scripted({ kind: "status", status: 503 }, { kind: "status", status: 503 });
  const signal = new AbortController().signal;
  await clientOf(server).computers.get("cmp_1", { signal });
  expect(server.requests).toHaveLength(3);
  expect(getEventListeners(signal, "abort")).toHaveLength(0);
});

it("an abort while a rotating key is being fetched stops the call before anything is sent", async () => {
  const server = await scripted({ kind: "stall" });
  const apiKey = () => new Promise<string>((resolve) => setTimeout(() => resolve("rotated-token"), 100));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const started = performance.now();
  const error = await rejection(clientOf(server, { apiKey, timeout: 5_000 }).computers.get("cmp_1", { signal: controller.signal }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(elapsedSince(started)).toBeLessThan(2_000);
  expect(server.requests).toHaveLength(0);
});

it("aborts a page promise through its options (the last argument)", async () => {
  const server = await scripted({ kind: "stall" });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  const page = clientOf(server).enterpriseControls.history({}, { signal: controller.signal });
  expect(await rejection(Promise.resolve(page))).toBeInstanceOf(APIUserAbortError);
});

/**
 * A signal that takes on the reason of an AbortSignal.timeout(ms) started when the server has the first request, which
 * meets `first` (the later ones are answered normally): on a loaded machine a timeout started before the call could
 * fire before anything reached the server.
 */
function timeoutOnceServed(ms: number, first: Fault = { kind: "ok" }) {
  const controller = new AbortController();
  const plan = ({ n }: { n: number }): Fault => {
    if (n !== 1) return { kind: "ok" };
    const timeout = AbortSignal.timeout(ms);
    timeout.addEventListener("abort", () => controller.abort(timeout.reason));
    return first;
  };
  return { signal: controller.signal, plan };
}

describe("the abort's cause is the signal's reason: a timeout tells itself from a manual abort", () => {
  it("AbortSignal.timeout while the request is in flight: cause is a TimeoutError, and the message says so", async () => {
    const server = await serve(() => ({ kind: "stall" }));
    const error = await rejection(clientOf(server).computers.get("cmp_1", { signal: AbortSignal.timeout(50) }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.cause).toBeInstanceOf(DOMException);
    expect(error.cause.name).toBe("TimeoutError");
    expect(error.message).toBe("Request was aborted: its signal timed out (AbortSignal.timeout)");
  });

  it("controller.abort(): cause is an AbortError, and the message does not speak of a timeout", async () => {
    const controller = new AbortController();
    const server = await serve(() => (setTimeout(() => controller.abort(), 10), { kind: "stall" }));
    const error = await rejection(clientOf(server).computers.get("cmp_1", { signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.cause.name).toBe("AbortError");
    expect(error.message).toBe("Request was aborted");
  });

  it("abort(reason): cause is that reason, before sending as in flight", async () => {
    const reason = new Error("shutting down");
    const server = await serve(() => ({ kind: "stall" }));
    const before = await rejection(clientOf(server).computers.get("cmp_1", { signal: AbortSignal.abort(reason) }));
    expect(before.cause).toBe(reason);
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 20);
    const during = await rejection(clientOf(server).computers.get("cmp_1", { signal: controller.signal }));
    expect(during.cause).toBe(reason);
  });

  it("a timeout signal that fires during a backoff wait, or between pages", async () => {
    const backoff = timeoutOnceServed(50, { kind: "status", status: 500 });
    const failing = await serve(backoff.plan);
    const client = clientOf(failing, { backoff: { initial: 10_000, max: 10_000 } });
    const waiting = await rejection(client.computers.get("cmp_1", { signal: backoff.signal }));
    expect(waiting.cause.name).toBe("TimeoutError");
    expect(failing.requests).toHaveLength(1);

    const pages = await scripted();
    const signal = AbortSignal.timeout(50);
    const iterate = async () => {
      // The example history page says there is more: iteration goes on until the signal fires.
      for await (const change of clientOf(pages).enterpriseControls.history({}, { signal })) {
        void change;
        await new Promise((tick) => setTimeout(tick, 20));
      }
    };
    const between = await rejection(iterate());
    expect(between).toBeInstanceOf(APIUserAbortError);
    expect(between.cause.name).toBe("TimeoutError");
  });

  it("a timeout signal that fires while a waiter pauses between polls", async () => {
    // The spec's first getSession example is a running session: the wait goes on.
    const { signal, plan } = timeoutOnceServed(50);
    const server = await serve(plan);
    const error = await rejection(clientOf(server).sessions.waitUntilIdle("sess_1", { interval: 10_000, signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.cause.name).toBe("TimeoutError");
    expect(server.requests).toHaveLength(1);
  });
});

describe("bulk jobs: every abort is an APIUserAbortError whose cause is the signal's reason", () => {
  const DAYS = { startDate: "2026-03-01", endDate: "2026-03-20", limit: 100 };
  const limits = (count: number) => Array.from({ length: count }, (_, i) => ({ email: `user${i}@acme-robotics.example`, limit: 100 }));

  /** A signal that takes on the reason of an AbortSignal.timeout started when the server holds `requests` requests. */
  const timingOutAt = (requests: number) => {
    const controller = new AbortController();
    const plan = ({ n }: { n: number }) => {
      if (n === requests) {
        const timeout = AbortSignal.timeout(20);
        timeout.addEventListener("abort", () => controller.abort(timeout.reason));
      }
      return { kind: "stall" as const };
    };
    return { signal: controller.signal, plan };
  };

  it("analytics.users with concurrency: a timeout signal while the windows are in flight", async () => {
    const { signal, plan } = timingOutAt(2);
    const server = await serve(plan);
    const error = await rejection(clientOf(server).analytics.users(DAYS, { concurrency: 8, signal }).toArray());
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.cause.name).toBe("TimeoutError");
    expect(error.message).toBe("Request was aborted: its signal timed out (AbortSignal.timeout)");
    expect(server.requests.length).toBeGreaterThan(1); // several windows were in flight
  });

  it("analytics.users with concurrency: abort(reason) before anything is sent, and while windows wait for their turn", async () => {
    const reason = new Error("shutting down");
    const server = await serve(() => ({ kind: "stall" }));
    const before = await rejection(
      clientOf(server)
        .analytics.users(DAYS, { concurrency: 4, signal: AbortSignal.abort(reason) })
        .toArray(),
    );
    expect(before).toBeInstanceOf(APIUserAbortError);
    expect(before.cause).toBe(reason);
    expect(server.requests).toHaveLength(0);
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 30);
    const during = await rejection(clientOf(server).analytics.users(DAYS, { concurrency: 2, signal: controller.signal }).toArray());
    expect(during).toBeInstanceOf(APIUserAbortError);
    expect(during.cause).toBe(reason);
  });

  it("setUserLimits with an already aborted signal: nothing sent, the reason as cause", async () => {
    const reason = new Error("shutting down");
    const server = await serve(() => ({ kind: "stall" }));
    const error = await rejection(clientOf(server).usageLimits.setUserLimits(limits(3), { signal: AbortSignal.abort(reason) }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.cause).toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it("setUserLimits aborted in flight: UserLimitsAbortedError with the partial result and the signal's reason", async () => {
    const { signal, plan } = timingOutAt(2);
    const server = await serve(plan);
    const error = await rejection(clientOf(server).usageLimits.setUserLimits(limits(250), { concurrency: 2, signal }));
    expect(error).toBeInstanceOf(UserLimitsAbortedError);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.cause.name).toBe("TimeoutError");
    expect(error.message).toMatch(/^Request was aborted: its signal timed out \(AbortSignal\.timeout\): 0 limits applied/);
    expect([error.partial.uncertain.length, error.partial.notSent.length]).toEqual([200, 50]);
  });
});

it(`${SEQUENTIAL} sequential calls sharing one signal: no listener, timer or warning left behind`, async () => {
  const server = await scripted();
  const client = clientOf(server);
  const signal = new AbortController().signal;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  const timers = () => process.getActiveResourcesInfo().filter((type) => type === "Timeout").length;
  const timersBefore = timers();
  const started = performance.now();
  try {
    for (let i = 0; i < SEQUENTIAL; i++) await client.computers.get("cmp_1", { signal, timeout: 5_000 });
  } finally {
    process.off("warning", onWarning);
  }
  console.log(`${SEQUENTIAL} sequential calls with one signal: ${Math.round(elapsedSince(started))} ms`);
  await new Promise((tick) => setImmediate(tick)); // a warning is emitted on the next tick
  expect(warnings.map((w) => w.name)).toEqual([]);
  expect(getEventListeners(signal, "abort")).toHaveLength(0);
  expect(timers()).toBeLessThanOrEqual(timersBefore);
  expect(server.requests).toHaveLength(SEQUENTIAL);
}, 30_000);
