// Waiting on asynchronous work: sessions.waitUntilIdle, sessions.sendMessageAndWait and computers.waitUntilActive,
// against the emulator (whose clock a test moves from `onPoll`, so hours of emulated work take milliseconds) and
// against Prism (whose named examples give each status). One poll loop serves all three (src/core/wait.ts).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, test, vi } from "vitest";
import { statusLifecycles } from "../../generated/spec-tables.js";
import { replyIdOf, startEmulator, type Emulator } from "../../src/emulator/index.js";
import { pollUntilSettled } from "../../src/core/wait.js";
import {
  APIConnectionTimeoutError,
  APIUserAbortError,
  ComputerProvisioningError,
  NotFoundError,
  OrgAgent,
  OrgAgentError,
  ValidationError,
  WaitTimeoutError,
  type Computer,
  type Session,
} from "../../src/index.js";
import { successExample, successExamples } from "../support/spec.js";

const TIMING = { sessionStartMs: 5_000, replyMs: 60_000, installMs: 3_600_000 };
let offset = 0;
let emulator: Emulator;
let client: OrgAgent;
let requests = 0;

beforeAll(async () => {
  emulator = await startEmulator({ seed: "waiters", timing: TIMING, now: () => Date.now() + offset });
  client = new OrgAgent({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.keys.owner,
    fetch: (url, init) => {
      requests++;
      return fetch(url, init);
    },
  });
});
afterAll(() => emulator?.close());

const computerId = (name: string) => emulator.org.computers.find((c) => c.name === name)!.id;
/** Moves the emulator's clock on by `ms` at every poll: the work advances as fast as the test polls. */
const advancing = (ms: number, seen: string[] = []) => ({
  interval: 1,
  onPoll: (snapshot: { status?: string | undefined }) => {
    seen.push(snapshot.status ?? "?");
    offset += ms;
  },
});

describe("the statuses come from the spec's x-status-lifecycle", () => {
  test("sessions settle when idle; computers settle when active and fail in error", () => {
    expect(statusLifecycles.SessionStatus).toEqual({ transient: ["pending", "running"], settled: ["idle"] });
    expect(statusLifecycles.ComputerStatus).toEqual({ transient: ["provisioning"], settled: ["active"], failed: ["error"] });
  });
});

describe("sessions.waitUntilIdle (emulator)", () => {
  test("polls through pending and running, calls onPoll with every snapshot, and resolves to the idle session", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-eu-1") });
    await client.sessions.sendMessage(sessionId, { text: "tidy the build" });
    const seen: string[] = [];
    const session = await client.sessions.waitUntilIdle(sessionId, advancing(20_000, seen));
    expect(session).toMatchObject({ sessionId, status: "idle", messageCount: 2 });
    expect(seen).toEqual(["pending", "running", "running", "running", "idle"]);
  });

  test("times out with WaitTimeoutError (an OrgAgentError) carrying the last snapshot, no later than its timeout", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-eu-1") });
    await client.sessions.sendMessage(sessionId, { text: "this takes a while" });
    offset += TIMING.sessionStartMs;
    const started = performance.now();
    const error = await client.sessions.waitUntilIdle(sessionId, { interval: 50, timeout: 400 }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toBeInstanceOf(OrgAgentError);
    const timeout = error as WaitTimeoutError<Session>;
    expect(timeout.snapshot).toMatchObject({ sessionId, status: "running" });
    expect(timeout.message).toBe(`Session ${sessionId} is still running after ${timeout.waited} ms.`);
    expect(timeout.name).toBe("WaitTimeoutError");
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_500);
    // `waited` is the time the wait took, measured from its start.
    expect(timeout.waited).toBeGreaterThanOrEqual(390);
    expect(timeout.waited).toBeLessThanOrEqual(Math.ceil(elapsed));
  });

  test("pauses grow by half from `interval` up to `maxInterval`", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-eu-1") });
    // A pause is the time from one answer (onPoll) to the next request (fetch): request durations left out.
    const requested: number[] = [];
    const answered: number[] = [];
    const timed = new OrgAgent({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.keys.owner,
      fetch: (url, init) => (requested.push(performance.now()), fetch(url, init)),
    });
    await expect(
      timed.sessions.waitUntilIdle(sessionId, {
        interval: 100,
        maxInterval: 250,
        timeout: 1_200,
        onPoll: () => answered.push(performance.now()),
      }),
    ).rejects.toBeInstanceOf(WaitTimeoutError);
    const pauses = answered.slice(0, requested.length - 1).map((t, i) => requested[i + 1]! - t);
    // 100, 150, 225, then capped at 250 (doubling: 200; uncapped: 337); timers may fire late on a loaded machine, never early.
    const expected = [100, 150, 225, 250];
    expect(pauses.length).toBeGreaterThanOrEqual(expected.length);
    expected.forEach((pause, i) => {
      expect(pauses[i]).toBeGreaterThanOrEqual(pause - 2);
      expect(pauses[i]).toBeLessThan(pause + 45);
    });
  });

  test("an abort ends the wait at once with APIUserAbortError, also during a pause", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-eu-1") });
    const started = performance.now();
    const wait = client.sessions.waitUntilIdle(sessionId, { interval: 10_000, signal: AbortSignal.timeout(150) });
    await expect(wait).rejects.toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("bad wait options are a ValidationError naming the option, before any request", async () => {
    const before = requests;
    const cases: Array<[object, string]> = [
      [{ interval: 0 }, "options.interval"],
      [{ interval: Number.NaN }, "options.interval"],
      [{ maxInterval: -1 }, "options.maxInterval"],
      [{ timeout: 0 }, "options.timeout"],
      [{ requestTimeout: Infinity }, "options.requestTimeout"],
    ];
    for (const [options, field] of cases) {
      const error = await client.sessions.waitUntilIdle("sess_x", options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect((error as ValidationError).rule).toBe("option");
    }
    expect(requests).toBe(before);
  });

  test("a bad wait option's message says what is allowed: a number of milliseconds above 0, Infinity for `timeout` only", async () => {
    const messageOf = (options: object) => client.sessions.waitUntilIdle("sess_x", options).catch((e: unknown) => (e as Error).message);
    expect(await messageOf({ interval: 0 })).toMatch(
      /^options\.interval: 0 is not allowed; expected a number of milliseconds greater than 0$/,
    );
    expect(await messageOf({ maxInterval: Infinity })).toMatch(
      /options\.maxInterval: .* expected a number of milliseconds greater than 0$/,
    );
    expect(await messageOf({ timeout: -5 })).toMatch(
      /^options\.timeout: .* expected a number of milliseconds greater than 0 \(or Infinity\)$/,
    );
  });

  test("a wait timeout given as a string of digits is refused like any other non-number", async () => {
    const before = requests;
    const error = await client.sessions.waitUntilIdle("sess_x", { timeout: "5000" as unknown as number }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "options.timeout", value: "5000" });
    expect(requests).toBe(before);
  });

  test("a poll that fails for another reason than time (404) rejects with that error, not WaitTimeoutError", async () => {
    const error = await client.sessions.waitUntilIdle("sess_missing", { maxRetries: 0, timeout: 5_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404 });
  });

  test("once the wait's time is up after a poll, it ends with WaitTimeoutError at once: no pause follows, not even one an abort from onPoll would end", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-eu-1") });
    const controller = new AbortController();
    let polls = 0;
    const error = await client.sessions
      .waitUntilIdle(sessionId, {
        interval: 10_000,
        timeout: 400,
        signal: controller.signal,
        onPoll: () => {
          polls++;
          // The caller takes its time over the snapshot, past the wait's timeout, then stops.
          const until = performance.now() + 450;
          while (performance.now() < until);
          controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(polls).toBe(1);
  });
});

describe("a lifecycle with failed statuses and no error of its own (pollUntilSettled)", () => {
  test("a failed status rejects with an OrgAgentError saying what ended in which status", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-eu-1") });
    const error = await pollUntilSettled(
      {
        poll: (request) => client.sessions.get(sessionId, undefined, request),
        status: (session) => session.status,
        lifecycle: { transient: ["running"], settled: ["idle"], failed: ["pending"] },
        what: `session ${sessionId}`,
      },
      { interval: 1 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrgAgentError);
    expect((error as Error).message).toBe(`Session ${sessionId} ended pending.`);
  });
});

describe("pollUntilSettled on a made-up lifecycle: several settled and failed statuses", () => {
  const lifecycle = { transient: ["starting"], settled: ["active", "ready"], failed: ["error", "deleted"] };
  const polling = (...statuses: string[]) => {
    let n = 0;
    return {
      poll: async () => ({ status: statuses[n++] }),
      status: (snapshot: { status?: string | undefined }) => snapshot.status,
      lifecycle,
      what: "box 1",
    };
  };

  test("any one of the settled statuses ends the wait with its snapshot", async () => {
    await expect(pollUntilSettled(polling("starting", "ready"), { interval: 1, timeout: 200 })).resolves.toEqual({ status: "ready" });
  });

  test("a wait whose pause ends right at its timeout polls no more: it times out there", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      let polls = 0;
      const spec = { ...polling(), poll: async () => (polls++, { status: "starting" }) };
      let error: unknown;
      pollUntilSettled(spec, { interval: 100, timeout: 100 }).catch((e: unknown) => (error = e));
      await vi.advanceTimersByTimeAsync(150);
      expect(error).toBeInstanceOf(WaitTimeoutError);
      expect(polls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  test("a poll that times out with the timers' slack (5 ms) of the wait still left fails with its own error, not the wait's", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const ownTimeout = new APIConnectionTimeoutError("Deadline of 100 ms exceeded");
      // The poll is given the time left (100 ms) as its deadline, and fails 5 ms before it ends.
      const spec = {
        ...polling(),
        poll: ({ deadline }: { deadline?: number | undefined }) =>
          new Promise<never>((_, reject) => setTimeout(() => reject(ownTimeout), deadline! - 5)),
      };
      let error: unknown;
      pollUntilSettled(spec, { interval: 1, timeout: 100 }).catch((e: unknown) => (error = e));
      await vi.advanceTimersByTimeAsync(100);
      expect(error).toBe(ownTimeout);
    } finally {
      vi.useRealTimers();
    }
  });

  test("any one of the failed statuses rejects", async () => {
    await expect(pollUntilSettled(polling("starting", "deleted"), { interval: 1, timeout: 200 })).rejects.toThrow("Box 1 ended deleted.");
  });
});

describe("sessions.sendMessageAndWait (emulator)", () => {
  test("resolves to the message id and the idle session, whose reply can then be read", async () => {
    const { sessionId } = await client.sessions.create({ computerId: computerId("build-box-us-2") });
    const { messageId, session } = await client.sessions.sendMessageAndWait(sessionId, { text: "why is CI red?" }, advancing(30_000));
    expect(messageId).toMatch(/^msg_/);
    expect(session).toMatchObject({ sessionId, status: "idle", messageCount: 2, title: "why is CI red?" });
    const reply = await client.sessions.getMessage(sessionId, replyIdOf(messageId));
    expect(reply).toMatchObject({ role: "assistant", parentId: messageId });
  });

  test("a failed send rejects without polling", async () => {
    const before = requests;
    await expect(client.sessions.sendMessageAndWait("sess_missing", { text: "hi" }, { maxRetries: 0 })).rejects.toMatchObject({
      status: 404,
    });
    expect(requests).toBe(before + 1);
  });
});

describe("computers.waitUntilActive (emulator)", () => {
  test("a retried install step: provisioning until it completes, then the active computer", async () => {
    const id = computerId("gpu-box-1");
    await client.computers.retryInstallDeps(id);
    const seen: string[] = [];
    const computer = await client.computers.waitUntilActive(id, advancing(TIMING.installMs / 3, seen));
    expect(computer).toMatchObject({ id, status: "active" });
    expect(seen).toEqual(["provisioning", "provisioning", "provisioning", "active"]);
  });

  test("a computer in error rejects with ComputerProvisioningError naming the failed step", async () => {
    const fresh = await startEmulator({ seed: "waiters-error" });
    try {
      const sdk = new OrgAgent({ baseUrl: fresh.baseUrl, apiKey: fresh.keys.owner });
      const id = fresh.org.computers.find((c) => c.name === "gpu-box-1")!.id;
      const error = (await sdk.computers.waitUntilActive(id).catch((e: unknown) => e)) as ComputerProvisioningError;
      expect(error).toBeInstanceOf(ComputerProvisioningError);
      expect(error).toBeInstanceOf(OrgAgentError);
      expect(error.computer).toMatchObject({ id, status: "error" });
      expect(error.step).toMatchObject({ id: "install-deps", status: "failed", error: expect.stringContaining("libcudnn9-dev") });
      expect(error.message).toBe(`Computer gpu-box-1 (${id}) is error: step "Install dependencies" failed: ${error.step!.error}`);
    } finally {
      await fresh.close();
    }
  });
});

describe("a poll never outlasts the wait", () => {
  let stalled: Server;
  beforeAll(async () => {
    stalled = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => {
    stalled.closeAllConnections();
    stalled.close();
  });

  test("against a server that never answers, the wait ends at its timeout, not the client's 60 s", async () => {
    const sdk = new OrgAgent({
      baseUrl: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
      apiKey: "test-key",
      logLevel: "off",
    });
    const started = performance.now();
    const error = await sdk.computers.waitUntilActive("cmp_1", { timeout: 300 }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    const timeout = error as WaitTimeoutError;
    expect(timeout.snapshot).toBeUndefined();
    expect(elapsed).toBeLessThan(1_500);
    // No poll answered: nothing to say of its status. The poll's own timeout is the cause.
    expect(timeout.message).toBe(`Computer cmp_1 has not settled after ${timeout.waited} ms.`);
    expect(timeout.waited).toBeGreaterThanOrEqual(290);
    expect(timeout.waited).toBeLessThanOrEqual(Math.ceil(elapsed));
    expect(timeout.cause).toBeInstanceOf(APIConnectionTimeoutError);
  });

  test("a poll's own requestTimeout, shorter than the time left, fails the poll with APIConnectionTimeoutError, not the wait", async () => {
    const sdk = new OrgAgent({
      baseUrl: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
      apiKey: "test-key",
      logLevel: "off",
    });
    const started = performance.now();
    const error = await sdk.computers
      .waitUntilActive("cmp_1", { timeout: 20_000, requestTimeout: 150, maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error).not.toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toMatch(/timed out after 150 ms/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("the caller's own deadline, ending a moment before the wait's timeout, fails the poll with APIConnectionTimeoutError, not the wait", async () => {
    const sdk = new OrgAgent({
      baseUrl: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
      apiKey: "test-key",
      logLevel: "off",
    });
    // The deadline ends the poll when less than the timers' slack of the wait is left: still the caller's deadline.
    const error = await sdk.computers.waitUntilActive("cmp_1", { timeout: 303, deadline: 300, maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error).not.toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toMatch(/Deadline of 300 ms exceeded/);
  });
});

describe("against Prism: each named example of the spec", () => {
  let prism: OrgAgent;
  beforeAll(() => {
    prism = new OrgAgent({ apiKey: "test-key", baseUrl: inject("prismUrl"), maxRetries: 0, logLevel: "off" });
  });
  const example = (operationId: "getSession" | "getComputer", name: string) =>
    successExamples(operationId).find((e) => e.name === name)!.value;
  const prefer = (name: string) => ({ headers: { Prefer: `code=200, example=${name}` } });

  test("waitUntilIdle resolves to the SessionIdle example", async () => {
    expect(await prism.sessions.waitUntilIdle("sess_1", prefer("SessionIdle"))).toEqual(example("getSession", "SessionIdle"));
  });

  test("a timeout of Infinity waits as long as it takes, and each poll still sends the wait's request options", async () => {
    const idle = example("getSession", "SessionIdle");
    expect(await prism.sessions.waitUntilIdle("sess_1", { ...prefer("SessionIdle"), timeout: Infinity })).toEqual(idle);
    expect(await prism.sessions.waitUntilIdle("sess_1", { ...prefer("SessionIdle"), timeout: Infinity, requestTimeout: 10_000 })).toEqual(
      idle,
    );
  });

  test("the default example is running: the wait times out with it as the snapshot", async () => {
    const error = (await prism.sessions
      .waitUntilIdle("sess_1", { interval: 20, timeout: 200 })
      .catch((e: unknown) => e)) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.snapshot).toEqual(successExample("getSession"));
  });

  test("waitUntilActive: ComputerActive resolves, ComputerProvisioning times out, ComputerInstallDepsFailed names its step", async () => {
    expect(await prism.computers.waitUntilActive("cmp_1", prefer("ComputerActive"))).toEqual(example("getComputer", "ComputerActive"));
    await expect(
      prism.computers.waitUntilActive("cmp_1", { ...prefer("ComputerProvisioning"), interval: 20, timeout: 200 }),
    ).rejects.toBeInstanceOf(WaitTimeoutError);
    const failed = example("getComputer", "ComputerInstallDepsFailed") as Computer;
    const error = (await prism.computers
      .waitUntilActive("cmp_1", prefer("ComputerInstallDepsFailed"))
      .catch((e: unknown) => e)) as ComputerProvisioningError;
    expect(error).toBeInstanceOf(ComputerProvisioningError);
    expect(error.step).toEqual(failed.provisioningSteps!.find((s) => s.id === "install-deps"));
  });
});
