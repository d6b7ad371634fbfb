// Options are checked, and deadlines and aborts cover everything: every numeric option is refused outside its range
// (at construction, and per call before anything is sent) with a ValidationError naming it and the range; a call's
// deadline, timeout and signal apply from the moment it starts, also while an apiKey function is pending; a list
// whose pages stay empty but keep saying "more" ends in PaginationError.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MAX_EMPTY_PAGES } from "../../src/core/pagination.js";
import {
  APIConnectionTimeoutError,
  APIUserAbortError,
  OrgAgent,
  PaginationError,
  ValidationError,
  type ClientOptions,
  type RequestOptions,
} from "../../src/index.js";
import { success } from "./fault-server.js";
import { leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted, serve } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

// Each option, values it refuses, values it accepts, and the words of its range.
const numeric: [keyof RequestOptions | "maxRetryAfter", unknown[], number[], RegExp][] = [
  ["maxRetries", [Number.NaN, -1, 1.5, Infinity, "2"], [0, 5], /an integer, 0 or more/],
  ["timeout", [Number.NaN, 0, -5, "100"], [1, 0.5, Infinity], /greater than 0, or Infinity/],
  ["deadline", [Number.NaN, 0, -1], [1, Infinity], /greater than 0, or Infinity/],
  ["maxResponseSize", [Number.NaN, 0, -1, 1.5], [1, Infinity], /an integer number of bytes greater than 0, or Infinity/],
  ["maxRetryAfter", [Number.NaN, -1], [0, Infinity], /0 or more, or Infinity/],
];

describe.each(numeric)("%s", (name, refused, accepted, range) => {
  it.each(refused)("%s is refused at construction, naming the option and its range", (value) => {
    let error: any;
    try {
      clientOf({ url: "http://127.0.0.1:9" }, { [name]: value } as ClientOptions);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe(name);
    expect(error.message).toMatch(range);
    expect(error.message).toContain(`${name}: ${typeof value === "string" ? JSON.stringify(value) : String(value)} is not allowed`);
  });

  if (name !== "maxRetryAfter") {
    it.each(refused)("%s is refused per call, before anything is sent", async (value) => {
      const server = await scripted();
      const error = await rejection(clientOf(server).computers.get("cmp_1", { [name]: value }));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.field).toBe(`options.${name}`);
      expect(error.message).toMatch(range);
      expect(server.requests).toHaveLength(0);
    });
  }

  it.each(accepted)("%s is accepted", (value) => {
    expect(() => clientOf({ url: "http://127.0.0.1:9" }, { [name]: value })).not.toThrow();
  });
});

describe("headers", () => {
  /** The error constructing a client with these options throws. */
  function constructionError(options: ClientOptions): any {
    try {
      clientOf({ url: "http://127.0.0.1:9" }, options);
    } catch (error) {
      corpus.push(error);
      return error;
    }
    expect.fail("expected the constructor to throw");
  }

  it.each([
    ["a string", "X-Trace: 1", "string"],
    ["an array of pairs", [["X-Trace", "1"]], "object"],
    ["null", null, "object"],
  ])("%s as the client's headers is refused, naming the option and the object it must be", (_, headers, type) => {
    const error = constructionError({ headers } as unknown as ClientOptions);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "headers", value: type });
    expect(error.message).toMatch(/^headers: .* expected an object of header names to string values$/);
  });

  it("a call's headers that are not an object are refused before anything is sent", async () => {
    const server = await scripted();
    const error = await rejection(clientOf(server).computers.get("cmp_1", { headers: "X-Trace: 1" } as unknown as RequestOptions));
    expect(error).toMatchObject({ name: "ValidationError", field: "options.headers", value: "string" });
    expect(error.message).toContain("expected an object of header names to string values");
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [5, "number"],
    [true, "boolean"],
    [null, "object"],
    [["1"], "object"],
  ])("a header value %j is refused, naming the header and its type, not the value", (value, type) => {
    const error = constructionError({ headers: { "X-Trace": value } } as unknown as ClientOptions);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: 'headers["X-Trace"]', value: type, allowed: "a string" });
    expect(error.message).toBe(`headers["X-Trace"]: a ${type} is not allowed; expected a string`);
  });

  it("a header value fetch cannot send is refused without showing it, saying what a value may hold", () => {
    const error = constructionError({ headers: { "X-Trace": "trace\r\nX-Evil: 1" } });
    expect(error).toMatchObject({ field: 'headers["X-Trace"]', value: "***", allowed: "Latin-1 text without CR, LF or NUL" });
    expect(error.message).not.toContain("Evil");
  });

  it("a header name that is not a token is refused, naming the characters a name may hold", () => {
    const error = constructionError({ headers: { "X Trace": "1" } });
    expect(error).toMatchObject({ field: 'headers["X Trace"]', value: "X Trace" });
    expect(error.message).toContain("expected a header name (letters, digits and !#$%&'*+.^_`|~-)");
  });

  it("an Authorization header is refused without showing its value, saying where the credential comes from", () => {
    const error = constructionError({ headers: { authorization: "Bearer other" } });
    expect(error).toMatchObject({ field: 'headers["authorization"]', value: "***" });
    expect(error.message).toBe(
      'headers["authorization"]: an Authorization header is not allowed; expected no Authorization header: the client sets it from `apiKey`',
    );
  });
});

describe("backoff", () => {
  it.each([
    ["initial", Number.NaN],
    ["initial", -1],
    ["max", Infinity],
    ["max", -5],
  ])("backoff.%s = %s is refused at construction", (field, value) => {
    expect(() => clientOf({ url: "http://127.0.0.1:9" }, { backoff: { [field]: value } })).toThrow(
      new RegExp(`^backoff\\.${field}: .* expected a finite number of milliseconds, 0 or more$`),
    );
  });

  it("0 (no wait) is accepted", () => {
    expect(() => clientOf({ url: "http://127.0.0.1:9" }, { backoff: { initial: 0, max: 0 } })).not.toThrow();
  });
});

it.each([Number.NaN, -1, 1.5])("maxItems %s is refused when the list is asked for, before anything is sent", async (maxItems) => {
  const server = await scripted();
  const list = () => clientOf(server).enterpriseControls.history({}, { maxItems });
  expect(list).toThrow(/^options\.maxItems: .* expected an integer, 0 or more, or Infinity$/);
  expect(server.requests).toHaveLength(0);
});

it("an attempt times out after the documented default, 60 s, when no timeout is given", async () => {
  const documented = /`timeout` per attempt \(default (\d+) s\)/.exec(readFileSync(new URL("../../README.md", import.meta.url), "utf8"));
  const defaultMs = Number(documented![1]) * 1_000;
  // performance.now() too: the attempt measures its time by it, so real time passing on a loaded machine between the
  // call and its timer's start would otherwise shorten the fake 60 s.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  try {
    // A fetch that never answers: only the SDK's own timer can end the attempt.
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: "http://127.0.0.1:9",
      maxRetries: 0,
      logLevel: "off",
      fetch: () => new Promise(() => {}),
    });
    let outcome: unknown;
    client.computers.get("cmp_1").then(
      (value) => (outcome = value),
      (error: unknown) => (outcome = error),
    );
    await vi.advanceTimersByTimeAsync(defaultMs - 1);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBeInstanceOf(APIConnectionTimeoutError);
    expect((outcome as Error).message).toContain(`after ${defaultMs} ms`);
  } finally {
    vi.useRealTimers();
  }
});

describe("an apiKey function that is slow or never settles", () => {
  const never = () => new Promise<string>(() => {});
  const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve("rotated-token"), 3_000));

  it("the deadline applies while it is pending", async () => {
    const server = await scripted();
    const started = performance.now();
    const error = await rejection(clientOf(server, { apiKey: never, deadline: 300 }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error.message).toBe(`Deadline of 300 ms exceeded [getComputer: GET ${server.url}/api/v0/computers/cmp_1]`);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(0);
  });

  it("an abort applies while it is pending", async () => {
    const server = await scripted();
    const started = performance.now();
    const error = await rejection(clientOf(server, { apiKey: slow }).computers.get("cmp_1", { signal: AbortSignal.timeout(200) }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(0);
  });

  it("the per-attempt timeout counts the wait for the key too: no call hangs on it", async () => {
    const server = await scripted();
    let asked = 0;
    const started = performance.now();
    const client = clientOf(server, { apiKey: () => (asked++, never()), timeout: 100, maxRetries: 1 });
    const error = await rejection(client.computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(asked).toBe(2); // a GET is retried; the key is asked for again
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(0);
  });
});

describe("a list whose pages stay empty but keep saying there is more", () => {
  // Every page: no items, has_more, and a cursor never seen before (the history operation's shape).
  const endless = () =>
    serve(({ n }) => ({
      kind: "raw",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...(success("listEnterpriseControlsHistory") as object),
        changes: [],
        pagination: { hasMore: true, nextCursor: `rev_${1e6 - n}` },
      }),
    }));

  it(`ends in PaginationError after ${MAX_EMPTY_PAGES} such pages, also with maxItems`, async () => {
    for (const options of [{}, { maxItems: 10 }]) {
      const server = await endless();
      const seen: unknown[] = [];
      const iterate = async () => {
        for await (const change of clientOf(server).enterpriseControls.history({}, options)) seen.push(change);
      };
      const error = await rejection(iterate());
      expect(error).toBeInstanceOf(PaginationError);
      expect(error.message).toContain(`${MAX_EMPTY_PAGES} pages in a row had no items`);
      expect(server.requests).toHaveLength(MAX_EMPTY_PAGES);
      expect(seen).toEqual([]);
    }
  });
});

describe("rateLimiting", () => {
  it.each([["yes"], [1], [null]])("%j is refused at construction, as true or false is asked for", (value) => {
    let error: unknown;
    try {
      new OrgAgent({ apiKey: "k", baseUrl: "http://127.0.0.1:1", rateLimiting: value as never });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "rateLimiting", allowed: "true or false", rule: "option" });
    expect((error as Error).message).toContain("rateLimiting");
  });
});

it("an APIUserAbortError made without a message says the request was aborted", () => {
  expect(new APIUserAbortError().message).toBe("Request was aborted");
});

describe("a timeout and a deadline that end at the same moment", () => {
  it("end the attempt as its timeout: APIConnectionTimeoutError with limit timeout", async () => {
    // performance.now() faked too, so the call's deadline and its first attempt's timeout start at the same instant.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const client = new OrgAgent({
        apiKey: "test-key",
        baseUrl: "http://127.0.0.1:9",
        timeout: 1_000,
        deadline: 1_000,
        maxRetries: 0,
        logLevel: "off",
        fetch: () => new Promise(() => {}),
      });
      let outcome: unknown;
      client.computers.get("cmp_1").catch((error: unknown) => (outcome = error));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(outcome).toBeInstanceOf(APIConnectionTimeoutError);
      expect(outcome).toMatchObject({ limit: "timeout", ms: 1_000 });
    } finally {
      vi.useRealTimers();
    }
  });
});
