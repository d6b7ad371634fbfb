// analytics.users({ concurrency }): the date range paged through as date windows at once. Against the emulator's
// real multi-page data, the windowed export is compared row for row with one cursor chain: every row exactly once,
// the windows in date order, with any concurrency, over short and long ranges, under the emulator's rate limit and
// behind a proxy that injects 429s and connection resets. maxItems, abort, `await` and the read-ahead bound hold.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES_HELD } from "../../src/core/windows.js";
import { FIRST_DATA_DAY, startEmulator, type Emulator } from "../../src/emulator/index.js";
import { APIUserAbortError, OrgAgent, ValidationError, type AnalyticsUsersResponse, type UserRow } from "../../src/index.js";
import { prng } from "../resilience/fault-server.js";
import { startFaultProxy, type ProxyFault } from "../support/fault-proxy.js";

// The emulator's "now": yesterday is 2026-06-14, so the whole range is five months (~170 pages of 100 rows).
const NOW = Date.parse("2026-06-15T12:00:00Z");
const WHOLE = { startDate: FIRST_DATA_DAY, endDate: "2026-06-14", limit: 100 };
const DAY_MS = 86_400_000;
const addDays = (date: string, days: number) => new Date(Date.parse(date) + days * DAY_MS).toISOString().slice(0, 10);

let emulator: Emulator;
let requests = 0;
let client: OrgAgent;
const chains = new Map<string, UserRow[]>();

beforeAll(async () => {
  emulator = await startEmulator({ seed: "windows", now: () => NOW, users: 120 });
  client = clientOf(emulator.baseUrl, emulator.keys.owner);
});
afterAll(() => emulator?.close());

function clientOf(baseUrl: string, apiKey: string, options: { maxRetries?: number; statuses?: number[] } = {}) {
  return new OrgAgent({
    baseUrl,
    apiKey,
    maxRetries: options.maxRetries ?? 0,
    backoff: { initial: 1, max: 5 },
    logLevel: "off",
    fetch: async (url, init) => {
      requests++;
      const response = await fetch(url, init);
      options.statuses?.push(response.status);
      return response;
    },
  });
}

type Query = { startDate: string; endDate: string; limit: number };
const key = (row: UserRow) => `${row.date} ${row.user_id}`;

/** The rows of one cursor chain over `query` (remembered: the reference every windowed run is compared with). */
async function chain(query: Query): Promise<UserRow[]> {
  const id = JSON.stringify(query);
  if (!chains.has(id)) {
    const rows: UserRow[] = [];
    for await (const row of client.analytics.users(query)) rows.push(row);
    chains.set(id, rows);
  }
  return chains.get(id)!;
}

/** Every page of a windowed run, and its rows. */
async function windowed(sdk: OrgAgent, query: Query, concurrency: number) {
  const pages: AnalyticsUsersResponse[] = [];
  for await (const page of sdk.analytics.users(query, { concurrency }).pages()) pages.push(page);
  return { pages, rows: pages.flatMap((page) => page.data) };
}

/** The same rows as the chain, each exactly once; the pages come window by window, in date order, covering the range. */
async function expectSameRowsInWindows(query: Query, run: { pages: AnalyticsUsersResponse[]; rows: UserRow[] }) {
  const expected = (await chain(query)).map(key).sort();
  const got = run.rows.map(key);
  expect(new Set(got).size).toBe(got.length);
  expect([...got].sort()).toEqual(expected);
  // Each page belongs to one window (its meta range); the windows follow each other day after day.
  const windows: Array<{ start: string; end: string }> = [];
  for (const page of run.pages) {
    const { start_date: start, end_date: end } = page.meta;
    for (const row of page.data) expect(row.date >= start && row.date <= end).toBe(true);
    const last = windows.at(-1);
    if (!last || last.start !== start) windows.push({ start, end });
    else expect(last.end).toBe(end);
  }
  expect(windows[0]!.start).toBe(query.startDate);
  expect(windows.at(-1)!.end).toBe(query.endDate);
  windows.slice(1).forEach((window, i) => expect(window.start).toBe(addDays(windows[i]!.end, 1)));
}

describe("the same rows as one chain, each exactly once, window by window in date order", () => {
  it.each([2, 8, 16, 64])("the whole range with concurrency %i", async (concurrency) => {
    const run = await windowed(client, WHOLE, concurrency);
    expect(run.rows.length).toBeGreaterThan(5_000);
    await expectSameRowsInWindows(WHOLE, run);
  });

  it.each([
    ["one day", 0],
    ["three days", 2],
    ["six weeks", 41],
  ])("%s with concurrency 8", async (_, extra) => {
    const query = { startDate: "2026-03-02", endDate: addDays("2026-03-02", extra), limit: 100 };
    await expectSameRowsInWindows(query, await windowed(client, query, 8));
  });

  it("small pages: many pages per window", async () => {
    const query = { startDate: "2026-04-01", endDate: "2026-04-30", limit: 7 };
    await expectSameRowsInWindows(query, await windowed(client, query, 6));
  });

  it("for await over the rows gives the same rows as .pages()", async () => {
    const query = { startDate: "2026-02-01", endDate: "2026-02-28", limit: 50 };
    const rows: UserRow[] = [];
    for await (const row of client.analytics.users(query, { concurrency: 4 })) rows.push(row);
    expect(rows).toEqual((await windowed(client, query, 4)).rows);
  });

  it(".pages({ withResponse: true }) gives each window's page with its own response and request id", async () => {
    const query = { startDate: "2026-02-01", endDate: "2026-02-28", limit: 50 };
    const answers = [];
    for await (const answer of client.analytics.users(query, { concurrency: 4 }).pages({ withResponse: true })) answers.push(answer);
    expect(answers.map((answer) => answer.data)).toEqual((await windowed(client, query, 4)).pages);
    for (const { data, response } of answers) {
      expect(response.status).toBe(200);
      const sent = new URL(response.url).searchParams;
      expect([sent.get("startDate")! <= data.meta.start_date, sent.get("endDate")! >= data.meta.end_date]).toEqual([true, true]);
    }
    expect(new Set(answers.map((answer) => answer.response)).size).toBe(answers.length);
  });
});

describe("the PagePromise contract", () => {
  it("`await` gives the first page of the whole range, as without concurrency", async () => {
    expect(await client.analytics.users(WHOLE, { concurrency: 8 })).toEqual(await client.analytics.users(WHOLE));
  });

  it("maxItems stops after that many rows, the first of the windowed order, and fetches stop", async () => {
    const all = (await windowed(client, WHOLE, 8)).rows;
    requests = 0;
    const rows: UserRow[] = [];
    for await (const row of client.analytics.users(WHOLE, { concurrency: 8, maxItems: 250 })) rows.push(row);
    expect(rows).toEqual(all.slice(0, 250));
    const sent = requests;
    expect(sent).toBeLessThanOrEqual(PAGES_HELD + 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toBe(sent);
  });

  /** A client on the emulator that counts the requests sent, those answered, and the rows they brought. */
  function counting() {
    const counts = { sent: 0, answered: 0, rows: 0 };
    const sdk = new OrgAgent({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.keys.owner,
      maxRetries: 0,
      logLevel: "off",
      fetch: async (url, init) => {
        counts.sent++;
        const response = await fetch(url, init);
        counts.rows += ((await response.clone().json()) as AnalyticsUsersResponse).data.length;
        counts.answered++;
        return response;
      },
    });
    return { sdk, counts };
  }

  /**
   * What the windows read ahead stays within maxItems: less than maxItems rows and one page past the rows of the
   * pages handed on. A request cut short when the items were all there counts as a full page (it was on its way).
   */
  async function expectReadAheadWithin(counts: { sent: number; answered: number; rows: number }, maxItems: number, handedOn: number) {
    await new Promise((resolve) => setTimeout(resolve, 50)); // the requests cut short settle
    expect(counts.rows + (counts.sent - counts.answered) * WHOLE.limit).toBeLessThan(handedOn + maxItems + WHOLE.limit);
  }

  it.each([
    [250, 8],
    [250, 64],
    [2_000, 16],
  ])(
    "maxItems %i with concurrency %i: the windows read ahead less than maxItems rows and a page past the pages handed on",
    async (maxItems, concurrency) => {
      const { sdk, counts } = counting();
      let handedOn = 0;
      for await (const page of sdk.analytics.users(WHOLE, { concurrency, maxItems }).pages()) handedOn += page.data.length;
      expect(handedOn).toBeGreaterThanOrEqual(maxItems);
      console.log(
        `maxItems ${maxItems}, concurrency ${concurrency}: ${counts.sent} requests, ${counts.rows} rows; ${handedOn} rows handed on`,
      );
      await expectReadAheadWithin(counts, maxItems, handedOn);
    },
  );

  it("toArray({ limit }) bounds the read-ahead as maxItems does", async () => {
    let handedOn = 0;
    for await (const page of client.analytics.users(WHOLE, { concurrency: 8, maxItems: 250 }).pages()) handedOn += page.data.length;
    const { sdk, counts } = counting();
    expect(await sdk.analytics.users(WHOLE, { concurrency: 8 }).toArray({ limit: 250 })).toHaveLength(250);
    await expectReadAheadWithin(counts, 250, handedOn);
  });

  it("the window being read fetches no page once the rows up to it reach maxItems, while the caller holds a page", async () => {
    const firstDay = { startDate: FIRST_DATA_DAY, endDate: FIRST_DATA_DAY, limit: 5 };
    expect((await chain(firstDay)).length).toBeGreaterThan(3 * firstDay.limit); // a third page was there to fetch
    const sent: string[] = [];
    const answered: string[] = [];
    const sdk = new OrgAgent({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.keys.owner,
      maxRetries: 0,
      logLevel: "off",
      fetch: async (url, init) => {
        sent.push(String(url));
        const response = await fetch(url, init);
        answered.push(String(url));
        return response;
      },
    });
    // The first window is the first day alone (a window is one day until a week is done).
    const ofFirstDay = (urls: string[]) => urls.filter((url) => new URL(url).searchParams.get("endDate") === FIRST_DATA_DAY);
    const query = { ...firstDay, endDate: addDays(FIRST_DATA_DAY, 6) };
    let pages = 0;
    for await (const _ of sdk.analytics.users(query, { concurrency: 2, maxItems: 8 }).pages()) {
      if (++pages > 1) continue;
      // The caller holds the first page (5 rows) while the window's second brings the rows to 10, past maxItems.
      for (let waited = 0; ofFirstDay(answered).length < 2 && waited < 10_000; waited += 10) await sleep(10);
      await sleep(200); // time enough for a third page to be asked for
    }
    expect(pages).toBe(2);
    expect(ofFirstDay(sent)).toHaveLength(2);
  });

  it("an abort mid-way throws APIUserAbortError, and nothing more is fetched", async () => {
    const controller = new AbortController();
    let rows = 0;
    const iterate = async () => {
      for await (const _ of client.analytics.users(WHOLE, { concurrency: 8, signal: controller.signal })) {
        if (++rows === 150) controller.abort();
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(APIUserAbortError);
    const sent = requests;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toBe(sent);
  });

  it("holds at most PAGES_HELD pages (read ahead or in flight), however slow the caller", async () => {
    requests = 0;
    let consumed = 0;
    let mostAhead = 0;
    for await (const _ of client.analytics.users(WHOLE, { concurrency: 16 }).pages()) {
      consumed++;
      mostAhead = Math.max(mostAhead, requests - consumed);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(mostAhead).toBeGreaterThan(16);
    expect(mostAhead).toBeLessThanOrEqual(PAGES_HELD + 1);
  });

  it("concurrency is checked (an integer from 1 to 64), and refused with a cursor: a cursor continues one chain", () => {
    for (const concurrency of [0, 1.5, 65, -1]) {
      expect(() => client.analytics.users(WHOLE, { concurrency })).toThrow(ValidationError);
    }
    expect(() => client.analytics.users({ ...WHOLE, cursor: "user_x" }, { concurrency: 4 })).toThrow(/options\.concurrency.*cursor/);
  });

  it("a bad range is a ValidationError before anything is sent", async () => {
    requests = 0;
    const bad = { startDate: "2026-06-10", endDate: "2026-06-01", limit: 100 };
    await expect(windowed(client, bad, 8)).rejects.toBeInstanceOf(ValidationError);
    expect(requests).toBe(0);
  });
});

describe("under a rate limit and injected faults", () => {
  const query = { startDate: "2026-03-01", endDate: "2026-04-15", limit: 100 };

  it("the emulator's rate limit: 429s are waited out, the rows are the same, no call fails", async () => {
    const limited = await startEmulator({
      seed: "windows",
      now: () => NOW,
      users: 120,
      rateLimit: { requestsPerSecond: 80, burst: 4, retryAfterMs: true },
    });
    try {
      const statuses: number[] = [];
      const run = await windowed(clientOf(limited.baseUrl, limited.keys.owner, { statuses }), query, 8);
      await expectSameRowsInWindows(query, run);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it("a proxy that answers 429 and resets connections, before and after the server answered: the same rows", async () => {
    const random = prng(14);
    const plan = (): ProxyFault => {
      const roll = random();
      return roll < 0.1 ? "429" : roll < 0.17 ? "reset-before" : roll < 0.24 ? "reset-after" : "forward";
    };
    const proxy = await startFaultProxy(emulator.baseUrl, plan);
    try {
      const run = await windowed(clientOf(proxy.url, emulator.keys.owner, { maxRetries: 6 }), query, 8);
      await expectSameRowsInWindows(query, run);
      expect(proxy.counts["429"] && proxy.counts["reset-before"] && proxy.counts["reset-after"]).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });
});
