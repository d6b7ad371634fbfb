// The rendered API reference (`npm run docs` → dist/docs/index.html) opened from disk in headless Chromium with
// every request outside the file blocked: it must need nothing else, log no error, and show every operation of
// the spec, each with its orgagent code sample. A screenshot is written to dist/docs/screenshot.png.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { root } from "../package/consumer-project.js";
import { launchChromium, openOffline } from "../runtimes/chromium.js";

interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  "x-codeSamples": { lang: string; label: string; source: string }[];
}
const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));
const operations: (Operation & { method: string; path: string })[] = Object.entries<Record<string, Operation>>(spec.paths)
  .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ ...operation, method, path })))
  .filter((operation) => operation.operationId);

const page$ = join(root, "dist", "docs", "index.html");
const pageUrl = pathToFileURL(page$).href;
const screenshot = join(root, "dist", "docs", "screenshot.png");

let browser: Browser;
let page: Page;
let blocked: string[];
let errors: string[];
/** Operation id (lowercase, as Redoc routes it) → the page's route to it. */
const routes = new Map<string, string>();

beforeAll(async () => {
  execFileSync(process.execPath, [join(root, "scripts", "docs.mjs")], { cwd: root, stdio: "ignore" });
  browser = await launchChromium();
  // Only the page itself may load: any other request (CDN, fonts, telemetry, even another file) is refused.
  ({ page, blocked, errors } = await openOffline(browser, pageUrl));

  // Open every tag in the sidebar and note the routes of the operations it lists.
  const tags = [...new Set(operations.flatMap((operation) => operation.tags))];
  const sidebar = page.locator('[data-component-name="Menu/Menu"]').first();
  for (const tag of tags) {
    await sidebar.getByText(tag, { exact: true }).first().click();
    for (const href of await sidebar.locator('a[href^="#/"]').evaluateAll((links) => links.map((a) => a.getAttribute("href")!))) {
      routes.set(href.split("/").pop()!, href);
    }
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the rendered API reference", () => {
  test("lists every operation of the spec in its sidebar, and nothing more", () => {
    expect([...routes.keys()].sort()).toEqual(operations.map((operation) => operation.operationId.toLowerCase()).sort());
  });

  test.each(operations)("renders $operationId: its summary, method and path, and its orgagent code sample", async (operation) => {
    const route = routes.get(operation.operationId.toLowerCase());
    expect(route).toBeDefined();
    await page.goto(`${pageUrl}${route}`);
    // Redoc gives each operation's section the id of its route.
    const section = page.locator(`[id="${route!.slice("#/".length)}"]`);
    await expect.poll(() => section.locator("h2").first().innerText()).toBe(operation.summary);
    expect(await section.innerText()).toContain(operation.path);

    const [sample] = operation["x-codeSamples"].filter(({ lang, label }) => lang === "TypeScript" && label === "orgagent");
    expect(sample).toBeDefined();
    const shown = (await section.locator('[data-component-name="CodeBlock/CodeBlock"]').first().innerText()).replace(/\s+/g, " ");
    for (const line of sample!.source.split("\n").map((l) => l.trim()).filter(Boolean)) {
      expect(shown).toContain(line.replace(/\s+/g, " "));
    }
  });

  test("needed no network and logged no error; a screenshot is written", async () => {
    // A fresh load of one operation, once its sample is shown and nothing moves any more.
    await page.goto(`${pageUrl}${routes.get("createsession")}`);
    await page.reload();
    await page.locator('[data-component-name="CodeBlock/CodeBlock"]').first().waitFor();
    // The search box says "Loading..." until its index is built.
    await page.waitForFunction(
      () =>
        !document.body.innerText.includes("Loading...") &&
        document.getAnimations().every((animation) => animation.playState !== "running"),
    );
    await page.screenshot({ path: screenshot });
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });
});
