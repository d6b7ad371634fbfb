// Headless Chromium from the Debian package (`apt-get install -y chromium`), driven by playwright-core.
// Playwright's own browser download cannot work here (only the npm registry and apt are reachable).
import { chromium, type Browser } from "playwright-core";

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
