// The API key stays secret: not in any error (message, String, JSON, inspect, stack, cause), not in the inspected
// client, not in any log line at any level (redirects: redirects.test.ts; bad keys and headers: credentials.test.ts).
// Logging obeys `logLevel` / ORGAGENT_LOG and redacts credential headers.
import { inspect } from "node:util";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { OrgAgentError, type ClientOptions } from "../../src/index.js";
import { calls, operationIds } from "./calls.js";
import { success, type Fault } from "./fault-server.js";
import { SECRET, captureLogger, leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted, unusedPort } from "./support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

describe("the API key never shows", () => {
  const faults: Fault[] = [
    { kind: "status", status: 401 },
    { kind: "status", status: 403 },
    { kind: "status", status: 404 },
    { kind: "status", status: 429, headers: { "retry-after": "3600" } },
    { kind: "status", status: 500 },
    { kind: "raw", status: 502, headers: { "content-type": "text/html" }, body: "<html>Bad Gateway</html>" },
    { kind: "raw", headers: { "content-type": "application/json" }, body: "[]" },
    { kind: "reset-before-read" },
    { kind: "reset-after-apply" },
    { kind: "stall" },
    { kind: "truncate" },
  ];

  it("in any error of any operation and fault, in any rendering, nor in a debug log", async () => {
    const logger = captureLogger();
    const errors: unknown[] = [];
    for (const fault of faults) {
      const server = await scripted(...operationIds.map(() => fault));
      const client = clientOf(server, { maxRetries: 0, timeout: 50, logLevel: "debug", logger });
      for (const id of operationIds) errors.push(await rejection(calls[id](client, {})));
    }
    const nobody = { url: `http://127.0.0.1:${await unusedPort()}` };
    const refused = clientOf(nobody, { maxRetries: 0, logLevel: "debug", logger });
    errors.push(await rejection(refused.computers.get("cmp_1")));
    errors.push(await rejection(refused.computers.get("cmp_1", { signal: AbortSignal.abort() })));
    errors.push(await rejection(refused.analytics.tokens({ startDate: "2026-02-30", endDate: "2026-03-01" })));
    vi.stubEnv("ORGAGENT_APP_URL", "");
    errors.push(await rejection(Promise.resolve(clientOf(nobody, { appUrl: undefined }).readiness.list())));

    expect(errors.length).toBe(faults.length * operationIds.length + 4);
    expect(errors.every((error) => error instanceof OrgAgentError)).toBe(true);
    expect(logger.lines.filter((line) => line.startsWith("debug")).length).toBeGreaterThan(operationIds.length);
    expect(leaks([...errors, ...logger.lines])).toEqual([]);
  });

  it("nor a rotating key from a function", async () => {
    const logger = captureLogger();
    const server = await scripted({ kind: "status", status: 401 }, { kind: "reset-after-apply" });
    const client = clientOf(server, { apiKey: async () => SECRET, maxRetries: 0, logLevel: "debug", logger });
    const errors = [await rejection(client.computers.get("cmp_1")), await rejection(client.computers.get("cmp_1"))];
    expect(leaks([...errors, client, ...logger.lines])).toEqual([]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it("a rotating key echoed back by a server is scrubbed from the error and from every log line", async () => {
    const logger = captureLogger();
    const echo = JSON.stringify({ title: "Internal Server Error", detail: `rejected ${SECRET}`, status: 500 });
    const server = await scripted({ kind: "raw", status: 500, headers: { "content-type": "application/json" }, body: echo });
    const client = clientOf(server, { apiKey: () => SECRET, maxRetries: 0, logLevel: "debug", logger });
    const error = await rejection(client.computers.get("cmp_1"));
    expect(error).toMatchObject({ status: 500, detail: "rejected ***" });
    expect(error.message).toContain("rejected ***");
    expect(logger.lines.some((line) => line.includes("rejected ***"))).toBe(true);
    expect(leaks([error, ...logger.lines])).toEqual([]);
  });

  it.each([
    [
      "an error body that is not JSON",
      { kind: "raw", status: 502, headers: { "content-type": "text/plain" }, body: `bad gateway for Bearer ${SECRET}` },
    ],
    [
      "a 2xx that is not the documented JSON",
      { kind: "raw", status: 200, headers: { "content-type": "text/html" }, body: `<p>${SECRET}</p>` },
    ],
  ] as const)("the key echoed in %s is scrubbed from the error", async (_, fault) => {
    const server = await scripted(fault);
    const error = await rejection(clientOf(server, { maxRetries: 0 }).computers.get("cmp_1"));
    expect(String(error.body)).toContain("***");
    expect(leaks([error])).toEqual([]);
  });

  it("a key of exactly 8 characters, the shortest treated as a secret, is scrubbed from the error and the log", async () => {
    const key = "k8-chars";
    const logger = captureLogger();
    const body = JSON.stringify({ title: "Unauthorized", detail: `unknown key ${key}`, status: 401 });
    const server = await scripted({ kind: "raw", status: 401, headers: { "content-type": "application/json" }, body });
    const error = await rejection(clientOf(server, { apiKey: key, maxRetries: 0, logLevel: "debug", logger }).computers.get("cmp_1"));
    expect(error.message).toContain("unknown key ***");
    expect([error.message, String(error.body), ...logger.lines].filter((text) => text.includes(key))).toEqual([]);
  });

  it("a credential header of exactly 8 characters is a secret too: scrubbed from the error", async () => {
    const token = "t8-chars";
    const body = JSON.stringify({ title: "Forbidden", detail: `token ${token} may not`, status: 403 });
    const server = await scripted({ kind: "raw", status: 403, headers: { "content-type": "application/json" }, body });
    const client = clientOf(server, { headers: { "X-Auth-Token": token }, maxRetries: 0 });
    const error = await rejection(client.computers.get("cmp_1"));
    expect(error.detail).toBe("token *** may not");
  });

  it("a key echoed in a response header that is not named like a credential is scrubbed from every debug line", async () => {
    const logger = captureLogger();
    const headers = { "content-type": "application/json", "x-debug-echo": `Bearer ${SECRET}` };
    const server = await scripted({ kind: "raw", headers, body: JSON.stringify(success("getComputer")) });
    await clientOf(server, { logLevel: "debug", logger }).computers.get("cmp_1");
    expect(logger.lines.some((line) => line.includes('"x-debug-echo":"Bearer ***"'))).toBe(true);
    expect(leaks(logger.lines)).toEqual([]);
  });

  it("a placeholder key under 8 characters is not scrubbed: replacing every `k` would garble the message", async () => {
    const body = JSON.stringify({ title: "Bad Request", detail: "check the limit", status: 400 });
    const server = await scripted({ kind: "raw", status: 400, headers: { "content-type": "application/json" }, body });
    const error = await rejection(clientOf(server, { apiKey: "k", maxRetries: 0 }).computers.get("cmp_1"));
    expect(error.message).toContain("check the limit");
  });

  it("in the client: inspect, String, JSON", () => {
    const client = clientOf({ url: "http://127.0.0.1:9" });
    expect(leaks([client, String(client), inspect(client, { showHidden: true, depth: 10 })])).toEqual([]);
    expect(inspect(client)).toContain("apiKey: ***");
  });
});

describe("logging", () => {
  // One call that is retried once and one that exhausts its retries: debug and info events, and nothing at warn:
  // the failure is the caller's to handle (it is thrown), so the default level prints nothing of it.
  async function logAt(options: ClientOptions): Promise<string[]> {
    const unavailable: Fault = { kind: "status", status: 503 };
    const server = await scripted(unavailable, { kind: "ok" }, unavailable, unavailable, unavailable);
    const logger = captureLogger();
    const client = clientOf(server, { logger, ...options });
    await client.computers.get("cmp_1");
    corpus.push(await client.computers.get("cmp_1").catch((error) => error));
    return logger.lines;
  }
  const levelsOf = (lines: string[]) => [...new Set(lines.map((line) => line.split(" ")[0]))].sort();

  it.each([
    ["debug", ["debug", "info"]],
    ["info", ["info"]],
    ["warn", []],
    ["error", []], // the SDK logs no errors: it throws them
    ["off", []],
  ] as const)("logLevel %s writes %j", async (logLevel, levels) => {
    expect(levelsOf(await logAt({ logLevel }))).toEqual(levels);
  });

  it("defaults to warn (nothing of a failure the caller handles), or to ORGAGENT_LOG (any case); a bad ORGAGENT_LOG is an error naming the choices", async () => {
    vi.stubEnv("ORGAGENT_LOG", "");
    expect(levelsOf(await logAt({ logLevel: undefined }))).toEqual([]);
    vi.stubEnv("ORGAGENT_LOG", "INFO");
    expect(levelsOf(await logAt({ logLevel: undefined }))).toEqual(["info"]);
    vi.stubEnv("ORGAGENT_LOG", "DEBUG");
    expect(levelsOf(await logAt({ logLevel: undefined }))).toEqual(["debug", "info"]);
    vi.stubEnv("ORGAGENT_LOG", "verbose");
    expect(() => clientOf({ url: "http://127.0.0.1:9" }, { logLevel: undefined })).toThrow(/off, error, warn, info or debug/);
  });

  it.each([["debug"], "toString", "constructor", "__proto__", 4])(
    "a logLevel other than the five names (%j) is an error naming the choices",
    (logLevel) => {
      expect(() => clientOf({ url: "http://127.0.0.1:9" }, { logLevel } as unknown as ClientOptions)).toThrow(
        /^Invalid logLevel .*: use off, error, warn, info or debug\.$/,
      );
    },
  );

  it("a debug line is still written when its details cannot be written as JSON (a BigInt parameter of a raw call)", async () => {
    const server = await scripted();
    const logger = captureLogger();
    // Resource methods refuse such a parameter before anything is sent; `raw` passes its parameters as they are.
    const query = { limit: 5, trace: 10n } as unknown as { limit: number };
    await clientOf(server, { logger, logLevel: "debug" }).raw.GET("/api/v0/organization/enterprise-controls/history", {
      params: { query },
    });
    const sending = logger.lines.filter((line) => line.startsWith("debug [orgagent] →"));
    expect(sending).toHaveLength(1);
    expect(sending[0]).toMatch(/^debug \[orgagent\] → GET .* \[object Object\]$/);
    expect(server.requests).toHaveLength(1);
  });

  it("logs to console by default; a call that gives up says after how many attempts, in words that fit the count", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    try {
      await logAt({ logger: undefined, logLevel: "info" });
      expect(info).toHaveBeenCalledWith(expect.stringMatching(/^\[orgagent\] GET .* failed after 3 attempts: /));
      const server = await scripted({ kind: "status", status: 503 });
      await clientOf(server, { logger: undefined, logLevel: "info", maxRetries: 0 })
        .computers.get("cmp_1")
        .catch(() => {});
      expect(info).toHaveBeenCalledWith(expect.stringMatching(/^\[orgagent\] GET .* failed after 1 attempt: /));
    } finally {
      info.mockRestore();
    }
  });

  it("at the default level, a failure the caller catches prints nothing", async () => {
    const printed = (["error", "warn", "info", "debug", "log"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => {}),
    );
    try {
      vi.stubEnv("ORGAGENT_LOG", "");
      const server = await scripted({ kind: "status", status: 503 }, { kind: "status", status: 429, headers: { "retry-after": "600" } });
      const client = clientOf(server, { logger: undefined, logLevel: undefined, maxRetries: 0 });
      await expect(client.computers.get("cmp_1")).rejects.toThrow();
      await expect(client.computers.get("cmp_1")).rejects.toThrow();
      expect(server.requests).toHaveLength(2);
      expect(printed.flatMap((spy) => spy.mock.calls)).toEqual([]);
    } finally {
      for (const spy of printed) spy.mockRestore();
      vi.unstubAllEnvs();
    }
  });

  it("redacts every header named like a credential in logged headers, sent or received", async () => {
    const credentials = {
      Cookie: "sid=client-session-42",
      "X-Api-Key": "xak-client-1",
      "X-Auth-Token": "xat-client-2",
      "X-Client-Secret": "xcs-client-3",
      "X-Session-Id": "xsi-client-4",
      "X-Amz-Signature": "xas-client-5",
      "X-Password": "xpw-client-6",
    };
    const received = { "set-cookie": "sid=server-session-77", "x-refresh-token": "xrt-server-8" };
    const body = JSON.stringify(success("getComputer"));
    const server = await scripted({ kind: "raw", headers: { "content-type": "application/json", ...received }, body });
    const logger = captureLogger();
    const client = clientOf(server, { logger, logLevel: "debug", headers: { ...credentials, "X-Trace": "trace-visible-9" } });
    await client.computers.get("cmp_1");
    const log = logger.lines.join("\n");
    for (const name of ["Authorization", ...Object.keys(credentials), ...Object.keys(received)]) {
      expect(log).toContain(`"${name}":"***"`);
    }
    expect(log).not.toMatch(/client-session-42|xak-|xat-|xcs-|xsi-|xas-|xpw-|server-session-77|xrt-/);
    expect(log).toContain('"X-Trace":"trace-visible-9"'); // a header that carries no credential is shown
    expect(server.requests[0]!.headers["x-api-key"]).toBe("xak-client-1");
  });

  it("redacts a credential header given for one call only", async () => {
    const server = await scripted();
    const logger = captureLogger();
    await clientOf(server, { logger, logLevel: "debug" }).computers.get("cmp_1", { headers: { "x-api-key": "xak-call-7" } });
    expect(logger.lines.join("\n")).toContain('"x-api-key":"***"');
    expect(logger.lines.join("\n")).not.toContain("xak-call-7");
    expect(server.requests[0]!.headers["x-api-key"]).toBe("xak-call-7");
  });
});
