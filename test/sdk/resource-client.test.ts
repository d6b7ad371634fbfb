// The client as its resource methods see it (`resourceClientOf`, not exported from the package): `paginate` walks
// only operations the spec pages, and a list's request options reach every request it makes, also when its date
// range is paged through as windows at once. Against the emulator, through a fetch that records what was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceClientOf } from "../../src/client.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, OrgAgentError } from "../../src/index.js";

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

describe("paginate", () => {
  it("refuses an operation the spec does not page, naming it, before sending anything", () => {
    const before = sent.length;
    expect(() => resourceClientOf(client).paginate("getComputer", {})).toThrow(OrgAgentError);
    expect(() => resourceClientOf(client).paginate("getComputer", {})).toThrow(/^getComputer is not paginated\.$/);
    expect(sent.length).toBe(before);
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
