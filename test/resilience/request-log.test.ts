// What the request log says about each attempt, as a caller's logger receives it: at debug, a line as each attempt
// leaves (its number, counted from 1) and one as its answer comes back (the status, and the error class when it
// failed); at info, why a call gave up at once on a Retry-After over the cap (not at warn: the caller gets the error).
import { afterAll, describe, expect, it, vi } from "vitest";
import { RateLimitError } from "../../src/index.js";
import { success } from "./fault-server.js";
import { captureLogger, leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

const LABEL = "GET /api/v0/computers/{computerId}";
/** The JSON details of the debug lines that start with `prefix`. */
const details = (lines: string[], prefix: string) =>
  lines.filter((line) => line.startsWith(prefix)).map((line) => JSON.parse(line.slice(prefix.length)));

describe("at debug", () => {
  it("each attempt's line going out carries its number, 1 for the first", async () => {
    const server = await scripted({ kind: "status", status: 503 }, { kind: "status", status: 503 });
    const logger = captureLogger();
    await clientOf(server, { logger, logLevel: "debug" }).computers.get("cmp_1");
    const out = details(logger.lines, `debug [orgagent] → ${LABEL} `);
    expect(out.map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
  });

  it("each answer's line names the error class of a failed attempt, and no error for the one that succeeded", async () => {
    const server = await scripted({ kind: "status", status: 503 });
    const logger = captureLogger();
    await clientOf(server, { logger, logLevel: "debug" }).computers.get("cmp_1");
    const back = details(logger.lines, `debug [orgagent] ← ${LABEL} `);
    expect(back.map(({ status, error }) => [status, error])).toEqual([
      [503, "InternalServerError"],
      [200, undefined],
    ]);
  });

  it("each answer's line says how long the attempt took, in ms", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const logger = captureLogger();
      const slow: typeof fetch = () => new Promise((resolve) => setTimeout(() => resolve(Response.json(success("getComputer"))), 250));
      const client = clientOf({ url: "http://127.0.0.1:9" }, { fetch: slow, logger, logLevel: "debug" });
      await vi.advanceTimersByTimeAsync(10_000); // the clock well past 0, as a process's is
      const call = client.computers.get("cmp_1");
      await vi.advanceTimersByTimeAsync(250);
      await call;
      expect(details(logger.lines, `debug [orgagent] ← ${LABEL} `).map(({ ms }) => ms)).toEqual([250]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a response header named like Object.prototype's properties is logged like any other", async () => {
    // A header name is server data: as a key of a plain object, `__proto__` would set the prototype and vanish.
    const headers = JSON.parse('{"__proto__":"from-the-server","constructor":"c","toString":"t"}') as Record<string, string>;
    const server = await scripted({ kind: "status", status: 503, headers });
    const logger = captureLogger();
    await clientOf(server, { logger, logLevel: "debug" }).computers.get("cmp_1");
    const [failed] = details(logger.lines, `debug [orgagent] ← ${LABEL} `);
    expect(failed.headers).toMatchObject({ constructor: "c", tostring: "t" });
    expect(Object.getOwnPropertyDescriptor(failed.headers, "__proto__")?.value).toBe("from-the-server");
  });
});

describe("at info", () => {
  it("a Retry-After over the cap: the wait asked for and the cap, in ms; nothing at warn", async () => {
    const server = await scripted(
      { kind: "status", status: 429, headers: { "retry-after": "120" } },
      { kind: "status", status: 429, headers: { "retry-after": "120" } },
    );
    const logger = captureLogger();
    const error = await rejection(clientOf(server, { logger, logLevel: "info", maxRetryAfter: 30_000 }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
    expect(logger.lines).toEqual([`info [orgagent] ${LABEL}: server asked to wait 120000 ms, over the 30000 ms cap`]);
    const quiet = captureLogger();
    await rejection(clientOf(server, { logger: quiet, logLevel: "warn", maxRetryAfter: 30_000 }).computers.get("cmp_1"));
    expect(quiet.lines).toEqual([]);
  });

  it("a retry says why, how long it waits and which attempt comes of how many", async () => {
    const server = await scripted({ kind: "status", status: 503 });
    const logger = captureLogger();
    await clientOf(server, { logger, logLevel: "info", rateLimiting: false }).computers.get("cmp_1");
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(
      /^info \[orgagent\] GET \/api\/v0\/computers\/\{computerId\}: 503 .*; retrying in 1 ms \{"attempt":2,"of":3\}$/,
    );
  });

  it("each throttle waited out says so with its count, and the 11th in a row says the call gave up", async () => {
    const tooMany = { kind: "status", status: 429, headers: { "retry-after-ms": "0" } } as const;
    const server = await scripted(...Array(11).fill(tooMany));
    const logger = captureLogger();
    const error = await rejection(clientOf(server, { logger, logLevel: "info" }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RateLimitError);
    const message = error.message as string;
    expect(logger.lines).toEqual([
      ...Array.from(
        { length: 10 },
        (_, i) => `info [orgagent] ${LABEL}: ${message}; throttled, sending again in 0 ms {"throttles":${i + 1}}`,
      ),
      `info [orgagent] ${LABEL} gave up after 10 throttles in a row: ${message}`,
    ]);
  });

  it("with rateLimiting: false the default policy says the same: a Retry-After over the cap fails at once, said at info", async () => {
    const server = await scripted({ kind: "status", status: 429, headers: { "retry-after": "120" } });
    const logger = captureLogger();
    const client = clientOf(server, { logger, logLevel: "info", maxRetryAfter: 30_000, rateLimiting: false });
    const error = await rejection(client.computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
    expect(logger.lines).toEqual([`info [orgagent] ${LABEL}: server asked to wait 120000 ms, over the 30000 ms cap`]);
  });

  it("a line that quotes no server text is scrubbed of the key all the same: a key that is a word of the path", async () => {
    const server = await scripted({ kind: "status", status: 429, headers: { "retry-after": "120" } });
    const logger = captureLogger();
    const client = clientOf(server, { apiKey: "computers", logger, logLevel: "info", maxRetryAfter: 30_000 });
    await rejection(client.computers.get("cmp_1"));
    expect(logger.lines).toEqual(["info [orgagent] GET /api/v0/***/{computerId}: server asked to wait 120000 ms, over the 30000 ms cap"]);
  });
});
