// Auto-pagination of the three list operations against an in-process API with real multi-page data
// (support/paged-api.ts), each with its own paging rule: items, pages, toArray and maxItems. Items are compared by
// identity and order with what the server holds; requests are counted to prove what was (not) fetched.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { APIUserAbortError, OrgAgent, PaginationError, ValidationError } from "../../src/index.js";
import { MAX_EMPTY_PAGES } from "../../src/core/pagination.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { KINDS, idOf, list, makeItems, pagedApi, type Kind, type PagedApi, type PagedApiOptions } from "./support/paged-api.js";
import { analyticsRange } from "../support/spec.js";

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A loopback server holding `items` for `kind`, and a client pointed at it (both hosts). */
async function serve(kind: Kind, items: any[], options?: PagedApiOptions): Promise<{ api: PagedApi; client: OrgAgent }> {
  const api = pagedApi({ [kind]: items }, options);
  const server = await startLoopback(api.handler);
  servers.push(server);
  const client = new OrgAgent({ apiKey: "k", baseUrl: server.url, appUrl: server.url, maxRetries: 0, logLevel: "off" });
  return { api, client };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

describe.each(KINDS)("%s", (kind) => {
  const ids = (items: any[]) => items.map((item) => idOf(kind, item));

  it.each([1, 2, 250])("iterates %i page(s) with no item lost or duplicated", async (pages) => {
    const pageSize = 2;
    // The last page is one short, so every rule (including readiness' "short page ends it") stops after `pages`.
    const items = makeItems(kind, pages * pageSize - 1);
    const { api, client } = await serve(kind, items);

    const seen = await collect(list(client, kind, pageSize));

    expect(ids(seen)).toEqual(ids(items));
    expect(new Set(ids(seen)).size).toBe(items.length);
    expect(api.requests[kind]).toHaveLength(pages);
    // Every page request keeps the caller's query and page size.
    for (const request of api.requests[kind]) {
      expect(request.query.get("limit")).toBe(String(pageSize));
      if (kind === "users") expect(request.query.get("startDate")).toBeTruthy();
    }
  });

  it("`await` gives the first page only, fetched once", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 9));
    const promise = list(client, kind, 3);
    const first = await promise;
    expect(await promise).toBe(first);
    expect(first).toEqual(api.sent[kind][0]);
    expect(api.requests[kind]).toHaveLength(1);
    // Iterating afterwards starts from the page already fetched.
    expect(ids(await collect(promise))).toEqual(ids(makeItems(kind, 9)));
    expect(api.requests[kind]).toHaveLength(kind === "readiness" ? 4 : 3);
  });

  it("`.catch()` and `.finally()` act on the first page's request, as on a promise of it", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 5));
    let settled = 0;
    const first = await list(client, kind, 3).finally(() => settled++);
    expect(first).toEqual(api.sent[kind][0]);
    expect(settled).toBe(1);
    expect(await list(client, kind, 3).catch(() => "never")).toEqual(api.sent[kind][0]);
    // A bad page size fails the first request before it is sent: `.catch()` receives that error.
    const caught = await list(client, kind, -1).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(ValidationError);
    const failed = list(client, kind, -1).finally(() => settled++);
    await expect(failed).rejects.toBeInstanceOf(ValidationError);
    expect(settled).toBe(2);
    expect(api.requests[kind]).toHaveLength(2);
  });

  it("`.pages()` yields every page, as the server sent it", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 10));
    const pages = await collect(list(client, kind, 3).pages());
    expect(pages).toEqual(api.sent[kind]);
    expect(pages.map((page) => (page.data ?? page.changes ?? page.reports).length)).toEqual([3, 3, 3, 1]);
  });

  it("maxItems stops early without fetching further pages", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 20));
    expect(ids(await collect(list(client, kind, 3, { maxItems: 5 })))).toEqual(ids(makeItems(kind, 20)).slice(0, 5));
    expect(api.requests[kind]).toHaveLength(2);

    api.requests[kind].length = 0;
    expect(await collect(list(client, kind, 3, { maxItems: 3 }))).toHaveLength(3); // exactly one page
    expect(api.requests[kind]).toHaveLength(1);

    api.requests[kind].length = 0;
    expect(await collect(list(client, kind, 3, { maxItems: 0 }))).toEqual([]);
    expect(api.requests[kind]).toHaveLength(0);
  });

  it("`.pages()` honours maxItems: no page is fetched once the pages so far hold that many items", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 20));
    const sizes = (pages: any[]) => pages.map((page) => (page.data ?? page.changes ?? page.reports).length);
    // 3 + 3 < 7 ≤ 3 + 3 + 3: three pages, the last one whole.
    expect(sizes(await collect(list(client, kind, 3, { maxItems: 7 }).pages()))).toEqual([3, 3, 3]);
    expect(api.requests[kind]).toHaveLength(3);

    api.requests[kind].length = 0;
    expect(sizes(await collect(list(client, kind, 3, { maxItems: 6 }).pages()))).toEqual([3, 3]);
    expect(api.requests[kind]).toHaveLength(2);

    api.requests[kind].length = 0;
    expect(await collect(list(client, kind, 3, { maxItems: 0 }).pages())).toEqual([]);
    expect(api.requests[kind]).toHaveLength(0);
  });

  it("toArray() collects every item, in order", async () => {
    const items = makeItems(kind, 10);
    const { api, client } = await serve(kind, items);
    expect(ids(await list(client, kind, 3).toArray())).toEqual(ids(items));
    expect(api.requests[kind]).toHaveLength(4);
  });

  it("toArray({ limit }) stops at limit items without fetching further pages; maxItems bounds it too", async () => {
    const items = makeItems(kind, 20);
    const { api, client } = await serve(kind, items);
    expect(ids(await list(client, kind, 3).toArray({ limit: 4 }))).toEqual(ids(items).slice(0, 4));
    expect(api.requests[kind]).toHaveLength(2);

    api.requests[kind].length = 0;
    expect(ids(await list(client, kind, 3).toArray({ limit: 3 }))).toEqual(ids(items).slice(0, 3));
    expect(api.requests[kind]).toHaveLength(1);

    api.requests[kind].length = 0;
    expect(ids(await list(client, kind, 3, { maxItems: 2 }).toArray({ limit: 5 }))).toEqual(ids(items).slice(0, 2));
    expect(await list(client, kind, 3).toArray({ limit: 0 })).toEqual([]);
    expect(api.requests[kind]).toHaveLength(1);
  });

  it("toArray() with a bad limit is a ValidationError before any request", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 5));
    for (const limit of [-1, 1.5, Number.NaN, "3"]) {
      const error = await list(client, kind, 3)
        .toArray({ limit: limit as number })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ field: "options.limit" });
    }
    expect(api.requests[kind]).toHaveLength(0);
  });

  it("`.pages({ withResponse: true })` gives each page with its own response", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 7));
    const pages = await collect(list(client, kind, 3).pages({ withResponse: true }));
    expect(pages.map((page) => page.data)).toEqual(api.sent[kind]);
    expect(pages.map((page) => page.response.status)).toEqual(pages.map(() => 200));
    // Each response is the one its page came in: its URL carries the cursor that page was asked with.
    const cursorParam = kind === "readiness" ? "startAfter" : "cursor";
    expect(pages.map((page) => new URL(page.response.url).searchParams.get(cursorParam))).toEqual(
      api.requests[kind].map((request) => request.query.get(cursorParam)),
    );
    // `await` and `withResponse()` share the first request.
    const promise = list(client, kind, 3);
    const [first, withResponse] = await Promise.all([promise, promise.withResponse()]);
    expect(withResponse.data).toBe(first);
    expect(api.requests[kind]).toHaveLength(3 + 1);
  });

  it("abort between items throws APIUserAbortError and fetches nothing more", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 20));
    const controller = new AbortController();
    const seen: any[] = [];
    const iterate = async () => {
      for await (const item of list(client, kind, 3, { signal: controller.signal })) {
        seen.push(item);
        if (seen.length === 4) controller.abort();
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(4);
    expect(api.requests[kind]).toHaveLength(2);
  });

  it("abort while a page is in flight throws APIUserAbortError", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 20), { delay: (n) => (n === 1 ? 5_000 : 0) });
    const controller = new AbortController();
    const seen: any[] = [];
    const started = performance.now();
    const iterate = async () => {
      for await (const item of list(client, kind, 3, { signal: controller.signal })) {
        seen.push(item);
        // The second page is being fetched once the iterator asks past the first page.
        if (seen.length === 3) setTimeout(() => controller.abort(), 20);
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(seen).toHaveLength(3);
    expect(api.requests[kind]).toHaveLength(2);
  });

  it("a server that repeats itself ends in PaginationError, not an endless loop", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 6), { stuck: true });
    const seen: any[] = [];
    const iterate = async () => {
      for await (const item of list(client, kind, 3)) seen.push(item);
    };
    const error = await iterate().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({ name: "PaginationError" });
    // Page 1 announces a cursor, page 2 announces the same one again: stop there.
    expect(api.requests[kind]).toHaveLength(2);
    expect(seen.length).toBeLessThanOrEqual(6);
  });
});

describe.each(["users", "history"] as const)("%s: empty pages that say there is more", (kind) => {
  it("go on to the next page", async () => {
    const items = makeItems(kind, 7);
    // Requests 0, 2, 3 and 5 get an empty page with has_more; the data still arrives complete, in order.
    const { api, client } = await serve(kind, items, { emptyPages: [0, 2, 3, 5] });
    const seen = await collect(list(client, kind, 3));
    expect(seen.map((i) => idOf(kind, i))).toEqual(items.map((i) => idOf(kind, i)));
    expect(api.requests[kind]).toHaveLength(3 + 4);
  });
});

describe.each(["users", "history"] as const)("%s: a caller's starting cursor", (kind) => {
  it("counts as seen: a server answering with that same cursor is stopped after one fetch", async () => {
    const { api, client } = await serve(kind, makeItems(kind, 6), { stuck: true }); // always answers cur_stuck
    const pages: AsyncIterable<unknown> =
      kind === "users"
        ? client.analytics.users({ ...analyticsRange(), limit: 3, cursor: "cur_stuck" })
        : client.enterpriseControls.history({ limit: 3, cursor: "cur_stuck" });
    await expect(collect(pages)).rejects.toThrow(/cursor "cur_stuck" twice/);
    expect(api.requests[kind]).toHaveLength(1);
  });
});

describe.each([
  ["users", "meta.next_cursor"],
  ["history", "pagination.nextCursor"],
] as const)("%s: a page that says there is more but gives no cursor to go on with", (kind, field) => {
  const page = (cursor: unknown) => {
    const items = makeItems(kind, 2);
    return kind === "users"
      ? { data: items, meta: { org_id: "org_test", start_date: "2026-03-01", end_date: "2026-03-02", has_more: true, next_cursor: cursor } }
      : { changes: items, pagination: { hasMore: true, nextCursor: cursor } };
  };

  it.each([
    ["no cursor", null],
    ["an empty cursor", ""],
    ["a number for a cursor", 7],
  ])("%s: PaginationError naming the cursor's field, after the first page", async (_, cursor) => {
    const server = await startLoopback(() => ({ body: page(cursor) }));
    servers.push(server);
    const client = new OrgAgent({ apiKey: "k", baseUrl: server.url, appUrl: server.url, maxRetries: 0, logLevel: "off" });
    const seen: any[] = [];
    const iterate = async () => {
      for await (const item of list(client, kind, 2)) seen.push(item);
    };
    const error = await iterate().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as Error).message).toBe(`The page says there is more but has no \`${field}\` to continue from.`);
    expect(seen).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
  });
});

describe("readiness: no cursor field, next page starts after the last reportId", () => {
  it.each([
    ["has no reportId", undefined],
    ["has an empty reportId", ""],
    ["has a number for its reportId", 42],
  ])("a full page whose last report %s: PaginationError naming reportId, after that page", async (_, reportId) => {
    const items = makeItems("readiness", 6);
    if (reportId === undefined) delete items[2].reportId;
    else items[2].reportId = reportId;
    const { api, client } = await serve("readiness", items);
    const seen: any[] = [];
    const iterate = async () => {
      for await (const item of list(client, "readiness", 3)) seen.push(item);
    };
    const error = await iterate().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as Error).message).toBe("The last item has no `reportId` to continue from.");
    expect(seen).toEqual(items.slice(0, 3));
    expect(api.requests.readiness).toHaveLength(1);
  });

  it("sends startAfter = the last reportId of the previous page", async () => {
    const items = makeItems("readiness", 5);
    const { api, client } = await serve("readiness", items);
    await collect(list(client, "readiness", 2));
    expect(api.requests.readiness.map((r) => r.query.get("startAfter"))).toEqual([null, "rep_1", "rep_3"]);
  });

  it("a full last page costs one more request, answered empty, which ends the list", async () => {
    const items = makeItems("readiness", 6);
    const { api, client } = await serve("readiness", items);
    expect(await collect(list(client, "readiness", 3))).toEqual(items);
    expect(api.sent.readiness.map((page) => page.reports.length)).toEqual([3, 3, 0]);
  });

  it("without a limit, it stops on the first empty page", async () => {
    const items = makeItems("readiness", 25);
    const { api, client } = await serve("readiness", items, { defaultLimit: 10 });
    expect(await collect(client.readiness.list())).toEqual(items);
    expect(api.sent.readiness.map((page) => page.reports.length)).toEqual([10, 10, 5, 0]);
  });

  it("an empty first page is an empty list", async () => {
    const { api, client } = await serve("readiness", []);
    expect(await collect(list(client, "readiness", 5))).toEqual([]);
    expect(api.requests.readiness).toHaveLength(1);
  });
});

// For random page sizes and item counts, iteration yields exactly the server's items, in order.
it("property: iteration yields exactly the server's items in order", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...KINDS),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 0, max: 40 }),
      // Fewer than MAX_EMPTY_PAGES, so never that many in a row (that many is a PaginationError: test/resilience).
      fc.array(fc.nat({ max: 8 }), { maxLength: MAX_EMPTY_PAGES - 1 }),
      async (kind, pageSize, count, emptyPages) => {
        const items = makeItems(kind, count);
        // Empty "more" pages only exist where the rule has a "more" flag; for readiness an empty page ends the list.
        const { client } = await serve(kind, items, kind === "readiness" ? {} : { emptyPages });
        const seen = await collect(list(client, kind, pageSize));
        expect(seen.map((i) => idOf(kind, i))).toEqual(items.map((i) => idOf(kind, i)));
        await Promise.all(servers.splice(0).map((server) => server.close()));
      },
    ),
    { numRuns: 40 },
  );
});
