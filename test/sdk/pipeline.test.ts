// One request pipeline: resource methods, `client.request` and `client.raw` go through the same openapi-fetch client,
// so one middleware added with `client.use()` (or `client.raw.use()`, the same list) sees every attempt of every call,
// before the key is added; redirects are followed inside an attempt. Plugins (the seam a rate controller plugs into)
// hear of every attempt and may wait before one and decide a failure's retry. Against loopback servers.
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { successExample } from "../support/spec.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  InternalServerError,
  OrgAgent,
  RateLimitError,
  type AttemptInfo,
  type ClientOptions,
  type Middleware,
  type RequestPlugin,
} from "../../src/index.js";
import { startLoopback, type Handler, type Loopback } from "./support/loopback.js";

const KEY = "pipeline-test-key-0001";
const COMPUTER = "/api/v0/computers/{computerId}";
const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server answering each request with the next reply of `script`, then the computer. */
async function scripted(...script: Array<ReturnType<Handler>>): Promise<Loopback> {
  let n = 0;
  const server = await startLoopback(() => script[n++] ?? { body: successExample("getComputer") });
  servers.push(server);
  return server;
}

function clientOn(server: Loopback, options: ClientOptions = {}): OrgAgent {
  return new OrgAgent({
    apiKey: KEY,
    baseUrl: server.url,
    appUrl: server.url,
    backoff: { initial: 1, max: 1 },
    logLevel: "off",
    ...options,
  });
}

/** A middleware that records what it sees. */
function recorder() {
  const seen: Array<{ url: string; authorization: string | null; status?: number; error?: unknown }> = [];
  const middleware: Middleware = {
    onRequest: ({ request }) => void seen.push({ url: request.url, authorization: request.headers.get("authorization") }),
    onResponse: ({ response }) => void (seen.at(-1)!.status = response.status),
    onError: ({ error }) => void (seen.at(-1)!.error = error),
  };
  return { seen, middleware };
}

describe("one middleware sees every call", () => {
  it("every attempt of a resource method, client.request and client.raw, each before the key is added", async () => {
    const server = await scripted({ status: 503, body: { title: "Unavailable" } });
    const client = clientOn(server);
    const { seen, middleware } = recorder();
    client.use(middleware);
    await client.computers.get("cmp_1");
    await client.request("getComputer", { path: { computerId: "cmp_2" } });
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_3" } } });
    expect(seen.map(({ url, status }) => [new URL(url).pathname, status])).toEqual([
      ["/api/v0/computers/cmp_1", 503],
      ["/api/v0/computers/cmp_1", 200],
      ["/api/v0/computers/cmp_2", 200],
      ["/api/v0/computers/cmp_3", 200],
    ]);
    expect(seen.map(({ authorization }) => authorization)).toEqual([null, null, null, null]);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(Array(4).fill(`Bearer ${KEY}`));
  });

  it("raw.use() adds to the same list: resource methods see it too, until eject() removes it from both", async () => {
    const server = await scripted();
    const client = clientOn(server);
    const tagged: Middleware = { onRequest: ({ request }) => (request.headers.set("X-Middleware", "on"), request) };
    client.raw.use(tagged);
    await client.computers.get("cmp_1");
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    client.eject(tagged);
    await client.computers.get("cmp_1");
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect(server.requests.map((request) => request.headers["x-middleware"])).toEqual(["on", "on", undefined, undefined]);
  });

  it("a redirect is followed inside the attempt: the middleware sees one request, the key goes on to the same origin", async () => {
    const server = await scripted({ status: 307, headers: { location: "/api/v0/computers/cmp_moved" } });
    const client = clientOn(server);
    const { seen, middleware } = recorder();
    client.use(middleware);
    await expect(client.computers.get("cmp_1")).resolves.toEqual(successExample("getComputer"));
    expect(seen.map(({ status }) => status)).toEqual([200]);
    expect(server.requests.map((request) => [request.target, request.headers.authorization])).toEqual([
      ["/api/v0/computers/cmp_1", `Bearer ${KEY}`],
      ["/api/v0/computers/cmp_moved", `Bearer ${KEY}`],
    ]);
  });

  it("onError sees each failed attempt as the SDK's APIConnectionError, with its code", async () => {
    const server = await scripted();
    const url = server.url;
    await server.close();
    const client = new OrgAgent({ apiKey: KEY, baseUrl: url, backoff: { initial: 1, max: 1 }, logLevel: "off", maxRetries: 1 });
    const { seen, middleware } = recorder();
    client.use(middleware);
    const error = await client.computers.get("cmp_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(seen.map((attempt) => [attempt.error instanceof APIConnectionError, (attempt.error as APIConnectionError).code])).toEqual([
      [true, "ECONNREFUSED"],
      [true, "ECONNREFUSED"],
    ]);
  });

  it("onError sees an attempt that timed out as the SDK's APIConnectionTimeoutError", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      // A fetch that never answers and ignores its signal: only the attempt's timeout ends it.
      const client = new OrgAgent({
        apiKey: KEY,
        baseUrl: "http://127.0.0.1:9",
        fetch: () => new Promise(() => {}),
        timeout: 100,
        maxRetries: 0,
        logLevel: "off",
      });
      const seen: unknown[] = [];
      client.use({ onError: ({ error }) => void seen.push(error) });
      const error = client.computers.get("cmp_1").catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(100);
      expect(await error).toBeInstanceOf(APIConnectionTimeoutError);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(APIConnectionTimeoutError);
      expect((seen[0] as Error).message).toMatch(/^Request timed out after 100 ms/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a middleware that answers itself short-circuits fetch, and its answer is checked as the server's would be", async () => {
    const server = await scripted();
    const local = { ...successExample("getComputer"), id: "cmp_local" };
    const answering = clientOn(server);
    answering.use({ onRequest: () => Response.json(local) });
    await expect(answering.computers.get("cmp_1")).resolves.toEqual(local);
    const page = clientOn(server, { maxRetries: 0 });
    page.use({ onRequest: () => new Response("<html>", { headers: { "content-type": "text/html" } }) });
    await expect(page.computers.get("cmp_1")).rejects.toThrow(/^200: expected JSON, got text\/html: <html>/);
    expect(server.requests).toHaveLength(0);
  });

  it("a middleware that never returns cannot hold the call past its timeout", async () => {
    const server = await scripted();
    const client = clientOn(server, { timeout: 100, maxRetries: 0 });
    client.use({ onRequest: () => new Promise<undefined>(() => {}) });
    const error = await client.computers.get("cmp_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(0);
  });

  it("a request a middleware held past the attempt's timeout is not sent when it is let go, nor logged as going out", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const lines: string[] = [];
      const log = (line: string) => void lines.push(line);
      const fetched: unknown[] = [];
      const client = new OrgAgent({
        apiKey: async () => KEY,
        baseUrl: "http://127.0.0.1:9",
        fetch: (input) => (fetched.push(input), Promise.resolve(Response.json(successExample("getComputer")))),
        timeout: 100,
        maxRetries: 0,
        logLevel: "debug",
        logger: { error: log, warn: log, info: log, debug: log },
      });
      client.use({ onRequest: ({ request }) => new Promise<Request>((resolve) => setTimeout(() => resolve(request), 300)) });
      const error = client.computers.get("cmp_1").catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(100);
      expect(await error).toBeInstanceOf(APIConnectionTimeoutError);
      await vi.advanceTimersByTimeAsync(300);
      expect(fetched).toEqual([]);
      expect(lines.filter((line) => line.includes("→"))).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("an answer an onResponse held past the caller's abort has its body cancelled when it is let go", async () => {
    let cancelled = false;
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const client = new OrgAgent({
      apiKey: KEY,
      baseUrl: "http://127.0.0.1:9",
      fetch: async () => new Response(new ReadableStream({ cancel: () => void (cancelled = true) }), { status: 200 }),
      logLevel: "off",
    });
    let reached!: () => void;
    const inMiddleware = new Promise<void>((resolve) => (reached = resolve));
    client.use({ onResponse: async ({ response }) => (reached(), await held, response) });
    const aborted = new AbortController();
    const call = client.computers.get("cmp_1", { signal: aborted.signal }).catch((e: unknown) => e);
    await inMiddleware;
    aborted.abort();
    expect(await call).toBeInstanceOf(APIUserAbortError);
    expect(cancelled).toBe(false);
    letGo();
    for (let turns = 0; turns < 20 && !cancelled; turns++) await new Promise((tick) => setTimeout(tick, 1));
    expect(cancelled).toBe(true);
  });

  it("a middleware that changes nothing changes nothing on the wire: the same method, target, headers and body", async () => {
    const server = await scripted(...Array(6).fill({ status: 201, body: successExample("createSession") }));
    const calls = async (client: OrgAgent) => {
      await client.sessions.create(
        { computerId: "cmp_1", cwd: "/src" },
        { headers: { "X-Call": "c1", "content-type": "application/json; charset=utf-8" } },
      );
      await client.sessions.create({ computerId: "cmp_1" });
      await client
        .request("getSessionMessage", { path: { sessionId: "sess 1/ä", messageId: "msg_1" }, query: { computerId: "cmp_2" } })
        .catch(() => {});
    };
    await calls(clientOn(server, { headers: { "X-Team": "blue" } }));
    const observed = clientOn(server, { headers: { "X-Team": "blue" } });
    observed.use({ onRequest: () => undefined });
    await calls(observed);
    const wire = server.requests.map(({ method, target, headers, body }) => {
      const { host, connection, ...sent } = headers;
      return { method, target, headers: sent, body };
    });
    expect(wire.slice(3)).toEqual(wire.slice(0, 3));
    expect(wire[1]!.headers["content-type"]).toBe("application/json");
    expect(wire[0]!.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "x-call": "c1",
      "x-team": "blue",
      authorization: `Bearer ${KEY}`,
    });
  });

  it("the caller's fetch is given a body only for a request that has one: none for a GET, the JSON text for a POST", async () => {
    const inits: RequestInit[] = [];
    const client = new OrgAgent({
      apiKey: KEY,
      baseUrl: "http://127.0.0.1:9",
      fetch: async (_, init) => {
        inits.push(init!);
        return init!.method === "POST"
          ? Response.json(successExample("createSession"), { status: 201 })
          : Response.json(successExample("getComputer"));
      },
      maxRetries: 0,
      logLevel: "off",
    });
    await client.computers.get("cmp_1");
    await client.sessions.create({ computerId: "cmp_1" });
    expect(inits.map((init) => [init.method, "body" in init, init.body])).toEqual([
      ["GET", false, undefined],
      ["POST", true, JSON.stringify({ computerId: "cmp_1" })],
    ]);
  });

  it("use() refuses what is not middleware, naming it", () => {
    const client = new OrgAgent({ apiKey: KEY, baseUrl: "http://127.0.0.1:9" });
    expect(() => client.use({} as Middleware)).toThrow(
      /^middleware: .* is not allowed; expected an object with onRequest, onResponse or onError$/,
    );
  });

  it("use() refuses null, a function and a primitive as middleware, with the same ValidationError", () => {
    const client = new OrgAgent({ apiKey: KEY, baseUrl: "http://127.0.0.1:9" });
    const onRequest = () => undefined;
    for (const item of [null, Object.assign(() => undefined, { onRequest }), "onRequest", 1]) {
      expect(() => client.use(item as unknown as Middleware)).toThrow(
        /^middleware: .* is not allowed; expected an object with onRequest, onResponse or onError$/,
      );
    }
  });

  it("use() takes middleware with only onResponse, or only onError, and runs it", async () => {
    const server = await scripted({ status: 503, body: { title: "Unavailable" } });
    const url = server.url;
    const client = clientOn(server, { maxRetries: 0 });
    const statuses: number[] = [];
    client.use({ onResponse: ({ response }) => void statuses.push(response.status) });
    await client.computers.get("cmp_1").catch(() => {});
    expect(statuses).toEqual([503]);
    await server.close();
    const errors: unknown[] = [];
    const refused = new OrgAgent({ apiKey: KEY, baseUrl: url, maxRetries: 0, logLevel: "off" });
    refused.use({ onError: ({ error }) => void errors.push(error) });
    await refused.computers.get("cmp_1").catch(() => {});
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(APIConnectionError);
  });

  it("eject() removes exactly the middleware named: one never added removes nothing", async () => {
    const server = await scripted();
    const client = clientOn(server);
    const tag = (name: string): Middleware => ({ onRequest: ({ request }) => (request.headers.set(`X-${name}`, "on"), request) });
    const [first, second] = [tag("First"), tag("Second")];
    client.use(first, second);
    client.eject(tag("Stranger"));
    await client.computers.get("cmp_1");
    client.eject(second);
    await client.computers.get("cmp_1");
    expect(server.requests.map((request) => [request.headers["x-first"], request.headers["x-second"]])).toEqual([
      ["on", "on"],
      ["on", undefined],
    ]);
  });
});

describe("plugins: the seam of a rate controller", () => {
  /** A plugin that records every hook call. */
  function listening(decide?: RequestPlugin["retry"]) {
    const events: string[] = [];
    const infos: AttemptInfo[] = [];
    const plugin: RequestPlugin = {
      beforeAttempt: (info) => void (infos.push(info), events.push(`before ${info.attempt}`)),
      afterAttempt: (info, result) => void events.push(`after ${info.attempt}: ${result.status ?? result.error?.name}`),
      ...(decide ? { retry: decide } : {}),
    };
    return { events, infos, plugin };
  }

  it("hear of every attempt, before it leaves and after its answer, with the call's operation, origin and idempotency", async () => {
    const server = await scripted({ status: 503, body: {} });
    const { events, infos, plugin } = listening();
    await clientOn(server, { plugins: [plugin] }).computers.get("cmp_1");
    expect(events).toEqual(["before 1", "after 1: 503", "before 2", "after 2: 200"]);
    expect(infos[0]).toMatchObject({
      operationId: "getComputer",
      method: "GET",
      path: COMPUTER,
      origin: server.url,
      attempt: 1,
      idempotent: true,
    });
    expect(server.requests).toHaveLength(2);
  });

  it("a wait in beforeAttempt holds the attempt back: nothing is sent until it ends", async () => {
    const server = await scripted();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const call = clientOn(server, { plugins: [{ beforeAttempt: () => gate }] }).computers.get("cmp_1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(0);
    release();
    await call;
    expect(server.requests).toHaveLength(1);
  });

  it("a throttle retried without counting: maxRetries 0, three 429s waited out, the fourth attempt answers", async () => {
    const tooMany = { status: 429, headers: { "retry-after": "0" }, body: {} };
    const server = await scripted(tooMany, tooMany, tooMany);
    const { events, plugin } = listening((_, result) =>
      result.error instanceof RateLimitError ? { retry: true, delay: 1, counted: false } : undefined,
    );
    await expect(clientOn(server, { maxRetries: 0, plugins: [plugin] }).computers.get("cmp_1")).resolves.toEqual(
      successExample("getComputer"),
    );
    expect(server.requests).toHaveLength(4);
    expect(events.filter((event) => event.startsWith("before"))).toHaveLength(4);
  });

  it("without a plugin's word the SDK's own rate limiting waits the 429s out as throttles, every attempt heard by the plugin", async () => {
    const tooMany = { status: 429, headers: { "retry-after": "0" }, body: {} };
    const server = await scripted(tooMany, tooMany, tooMany);
    const { events, plugin } = listening(() => undefined);
    await expect(clientOn(server, { maxRetries: 0, plugins: [plugin] }).computers.get("cmp_1")).resolves.toEqual(
      successExample("getComputer"),
    );
    expect(events.filter((event) => event.startsWith("after"))).toEqual(["after 1: 429", "after 2: 429", "after 3: 429", "after 4: 200"]);
  });

  it("without a plugin's word and with rateLimiting: false, the default policy decides: the same 429s with maxRetries 0 fail at the first", async () => {
    const tooMany = { status: 429, headers: { "retry-after": "0" }, body: {} };
    const server = await scripted(tooMany, tooMany, tooMany);
    const { plugin } = listening(() => undefined);
    await expect(clientOn(server, { maxRetries: 0, rateLimiting: false, plugins: [plugin] }).computers.get("cmp_1")).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("the first plugin with a word on a failure decides it: one without a word passes it on to the next", async () => {
    const server = await scripted({ status: 503, body: {} });
    const silent = listening(() => undefined);
    const stopping = listening(() => ({ retry: false }));
    const client = clientOn(server, { plugins: [silent.plugin, stopping.plugin] });
    await expect(client.computers.get("cmp_1")).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  it("a plugin may stop a failure the default policy would retry", async () => {
    const server = await scripted({ status: 503, body: {} });
    const { plugin } = listening(() => ({ retry: false }));
    await expect(clientOn(server, { plugins: [plugin] }).computers.get("cmp_1")).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  it("the caller's abort during a beforeAttempt wait ends the call with APIUserAbortError, even when the wait then ends: nothing is sent", async () => {
    const server = await scripted();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const aborted = new AbortController();
    const call = clientOn(server, { plugins: [{ beforeAttempt: () => gate }] })
      .computers.get("cmp_1", { signal: aborted.signal })
      .catch((e: unknown) => e);
    aborted.abort();
    release();
    expect(await call).toBeInstanceOf(APIUserAbortError);
    expect(server.requests).toHaveLength(0);
  });

  it("a beforeAttempt that waits past the call's deadline ends it as a deadline timeout, nothing sent", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const fetched: unknown[] = [];
      const client = new OrgAgent({
        apiKey: KEY,
        baseUrl: "http://127.0.0.1:9",
        fetch: async (input) => (fetched.push(input), Response.json(successExample("getComputer"))),
        logLevel: "off",
        plugins: [{ beforeAttempt: () => new Promise<void>((resolve) => setTimeout(resolve, 200)) }],
      });
      let error: unknown;
      client.computers.get("cmp_1", { deadline: 100 }).catch((e: unknown) => (error = e));
      await vi.advanceTimersByTimeAsync(250);
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
      expect(error).toMatchObject({
        limit: "deadline",
        ms: 100,
        message: "Deadline of 100 ms exceeded [getComputer: GET http://127.0.0.1:9/api/v0/computers/cmp_1]",
      });
      expect(fetched).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a beforeAttempt that rejects ends the call with its error, nothing sent", async () => {
    const server = await scripted();
    const refusal = new Error("quota spent");
    await expect(clientOn(server, { plugins: [{ beforeAttempt: () => Promise.reject(refusal) }] }).computers.get("cmp_1")).rejects.toBe(
      refusal,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("retries that do not count still end at the call's deadline (a plugin that throttles in place of the SDK's rate limiting)", async () => {
    const tooMany = { status: 429, body: {} };
    const server = await scripted(...Array(50).fill(tooMany));
    const plugin: RequestPlugin = { retry: () => ({ retry: true, delay: 20, counted: false }) };
    const error = await clientOn(server, { deadline: 150, rateLimiting: false, plugins: [plugin] })
      .computers.get("cmp_1")
      .catch((e: unknown) => e);
    // Ended by the deadline either way: the last 429 when the next wait would pass it, or, on a loaded machine, an
    // attempt cut short by it.
    const byDeadline = error instanceof APIConnectionTimeoutError && error.limit === "deadline";
    expect(error instanceof RateLimitError || byDeadline, String(error)).toBe(true);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.length).toBeLessThan(50);
  });
});

describe("the caller's fetch, with and without middleware", () => {
  /** A fetch that records the first argument of each call, then fetches it. */
  function recordingFetch() {
    const inputs: Array<string | URL | Request> = [];
    const fetcher: typeof fetch = (input, init) => {
      inputs.push(input);
      return fetch(input, init);
    };
    return { inputs, fetcher };
  }

  it("a client with no middleware hands its fetch the URL as a string: no Request is built for it", async () => {
    const server = await scripted();
    const { inputs, fetcher } = recordingFetch();
    await clientOn(server, { fetch: fetcher }).computers.get("cmp_1");
    expect(inputs).toEqual([`${server.url}/api/v0/computers/cmp_1`]);
  });

  it("with middleware added, its fetch is handed the Request the middleware saw", async () => {
    const server = await scripted();
    const { inputs, fetcher } = recordingFetch();
    const client = clientOn(server, { fetch: fetcher });
    client.use(recorder().middleware);
    await client.computers.get("cmp_1");
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toBeInstanceOf(Request);
    expect((inputs[0] as Request).url).toBe(`${server.url}/api/v0/computers/cmp_1`);
  });
});
