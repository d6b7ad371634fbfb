// A server that echoes the credential back, in every place an answer can carry it: the key (and a credential header
// the caller set) never reaches a field of the error, in any rendering, nor a log line. Loopback servers read the
// key off each request and put it in a request-id header, a body's requestId, a problem's detail, a redirect's
// Location (`?token=KEY`) within the origin, and any other header.
import { inspect } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { APIConnectionError, type APIError, NotFoundError, OrgAgent, RedirectError, type ClientOptions } from "../../src/index.js";
import { startLoopback, type Handler, type Loopback } from "../sdk/support/loopback.js";
import { SECRET, captureLogger, leaks } from "./secret.js";

const CALLER_SECRET = "xak-caller-credential-42";
const servers: Loopback[] = [];
const caught: unknown[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => {
  expect(caught.length).toBeGreaterThan(0);
  expect(leaks(caught)).toEqual([]);
});

/** What the server echoes: the bearer key of the request, and the caller's X-Api-Key when it sent one. */
const keyOf = (headers: Record<string, unknown>) => String(headers.authorization ?? "").replace(/^Bearer /, "");

async function serve(handler: Handler): Promise<Loopback> {
  const server = await startLoopback(handler);
  servers.push(server);
  return server;
}

function clientOn(server: Loopback, options: ClientOptions = {}): OrgAgent {
  return new OrgAgent({ apiKey: SECRET, baseUrl: server.url, maxRetries: 0, logLevel: "off", ...options });
}

/** The error of `call`, with every text of it that could be shown: fields, message, inspect, JSON, stack. */
async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => expect.fail("expected the call to fail"),
    (e: unknown) => e,
  );
  caught.push(error);
  const record = error as Record<string, unknown>;
  const fields = ["message", "url", "requestId", "title", "detail"].map((name) => record[name]);
  const body = JSON.stringify((error as APIError).body ?? null);
  const headers = (error as APIError).headers ? JSON.stringify([...(error as APIError).headers]) : "";
  const texts = [
    ...fields.map(String),
    body,
    headers,
    inspect(error, { depth: 8, showHidden: true }),
    JSON.stringify(error),
    (error as Error).stack ?? "",
  ];
  return { error, texts };
}

const withoutKey = (texts: string[]) => texts.filter((text) => text.includes(SECRET) || text.includes(CALLER_SECRET));

describe("the key echoed back is scrubbed from every field of the error", () => {
  it("in an X-Request-Id header: requestId, headers, message", async () => {
    const server = await serve((request) => ({
      status: 500,
      headers: { "x-request-id": `req-${keyOf(request.headers)}` },
      body: "upstream failed",
    }));
    const { error, texts } = await failure(clientOn(server).computers.get("cmp_1"));
    expect((error as APIError).requestId).toBe("req-***");
    expect((error as APIError).headers.get("x-request-id")).toBe("req-***");
    expect((error as Error).message).toContain("(request req-***)");
    expect(withoutKey(texts)).toEqual([]);
  });

  it("in a problem body: requestId, detail, title, body, message", async () => {
    const server = await serve((request) => {
      const key = keyOf(request.headers);
      return {
        status: 404,
        body: { title: `No such key ${key}`, detail: `the key ${key} is unknown`, requestId: key, [key]: { nested: [key] } },
      };
    });
    const { error, texts } = await failure(clientOn(server).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ requestId: "***", title: "No such key ***", detail: "the key *** is unknown" });
    expect((error as APIError).body).toEqual({
      title: "No such key ***",
      detail: "the key *** is unknown",
      requestId: "***",
      "***": { nested: ["***"] },
    });
    expect(withoutKey(texts)).toEqual([]);
  });

  it("in a problem body, the rest of it kept as it came: numbers, nulls, empty arrays and objects, all plain data", async () => {
    const server = await serve((request) => ({
      status: 409,
      body: { detail: `the key ${keyOf(request.headers)} is busy`, status: 409, errors: [], meta: {}, items: [[], null, 0, false] },
    }));
    const { error } = await failure(clientOn(server).computers.get("cmp_1"));
    const body = (error as APIError).body as Record<string, unknown>;
    expect(body).toEqual({ detail: "the key *** is busy", status: 409, errors: [], meta: {}, items: [[], null, 0, false] });
    // Plain data, as JSON.parse makes it: a caller may change or delete any of it.
    body.status = 410;
    delete body.meta;
    expect(body).toEqual({ detail: "the key *** is busy", status: 410, errors: [], items: [[], null, 0, false] });
  });

  it("in a same-origin redirect's Location: the url the error names, and its message", async () => {
    const server = await serve((request) =>
      request.query.has("token")
        ? { status: 404, body: { title: "Not Found" } }
        : { status: 302, headers: { location: `${request.pathname}?token=${keyOf(request.headers)}` } },
    );
    const { error, texts } = await failure(clientOn(server).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as APIError).url).toBe(`${server.url}/api/v0/computers/cmp_1?token=***`);
    expect(server.requests.at(-1)!.query.get("token")).toBe(SECRET); // the redirect was followed as the server asked
    expect(withoutKey(texts)).toEqual([]);
  });

  it("in a redirect the SDK refuses (a loop): the message that shows the loop, and the redirect's headers", async () => {
    const server = await serve((request) => ({
      status: 302,
      headers: { location: `/api/v0/computers/cmp_1?token=${keyOf(request.headers)}` },
    }));
    const { error, texts } = await failure(clientOn(server).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as Error).message).toContain("?token=***");
    expect(withoutKey(texts)).toEqual([]);
  });

  it("in the URL of a connection that failed after a same-origin redirect", async () => {
    const server = await serve((request) => ({ status: 307, headers: { location: `/gone?token=${keyOf(request.headers)}` } }));
    const dropping = new OrgAgent({
      apiKey: SECRET,
      baseUrl: server.url,
      maxRetries: 0,
      logLevel: "off",
      // The second hop fails as a refused connection would.
      fetch: (input, init) =>
        String(input instanceof Request ? input.url : input).includes("/gone")
          ? Promise.reject(new TypeError("fetch failed"))
          : fetch(input, init),
    });
    const { error, texts } = await failure(dropping.computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).url).toBe(`${server.url}/gone?token=***`);
    expect(withoutKey(texts)).toEqual([]);
  });

  it("a credential header the caller set, echoed in any header and the body: scrubbed like the key", async () => {
    const server = await serve((request) => ({
      status: 400,
      headers: { "x-echo": String(request.headers["x-api-key"]) },
      body: { title: "Bad Request", detail: `got ${String(request.headers["x-api-key"])}` },
    }));
    const { error, texts } = await failure(clientOn(server).computers.get("cmp_1", { headers: { "X-Api-Key": CALLER_SECRET } }));
    expect((error as APIError).headers.get("x-echo")).toBe("***");
    expect((error as APIError).detail).toBe("got ***");
    expect(withoutKey(texts)).toEqual([]);
  });

  it("an error of the caller's middleware quoting a credential header in a field its class computes: scrubbed, and not made enumerable", async () => {
    class Refused extends Error {
      readonly #seen: string;
      constructor(seen: string) {
        super("refused by policy");
        this.#seen = seen;
      }
      get url() {
        return `https://policy.example/check?key=${this.#seen}`;
      }
    }
    const server = await serve(() => ({ status: 200, body: {} }));
    const client = clientOn(server);
    client.use({ onRequest: ({ request }) => Promise.reject(new Refused(String(request.headers.get("x-api-key")))) });
    const { error, texts } = await failure(client.computers.get("cmp_1", { headers: { "X-Api-Key": CALLER_SECRET } }));
    expect(error).toBeInstanceOf(Refused);
    expect((error as Refused).url).toBe("https://policy.example/check?key=***");
    expect(Object.keys(error as object)).not.toContain("url");
    expect(withoutKey(texts)).toEqual([]);
  });

  it("an error of the caller's middleware whose stack was read before it was thrown: its stack is scrubbed too", async () => {
    const server = await serve(() => ({ status: 200, body: {} }));
    const client = clientOn(server);
    client.use({
      onRequest: ({ request }) => {
        const error = new Error(`refused ${String(request.headers.get("x-api-key"))}`);
        void error.stack; // read (as a logger would), so written with the secret in it
        throw error;
      },
    });
    const { error, texts } = await failure(client.computers.get("cmp_1", { headers: { "X-Api-Key": CALLER_SECRET } }));
    expect((error as Error).message).toBe("refused ***");
    expect((error as Error).stack).toMatch(/^Error: refused \*\*\*\n/);
    expect(withoutKey(texts)).toEqual([]);
  });

  it("an error of the caller's middleware that quotes no secret is left as it was: no stack added, no field made its own", async () => {
    class Refused extends Error {
      get url() {
        return "https://policy.example/check";
      }
    }
    const server = await serve(() => ({ status: 200, body: {} }));
    const client = clientOn(server);
    const refusal = Object.assign(new Refused("refused by policy"), { stack: undefined });
    client.use({ onRequest: () => Promise.reject(refusal) });
    const { error } = await failure(client.computers.get("cmp_1", { headers: { "X-Api-Key": CALLER_SECRET } }));
    expect(error).toBe(refusal);
    expect([(error as Error).stack, Object.hasOwn(error as object, "url")]).toEqual([undefined, false]);
  });

  it("an answer whose only header echoes the key: scrubbed there too", async () => {
    const server = await serve(() => ({ status: 200, body: {} }));
    const echo: typeof fetch = async (_, init) =>
      new Response(null, { status: 404, headers: { "x-echo": String(new Headers(init?.headers).get("authorization")) } });
    const { error, texts } = await failure(clientOn(server, { fetch: echo }).computers.get("cmp_1"));
    expect((error as APIError).headers.get("x-echo")).toBe("Bearer ***");
    expect(withoutKey(texts)).toEqual([]);
  });

  it("a scrubbed field stays as the error had it: enumerable, and a caller may still assign, change or remove it", async () => {
    const server = await serve((request) => ({ status: 404, body: { title: "Not Found", detail: `no key ${keyOf(request.headers)}` } }));
    const { error } = await failure(clientOn(server).computers.get("cmp_1"));
    expect(Object.keys(error as object)).toEqual(expect.arrayContaining(["title", "detail"]));
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ detail: "no key ***" });
    // Assigned as any Error's message may be (a caller adding context), which throws in strict code if read-only.
    (error as Error).message = `context: ${(error as Error).message}`;
    expect((error as Error).message).toMatch(/^context: 404 .*no key \*\*\*/);
    Object.defineProperty(error, "detail", { value: "redacted", enumerable: true });
    expect((error as APIError).detail).toBe("redacted");
    delete (error as { detail?: string }).detail;
    expect(Object.hasOwn(error as object, "detail")).toBe(false);
  });

  it("a credential header of the client, echoed back, is scrubbed too", async () => {
    const server = await serve((request) => ({
      status: 500,
      body: { title: "Failed", detail: `key ${String(request.headers["x-api-key"])}` },
    }));
    const { error, texts } = await failure(clientOn(server, { headers: { "X-Api-Key": CALLER_SECRET } }).computers.get("cmp_1"));
    expect((error as APIError).detail).toBe("key ***");
    expect(withoutKey(texts)).toEqual([]);
  });

  it("nor any debug line of those calls", async () => {
    const logger = captureLogger();
    const server = await serve((request) => {
      const key = keyOf(request.headers);
      return request.query.has("token")
        ? { status: 404, headers: { "x-request-id": key, "x-echo": String(request.headers["x-api-key"]) }, body: { detail: key } }
        : { status: 302, headers: { location: `${request.pathname}?token=${key}` } };
    });
    await failure(clientOn(server, { logLevel: "debug", logger }).computers.get("cmp_1", { headers: { "X-Api-Key": CALLER_SECRET } }));
    // The line of the answer shows its headers: the echoes are there, scrubbed.
    const answer = logger.lines.find((line) => line.includes("← GET"));
    expect(answer).toContain('"x-request-id":"***"');
    expect(answer).toContain('"x-echo":"***"');
    expect(withoutKey(logger.lines)).toEqual([]);
  });

  it("client.raw: an error it throws (a refused redirect) is scrubbed as a resource method's is", async () => {
    const server = await serve((request) => ({
      status: 302,
      headers: { location: `/api/v0/computers/cmp_1?token=${keyOf(request.headers)}` },
    }));
    const { error, texts } = await failure(
      clientOn(server).raw.GET(operations.getComputer.path, { params: { path: { computerId: "cmp_1" } } }),
    );
    expect(error).toBeInstanceOf(RedirectError);
    expect(withoutKey(texts)).toEqual([]);
  });

  it("client.raw with headers of its own: the client's credential header, echoed in an error, is scrubbed all the same", async () => {
    const server = await serve((request) => ({
      status: 302,
      headers: { location: `/api/v0/computers/cmp_1?token=${String(request.headers["x-api-key"])}` },
    }));
    const client = clientOn(server, { headers: { "X-Api-Key": CALLER_SECRET } });
    const { error, texts } = await failure(
      client.raw.GET(operations.getComputer.path, { params: { path: { computerId: "cmp_1" } }, headers: { "X-Trace": "t-1" } }),
    );
    expect(error).toBeInstanceOf(RedirectError);
    expect(withoutKey(texts)).toEqual([]);
  });
});
