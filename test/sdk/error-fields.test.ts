// The fields a program reads instead of an error's message: the rule a value broke and its bound (ValidationError),
// the connection failure's code and whether the request left (APIConnectionError), and which limit ran out
// (APIConnectionTimeoutError). Against loopback servers that refuse, reset or stall.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { yesterdayUTC } from "../../src/core/days.js";
import { APIConnectionError, APIConnectionTimeoutError, OrgAgent, ValidationError, dateRange } from "../../src/index.js";
import { unusedPort } from "../resilience/support.js";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A loopback server whose every request is handled by `act` on its raw socket. */
async function serverThat(act: "reset" | "stall"): Promise<string> {
  const server = createServer((req) => {
    if (act === "reset") req.socket.destroy();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  closers.push(
    () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const client = (baseUrl = "http://127.0.0.1:9", options = {}) =>
  new OrgAgent({ apiKey: "error-fields-key", baseUrl, maxRetries: 0, logLevel: "off", ...options });

async function rejected<E>(promise: PromiseLike<unknown>): Promise<E> {
  return Promise.resolve(promise).then(
    () => expect.fail("expected a rejection"),
    (error: unknown) => error as E,
  );
}

describe("ValidationError: the rule a value broke, and its bound", () => {
  const range = dateRange.lastDays(3);
  it.each([
    ["a page size over the maximum", () => client().analytics.users({ ...range, limit: 101 }), "query.limit", "maximum", 100],
    ["a page size under the minimum", () => client().analytics.users({ ...range, limit: 0 }), "query.limit", "minimum", 1],
    [
      "a date after the latest (yesterday)",
      () => client().analytics.tokens({ ...range, endDate: "2999-01-01" }),
      "query.endDate",
      "latest",
      yesterdayUTC(),
    ],
    [
      "an end before the start",
      () => client().analytics.tokens({ ...range, endDate: "2026-02-01", startDate: "2026-02-02" }),
      "query.endDate",
      "notBefore",
      "startDate",
    ],
    [
      "a day that does not exist",
      () => client().analytics.tokens({ ...range, startDate: "2026-02-30" }),
      "query.startDate",
      "format",
      undefined,
    ],
    [
      "a value not in the enum",
      () => client().analytics.tokens({ ...range, group_by: "user" as "model" }),
      "query.group_by",
      "enum",
      ["model"],
    ],
    [
      "a missing required parameter",
      () => client().analytics.tokens({ startDate: range.startDate } as typeof range),
      "query.endDate",
      "required",
      undefined,
    ],
    ["a name over its length", () => client().computers.getByName("x".repeat(64)), "path.name", "maxLength", 63],
    ["a request option out of its range", () => client().computers.get("cmp_1", { timeout: 0 }), "options.timeout", "option", undefined],
  ] as const)("%s", async (_, call, field, rule, bound) => {
    const error = await rejected<ValidationError>(call());
    expect(error).toBeInstanceOf(ValidationError);
    expect({ field: error.field, rule: error.rule, bound: error.bound }).toEqual({ field, rule, bound });
  });
});

describe("APIConnectionError: the code of the failure, and whether the request left", () => {
  it("a refused connection: ECONNREFUSED, not sent", async () => {
    const error = await rejected<APIConnectionError>(
      client(`http://127.0.0.1:${await unusedPort()}`).sessions.create({ computerId: "cmp_1" }),
    );
    expect(error).toBeInstanceOf(APIConnectionError);
    expect([error.code, error.notSent]).toEqual(["ECONNREFUSED", true]);
  });

  it("a connection closed after the request arrived: the runtime's code, and it may have been received", async () => {
    const error = await rejected<APIConnectionError>(client(await serverThat("reset")).sessions.create({ computerId: "cmp_1" }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.code).toMatch(/^(UND_ERR_SOCKET|ECONNRESET)$/);
    expect(error.notSent).toBe(false);
  });
});

describe("APIConnectionTimeoutError: which limit ran out", () => {
  it("one attempt's timeout", async () => {
    const error = await rejected<APIConnectionTimeoutError>(client(await serverThat("stall"), { timeout: 50 }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect([error.limit, error.ms]).toEqual(["timeout", 50]);
  });

  it("the call's deadline, shorter than the attempt's timeout", async () => {
    const error = await rejected<APIConnectionTimeoutError>(
      client(await serverThat("stall"), { timeout: 10_000 }).computers.get("cmp_1", { deadline: 60 }),
    );
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect([error.limit, error.ms]).toEqual(["deadline", 60]);
  });
});
