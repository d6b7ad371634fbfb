// `client.request`, the entry every resource method goes through: any operation by its operationId, a list as a
// PagePromise over the spec's paging rule, and a list's request options on every request it makes, also when its
// date range is paged through as windows at once. Against the emulator, through a fetch that records what was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, PagePromise, ValidationError } from "../../src/index.js";

const NOW = Date.parse("2026-06-15T12:00:00Z");
let emulator: Emulator;
let sent: Array<{ url: string; headers: Headers }>;
let client: OrgAgent;

beforeAll(async () => {
  emulator = await startEmulator({ seed: "resource-client", now: () => NOW, users: 30 });
  sent = [];
  client = new OrgAgent({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.keys.owner,
    maxRetries: 0,
    logLevel: "off",
    fetch: (input, init) => {
      const request = new Request(input, init);
      sent.push({ url: request.url, headers: request.headers });
      return fetch(input, init);
    },
  });
});
afterAll(() => emulator?.close());

describe("client.request", () => {
  it("calls an operation by its operationId, as its resource method does", async () => {
    const { id } = await client.computers.getByName("build-box-eu-1");
    const computer = await client.request("getComputer", { path: { computerId: id } });
    expect(computer).toEqual(await client.computers.get(id));
    expect(sent.at(-1)!.url).toBe(`${emulator.baseUrl}/api/v0/computers/${id}`);
  });

  it("gives a list's PagePromise: await for the first page, iterate for every item", async () => {
    const query = { startDate: "2026-05-01", endDate: "2026-05-02", limit: 5 };
    const list = client.request("listAnalyticsUsers", { query });
    expect(list).toBeInstanceOf(PagePromise);
    expect((await list).data).toHaveLength(5);
    expect(await list.toArray()).toEqual(await client.analytics.users(query).toArray());
  });

  it("refuses an operationId the spec does not have, naming the closest, before sending anything", () => {
    const before = sent.length;
    const call = () => (client.request as (operationId: string) => unknown)("getComputers");
    expect(call).toThrow(ValidationError);
    expect(call).toThrow(/^operationId: "getComputers" is not allowed; expected an operationId of the spec; did you mean `getComputer`\?$/);
    expect(sent.length).toBe(before);
  });

  it("of two operationIds as close to a misspelling, the first in the spec is named", () => {
    const call = () => (client.request as (operationId: string) => unknown)("getAnalyticsToks");
    expect(call).toThrow(/did you mean `getAnalyticsTokens`\?$/);
  });

  it("an operationId like none of the spec's is refused naming none", () => {
    const call = () => (client.request as (operationId: string) => unknown)("qqqqqqqqqqqqqqqq");
    expect(call).toThrow(/^operationId: "qqqqqqqqqqqqqqqq" is not allowed; expected an operationId of the spec$/);
  });

  it("refuses date windows for a list without a date range: concurrency is not one of its options", () => {
    expect(() => client.request("listReadinessReports", {}, { concurrency: 4 } as never)).toThrow(ValidationError);
  });
});

describe("a list's request options reach every request", () => {
  const query = { startDate: "2026-05-01", endDate: "2026-05-20", limit: 25 };

  it.each([1, 4])("analytics.users with concurrency %i: every page carries the call's headers", async (concurrency) => {
    sent = [];
    let rows = 0;
    for await (const _ of client.analytics.users(query, { concurrency, headers: { "X-Export": `run-${concurrency}` } })) rows++;
    expect(rows).toBeGreaterThan(0);
    const pages = sent.filter(({ url }) => new URL(url).pathname.endsWith("/users"));
    expect(pages.length).toBeGreaterThan(concurrency);
    expect(pages.map(({ headers }) => headers.get("x-export"))).toEqual(pages.map(() => `run-${concurrency}`));
  });
});

describe("client.request with no parameters", () => {
  it("an operation with a required path parameter rejects with the ValidationError that names it, nothing sent", async () => {
    sent = [];
    const error = await (client.request as (id: string) => Promise<unknown>)("getComputer").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "path.computerId", rule: "required" });
    expect(sent).toEqual([]);
  });
});
