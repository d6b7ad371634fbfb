// Redirects on Node, Bun and Deno are followed by the SDK itself, for resource methods and client.raw alike: within
// the origin with every header; to another origin (scheme, host or port) with none of the caller's headers and no
// key, never with a body; at most 5, never in a loop. Each refusal is a RedirectError saying what happened. A custom fetch that follows redirects itself still
// must not forward the key (undici's fetch, as newer Node versions bundle it, is checked).
import { fetch as undiciFetch } from "undici";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ERROR_BODY_LIMIT, MAX_REDIRECTS } from "../../src/core/options.js";
import { APIConnectionError, APIError, OrgAgent, RedirectError, type ClientOptions } from "../../src/index.js";
import { startLoopback, type Handler, type Loopback } from "../sdk/support/loopback.js";
import { success } from "./fault-server.js";
import { SECRET, leaks } from "./secret.js";
import { stalledServer, type Answer } from "./stalled-server.js";
import { corpus, rejection } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<Loopback> {
  const server = await startLoopback(handler);
  servers.push(server);
  return server;
}

/** The spec's getComputer answer for every request. */
const answering: Handler = () => ({ body: success("getComputer") });
/** Redirects every request to the same path and query on `target()`. */
const redirecting =
  (status: number, target: () => string): Handler =>
  (request) => ({ status, headers: { location: `${target()}${request.target}` } });

/** First a 302 whose body runs past the error-body limit and never ends, then the computer at the new place. */
const endlessRedirectBody: Answer = (res, req, n) => {
  if (n === 1) {
    res.writeHead(302, { location: req.url!.replace("/old", ""), "content-type": "text/plain" });
    res.write("x".repeat(ERROR_BODY_LIMIT * 2)); // and never ends
  } else {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(success("getComputer")));
  }
};

const extraHeaders = { "X-Api-Key": "xak-client-1", "X-Team": "blue" };
const clientOn = (url: string, options: ClientOptions = {}) =>
  new OrgAgent({ apiKey: SECRET, baseUrl: url, headers: extraHeaders, maxRetries: 2, logLevel: "off", ...options });
const createSession = (client: OrgAgent) =>
  client.sessions.create({ computerId: "cmp_3e9d0a4b7c2f4e61" }, { headers: { "X-Call": "call-1" } });

describe.each([301, 302, 303, 307, 308])("a %i", (status) => {
  it("within the origin keeps the key and every header", async () => {
    const server = await serve((request) =>
      request.pathname.endsWith("/moved") ? { status, headers: { location: request.target.replace("/moved", "") } } : answering(request),
    );
    await expect(clientOn(server.url).computers.get("moved", { headers: { "X-Call": "call-1" } })).resolves.toEqual(success("getComputer"));
    const [, followed] = server.requests;
    expect(followed!.headers).toMatchObject({
      authorization: `Bearer ${SECRET}`,
      "x-api-key": "xak-client-1",
      "x-team": "blue",
      "x-call": "call-1",
    });
  });

  it("to another origin (another port) arrives without the key or any of the caller's headers", async () => {
    const target = await serve(answering);
    const origin = await serve(redirecting(status, () => target.url));
    await expect(clientOn(origin.url).computers.get("cmp_1", { headers: { "X-Call": "call-1" } })).resolves.toEqual(success("getComputer"));
    expect(target.requests).toHaveLength(1);
    const { headers } = target.requests[0]!;
    expect(headers.authorization).toBeUndefined();
    expect(Object.keys(headers).filter((name) => name.startsWith("x-"))).toEqual([]);
    expect(headers.accept).toBe("application/json");
  });
});

describe("a write redirected to another origin", () => {
  it.each([307, 308])("a %i (which would re-send the body) is refused: nothing reaches the other origin", async (status) => {
    const target = await serve(answering);
    const origin = await serve(redirecting(status, () => target.url));
    const error = await rejection(createSession(clientOn(origin.url)));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`refused to send the POST on to another origin (${target.url})`);
    expect(target.requests).toHaveLength(0);
    expect(origin.requests).toHaveLength(1); // a refused redirect is not retried
  });

  it.each([301, 302, 303])("a %i turns into a GET without the body, the key or the caller's headers", async (status) => {
    const target = await serve(() => ({ status: 404, body: { title: "Not Found", status: 404 } }));
    const origin = await serve(redirecting(status, () => target.url));
    await rejection(createSession(clientOn(origin.url)));
    expect(target.requests).toHaveLength(1);
    const [followed] = target.requests;
    expect(followed).toMatchObject({ method: "GET", body: undefined });
    expect(followed!.headers.authorization).toBeUndefined();
    expect(followed!.headers["x-call"]).toBeUndefined();
  });

  it("a 307 within the origin re-sends the write with its body and key, as fetch does", async () => {
    const server = await serve((request) =>
      request.pathname.startsWith("/old")
        ? { status: 307, headers: { location: request.target.replace("/old", "") } }
        : { status: 201, body: success("createSession") },
    );
    await expect(createSession(clientOn(`${server.url}/old`))).resolves.toEqual(success("createSession"));
    expect(server.requests.map((r) => [r.method, r.body?.computerId, r.headers.authorization])).toEqual([
      ["POST", "cmp_3e9d0a4b7c2f4e61", `Bearer ${SECRET}`],
      ["POST", "cmp_3e9d0a4b7c2f4e61", `Bearer ${SECRET}`],
    ]);
  });
});

describe("redirects that are not followed", () => {
  it("a loop is a RedirectError that shows the loop, not retried", async () => {
    const server = await serve((request) => ({
      status: 302,
      headers: { location: request.pathname.endsWith("/a") ? request.target.replace(/\/a$/, "/b") : request.target.replace(/\/b$/, "/a") },
    }));
    const error = await rejection(clientOn(server.url).computers.get("a"));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toMatch(/redirect loop: .*\/a → .*\/b → .*\/a \[getComputer: GET .*\/b\]$/);
    expect(server.requests).toHaveLength(2);
  });

  it(`more than ${MAX_REDIRECTS} redirects is a RedirectError saying so`, async () => {
    const server = await serve((request) => ({ status: 302, headers: { location: `${request.pathname}x` } }));
    const error = await rejection(clientOn(server.url).computers.get("a"));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toContain(`more than ${MAX_REDIRECTS} redirects`);
    expect(server.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it.each([
    ["a file: URL", "file:///etc/passwd", /redirect to a file: URL, not http\(s\)/],
    ["an invalid URL", "http://[", /redirect to an invalid Location "http:\/\/\["/],
  ])("a Location that is %s is a RedirectError", async (_, location, message) => {
    const server = await serve(() => ({ status: 301, headers: { location } }));
    const error = await rejection(clientOn(server.url).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toMatch(message);
  });

  it("a 3xx without a Location is the server's answer: an APIError with its status", async () => {
    const server = await serve(() => ({ status: 302 }));
    const error = await rejection(clientOn(server.url).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(302);
  });
});

describe("what a redirect keeps", () => {
  const putLimits = (client: OrgAgent) =>
    client.request("setUserLimits", { body: { users: [{ email: "maya@acme-robotics.example", limit: 5 }] } });

  it.each([301, 302])("a %i after a PUT (not a POST) re-sends the PUT with its body, as fetch does", async (status) => {
    const server = await serve((request) =>
      request.pathname.startsWith("/old")
        ? { status, headers: { location: request.target.replace("/old", "") } }
        : { body: success("setUserLimits") },
    );
    await expect(putLimits(clientOn(`${server.url}/old`))).resolves.toEqual(success("setUserLimits"));
    expect(server.requests.map((r) => [r.method, r.body?.users?.[0]?.limit, r.headers["content-type"]])).toEqual([
      ["PUT", 5, "application/json"],
      ["PUT", 5, "application/json"],
    ]);
  });

  it("an answer that is not a redirect is the answer, even with a Location (a 201 naming what it created)", async () => {
    const server = await serve((request) =>
      request.method === "POST"
        ? { status: 201, headers: { location: `${request.target}/sess_1` }, body: success("createSession") }
        : { status: 404, body: { title: "Not Found", status: 404 } },
    );
    await expect(createSession(clientOn(server.url))).resolves.toEqual(success("createSession"));
    expect(server.requests.map((r) => r.method)).toEqual(["POST"]);
  });

  it("a redirect to https: is followed like one to http: (here to a port where nothing listens)", async () => {
    const closed = await serve(answering);
    const port = new URL(closed.url).port;
    await closed.close();
    const origin = await serve(() => ({ status: 302, headers: { location: `https://127.0.0.1:${port}/api/v0/computers/cmp_1` } }));
    const error = await rejection(clientOn(origin.url, { maxRetries: 0 }).computers.get("cmp_1"));
    expect(error).not.toBeInstanceOf(RedirectError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.url).toBe(`https://127.0.0.1:${port}/api/v0/computers/cmp_1`);
  });

  it.each([
    ["a user name alone", "http://deploy@127.0.0.1:9/api/v0/computers/cmp_1", "deploy"],
    ["a password alone", "http://:hunter2-pass@127.0.0.1:9/api/v0/computers/cmp_1", "hunter2-pass"],
  ])("a Location with %s is refused without showing it", async (_, location, hidden) => {
    const server = await serve(() => ({ status: 302, headers: { location } }));
    const error = await rejection(clientOn(server.url).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toContain("redirect to a URL with a user name or password in it (http://***@127.0.0.1:9/api/v0/computers/cmp_1)");
    expect(error.message).not.toContain(hidden);
    expect(server.requests).toHaveLength(1);
  });

  it(`a redirect whose body runs past ${ERROR_BODY_LIMIT / 1024} KiB: its connection is closed, the next hop answers`, async () => {
    const server = await stalledServer(endlessRedirectBody);
    try {
      await expect(clientOn(`${server.url}/old`).computers.get("cmp_1")).resolves.toEqual(success("getComputer"));
      expect(await server.drained(2_000, "holding")).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("a redirect without a body (as a caller's fetch may build one) is followed", async () => {
    const server = await serve(answering);
    const fetching: typeof fetch = async (input, init) =>
      String(input).includes("/old/")
        ? new Response(null, { status: 307, headers: { location: String(input).replace("/old", "") } })
        : fetch(input, init);
    await expect(clientOn(`${server.url}/old`, { fetch: fetching }).computers.get("cmp_1")).resolves.toEqual(success("getComputer"));
    expect(server.requests.map((r) => r.pathname)).toEqual(["/api/v0/computers/cmp_1"]);
  });
});

describe("client.raw follows the same rules", () => {
  const getComputer = (client: OrgAgent, computerId: string) =>
    client.raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId } }, headers: { "X-Call": "call-1" } });
  const rawCreateSession = (client: OrgAgent) =>
    client.raw.POST("/api/v0/sessions", { body: { computerId: "cmp_3e9d0a4b7c2f4e61" }, headers: { "X-Call": "call-1" } });

  it.each([301, 302, 303, 307, 308])("a %i to another origin arrives without the key or any of the caller's headers", async (status) => {
    const target = await serve(answering);
    const origin = await serve(redirecting(status, () => target.url));
    const { data, response } = await getComputer(clientOn(origin.url), "cmp_1");
    expect([response.status, data]).toEqual([200, success("getComputer")]);
    expect(target.requests).toHaveLength(1);
    const { headers } = target.requests[0]!;
    expect(headers.authorization).toBeUndefined();
    expect(Object.keys(headers).filter((name) => name.startsWith("x-"))).toEqual([]);
  });

  it.each([307, 308])(
    "a write that a %i would send on to another origin is refused: a RedirectError, nothing sent there",
    async (status) => {
      const target = await serve(answering);
      const origin = await serve(redirecting(status, () => target.url));
      const error = await rejection(rawCreateSession(clientOn(origin.url)));
      expect(error).toBeInstanceOf(RedirectError);
      expect(error.message).toContain(`refused to send the POST on to another origin (${target.url})`);
      expect(target.requests).toHaveLength(0);
    },
  );

  it("a 303 after a write becomes a GET without the body, the key or the caller's headers", async () => {
    const target = await serve(answering);
    const origin = await serve(redirecting(303, () => target.url));
    await rawCreateSession(clientOn(origin.url));
    expect(target.requests).toHaveLength(1);
    const [followed] = target.requests;
    expect(followed).toMatchObject({ method: "GET", body: undefined });
    expect(followed!.headers.authorization).toBeUndefined();
    expect(followed!.headers["content-type"]).toBeUndefined();
    expect(followed!.headers["x-call"]).toBeUndefined();
  });

  it("a 307 within the origin re-sends the write with its body, key and headers", async () => {
    const server = await serve((request) =>
      request.pathname.startsWith("/old")
        ? { status: 307, headers: { location: request.target.replace("/old", "") } }
        : { status: 201, body: success("createSession") },
    );
    const { data } = await rawCreateSession(clientOn(`${server.url}/old`));
    expect(data).toEqual(success("createSession"));
    expect(server.requests.map((r) => [r.method, r.body?.computerId, r.headers.authorization, r.headers["x-call"]])).toEqual([
      ["POST", "cmp_3e9d0a4b7c2f4e61", `Bearer ${SECRET}`, "call-1"],
      ["POST", "cmp_3e9d0a4b7c2f4e61", `Bearer ${SECRET}`, "call-1"],
    ]);
  });

  it("a loop is a RedirectError that shows the loop", async () => {
    const server = await serve((request) => ({
      status: 302,
      headers: { location: request.pathname.endsWith("/a") ? request.target.replace(/\/a$/, "/b") : request.target.replace(/\/b$/, "/a") },
    }));
    const error = await rejection(getComputer(clientOn(server.url), "a"));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toMatch(/redirect loop: .*\/a → .*\/b → .*\/a/);
    expect(server.requests).toHaveLength(2);
  });

  it("a HEAD stays a HEAD after a 303, and is followed to another origin without the key", async () => {
    const head = (client: OrgAgent) =>
      (client.raw as any).HEAD("/api/v0/computers/{computerId}", {
        params: { path: { computerId: "cmp_1" } },
        headers: { "X-Call": "call-1" },
      });
    const target = await serve(answering);
    const origin = await serve((request) =>
      request.pathname.startsWith("/old")
        ? { status: 303, headers: { location: request.target.replace("/old", "") } }
        : { status: 307, headers: { location: `${target.url}${request.target}` } },
    );
    const { response } = await head(clientOn(`${origin.url}/old`));
    expect(response.status).toBe(200);
    expect(origin.requests.map((r) => r.method)).toEqual(["HEAD", "HEAD"]);
    expect(target.requests.map((r) => [r.method, r.headers.authorization, r.headers["x-call"]])).toEqual([["HEAD", undefined, undefined]]);
  });

  it("a 303 within the origin after a write: the GET goes without the body or the headers that described it", async () => {
    const server = await serve((request) =>
      request.method === "POST" ? { status: 303, headers: { location: `${request.target}/sess_1` } } : { body: success("getSession") },
    );
    const { data } = await rawCreateSession(clientOn(server.url));
    expect(data).toEqual(success("getSession"));
    const [, followed] = server.requests;
    expect(followed).toMatchObject({ method: "GET", body: undefined });
    expect(followed!.headers["content-type"]).toBeUndefined();
    expect([followed!.headers.authorization, followed!.headers["x-call"]]).toEqual([`Bearer ${SECRET}`, "call-1"]);
  });

  it("an answer that is not a redirect is the answer, even with a Location", async () => {
    const server = await serve(() => ({ status: 201, headers: { location: "/api/v0/sessions/sess_1" }, body: success("createSession") }));
    const { data, response } = await rawCreateSession(clientOn(server.url));
    expect([response.status, data]).toEqual([201, success("createSession")]);
    expect(server.requests).toHaveLength(1);
  });

  it("a redirect without a body (as a caller's fetch may build one) is followed", async () => {
    const server = await serve(answering);
    const fetching: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.includes("/old/")
        ? new Response(null, { status: 307, headers: { location: url.replace("/old", "") } })
        : fetch(input, init);
    };
    const { data } = await getComputer(clientOn(`${server.url}/old`, { fetch: fetching }), "cmp_1");
    expect(data).toEqual(success("getComputer"));
    expect(server.requests.map((r) => r.pathname)).toEqual(["/api/v0/computers/cmp_1"]);
  });

  it(`a redirect whose body runs past ${ERROR_BODY_LIMIT / 1024} KiB: its connection is closed, the next hop answers`, async () => {
    const server = await stalledServer(endlessRedirectBody);
    try {
      const { data } = await getComputer(clientOn(`${server.url}/old`), "cmp_1");
      expect(data).toEqual(success("getComputer"));
      expect(await server.drained(2_000, "holding")).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("the caller's fetch gets the Request openapi-fetch built, with the extra fields of the call's options on it", async () => {
    const server = await serve(answering);
    const seen: unknown[] = [];
    const fetching: typeof fetch = (input, init) => (seen.push((input as { next?: unknown }).next), fetch(input, init));
    const options = { params: { path: { computerId: "cmp_1" } }, next: { revalidate: 60 } };
    const { data } = await clientOn(server.url, { fetch: fetching }).raw.GET("/api/v0/computers/{computerId}", options as never);
    expect(data).toEqual(success("getComputer"));
    expect(seen).toEqual([{ revalidate: 60 }]);
  });

  it('`redirect: "manual"` asked for by the caller hands back the redirect itself', async () => {
    const target = await serve(answering);
    const origin = await serve(redirecting(307, () => target.url));
    const { response } = await clientOn(origin.url).raw.GET("/api/v0/computers/{computerId}", {
      params: { path: { computerId: "cmp_1" } },
      redirect: "manual",
    });
    expect(response.status).toBe(307);
    expect(target.requests).toHaveLength(0);
  });
});

describe("a custom fetch that follows redirects itself (undici's, as Node 22+ bundles)", () => {
  // undici's own fetch cannot read Node 20's Request objects: build the Request as fetch would and hand undici its
  // parts (leaving out `redirect: "manual"`, so undici follows by itself).
  const viaUndici = ((input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    return undiciFetch(request.url, { method: request.method, headers: [...request.headers] });
  }) as unknown as typeof fetch;

  it.each([301, 302, 303, 307, 308])("a %i to another origin arrives without Authorization", async (status) => {
    const target = await serve(answering);
    const origin = await serve(redirecting(status, () => target.url));
    await expect(clientOn(origin.url, { fetch: viaUndici }).computers.get("cmp_1")).resolves.toEqual(success("getComputer"));
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe("a 3xx without a Location", () => {
  it("is not followed: one request, and the error is the answer's own, not a refused redirect", async () => {
    const server = await serve(() => ({ status: 302 }));
    const error = await rejection(clientOn(server.url).computers.get("cmp_1"));
    expect(error).not.toBeInstanceOf(RedirectError);
    expect(error.status).toBe(302);
    expect(server.requests).toHaveLength(1);
  });
});
