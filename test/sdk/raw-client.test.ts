// client.raw, the openapi-fetch client typed by the spec's paths: it goes through the client's own fetch, carries
// the client's headers and key, takes headers in any form fetch takes (checked as the client's are), keeps path
// values to one segment, and runs the middleware added with `raw.use()` until `raw.eject()` removes it. A loopback
// recorder answers every request with the getComputer example.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  OrgAgent,
  ResponseTooLargeError,
  ValidationError,
} from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { successExample } from "../support/spec.js";

const COMPUTER = operations.getComputer.path;
const BY_NAME = operations.getComputerByName.path;
let server: Loopback;
let fetched: string[];
let client: OrgAgent;

beforeAll(async () => {
  server = await startLoopback(() => ({ body: successExample("getComputer") }));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  fetched = [];
  client = new OrgAgent({
    apiKey: "raw-test-key",
    baseUrl: server.url,
    maxRetries: 0,
    logLevel: "off",
    headers: { "X-Team": "blue" },
    fetch: (input, init) => {
      fetched.push(input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    },
  });
});

describe("client.raw", () => {
  it("sends through the client's fetch, with Accept: application/json, the client's headers and the key", async () => {
    const { data, response } = await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect(response.status).toBe(200);
    expect(data).toEqual(successExample("getComputer"));
    expect(fetched).toEqual([`${server.url}/api/v0/computers/cmp_1`]);
    expect(server.requests[0]!.headers).toMatchObject({
      accept: "application/json",
      "x-team": "blue",
      authorization: "Bearer raw-test-key",
    });
  });

  it("a path the spec does not have goes to the API host", async () => {
    await (client.raw as any).GET("/api/v0/not-in-the-spec");
    expect(server.requests.map((r) => r.target)).toEqual(["/api/v0/not-in-the-spec"]);
  });

  it("an error of a path the spec does not have names no operation: no operationId, nothing added to its message", async () => {
    const refused: typeof fetch = () => Promise.reject(new TypeError("fetch failed"));
    const error = await (client.raw as any).GET("/api/v0/not-in-the-spec", { fetch: refused }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe("Connection error: fetch failed");
    expect([(error as APIConnectionError).operationId, (error as APIConnectionError).url]).toEqual([undefined, undefined]);
  });

  it("a fetch given to one call sends that call, with the client's key and headers; the client's fetch is not used", async () => {
    const own: string[] = [];
    const { response } = await client.raw.GET(COMPUTER, {
      params: { path: { computerId: "cmp_1" } },
      fetch: (input: RequestInfo | URL, init?: RequestInit) => (
        own.push(input instanceof Request ? input.url : String(input)), fetch(input, init)
      ),
    });
    expect(response.status).toBe(200);
    expect(own).toEqual([`${server.url}/api/v0/computers/cmp_1`]);
    expect(fetched).toEqual([]);
    expect(server.requests[0]!.headers).toMatchObject({ "x-team": "blue", authorization: "Bearer raw-test-key" });
  });

  it("a success whose fetch gave no body at all reads as an empty body", async () => {
    const { data, response } = await client.raw.GET(COMPUTER, {
      params: { path: { computerId: "cmp_1" } },
      parseAs: "text",
      fetch: () => Promise.resolve(new Response(null, { status: 200 })),
    });
    expect(response.status).toBe(200);
    expect(data).toBe("");
  });

  it.each([
    ["an object", { "X-Team": "red", "X-Case": "raw" }],
    ["a Headers", new Headers({ "X-Team": "red", "X-Case": "raw" })],
    [
      "name-value pairs",
      [
        ["X-Team", "red"],
        ["X-Case", "raw"],
      ],
    ],
  ])("takes headers as %s: a call's header replaces the client's of the same name", async (_, headers) => {
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, headers: headers as HeadersInit });
    const sent = server.requests[0]!.headers;
    expect(sent).toMatchObject({ "x-team": "red", "x-case": "raw", authorization: "Bearer raw-test-key", accept: "application/json" });
    expect(
      Object.keys(sent).filter(
        (name) =>
          !/^(x-team|x-case|authorization|accept|host|connection|accept-language|sec-fetch-mode|user-agent|accept-encoding)$/.test(name),
      ),
    ).toEqual([]);
  });

  it("headers: null is no headers", async () => {
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, headers: null as never });
    expect(server.requests[0]!.headers).toMatchObject({ "x-team": "blue", authorization: "Bearer raw-test-key" });
  });

  it.each([
    ["an object", (name: string, value: string) => ({ [name]: value })],
    ["a Headers", (name: string, value: string) => new Headers({ [name]: value })],
    ["name-value pairs", (name: string, value: string) => [[name, value]]],
  ])("headers as %s are checked as the client's are: no Authorization, nothing sent", async (_, headersOf) => {
    const error = await client.raw
      .GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, headers: headersOf("Authorization", "Bearer evil") as HeadersInit })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: expect.stringMatching(/^headers\["authorization"\]$/i) });
    expect((error as Error).message).toContain("the client sets it from `apiKey`");
    expect(server.requests).toHaveLength(0);
  });

  it("a header name that is not a token, in an object, is a ValidationError naming it", async () => {
    const error = await client.raw
      .GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, headers: { "X Bad": "1" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: 'headers["X Bad"]' });
    expect(server.requests).toHaveLength(0);
  });

  it("headers that are not headers at all are a ValidationError naming `headers`", async () => {
    const error = await client.raw
      .GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, headers: "X-Team: red" as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      field: "headers",
      message: expect.stringMatching(/expected an object of header names to string values$/),
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe("client.raw path values", () => {
  it("are percent-encoded into one segment", async () => {
    await client.raw.GET(BY_NAME, { params: { path: { name: "a/b?x=1" } } });
    expect(server.requests.map((r) => r.target)).toEqual(["/api/v0/computers/name/a%2Fb%3Fx%3D1"]);
  });

  it.each([".", ".."])(
    "%j cannot be one segment: a ValidationError naming the parameter and the format rule, nothing sent",
    async (name) => {
      const error = await client.raw.GET(BY_NAME, { params: { path: { name } } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({
        field: "path.name",
        value: name,
        rule: "format",
        message: expect.stringMatching(/expected a path segment other than \. and \.\.$/),
      });
      expect(server.requests).toHaveLength(0);
    },
  );

  it("a lone surrogate cannot be percent-encoded: a ValidationError naming the parameter and the format rule, nothing sent", async () => {
    const error = await client.raw.GET(BY_NAME, { params: { path: { name: "box-\uD800" } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      field: "path.name",
      rule: "format",
      message: expect.stringMatching(/expected a well-formed Unicode string \(no lone surrogates\)$/),
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe("client.raw answers and errors", () => {
  const rawClient = (options: Partial<ConstructorParameters<typeof OrgAgent>[0]> = {}) =>
    new OrgAgent({ apiKey: "raw-test-key", baseUrl: server.url, maxRetries: 0, logLevel: "off", ...options });

  it("an error of an operation's path names the operation, as a resource method's does", async () => {
    const refused: typeof fetch = () => Promise.reject(new TypeError("fetch failed"));
    const error = await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, fetch: refused }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ operationId: "getComputer", method: "GET", path: COMPUTER, url: `${server.url}/api/v0/computers/cmp_1` });
    expect((error as Error).message).toBe(`Connection error: fetch failed [getComputer: GET ${server.url}/api/v0/computers/cmp_1]`);
  });

  it("a timeout before anything was sent (the apiKey function still pending) names the URL the request was for", async () => {
    const pending = rawClient({ apiKey: () => new Promise<string>(() => {}), timeout: 50 });
    const error = await pending.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).url).toBe(`${server.url}/api/v0/computers/cmp_1`);
    expect(server.requests).toHaveLength(0);
  });

  it("an error answer comes back as openapi-fetch's error whatever its size: maxResponseSize holds successes", async () => {
    const problem = { title: "Not Found", status: 404, detail: "x".repeat(200) };
    const small = rawClient({
      maxResponseSize: 10,
      fetch: async () => Response.json(problem, { status: 404, headers: { "content-type": "application/problem+json" } }),
    });
    const { error, response } = await small.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect(response.status).toBe(404);
    expect(error).toEqual(problem);
  });

  it("a success announced at maxResponseSize is read; one byte over is refused before reading, naming its size", async () => {
    const text = JSON.stringify(successExample("getComputer"));
    const size = text.length;
    const fetch = async () => new Response(text, { headers: { "content-type": "application/json", "content-length": String(size) } });
    const { data } = await rawClient({ maxResponseSize: size, fetch }).raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect(data).toEqual(successExample("getComputer"));
    const error = await rawClient({ maxResponseSize: size - 1, fetch })
      .raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ limit: size - 1, size });
  });

  it("a signal aborted before the call ends it with APIUserAbortError, and nothing is sent", async () => {
    const error = await client.raw
      .GET(COMPUTER, { params: { path: { computerId: "cmp_1" } }, signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(fetched).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("an abort while the body is read ends the call with APIUserAbortError, not with the part that was read", async () => {
    const controller = new AbortController();
    let pulls = 0;
    // One chunk of the body, then the caller gives up while the rest is awaited (it never comes).
    const body = new ReadableStream<Uint8Array>({
      pull(stream) {
        if (pulls++ === 0) return stream.enqueue(new TextEncoder().encode('{"id":'));
        controller.abort();
        return new Promise<void>(() => {});
      },
    });
    const error = await client.raw
      .GET(COMPUTER, {
        params: { path: { computerId: "cmp_1" } },
        signal: controller.signal,
        fetch: () => Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } })),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(pulls).toBe(2);
  });

  it("a call leaves no timer behind once it is answered: ten calls, not ten timers more", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    for (let i = 0; i < 10; i++) await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect(timers() - before).toBeLessThan(5);
  });

  it("the response has the URL that answered, and says it was not redirected", async () => {
    const { response } = await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect([response.url, response.redirected]).toEqual([`${server.url}/api/v0/computers/cmp_1`, false]);
  });
});

describe("client.raw middleware", () => {
  it("raw.use() adds middleware to raw calls until raw.eject() removes it", async () => {
    const tagged = { onRequest: ({ request }: { request: Request }) => (request.headers.set("X-Middleware", "on"), request) };
    client.raw.use(tagged);
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    client.raw.eject(tagged);
    await client.raw.GET(COMPUTER, { params: { path: { computerId: "cmp_1" } } });
    expect(server.requests.map((r) => r.headers["x-middleware"])).toEqual(["on", undefined]);
  });
});
