// Response metadata on success: every method's promise resolves to the data, and `.withResponse()` gives the data,
// the final attempt's Response and the request id, from the same single request. Against the emulator (which sends
// an `X-Request-Id` with every answer), Prism, and loopback servers that retry and redirect.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, ValidationError, dateRange } from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { successExample } from "../support/spec.js";

let emulator: Emulator;
let client: OrgAgent;
const sent: string[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ seed: "metadata", users: 30 });
  client = new OrgAgent({
    baseUrl: emulator.baseUrl,
    appUrl: emulator.appUrl,
    apiKey: emulator.keys.owner,
    fetch: (url, init) => {
      sent.push(String(url));
      return fetch(url, init);
    },
  });
});
afterAll(() => emulator?.close());

const loopbacks: Loopback[] = [];
afterAll(() => Promise.all(loopbacks.map((server) => server.close())));
async function loopback(...args: Parameters<typeof startLoopback>): Promise<Loopback> {
  const server = await startLoopback(...args);
  loopbacks.push(server);
  return server;
}

describe("withResponse() on a method's result (emulator)", () => {
  it("gives the data, the Response with status, headers and URL, and the x-request-id", async () => {
    const computer = emulator.org.computers[0]!;
    const { data, response, requestId } = await client.computers.get(computer.id).withResponse();
    expect(data).toMatchObject({ id: computer.id, name: computer.name });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.url).toBe(`${emulator.baseUrl}/api/v0/computers/${computer.id}`);
    expect(requestId).toMatch(/^req_/);
    expect(requestId).toBe(response.headers.get("x-request-id"));
    // The body was read into `data`.
    expect(response.bodyUsed).toBe(true);
  });

  it("`await` and `withResponse()` of one promise share its single request", async () => {
    const before = sent.length;
    const promise = client.computers.getByName(emulator.org.computers[0]!.name);
    const [data, withResponse, again] = await Promise.all([promise, promise.withResponse(), promise.withResponse()]);
    expect(withResponse.data).toBe(data);
    expect(again.response).toBe(withResponse.response);
    expect(sent.length - before).toBe(1);
  });

  it("each call has its own request id", async () => {
    const range = dateRange.lastDays(2);
    const ids = await Promise.all([
      client.analytics.tokens(range).withResponse(),
      client.analytics.activity({ ...range, group_by: "client" }).withResponse(),
      client.sessions.create({ computerId: emulator.org.computers[0]!.id }).withResponse(),
    ]).then((answers) => answers.map((answer) => answer.requestId));
    expect(new Set(ids).size).toBe(3);
  });

  it("a paginated call: withResponse() for the first page, pages({ withResponse: true }) for each page", async () => {
    const query = { ...dateRange.lastDays(14), limit: 20 };
    const first = await client.analytics.users(query).withResponse();
    expect(first.data.data).toHaveLength(20);
    expect(first.response.url).not.toContain("cursor=");
    const pages = [];
    for await (const page of client.analytics.users(query, { maxItems: 45 }).pages({ withResponse: true })) pages.push(page);
    expect(pages.map((page) => page.data.data.length)).toEqual([20, 20, 20]);
    expect(pages[0]!.data).toEqual(first.data);
    // Each page's response is the one it came in: asked with the cursor of the page before.
    const cursors = pages.map((page) => new URL(page.response.url).searchParams.get("cursor"));
    expect(cursors).toEqual([null, pages[0]!.data.meta.next_cursor, pages[1]!.data.meta.next_cursor]);
    expect(new Set(pages.map((page) => page.requestId)).size).toBe(3);
  });

  it("a call refused before sending rejects withResponse() too, and nothing is left unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const before = sent.length;
      await expect(client.computers.get("").withResponse()).rejects.toBeInstanceOf(ValidationError);
      await expect(client.analytics.users({ startDate: "2026-01-02", endDate: "2026-01-01" }).withResponse()).rejects.toBeInstanceOf(
        ValidationError,
      );
      expect(sent.length).toBe(before);
      await new Promise((tick) => setTimeout(tick, 10));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe("the final attempt's response", () => {
  it("after retries: the answer that succeeded, with its own request id", async () => {
    let n = 0;
    const server = await loopback(() =>
      ++n === 1
        ? { status: 503, headers: { "x-request-id": "req_first" }, body: { title: "Unavailable", status: 503 } }
        : { headers: { "x-request-id": "req_second" }, body: successExample("getComputer") },
    );
    const retrying = new OrgAgent({ apiKey: "k", baseUrl: server.url, backoff: { initial: 1, max: 1 }, logLevel: "off" });
    const { data, response, requestId } = await retrying.computers.get("cmp_1").withResponse();
    expect(data).toEqual(successExample("getComputer"));
    expect(response.status).toBe(200);
    expect(requestId).toBe("req_second");
    expect(server.requests).toHaveLength(2);
  });

  it("after a redirect: the response of the URL that answered", async () => {
    const server = await loopback((request) =>
      request.pathname.startsWith("/old/")
        ? { status: 307, headers: { location: request.target.replace("/old/", "/") } }
        : { body: successExample("getComputer") },
    );
    const redirected = new OrgAgent({ apiKey: "k", baseUrl: `${server.url}/old`, logLevel: "off" });
    const { response } = await redirected.computers.get("cmp_1").withResponse();
    expect(response.url).toBe(`${server.url}/api/v0/computers/cmp_1`);
  });

  it("a body's own requestId wins over the header", async () => {
    const server = await loopback(() => ({
      headers: { "x-request-id": "req_header" },
      body: { ...successExample("getComputer"), requestId: "req_body" },
    }));
    const answered = new OrgAgent({ apiKey: "k", baseUrl: server.url, logLevel: "off" });
    expect((await answered.computers.get("cmp_1").withResponse()).requestId).toBe("req_body");
  });

  it("without a request id anywhere, requestId is undefined", async () => {
    const server = await loopback(() => ({ body: successExample("getComputer") }));
    const answered = new OrgAgent({ apiKey: "k", baseUrl: server.url, logLevel: "off" });
    expect((await answered.computers.get("cmp_1").withResponse()).requestId).toBeUndefined();
  });
});

describe("withResponse() against the Prism mock", () => {
  it("gives the spec's example as data, with the mock's status and headers", async () => {
    const prismUrl = inject("prismUrl");
    const mocked = new OrgAgent({ apiKey: "test-key", baseUrl: prismUrl, appUrl: prismUrl, maxRetries: 0, logLevel: "off" });
    const { data, response } = await mocked.sessions.get("sess_1").withResponse();
    expect(data).toEqual(successExample("getSession"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/json/);
    const reports = await mocked.readiness.list().withResponse();
    expect(reports.data).toEqual(successExample("listReadinessReports"));
    expect(reports.response.url.startsWith(prismUrl)).toBe(true);
  });
});
