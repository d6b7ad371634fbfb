// Headless Chromium from the Debian package (`apt-get install -y chromium`), driven by playwright-core.
// Playwright's own browser download cannot work here (only the npm registry and apt are reachable).
import { chromium, type Browser, type Page } from "playwright-core";

export const chromiumPath = "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export interface OfflinePage {
  page: Page;
  /** Every request the page made other than for itself (each refused). */
  blocked: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

/** Opens a page from a `file://` URL with every other request refused, recording what it tried and what failed. */
export async function openOffline(browser: Browser, pageUrl: string, viewport = { width: 1440, height: 900 }): Promise<OfflinePage> {
  const page = await browser.newPage({ viewport });
  const blocked: string[] = [];
  const errors: string[] = [];
  await page.route("**/*", (route) => {
    const url = route.request().url().split("#")[0]!;
    if (url === pageUrl) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(pageUrl);
  return { page, blocked, errors };
}
