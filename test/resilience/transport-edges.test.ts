// Edges of the transport (src/core/transport.ts): what a caller's fetch is given, redirects to other origins, and a
// caller's own `redirect` on client.raw left to fetch. (What it takes for a Response: connection-errors.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { APIConnectionError, APIUserAbortError, OrgAgent } from "../../src/index.js";
import { startLoopback, type Loopback } from "../sdk/support/loopback.js";
import { success } from "./fault-server.js";
import { rejection } from "./support.js";

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("what the caller's fetch is given", () => {
  it("a request without a body comes with no body field at all; one with a body, with it", async () => {
    const inits: RequestInit[] = [];
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: "http://127.0.0.1:9",
      fetch: async (_input, init) => {
        inits.push(init!);
        return Response.json({});
      },
      maxRetries: 0,
      logLevel: "off",
    });
    await client.raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId: "cmp_1" } } });
    await client.raw.POST("/api/v0/sessions", { body: { computerId: "cmp_1" } });
    // client.raw's body comes as the bytes of the Request openapi-fetch built.
    const text = (body: RequestInit["body"]) => (body === undefined ? undefined : new TextDecoder().decode(body as ArrayBuffer));
    expect(inits.map((init) => ["body" in init, text(init.body)])).toEqual([
      [false, undefined],
      [true, JSON.stringify({ computerId: "cmp_1" })],
    ]);
  });
});

describe("redirects to another origin", () => {
  /** A server redirecting every request to the same path on `target()`. */
  const redirectingTo = async (target: () => string) => {
    const server = await startLoopback((request) => ({ status: 307, headers: { location: `${target()}${request.target}` } }));
    servers.push(server);
    return server;
  };

  it.each([
    ["with rateLimiting: false (no controller to tell)", false, 1],
    ["through two other origins in a row (the first host's controller told once)", true, 2],
  ])("are followed %s", async (_, rateLimiting, hops) => {
    const target = await startLoopback(() => ({ body: success("getComputer") }));
    servers.push(target);
    let next = target;
    for (let i = 0; i < hops; i++) {
      const to = next;
      next = await redirectingTo(() => to.url);
    }
    const client = new OrgAgent({ apiKey: "test-key", baseUrl: next.url, rateLimiting, maxRetries: 0, logLevel: "off" });
    await expect(client.computers.get("cmp_1")).resolves.toEqual(success("getComputer"));
    expect(target.requests).toHaveLength(1);
  });
});

describe("a caller's own redirect mode on client.raw", () => {
  it('`redirect: "error"` is left to fetch: a redirect fails the call and its target is never asked', async () => {
    const target = await startLoopback(() => ({ body: success("getComputer") }));
    servers.push(target);
    const origin = await startLoopback((request) => ({ status: 307, headers: { location: `${target.url}${request.target}` } }));
    servers.push(origin);
    const client = new OrgAgent({ apiKey: "test-key", baseUrl: origin.url, maxRetries: 0, logLevel: "off" });
    const call = client.raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId: "cmp_1" } }, redirect: "error" });
    const error = await rejection(call);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(origin.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });
});

describe("an attempt that ends before its request leaves", () => {
  it("a key function that aborts the call (synchronously, then returns a key) sends nothing: the call is aborted", async () => {
    const aborted = new AbortController();
    let fetched = 0;
    const client = new OrgAgent({
      apiKey: () => {
        aborted.abort();
        return "test-key";
      },
      baseUrl: "http://127.0.0.1:9",
      fetch: async () => {
        fetched++;
        return new Response("{}");
      },
      maxRetries: 0,
      logLevel: "off",
    });
    const error = await rejection(client.computers.get("cmp_1", { signal: aborted.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(fetched).toBe(0);
  });
});
