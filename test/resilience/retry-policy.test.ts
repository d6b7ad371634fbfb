// The retry policy, rule by rule, against scripted loopback servers: what is retried for idempotent operations,
// when a write may go again, Retry-After and its cap, backoff bounds, and that a retry builds a fresh Request.
import { afterAll, describe, expect, it, vi } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  OrgAgent,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from "../../src/index.js";
import { backoffDelay, isThrottle } from "../../src/core/retry.js";
import { calls, operationIds } from "./calls.js";
import { startFaultServer, success, type Fault } from "./fault-server.js";
import { SECRET, captureLogger, leaks } from "./secret.js";
import { clientOf, corpus, gaps, isIdempotent, rejection, scripted, unusedPort } from "./support.js";

const idempotent = operationIds.filter(isIdempotent);
const writes = operationIds.filter((id) => !isIdempotent(id));
const GET: OperationId = "getComputer";
const PUT = idempotent.find((id) => operations[id].method === "PUT")!;
const call = (id: OperationId, client: ReturnType<typeof clientOf>, options = {}) => calls[id](client, options);

const status = (code: number, headers?: Record<string, string>): Fault => ({ kind: "status", status: code, headers });
const connectionFaults: Fault[] = [{ kind: "reset-before-read" }, { kind: "reset-after-apply" }, { kind: "stall" }, { kind: "truncate" }];
const name = (fault: Fault) => (fault.kind === "status" ? `${fault.status}` : fault.kind);

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

describe("idempotent operations (every GET, and the limits PUT) are retried", () => {
  it("covers the operations the spec defines as GET or PUT, and writes are the rest", () => {
    expect(writes.map((id) => operations[id].method)).toEqual(writes.map(() => "POST"));
    expect(idempotent.length + writes.length).toBe(Object.keys(operations).length);
  });

  it.each([408, 409, 429, 500, 502, 503, 504])("GET on %i, then succeeds", async (code) => {
    const server = await scripted(status(code));
    await expect(call(GET, clientOf(server))).resolves.toEqual(success(GET));
    expect(server.requests.map((r) => r.fault)).toEqual(["status", "ok"]);
  });

  it.each(connectionFaults.map((f) => [name(f), f] as const))("GET and PUT after %s, then succeed", async (_, fault) => {
    for (const id of [GET, PUT]) {
      const server = await scripted(fault);
      await expect(call(id, clientOf(server, { timeout: 100 }))).resolves.toEqual(success(id));
      expect(server.requests).toHaveLength(2);
    }
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [422, UnprocessableEntityError],
  ])("GET on %i is not retried: the answer would not change", async (code, ErrorClass) => {
    const server = await scripted(status(code));
    const error = await rejection(call(GET, clientOf(server)));
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.status).toBe(code);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries (default 2) with the last error; per request and per client", async () => {
    const failing = () => scripted(...Array.from({ length: 10 }, () => status(503)));
    let server = await failing();
    expect(await rejection(call(GET, clientOf(server)))).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(3);

    server = await failing();
    await rejection(call(GET, clientOf(server), { maxRetries: 0 }));
    expect(server.requests).toHaveLength(1);

    server = await failing();
    await rejection(call(GET, clientOf(server, { maxRetries: 4 })));
    expect(server.requests).toHaveLength(5);
  });
});

describe("writes that are not idempotent go again only when the server surely did not act", () => {
  describe.each(writes)("%s", (id) => {
    it.each([...connectionFaults, status(500), status(502), status(503), status(408), status(409)].map((f) => [name(f), f] as const))(
      "is not retried after %s",
      async (_, fault) => {
        const server = await scripted(fault);
        const error = await rejection(call(id, clientOf(server, { timeout: 100 })));
        expect(error).toBeInstanceOf(fault.kind === "status" ? APIError : fault.kind === "truncate" ? APIError : APIConnectionError);
        expect(server.requests).toHaveLength(1);
        expect(server.writes.length).toBeLessThanOrEqual(1);
      },
    );

    it("is retried on 429 (the server refused it) and applied once", async () => {
      const server = await scripted(status(429, { "retry-after-ms": "10" }));
      await expect(call(id, clientOf(server))).resolves.toEqual(success(id));
      expect(server.requests).toHaveLength(2);
      expect(server.writes).toHaveLength(1);
    });

    it("with `idempotent: true` the caller accepts a possible duplicate: retried after a reset", async () => {
      const server = await scripted({ kind: "reset-after-apply" });
      await expect(call(id, clientOf(server), { idempotent: true })).resolves.toEqual(success(id));
      expect(server.writes).toHaveLength(2);
    });
  });

  it("`idempotent: false` makes a GET as careful as a write", async () => {
    const server = await scripted({ kind: "reset-after-apply" });
    await rejection(call(GET, clientOf(server), { idempotent: false }));
    expect(server.requests).toHaveLength(1);
  });

  it("a refused connection never carried the request, so a write is retried (attempts counted at fetch)", async () => {
    const port = await unusedPort();
    const attempts: RequestInfo[] = [];
    const client = clientOf(
      { url: `http://127.0.0.1:${port}` },
      {
        fetch: (input, init) => (attempts.push(input as RequestInfo), fetch(input, init)),
      },
    );
    const error = await rejection(client.sessions.create({ computerId: "cmp_1" }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toContain("ECONNREFUSED");
    expect(attempts).toHaveLength(3);
  });

  it("…and succeeds, applied once, when the server comes up while the client backs off", async () => {
    const port = await unusedPort();
    const logger = captureLogger();
    let server: Awaited<ReturnType<typeof startFaultServer>> | undefined;
    let starting: Promise<unknown> | undefined;
    // The client logs each retry at info level before its backoff wait: start listening then.
    const onLog = logger.info;
    logger.info = (...parts) => {
      onLog(...parts);
      starting ??= startFaultServer(() => ({ kind: "ok" }), port).then((s) => (server = s));
    };
    const client = clientOf({ url: `http://127.0.0.1:${port}` }, { logger, logLevel: "info", backoff: { initial: 300, max: 300 } });
    try {
      await expect(call("createSession", client)).resolves.toEqual(success("createSession"));
      expect(server!.writes).toHaveLength(1);
      expect(logger.lines.some((line) => line.includes("ECONNREFUSED") && line.includes("retrying"))).toBe(true);
    } finally {
      await starting;
      await server?.close();
    }
  });
});

describe("Retry-After", () => {
  // A huge backoff: a retry that comes quickly can only have followed the server's header.
  const slowBackoff = { backoff: { initial: 20_000, max: 20_000 } };

  it("honours retry-after-ms", async () => {
    const server = await scripted(status(429, { "retry-after-ms": "150" }));
    await call(GET, clientOf(server, slowBackoff));
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(145);
    expect(gaps(server)[0]).toBeLessThan(1_000);
  });

  it("honours Retry-After in whole seconds as rounded up: the retry waits the whole seconds but the last", async () => {
    const server = await scripted(status(429, { "retry-after": "2" }));
    await call(GET, clientOf(server, slowBackoff));
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(995);
    expect(gaps(server)[0]).toBeLessThan(5_000);
  });

  it("Retry-After: 1 means less than a second: the retry does not wait a whole second for it", async () => {
    const server = await scripted(status(429, { "retry-after": "1" }));
    await call(GET, clientOf(server, slowBackoff));
    expect(gaps(server)[0]).toBeLessThan(900);
  });

  it("honours Retry-After as an HTTP date, also on a 503", async () => {
    const server = await scripted(status(503, { "retry-after": new Date(Date.now() + 1_000).toUTCString() }));
    await call(GET, clientOf(server, slowBackoff));
    expect(gaps(server)[0]).toBeLessThan(5_000);
  });

  it("gives up at once with RateLimitError when the wait is over the cap (default 60 s); retryAfter in ms", async () => {
    const server = await scripted(status(429, { "retry-after": "3600" }));
    const started = performance.now();
    const error = await rejection(call(GET, clientOf(server)));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(3_600_000);
    expect(server.requests).toHaveLength(1);
  });

  it("the cap is configurable (maxRetryAfter), and applies to an HTTP date too", async () => {
    const server = await scripted(status(429, { "retry-after": "1" }));
    const error = await rejection(call(GET, clientOf(server, { maxRetryAfter: 500 })));
    expect(error.retryAfter).toBe(1_000);
    expect(server.requests).toHaveLength(1);

    const inAMinute = new Date(Date.now() + 61_000);
    const dated = await scripted(status(429, { "retry-after": inAMinute.toUTCString() }));
    const late = await rejection(call(GET, clientOf(dated)));
    expect(late).toBeInstanceOf(RateLimitError);
    expect(late.retryAfter).toBeGreaterThan(59_000);
    expect(dated.requests).toHaveLength(1);
  });
});

describe("throttles", () => {
  it("are a 429, or a 503 of an idempotent call told when to come back (or a bulk job's): no other status, whatever it says", () => {
    expect(isThrottle(429, false, false, false)).toBe(true);
    expect([isThrottle(503, true, true, false), isThrottle(503, true, false, true)]).toEqual([true, true]);
    expect([isThrottle(503, false, true, true), isThrottle(503, true, false, false)]).toEqual([false, false]);
    expect([500, 502, 504, 408].map((status) => isThrottle(status, true, true, true))).toEqual([false, false, false, false]);
  });
});

describe("backoff", () => {
  it("starts at 0.5 s, doubles, is capped at 8 s, and is jittered down by at most a quarter", () => {
    const defaults = { initial: 500, max: 8_000 };
    for (let attempt = 0; attempt < 12; attempt++) {
      const base = Math.min(8_000, 500 * 2 ** attempt);
      for (let i = 0; i < 200; i++) {
        const delay = backoffDelay(attempt, defaults);
        expect(delay).toBeGreaterThanOrEqual(base * 0.75);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
    const samples = new Set(Array.from({ length: 50 }, () => backoffDelay(0, defaults)));
    expect(samples.size).toBeGreaterThan(40);
  });

  it("the client's default really waits about 0.5 s before the first retry", async () => {
    const server = await scripted(status(503));
    await call(GET, new OrgAgent({ apiKey: SECRET, baseUrl: server.url, logLevel: "off" }));
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(370);
    expect(gaps(server)[0]).toBeLessThan(750); // a 1 s start would be at least 750
  });

  it("waits initial, doubled, then capped (small values), measured at the server", async () => {
    const server = await scripted(status(500), status(500), status(500));
    await call(GET, clientOf(server, { maxRetries: 3, backoff: { initial: 50, max: 60 } }));
    const [first, second, third] = gaps(server);
    expect(first).toBeGreaterThanOrEqual(37);
    expect(second).toBeGreaterThanOrEqual(45);
    expect(third).toBeGreaterThanOrEqual(45);
    expect(third).toBeLessThan(150); // uncapped, the third wait would be 150 to 200
  });
});

describe("timeouts and the deadline", () => {
  it("a stalled attempt times out after `timeout` and is retried", async () => {
    const server = await scripted({ kind: "stall" });
    const started = performance.now();
    await expect(call(GET, clientOf(server, { timeout: 100 }))).resolves.toEqual(success(GET));
    expect(performance.now() - started).toBeGreaterThanOrEqual(99);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(2);
  });

  it("gives up with APIConnectionTimeoutError when every attempt stalls; per-request timeout wins", async () => {
    const server = await scripted({ kind: "stall" }, { kind: "stall" }, { kind: "stall" });
    const started = performance.now();
    const error = await rejection(call(GET, clientOf(server, { timeout: 10_000 }), { timeout: 80 }));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(3);
    expect(performance.now() - started).toBeLessThan(5_000); // 3 × the client's 10 s would be 30 s
  });

  it("`timeout: Infinity` means no per-attempt limit (not an instant timeout)", async () => {
    const server = await scripted({ kind: "slow", ms: 100 });
    await expect(call(GET, clientOf(server, { timeout: Infinity, maxRetries: 0 }))).resolves.toEqual(success(GET));
  });

  it("the deadline bounds the whole call across attempts and waits", async () => {
    const stalls = await scripted(...Array.from({ length: 5 }, (): Fault => ({ kind: "stall" })));
    let started = performance.now();
    expect(await rejection(call(GET, clientOf(stalls, { timeout: 10_000 }), { deadline: 250 }))).toBeInstanceOf(APIConnectionTimeoutError);
    expect(performance.now() - started).toBeLessThan(2_000);

    const errors = await scripted(...Array.from({ length: 11 }, () => status(500)));
    started = performance.now();
    // The deadline leaves room for slow attempts on a loaded machine: the call must end on the last 500, having
    // started no wait that could not fit, and not on the deadline in the middle of an attempt.
    const client = clientOf(errors, { deadline: 800, backoff: { initial: 250, max: 250 }, maxRetries: 10 });
    expect(await rejection(call(GET, client))).toBeInstanceOf(InternalServerError);
    expect(performance.now() - started).toBeLessThan(2_500); // 10 retries would take over 2.5 s
    // Waits are 187-250 ms (jittered down by up to 25%), so at most four fit in 800 ms: 5 attempts, not 11.
    expect(errors.requests.length).toBeLessThanOrEqual(5);
  });
});

describe("the deadline, checked again before each attempt", () => {
  it("a backoff that ended past it (a logger held the thread on the retrying line): the deadline's error, nothing sent", async () => {
    const server = await scripted(status(503));
    const logger = captureLogger();
    logger.info = () => {
      for (const until = performance.now() + 300; performance.now() < until; );
    };
    const client = clientOf(server, { deadline: 200, backoff: { initial: 1, max: 1 }, logger, logLevel: "info" });
    const error = await rejection(call(GET, client));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error.message).toBe(`Deadline of 200 ms exceeded [getComputer: GET ${server.url}/api/v0/computers/cmp_3e9d0a4b7c2f4e61]`);
    expect(server.requests).toHaveLength(1);
  });

  it("a retry whose wait would end right at the deadline is not waited: the failure, at once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      let sent = 0;
      const fetch = async () => (sent++, Response.json({ status: 503 }, { status: 503, headers: { "retry-after-ms": "1000" } }));
      const client = clientOf({ url: "http://127.0.0.1:9" }, { fetch, deadline: 1_000, rateLimiting: false });
      let error: unknown;
      call(GET, client).catch((e: unknown) => (error = e));
      await vi.advanceTimersByTimeAsync(0);
      expect(error).toBeInstanceOf(InternalServerError);
      await vi.advanceTimersByTimeAsync(1_500);
      expect(sent).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a retry calls fetch again with a fresh init and never re-sends a consumed Request", () => {
  it.each(["createSession", PUT] as OperationId[])("%s: a fresh, unread Request per attempt, same body", async (id) => {
    const server = await scripted(status(429, { "retry-after-ms": "0" }), status(429, { "retry-after-ms": "0" }));
    const handed: { request: Request; bodyUsed: boolean }[] = [];
    const client = clientOf(server, {
      // The SDK calls fetch(url, init), unbound (a browser's fetch throws when called on another object); the
      // Request fetch builds from them must be new and unread each time.
      fetch: function (this: unknown, input, init) {
        expect([typeof input, this]).toEqual(["string", undefined]);
        const request = new Request(input, init);
        handed.push({ request, bodyUsed: request.bodyUsed });
        return fetch(request);
      },
    });
    await call(id, client);
    expect(handed).toHaveLength(3);
    expect(new Set(handed.map((h) => h.request)).size).toBe(3);
    expect(handed.every((h) => !h.bodyUsed)).toBe(true);
    const bodies = server.requests.map((r) => r.body);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toBeTypeOf("object");
  });
});
