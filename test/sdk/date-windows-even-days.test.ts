// analytics.users({ concurrency }) against a loopback server whose every day holds the same number of rows: with the
// rows per day known exactly, how the range is cut into windows follows from the rule (src/core/windows.ts) alone,
// window by window. Also what runs at once, what a failing window, the caller's abort and the caller's signal do.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { PAGES_HELD } from "../../src/core/windows.js";
import { APIError, APIUserAbortError, OrgAgent, type AnalyticsUsersResponse } from "../../src/index.js";
import { successExample } from "../support/spec.js";
import { startLoopback, type Loopback, type RecordedRequest } from "./support/loopback.js";

const DAY_MS = 86_400_000;
const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const ROW = successExample("listAnalyticsUsers").data[0];
/** The page size the API uses when the request names none. */
const DEFAULT_LIMIT = operations.listAnalyticsUsers.params.limit.schema.default;

interface EvenDays {
  server: Loopback;
  client: OrgAgent;
  /** Requests the client sent (fetch calls). */
  fetched: number;
  /** Requests being answered now, and the most at once. */
  inFlight: number;
  mostInFlight: number;
  /** Called as each request arrives, with the number then in flight. */
  onRequest?: (request: RecordedRequest, inFlight: number) => void;
}

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A server of /users with `perDay` rows on every day (user ids u0, u1, …), paged by an offset cursor. `delay` holds
 * each answer that many milliseconds; `fail` answers a request with its status instead.
 */
async function evenDays(perDay: number, options: { delay?: number; fail?: (request: RecordedRequest) => number | undefined } = {}) {
  const state = { inFlight: 0, mostInFlight: 0, fetched: 0 } as EvenDays;
  state.server = await startLoopback(async (request) => {
    state.inFlight++;
    state.mostInFlight = Math.max(state.mostInFlight, state.inFlight);
    state.onRequest?.(request, state.inFlight);
    try {
      if (options.delay) await new Promise((resolve) => setTimeout(resolve, options.delay));
      const status = options.fail?.(request);
      if (status) return { status, body: { title: "failed on purpose" } };
      const start = request.query.get("startDate")!;
      const end = request.query.get("endDate")!;
      const limit = Number(request.query.get("limit") ?? DEFAULT_LIMIT);
      const offset = Number(request.query.get("cursor") ?? 0);
      const total = (dayOf(end) - dayOf(start) + 1) * perDay;
      const data = [];
      for (let i = offset; i < Math.min(total, offset + limit); i++) {
        data.push({ ...ROW, date: dateOf(dayOf(start) + Math.floor(i / perDay)), user_id: `u${i % perDay}` });
      }
      const more = offset + limit < total;
      return {
        body: {
          data,
          meta: { org_id: "org_test", start_date: start, end_date: end, has_more: more, next_cursor: more ? String(offset + limit) : null },
        },
      };
    } finally {
      state.inFlight--;
    }
  });
  servers.push(state.server);
  state.client = new OrgAgent({
    apiKey: "k",
    baseUrl: state.server.url,
    maxRetries: 0,
    logLevel: "off",
    fetch: (url, init) => (state.fetched++, fetch(url, init)),
  });
  return state;
}

/** Each window of a run, from its pages' meta (a window's pages share their range), in the order they came. */
function windowsOf(pages: AnalyticsUsersResponse[]): Array<{ start: string; days: number }> {
  const windows: Array<{ start: string; days: number }> = [];
  for (const { meta } of pages) {
    if (windows.at(-1)?.start !== meta.start_date)
      windows.push({ start: meta.start_date, days: dayOf(meta.end_date) - dayOf(meta.start_date) + 1 });
  }
  return windows;
}

/**
 * The window sizes the rule gives when every day holds `perDay` rows and each of `concurrency` windows at once opens
 * the next as it is done: one day each until seven days' windows are done, then as many days as hold the pages held
 * per window ((PAGES_HELD - concurrency) / concurrency pages of `limit` rows, at least one), and never more than a
 * worker's share of the days left.
 */
function ruleSizes(days: number, concurrency: number, limit: number, perDay: number): number[] {
  const sized = Math.round((Math.max(1, (PAGES_HELD - concurrency) / concurrency) * limit) / perDay);
  const sizes: number[] = [];
  for (let left = days; left > 0; ) {
    // The window opened when the previous windows but `concurrency - 1` are done: all of one day until calibrated.
    const doneDays = Math.max(0, sizes.length - concurrency + 1);
    const size = Math.max(1, Math.min(doneDays >= 7 ? sized : 1, Math.ceil(left / concurrency)));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

async function pagesOf(promise: AsyncIterable<AnalyticsUsersResponse>) {
  const pages: AnalyticsUsersResponse[] = [];
  for await (const page of promise) pages.push(page);
  return pages;
}

describe("the range cut into windows, when every day holds the same rows", () => {
  it("one day each until a week of windows is done, then the days that fill a window's share of the pages held, the last ones a share of the days left", async () => {
    const { client } = await evenDays(31);
    const query = { startDate: "2026-03-01", endDate: "2026-04-29", limit: 10 };
    const pages = await pagesOf(client.analytics.users(query, { concurrency: 2 }).pages());
    const sizes = windowsOf(pages).map((window) => window.days);
    // 31 rows a day, pages of 10, 2 at once: 31 pages a window, 10 days; 8 one-day windows first (the ninth opens
    // when seven are done).
    expect(ruleSizes(60, 2, 10, 31)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 10, 10, 10, 10, 6, 3, 2, 1]);
    expect(sizes).toEqual(ruleSizes(60, 2, 10, 31));
    // Every row once, in date order.
    const rows = pages.flatMap((page) => page.data);
    expect(rows).toHaveLength(60 * 31);
    expect(rows.map((row) => row.date)).toEqual([...rows.map((row) => row.date)].sort());
    expect(new Set(rows.map((row) => `${row.date} ${row.user_id}`)).size).toBe(rows.length);
  });

  it("with more at once, each window's share of the pages held is smaller: 16 at once, 3 pages a window", async () => {
    const { client } = await evenDays(10);
    const query = { startDate: "2026-02-01", endDate: "2026-05-31", limit: 10 };
    const pages = await pagesOf(client.analytics.users(query, { concurrency: 16 }).pages());
    const windows = windowsOf(pages);
    // (64 - 16) / 16 = 3 pages of 10 rows: 3 days of 10 rows, once the first windows (one day each) are done.
    expect(windows.slice(0, 16).every((window) => window.days === 1)).toBe(true);
    const sized = windows.slice(16).filter((window) => window.days > 1);
    expect(sized.length).toBeGreaterThan(10);
    expect(Math.max(...windows.map((window) => window.days))).toBe(3);
    expect(windows.reduce((days, window) => days + window.days, 0)).toBe(dayOf(query.endDate) - dayOf(query.startDate) + 1);
  });

  it("without a limit, windows are sized by the spec's default page size", async () => {
    const { client } = await evenDays(5);
    const pages = await pagesOf(client.analytics.users({ startDate: "2026-03-01", endDate: "2026-04-29" }, { concurrency: 2 }).pages());
    expect(pages.flatMap((page) => page.data)).toHaveLength(60 * 5);
    // 31 pages of the default 20 rows, at 5 rows a day: 124 days, so the share of the days left decides.
    expect(windowsOf(pages).map((window) => window.days)).toEqual(ruleSizes(60, 2, 20, 5));
  });
});

describe("concurrency 1", () => {
  it("is one cursor chain over the whole range: a starting cursor may be given", async () => {
    const state = await evenDays(3);
    const query = { startDate: "2026-03-01", endDate: "2026-03-10", limit: 10, cursor: "10" };
    const pages = await pagesOf(state.client.analytics.users(query, { concurrency: 1 }).pages());
    expect(pages.flatMap((page) => page.data)).toHaveLength(30 - 10);
    expect(state.server.requests.map((request) => [request.query.get("startDate"), request.query.get("endDate")])).toEqual([
      ["2026-03-01", "2026-03-10"],
      ["2026-03-01", "2026-03-10"],
    ]);
  });
});

describe("what runs at once", () => {
  it("the windows ahead keep being fetched beside the one being read, to the end of a long export", async () => {
    const state = await evenDays(40, { delay: 3 });
    let handedOn = 0;
    let mostLate = 0;
    state.onRequest = (_, inFlight) => {
      if (handedOn > PAGES_HELD + 20) mostLate = Math.max(mostLate, inFlight);
    };
    const query = { startDate: "2026-03-01", endDate: "2026-04-09", limit: 10 };
    for await (const _ of state.client.analytics.users(query, { concurrency: 4 }).pages()) handedOn++;
    expect(handedOn).toBe(40 * 4);
    expect(state.mostInFlight).toBe(4);
    // Long after PAGES_HELD pages were handed on, requests of later windows still overlap the reader's.
    expect(mostLate).toBeGreaterThanOrEqual(2);
  });
});

describe("a window that fails", () => {
  it("rejects the export with that window's error, and nothing more is sent", async () => {
    const failOn = "2026-03-05";
    const state = await evenDays(3, { fail: (request) => (request.query.get("startDate") === failOn ? 500 : undefined) });
    const query = { startDate: "2026-03-01", endDate: "2026-03-31", limit: 10 };
    const error = await pagesOf(state.client.analytics.users(query, { concurrency: 4 }).pages()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 500, title: "failed on purpose" });
    const sent = state.fetched;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.fetched).toBe(sent);
    expect(state.server.requests.some((request) => request.query.get("startDate")! > "2026-03-20")).toBe(false);
  });
});

describe("the caller's signal", () => {
  it("an abort while the page being read is on its way ends .pages() at once, with the abort's reason as the cause", async () => {
    const state = await evenDays(3, { delay: 3_000 });
    const controller = new AbortController();
    state.onRequest = () => setTimeout(() => controller.abort(new Error("enough")), 20);
    const started = performance.now();
    const query = { startDate: "2026-03-01", endDate: "2026-03-31", limit: 10 };
    const error = await pagesOf(state.client.analytics.users(query, { concurrency: 4, signal: controller.signal }).pages()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toMatchObject({ message: "enough" });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("a signal aborted before the export starts: APIUserAbortError from .pages(), and nothing is sent", async () => {
    const state = await evenDays(3);
    const query = { startDate: "2026-03-01", endDate: "2026-03-31", limit: 10 };
    const signal = AbortSignal.abort(new Error("not today"));
    const error = await pagesOf(state.client.analytics.users(query, { concurrency: 4, signal }).pages()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toMatchObject({ message: "not today" });
    expect(state.server.requests).toHaveLength(0);
  });

  it("an export leaves no listener on the caller's signal, whether it ends, is stopped or fails: one signal serves many exports", async () => {
    const state = await evenDays(3, { fail: (request) => (request.query.get("startDate") === "2026-03-03" ? 500 : undefined) });
    const controller = new AbortController();
    const options = { concurrency: 4, signal: controller.signal };
    for (let i = 0; i < 3; i++) {
      await pagesOf(state.client.analytics.users({ startDate: "2026-03-10", endDate: "2026-03-20", limit: 10 }, options).pages());
      for await (const _ of state.client.analytics.users({ startDate: "2026-03-10", endDate: "2026-03-20", limit: 10 }, options)) break;
      await pagesOf(state.client.analytics.users({ startDate: "2026-03-01", endDate: "2026-03-05", limit: 10 }, options).pages()).catch(
        () => {},
      );
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("an abort leaves no listener on the signal even when the export's iterator is left suspended, never resumed", async () => {
    const state = await evenDays(3);
    const controller = new AbortController();
    const pages = state.client.analytics
      .users({ startDate: "2026-03-10", endDate: "2026-03-20", limit: 10 }, { concurrency: 4, signal: controller.signal })
      .pages();
    expect((await pages.next()).done).toBe(false);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("maxItems below a page: exactly that many rows, and the windows opened ahead but never fetched are let go quietly", async () => {
    const state = await evenDays(3);
    const query = { startDate: "2026-03-01", endDate: "2026-03-31", limit: 10 };
    const rows = await state.client.analytics.users(query, { concurrency: 2, maxItems: 5 }).toArray();
    expect(rows.map((row) => `${row.date} ${row.user_id}`)).toEqual([
      "2026-03-01 u0",
      "2026-03-01 u1",
      "2026-03-01 u2",
      "2026-03-02 u0",
      "2026-03-02 u1",
    ]);
    expect(state.fetched).toBeLessThanOrEqual(3);
  });
});
