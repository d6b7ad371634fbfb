// readPage: a list walked one page per call, as a program that hands a cursor on does (an MCP tool, a job that
// resumes): `client.request` fetches a page, readPage gives its items and the query of the next page, nothing more is
// fetched, and the walk sees exactly the items the SDK's own iteration sees. Against the emulator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, PaginationError, ValidationError, readPage, type PagedOperationId } from "../../src/index.js";

const NOW = Date.parse("2026-06-15T12:00:00Z");
let emulator: Emulator;
let client: OrgAgent;
let requests = 0;

beforeAll(async () => {
  emulator = await startEmulator({ seed: "read-page", now: () => NOW, users: 30 });
  client = new OrgAgent({
    baseUrl: emulator.baseUrl,
    appUrl: emulator.appUrl,
    apiKey: emulator.keys.owner,
    maxRetries: 0,
    logLevel: "off",
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });
});
afterAll(() => emulator?.close());

/** Every page of `operationId` from `query`, one `client.request` per page: the items, and the requests it took. */
async function walk<O extends PagedOperationId>(operationId: O, query: Record<string, unknown>) {
  const items: unknown[] = [];
  const before = requests;
  let pages = 0;
  for (let next: Record<string, unknown> | undefined = query; next; pages++) {
    const page = await client.request(operationId as "listEnterpriseControlsHistory", { query: next });
    const read: { items: unknown[]; next: Record<string, unknown> | undefined } = readPage(
      operationId as "listEnterpriseControlsHistory",
      next,
      page,
    );
    items.push(...read.items);
    next = read.next;
  }
  return { items, pages, requests: requests - before };
}

describe("readPage", () => {
  it.each([
    ["listEnterpriseControlsHistory", { limit: 7 }], // a cursor and a "more" flag in the page
    ["listAnalyticsUsers", { startDate: "2026-06-01", endDate: "2026-06-03", limit: 20 }], // the same, under meta
    ["listReadinessReports", { limit: 3 }], // no cursor field: the next page starts after the last item
  ] as const)("%s: page by page, the same items as iterating the list, one request per page", async (operationId, query) => {
    const all = await client.request(operationId as "listEnterpriseControlsHistory", { query }).toArray();
    const walked = await walk(operationId, query);
    expect(walked.pages).toBeGreaterThan(1);
    expect(walked.requests).toBe(walked.pages);
    expect(walked.items).toEqual(all);
  });

  it("the next query is the query given with the next cursor; the last page has none", async () => {
    const query = { limit: 2 };
    const first = await client.request("listEnterpriseControlsHistory", { query });
    const { items, next } = readPage("listEnterpriseControlsHistory", query, first);
    expect(items).toEqual(first.changes);
    expect(next).toEqual({ limit: 2, cursor: first.pagination.nextCursor });
    const last = { ...first, pagination: { hasMore: false } };
    expect(readPage("listEnterpriseControlsHistory", query, last).next).toBeUndefined();
  });

  it("a page that says there is more but has no cursor is a PaginationError", () => {
    expect(() => readPage("listEnterpriseControlsHistory", {}, { changes: [], pagination: { hasMore: true } })).toThrow(PaginationError);
  });

  it("a full page whose last item is null has nothing to continue from: a PaginationError naming the field", () => {
    const page = { reports: [{ reportId: "rpt_1" }, null] } as never;
    expect(() => readPage("listReadinessReports", { limit: 2 }, page)).toThrow(PaginationError);
    expect(() => readPage("listReadinessReports", { limit: 2 }, page)).toThrow("The last item has no `reportId` to continue from.");
  });

  it("an operation that is not a list is a ValidationError naming the lists", () => {
    const error = (() => {
      try {
        readPage("getComputer" as PagedOperationId, {}, {} as never);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "operationId", value: "getComputer", rule: "enum" });
    expect((error as ValidationError).allowed).toContain("listAnalyticsUsers");
  });

  it("a near miss of a list's operationId names the list it looks like; a name like none names none", () => {
    expect(() => readPage("listAnalyticsUser" as PagedOperationId, {}, {} as never)).toThrow(/\); did you mean `listAnalyticsUsers`\?$/);
    expect(() => readPage("qqqqqqqqqqqqqqqq" as PagedOperationId, {}, {} as never)).toThrow(/\(listAnalyticsUsers, [^)]*\)$/);
  });
});
