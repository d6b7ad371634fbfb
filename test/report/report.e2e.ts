// The report of 90 days of the emulator, written as `orgagent report` writes it and opened from disk in headless
// Chromium with every request outside the file blocked: it must need nothing else, log no error, draw every
// section, and show the API's own figures (fetched here separately through the SDK) in its key figures, tables
// and hover titles, with nothing clipped or overlapping. Screenshots go to dist/report-screenshots/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import {
  OrgAgent,
  type ActivityRow,
  type CreditsGroupedRow,
  type CreditsRow,
  type ProductivityRow,
  type ToolsRow,
  type UserRow,
} from "../../src/index.js";
import { writeAnalyticsReport, type WrittenReport } from "../../src/report/index.js";
import { root } from "../package/consumer-project.js";
import { launchChromium, openOffline } from "../runtimes/chromium.js";

const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const range = { startDate: day(90), endDate: day(1) };
const previous = { startDate: day(180), endDate: day(91) };
const outDir = join(root, "dist", "report-screenshots");
const int = (n: number) => new Intl.NumberFormat("en-US").format(n);
const sum = <T>(items: readonly T[], pick: (item: T) => number) => items.reduce((total, item) => total + pick(item), 0);
const SECTIONS = ["credits", "activity", "top-users", "tools", "productivity", "hooks"];

let emulator: Emulator;
let written: WrittenReport;
let buildMs: number;
let browser: Browser;
let page: Page;
let blocked: string[];
let errors: string[];
/** The API's own answers, fetched separately from the report. */
const api = {} as {
  credits: CreditsRow[];
  previousCredits: CreditsRow[];
  activity: ActivityRow[];
  tools: ToolsRow[];
  productivity: ProductivityRow[];
  users: UserRow[];
  byModel: CreditsGroupedRow[];
};

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  emulator = await startEmulator();
  const client = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.owner, logLevel: "off" });

  const started = performance.now();
  written = await writeAnalyticsReport(client, range, { out: join(outDir, "report.html") });
  buildMs = performance.now() - started;
  console.log(`90-day report: ${Math.round(buildMs)} ms, ${written.bytes} bytes, ${written.report.topUsers.rows} /users rows`);

  const users: UserRow[] = [];
  for await (const row of client.analytics.users({ ...range, limit: 100 })) users.push(row);
  const [credits, previousCredits, activity, tools, productivity, byModel] = await Promise.all([
    client.analytics.tokens(range),
    client.analytics.tokens(previous),
    client.analytics.activity(range),
    client.analytics.tools(range),
    client.analytics.productivity(range),
    client.analytics.tokens({ ...range, group_by: "model" }),
  ]);
  Object.assign(api, {
    credits: credits.data,
    previousCredits: previousCredits.data,
    activity: activity.data,
    tools: tools.data,
    productivity: productivity.data,
    users,
    byModel: byModel.data,
  });

  browser = await launchChromium();
  // Only the report itself may load: anything else (a font, an image, a script, another file) is refused.
  ({ page, blocked, errors } = await openOffline(browser, pathToFileURL(written.path).href));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

const figure = (name: string) => page.locator(`[data-figure="${name}"]`).innerText();
/** The rows of a section's table whose header starts with `head`, as cell texts. */
const table = (section: string, head: string) =>
  page
    .locator(`#${section} table`)
    .filter({ has: page.locator("thead th").first().filter({ hasText: head }) })
    .first()
    .evaluate((t: HTMLTableElement) => [...t.rows].map((row) => [...row.cells].map((cell) => cell.textContent ?? "")));

describe("the 90-day report of the emulator", () => {
  test("builds in a few seconds", () => {
    expect(buildMs).toBeLessThan(15_000);
  });

  test("needed no network and logged no error", async () => {
    await page.reload();
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });

  test.each(SECTIONS)("section %s: a heading, a one-line takeaway and charts that are drawn", async (id) => {
    const section = page.locator(`section#${id}`);
    expect(await section.locator("h2").innerText()).not.toBe("");
    expect((await section.locator(".takeaway").innerText()).length).toBeGreaterThan(20);
    const charts = section.locator(".charts > svg, .charts > figure > svg");
    expect(await charts.count()).toBeGreaterThan(0);
    for (const chart of await charts.all()) {
      const box = (await chart.boundingBox())!;
      expect(box.width).toBeGreaterThan(300);
      expect(box.height).toBeGreaterThan(100);
      // Drawn: bars or lines, not an empty frame.
      expect(await chart.locator("rect, path").count()).toBeGreaterThan(3);
    }
  });

  test("key figures: credits, the previous period, active users, tool calls, commits and pull requests are the API's", async () => {
    expect(await figure("credits-total")).toBe(int(sum(api.credits, (r) => r.billable_tokens)));
    expect(await figure("previous-total")).toBe(int(sum(api.previousCredits, (r) => r.billable_tokens)));
    expect(await figure("mau-at-end")).toBe(int(api.activity.at(-1)!.monthly_active_users));
    const averageDau = sum(api.activity, (r) => r.daily_active_users) / api.activity.length;
    expect(await figure("average-dau")).toBe(new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 }).format(averageDau));
    expect(await figure("tool-calls")).toBe(int(sum(api.tools, (r) => r.tool_calls)));
    expect(await figure("commits")).toBe(int(sum(api.productivity, (r) => r.git_commits)));
    expect(await figure("pull-requests")).toBe(int(sum(api.productivity, (r) => r.git_prs_created)));
  });

  test("credits: the model table adds up to the API's total, and each bar's hover title is the API's figure", async () => {
    const rows = await table("credits", "Model");
    expect(rows.at(-1)).toEqual(["Total", int(sum(api.credits, (r) => r.billable_tokens)), "100.0%"]);
    const models = rows.slice(1, -1);
    for (const [model, credits] of models) {
      expect(credits).toBe(
        int(
          sum(
            api.credits.flatMap((r) => r.by_model.filter((m) => m.model_id === model)),
            (m) => m.billable_tokens,
          ),
        ),
      );
    }
    const titles = await page.locator("#credits svg title").allTextContents();
    expect(titles).toHaveLength(api.byModel.length);
    const sample = api.byModel[Math.floor(api.byModel.length / 2)]!;
    expect(titles).toContain(
      `${sample.date} · ${sample.group_key}: ${int(sample.billable_tokens)} credits (${int(api.credits.find((r) => r.date === sample.date)!.billable_tokens)} that day)`,
    );
  });

  test("active users: each day's hover title gives the API's daily, 7-day and 30-day figures", async () => {
    const titles = await page.locator("#activity svg[viewBox]").first().locator("title").allTextContents();
    expect(titles).toEqual(
      api.activity.map(
        (r) =>
          `${r.date}: ${int(r.daily_active_users)} that day, ${int(r.weekly_active_users)} in 7 days, ${int(r.monthly_active_users)} in 30 days`,
      ),
    );
  });

  test("the pointer over a bar, or anywhere above a day of a line chart, is on an element whose <title> has its numbers", async () => {
    const hovered = await page.evaluate(() =>
      [...document.querySelectorAll<SVGSVGElement>("section svg[viewBox]")].map((svg) => {
        const titled = [...svg.querySelectorAll(":scope title")].map((title) => title.parentElement!);
        const target = titled[Math.floor(titled.length / 2)];
        if (!target) return `${svg.closest("section")!.id}: no title in this chart`;
        // Over its middle; for a line chart's day that is half-way up the plot, where no line needs to be.
        target.scrollIntoView({ block: "center" });
        const box = target.getBoundingClientRect();
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return `${svg.closest("section")!.id}: ${hit?.querySelector(":scope > title")?.textContent ?? `no title under the pointer (${hit?.tagName})`}`;
      }),
    );
    expect(hovered.length).toBeGreaterThanOrEqual(9);
    for (const line of hovered) expect(line).toMatch(/^[\w-]+: (\d{4}-\d{2}-\d{2}|[^:]+: [\d,]+ )/);
  });

  test("top users: the 20 people with the most credits over every /users page, in order, with their credits", async () => {
    const byUser = new Map<string, { email: string; credits: number }>();
    for (const row of api.users) {
      const entry = byUser.get(row.user_id) ?? { email: row.user_email ?? row.user_id, credits: 0 };
      entry.credits += row.billable_tokens;
      byUser.set(row.user_id, entry);
    }
    const expected = [...byUser.values()].sort((a, b) => b.credits - a.credits).slice(0, 20);
    const rows = (await table("top-users", "#")).slice(1, -1);
    expect(rows.map((row) => [row[1], row[2]])).toEqual(expected.map((user) => [user.email, int(user.credits)]));
    // The bars carry the same names.
    const labels = await page.locator('#top-users svg g[aria-label="y-axis tick label"] text').allTextContents();
    expect(labels).toEqual(expected.map((user) => user.email));
  });

  test("tools, MCP servers, productivity and hooks: the tables' totals are the API's", async () => {
    expect((await table("tools", "Tool")).at(-1)!.slice(0, 2)).toEqual(["All tools", int(sum(api.tools, (r) => r.tool_calls))]);
    const mcp = sum(
      api.tools.flatMap((r) => r.mcp_by_server),
      (s) => s.invocations,
    );
    expect((await table("tools", "MCP server")).at(-1)!.slice(0, 2)).toEqual(["All servers", int(mcp)]);
    expect(await table("productivity", "")).toEqual([
      ["", "Total"],
      ["Files created", int(sum(api.productivity, (r) => r.files_created))],
      ["Files edited", int(sum(api.productivity, (r) => r.files_edited))],
      ["Commits", int(sum(api.productivity, (r) => r.git_commits))],
      ["Pull requests", int(sum(api.productivity, (r) => r.git_prs_created))],
    ]);
    expect((await table("hooks", "Event")).at(-1)!.at(-1)).toBe(int(sum(api.tools, (r) => r.hooks_invocations)));
  });

  test("nothing is clipped or overlaps: sections fit, axis labels stay inside their chart and apart", async () => {
    const problems = await page.evaluate(() => {
      const found: string[] = [];
      for (const section of document.querySelectorAll("section")) {
        if (section.scrollWidth > section.clientWidth + 1) found.push(`${section.id} is wider than the page`);
        const numbers = section.querySelector(".numbers")!;
        if (numbers.scrollWidth > numbers.clientWidth + 1) found.push(`${section.id}: its tables do not fit beside the charts`);
      }
      for (const svg of document.querySelectorAll<SVGSVGElement>("section svg[viewBox]")) {
        const frame = svg.getBoundingClientRect();
        const id = svg.closest("section")!.id;
        for (const axis of svg.querySelectorAll('g[aria-label$="tick label"]')) {
          const boxes = [...axis.querySelectorAll("text")].map((text) => ({ text: text.textContent, box: text.getBoundingClientRect() }));
          for (const { text, box } of boxes) {
            if (box.left < frame.left - 1 || box.right > frame.right + 1) found.push(`${id}: label ${text} is cut off`);
          }
          for (let i = 1; i < boxes.length; i++) {
            const [a, b] = [boxes[i - 1]!.box, boxes[i]!.box];
            const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
            if (!apart) found.push(`${id}: labels ${boxes[i - 1]!.text} and ${boxes[i]!.text} overlap`);
          }
        }
      }
      return found;
    });
    expect(problems).toEqual([]);
  });

  test("screenshots: the whole page, each section, and the page on a narrow screen", async () => {
    await page.screenshot({ path: join(outDir, "report.png"), fullPage: true });
    for (const id of SECTIONS) await page.locator(`section#${id}`).screenshot({ path: join(outDir, `${id}.png`) });
    await page.setViewportSize({ width: 820, height: 1000 });
    await page.screenshot({ path: join(outDir, "report-narrow.png"), fullPage: true });
    const overflowing = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    expect(overflowing).toBe(false);
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });
});
