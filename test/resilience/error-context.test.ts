// Every APIError and connection error says where its request went: the operationId, the method, the path template
// and the URL of the last request (after redirects), as fields and at the end of its message, and never a user name,
// password or key. Against the emulator, scripted fault servers and loopback redirects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  InternalServerError,
  NotFoundError,
  OrgAgent,
  OrgAgentError,
  PermissionDeniedError,
  RedirectError,
  ResponseTooLargeError,
  dateRange,
} from "../../src/index.js";
import { startLoopback, type Loopback } from "../sdk/support/loopback.js";
import { success } from "./fault-server.js";
import { SECRET, leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted, serve, unusedPort } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ seed: "context", users: 10 });
});
afterAll(() => emulator?.close());

const loopbacks: Loopback[] = [];
afterAll(() => Promise.all(loopbacks.map((server) => server.close())));

/** The error's context fields, and that its message ends with `[operationId: METHOD url]`. */
function expectContext(error: any, operationId: string, method: string, path: string, url: string) {
  expect({ operationId: error.operationId, method: error.method, path: error.path, url: error.url }).toEqual({
    operationId,
    method,
    path,
    url,
  });
  expect(error.message.endsWith(` [${operationId}: ${method} ${url}]`)).toBe(true);
}

describe("API errors (emulator)", () => {
  it("a 404 names getComputer, GET, its path template and the URL with the id", async () => {
    const client = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.owner, logLevel: "off" });
    const error = await rejection(client.computers.get("cmp_missing"));
    expect(error).toBeInstanceOf(NotFoundError);
    expectContext(error, "getComputer", "GET", "/api/v0/computers/{computerId}", `${emulator.baseUrl}/api/v0/computers/cmp_missing`);
    // The API's own words come first.
    expect(error.message).toMatch(/^404 Not Found: .+ \(request req_\w+\) \[getComputer: /);
  });

  it("a 403 of an analytics call shows the query it was sent with", async () => {
    const client = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.member, logLevel: "off" });
    const range = dateRange.lastDays(2);
    const error = await rejection(client.analytics.tokens({ ...range, group_by: "model" }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    const url = `${emulator.baseUrl}/api/v1/analytics/tokens?startDate=${range.startDate}&endDate=${range.endDate}&group_by=model`;
    expectContext(error, "getAnalyticsTokens", "GET", "/api/v1/analytics/tokens", url);
  });

  it("a write names its operation and method too", async () => {
    const client = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.owner, logLevel: "off" });
    const error = await rejection(client.sessions.sendMessage("sess_missing", { text: "hi" }));
    expect(error).toBeInstanceOf(NotFoundError);
    expectContext(
      error,
      "sendSessionMessage",
      "POST",
      "/api/v0/sessions/{sessionId}/messages",
      `${emulator.baseUrl}/api/v0/sessions/sess_missing/messages`,
    );
  });
});

describe("errors of every kind carry the context", () => {
  const path = "/api/v0/computers/{computerId}";

  it("a 5xx after every retry", async () => {
    const server = await scripted({ kind: "status", status: 503 }, { kind: "status", status: 503 });
    const error = await rejection(clientOf(server, { maxRetries: 1 }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(InternalServerError);
    expectContext(error, "getComputer", "GET", path, `${server.url}/api/v0/computers/cmp_1`);
  });

  it("a 4xx the API names no class for (418): an APIError of that status, not a server error", async () => {
    const server = await scripted({ kind: "status", status: 418 });
    const error = await rejection(clientOf(server).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(418);
  });

  it("a success body that is not the documented one", async () => {
    const server = await scripted({ kind: "raw", headers: { "content-type": "application/json" }, body: "{}" });
    const error = await rejection(clientOf(server).computers.getByName("box-1"));
    expect(error).toBeInstanceOf(APIError);
    expectContext(error, "getComputerByName", "GET", "/api/v0/computers/name/{name}", `${server.url}/api/v0/computers/name/box-1`);
  });

  it("a body over maxResponseSize", async () => {
    const server = await scripted();
    const error = await rejection(clientOf(server).computers.get("cmp_1", { maxResponseSize: 10 }));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expectContext(error, "getComputer", "GET", path, `${server.url}/api/v0/computers/cmp_1`);
  });

  it("a refused connection", async () => {
    const base = `http://127.0.0.1:${await unusedPort()}`;
    const error = await rejection(new OrgAgent({ apiKey: SECRET, baseUrl: base, maxRetries: 0, logLevel: "off" }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.notSent).toBe(true);
    expectContext(error, "getComputer", "GET", path, `${base}/api/v0/computers/cmp_1`);
  });

  it("a timeout, and a deadline", async () => {
    const server = await serve(() => ({ kind: "stall" }));
    const timedOut = await rejection(clientOf(server, { timeout: 100, maxRetries: 0 }).computers.get("cmp_1"));
    expect(timedOut).toBeInstanceOf(APIConnectionTimeoutError);
    expect(timedOut.message).toMatch(/^Request timed out after 100 ms \[/);
    expectContext(timedOut, "getComputer", "GET", path, `${server.url}/api/v0/computers/cmp_1`);

    const late = await rejection(clientOf(server, { deadline: 100 }).sessions.create({ computerId: "cmp_1" }));
    expect(late).toBeInstanceOf(APIConnectionTimeoutError);
    expectContext(late, "createSession", "POST", "/api/v0/sessions", `${server.url}/api/v0/sessions`);
  });

  it("a deadline before anything was sent (the apiKey function still pending): the URL the call was going to, its query too", async () => {
    const server = await scripted();
    const pending = () => new Promise<string>(() => {});
    const error = await rejection(
      clientOf(server, { apiKey: pending, deadline: 50 }).request("getSessionMessage", {
        path: { sessionId: "sess_1", messageId: "msg_1" },
        query: { computerId: "cmp_2" },
      }),
    );
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expectContext(
      error,
      "getSessionMessage",
      "GET",
      operations.getSessionMessage.path,
      `${server.url}/api/v0/sessions/sess_1/messages/msg_1?computerId=cmp_2`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("after a redirect, the URL that answered; a refused redirect, the URL that redirected", async () => {
    const server = await startLoopback((request) =>
      request.pathname.startsWith("/moved/")
        ? { status: 308, headers: { location: request.target.replace("/moved/", "/") } }
        : request.pathname.endsWith("/loop")
          ? { status: 302, headers: { location: request.target } }
          : { status: 404, body: { title: "Not Found", status: 404 } },
    );
    loopbacks.push(server);
    const moved = new OrgAgent({ apiKey: SECRET, baseUrl: `${server.url}/moved`, logLevel: "off" });
    const notFound = await rejection(moved.computers.get("cmp_1"));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expectContext(notFound, "getComputer", "GET", path, `${server.url}/api/v0/computers/cmp_1`);

    const looping = await rejection(moved.computers.get("loop"));
    expect(looping).toBeInstanceOf(RedirectError);
    expectContext(looping, "getComputer", "GET", path, `${server.url}/api/v0/computers/loop`);
  });
});

describe("credentials never appear", () => {
  it("a base URL with a user name or password is refused at construction, without showing them", () => {
    for (const baseUrl of [`http://admin:${SECRET}@127.0.0.1:9`, `http://${SECRET}@127.0.0.1:9`, `http://admin:${SECRET}@127.0.0.1:bad`]) {
      let error: unknown;
      try {
        new OrgAgent({ apiKey: "k", baseUrl });
      } catch (caught) {
        error = caught;
      }
      corpus.push(error);
      expect(error).toBeInstanceOf(OrgAgentError);
      expect((error as Error).message).toMatch(/^Invalid baseUrl "http:\/\/\*\*\*@127\.0\.0\.1:/);
    }
  });

  it("a redirect to a URL with credentials is a RedirectError that does not show them", async () => {
    const target = await startLoopback(() => ({ body: success("getComputer") }));
    const server = await startLoopback(() => ({
      status: 302,
      headers: { location: `${target.url.replace("http://", "http://user:url-password@")}/api/v0/computers/cmp_1` },
    }));
    loopbacks.push(target, server);
    const error = await rejection(new OrgAgent({ apiKey: "k", baseUrl: server.url, logLevel: "off" }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toContain(
      `a user name or password in it (${target.url.replace("http://", "http://***@")}/api/v0/computers/cmp_1)`,
    );
    expect(target.requests).toHaveLength(0);
    // Only `headers`, the server's own answer as it came, still holds its Location.
    expect([error.message, error.stack, error.url].join("\n")).not.toContain("url-password");
  });

  it("a fetch that fails quoting a URL with credentials: the message drops them", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError("could not reach https://svc:proxy-password@proxy.internal:3128/");
    };
    const client = new OrgAgent({ apiKey: "k", baseUrl: "http://127.0.0.1:9", fetch: failing, maxRetries: 0, logLevel: "off" });
    const error = await rejection(client.computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toBe(
      "Connection error: could not reach https://***@proxy.internal:3128/ [getComputer: GET http://127.0.0.1:9/api/v0/computers/cmp_1]",
    );
    // The fetch's own error stays the cause, as thrown: it is the caller's fetch that wrote it.
    expect(error.cause.message).toContain("proxy-password");
  });

  it("an address with an @ before a URL, in a server's text, is no URL's credentials: the text is kept as it came", async () => {
    const detail = "write to ops@example.com,https://status.example.com/incidents";
    const server = await scripted({
      kind: "raw",
      status: 409,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ detail }),
    });
    const error = await rejection(clientOf(server, { maxRetries: 0 }).computers.get("cmp_1"));
    expect(error.detail).toBe(detail);
  });
});
