// The rendered API reference (`npm run docs` → dist/docs/index.html) opened from disk in headless Chromium, 1440×900,
// with every request outside the file blocked. What a reader must find there:
// - the guide sections of the spec's introduction in the navigation, then every operation, then Hooks with the hook
//   payloads as schemas (never as HTTP operations or webhooks);
// - both hosts with their concrete URLs in the Servers card, and each operation on its own host's URL, also after
//   moving around the page;
// - for every operation its TypeScript, CLI and curl samples, exactly as the spec (and scripts/reference-spec.mjs)
//   give them, none of them clipped, and the hand-written ones not even wrapped;
// - unions named by their variants, never "Array of any";
// - no network request and no console error.
// Screenshots of what these checks look at are written to dist/docs/screenshot-*.png.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CURL_LABEL, curlSample, operationsOf, serverOf } from "../../scripts/reference-spec.mjs";
import { root } from "../package/consumer-project.js";
import { launchChromium, openOffline } from "../runtimes/chromium.js";

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}
const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));
const operations = operationsOf(spec).map(([path, method, operation]) => ({
  path,
  method,
  operationId: operation.operationId as string,
  summary: operation.summary as string,
  samples: [...(operation["x-codeSamples"] as CodeSample[]), { lang: "Shell", label: CURL_LABEL, source: curlSample(spec, path, method) }],
}));
/** The guide sections: the headings of the spec's introduction. */
const guideSections = [...(spec.info.description as string).matchAll(/^## (.+)$/gm)].map(([, title]) => title!);
const hookSchemas = Object.entries<{ "x-tags"?: string[] }>(spec.components.schemas)
  .filter(([, schema]) => schema["x-tags"]?.includes("Hooks"))
  .map(([name]) => name);
const webhookOperationIds = Object.values<{ post: { operationId: string } }>(spec.webhooks).map((item) => item.post.operationId);

const pageUrl = pathToFileURL(join(root, "dist", "docs", "index.html")).href;
const screenshotFile = (name: string) => join(root, "dist", "docs", `screenshot-${name}.png`);

let browser: Browser;
let page: Page;
let blocked: string[];
let errors: string[];
/** Every link of the sidebar, with every group opened: its route, its text and its badge (GET, SCHEMA…). */
let sidebar: { route: string; text: string; badge: string }[];

const sidebarMenu = () => page.locator('[data-component-name="Menu/Menu"]').first();
const sectionOf = (route: string) => page.locator(`[id="${route.replace(/^#?\//, "")}"]`);

/** A screenshot of the page (or of one element) once nothing moves any more. */
async function screenshot(name: string, element?: Locator) {
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== "running"));
  await (element ?? page).screenshot({ path: screenshotFile(name) });
}

/** Moves to a route as a reader does: opens its group in the sidebar if needed, then clicks its link. */
async function open(route: string) {
  const link = sidebarMenu().locator(`a[href="${route}"]`);
  if (!(await link.isVisible()))
    await sidebarMenu()
      .locator(`a[href="/${route.replace(/^#\//, "").split("/")[0]}"]`)
      .click();
  await link.click();
  return sectionOf(route);
}
const normalized = (text: string) => text.replace(/\s+/g, " ").trim();

beforeAll(async () => {
  execFileSync(process.execPath, [join(root, "scripts", "docs.mjs")], { cwd: root, stdio: "ignore" });
  browser = await launchChromium();
  // Only the page itself may load: any other request (CDN, fonts, telemetry, even another file) is refused.
  ({ page, blocked, errors } = await openOffline(browser, pageUrl));
  await sidebarMenu().waitFor();
  // The sidebar shows one group's links at a time: open each group and note what it lists.
  const seen = new Map<string, { route: string; text: string; badge: string }>();
  for (const tag of [undefined, ...(spec.tags as { name: string }[])]) {
    if (tag) {
      const group = sidebarMenu()
        .locator("a")
        .filter({ has: page.getByText(tag.name, { exact: true }) })
        .last();
      await group.click();
      // The group's links appear after the click, not with it: wait for the first one (`/hooks` → `#/hooks/…`).
      await sidebarMenu()
        .locator(`a[href^="#${await group.getAttribute("href")}/"]`)
        .first()
        .waitFor();
    }
    const links = await sidebarMenu()
      .locator("a")
      .evaluateAll((anchors) =>
        anchors.map((a) => {
          const tag = a.querySelector<HTMLElement>('[data-component-name="Tags/HttpTag"]');
          const badge = tag?.innerText.trim().toUpperCase() ?? "";
          const text = (a as HTMLElement).innerText
            .replace(tag?.innerText ?? "", "")
            .replace(/\s+/g, " ")
            .trim();
          return { route: a.getAttribute("href")!, text, badge };
        }),
      );
    for (const link of links) seen.set(link.route, link);
  }
  sidebar = [...seen.values()];
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** The samples panel of an operation: the URL dropdown, the language dropdown and the code block. */
function samplesPanel(section: Locator) {
  const panel = section
    .locator('[data-component-name="Panel/Panel"]')
    .filter({ has: page.locator('[data-component-name="CodeBlock/CodeBlock"]') })
    .first();
  return {
    urlMenu: panel.locator('[data-component-name="Dropdown/Dropdown"]').first(),
    languageMenu: panel.locator('[data-component-name="Dropdown/Dropdown"]').nth(1),
    code: panel.locator('[data-component-name="CodeBlock/CodeBlock"] pre').first(),
  };
}

/** The items of the open dropdown menu (Redoc draws it outside the dropdown, at the end of the page). */
const openMenuItems = () => page.locator('[role="menu"]:visible [role="menuitem"]');

/**
 * Chooses an item of a samples dropdown, as a reader does. Redoc draws the open menu in a fixed layer, where the
 * dropdown's button was when it opened; if the page scrolls after that (Redoc's own scrolling can land late on a
 * loaded machine), the menu stays where it was, off screen, and no click can reach it. A reader would close it and
 * open it again: so does this, until the item is on screen.
 */
async function choose(dropdown: Locator, label: string) {
  await expect
    .poll(
      async () => {
        if ((await openMenuItems().count()) === 0) await dropdown.locator("button").first().click();
        const item = openMenuItems().filter({ hasText: label }).first();
        const box = await item.boundingBox();
        const height = page.viewportSize()!.height;
        if (box && box.y >= 0 && box.y + box.height <= height)
          return item.click({ timeout: 5_000 }).then(
            () => true,
            () => false,
          );
        await dropdown.locator("button").first().click();
        return false;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** Lines of a code block cut off at its right edge, and lines the browser had to wrap. */
async function overflowOf(code: Locator) {
  return code.evaluate((pre) => ({
    clipped: pre.scrollWidth > pre.clientWidth,
    wrapped: [...pre.querySelectorAll(".line")]
      .filter((line) => new Set([...line.getClientRects()].map((rect) => Math.round(rect.top))).size > 1)
      .map((line) => line.textContent ?? ""),
  }));
}

describe("the rendered API reference", () => {
  test("has the guide sections in its navigation, then every operation, then Hooks with the hook payload schemas", () => {
    expect(guideSections).toEqual(expect.arrayContaining(["Authentication", "Errors", "Pagination", "Rate limits", "Versioning"]));
    expect(sidebar.filter(({ route }) => route.startsWith("/section/")).map(({ text }) => text)).toEqual(guideSections);

    const operationLinks = sidebar.filter(({ badge }) => /^(GET|POST|PUT|PATCH|DELETE)$/.test(badge));
    expect(operationLinks.map(({ route }) => route.split("/").pop()).sort()).toEqual(
      operations.map(({ operationId }) => operationId.toLowerCase()).sort(),
    );
    expect(sidebar.map(({ text }) => text)).toContain("Hooks");
    expect(sidebar.filter(({ route }) => route.startsWith("#/hooks/"))).toEqual(
      hookSchemas.map((name) => ({ route: `#/hooks/${name.toLowerCase()}`, text: name, badge: "SCHEMA" })),
    );
  });

  test("shows both hosts with their concrete URLs in the Servers card", async () => {
    await page.goto(pageUrl);
    const card = page.locator('[data-component-name="Panel/Panel"]').filter({ hasText: "Servers" }).first();
    const text = await card.innerText();
    const servers = [...new Map(operations.map(({ path }) => [serverOf(spec, path).url, serverOf(spec, path)])).values()];
    expect(servers.map(({ url }) => url)).toEqual(["https://api.orgagent.dev", "https://app.orgagent.dev"]);
    for (const server of servers) {
      expect(text).toContain(server.url);
      expect(text).toContain(server.description);
    }
    expect(text).not.toMatch(/[{}]|file:/);
    await screenshot("servers", card);
    await screenshot("overview");
  });

  test.each(operations)(
    "renders $operationId on its own host's URL, with its TypeScript, CLI and curl samples, none clipped",
    async (operation) => {
      const link = sidebar.find(({ route }) => route.endsWith(`/${operation.operationId.toLowerCase()}`));
      expect(link).toBeDefined();
      // In-page navigation, as a reader moves around: the URLs shown must stay the server's, never the file's.
      const section = await open(link!.route);
      await expect.poll(() => section.locator("h2").first().innerText()).toBe(operation.summary);
      const { urlMenu, languageMenu, code } = samplesPanel(section);

      await urlMenu.locator("button").first().click();
      const urls = await openMenuItems().allInnerTexts();
      expect(urls.map(normalized)).toEqual([expect.stringContaining(serverOf(spec, operation.path).url + operation.path)]);
      await urlMenu.locator("button").first().click();
      await expect.poll(() => openMenuItems().count()).toBe(0);

      await languageMenu.locator("button").first().click();
      const labels = await openMenuItems().allInnerTexts();
      expect(labels.map(normalized)).toEqual(["TypeScript", "orgagent CLI", "curl"]);
      for (const sample of operation.samples) {
        await choose(languageMenu, sample.label);
        await expect.poll(async () => normalized(await code.innerText())).toBe(normalized(sample.source));
        const { clipped, wrapped } = await overflowOf(code);
        expect(clipped, `${sample.label}: a line is cut off`).toBe(false);
        // Hand-written samples are written to fit; a generated curl line (a long URL) may wrap.
        if (sample.label !== CURL_LABEL) expect(wrapped, `${sample.label}: lines wrapped at 1440 px`).toEqual([]);
        if (operation.operationId === "createSession") {
          await screenshot(`createsession-${sample.label.replace(/\W+/g, "-").toLowerCase()}`, section);
        }
      }
    },
  );

  test("presents hooks as payload schemas with a parseHookInput sample, not as HTTP operations", async () => {
    const hooks = await open("/hooks");
    await hooks.waitFor();
    const text = await hooks.innerText();
    expect(text).toContain("Not HTTP");
    expect(text).toContain("parseHookInput(");
    const code = hooks.locator("pre").first();
    expect(await overflowOf(code)).toEqual({ clipped: false, wrapped: [] });
    await screenshot("hooks");

    for (const name of hookSchemas) {
      const schema = await open(`#/hooks/${name.toLowerCase()}`);
      await expect.poll(() => schema.locator("h2").first().innerText()).toBe(name);
    }
    // Nowhere an operation, a webhook or a method badge for the hook payloads.
    const ids = await page.locator("[id]").evaluateAll((nodes) => nodes.map((node) => node.id.toLowerCase()));
    for (const operationId of webhookOperationIds) expect(ids.filter((id) => id.includes(operationId.toLowerCase()))).toEqual([]);
    // (The Hooks section may name the spec's `webhooks` entries; no badge or heading may call a hook a webhook.)
    expect(await page.locator("body").innerText()).not.toMatch(/\b(POST|GET) (hookInput|hooksSettings)\b|\bwebhook\b/i);
    expect(sidebar.filter(({ badge }) => /webhook/i.test(badge))).toEqual([]);
  });

  test("names union fields by their variants, never 'Array of any'", async () => {
    const routes = sidebar.filter(({ badge }) => badge).map(({ route }) => route);
    expect(routes.length).toBe(operations.length + hookSchemas.length);
    const found: string[] = [];
    for (const route of routes) {
      const section = await open(route);
      await section.locator("h2").first().waitFor();
      // Each "Expand all" becomes "Collapse all" once clicked.
      const expand = section.getByText("Expand all", { exact: true });
      for (let left = await expand.count(); left > 0; left--) await expand.first().click();
      const text = await section.innerText();
      for (const match of text.match(/Array of any\b.*|\bany\b(?= or )/g) ?? []) found.push(`${route}: ${match}`);
    }
    expect(found).toEqual([]);
  });

  test("needed no network and logged no error", () => {
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });
});
