#!/usr/bin/env node
// `npm run docs`: the API reference as one self-contained page, dist/docs/index.html, rendered by Redoc from the
// bundled spec. `--inlineBundle` embeds Redoc's script (without it the page loads Redoc from a CDN), so the
// page opens from disk with no network. Telemetry is off, both in the CLI and in the page (Redoc's
// `disableTelemetry`, set from `telemetry: off` in scripts/docs.redocly.yaml).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const docsFile = join(root, "dist", "docs", "index.html");

execFileSync(
  join(root, "node_modules", ".bin", "redocly"),
  [
    "build-docs",
    "generated/openapi.yaml",
    "--config",
    "scripts/docs.redocly.yaml",
    "--output",
    docsFile,
    "--inlineBundle",
    "--title",
    "orgagent API reference",
  ],
  {
    cwd: root,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    // Redocly prints a Node 20 deprecation banner on stdout; keep only errors.
    stdio: ["ignore", "ignore", "inherit"],
  },
);
// Redoc 3 always shows "API docs by <Redocly logo>" in the sidebar and loads that logo from its CDN: the one
// request the page would make. Keep the attribution, drawn inline instead.
const cdnLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const inlineLogo = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16">' +
    '<text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="bold" fill="#0044d4">Redocly</text></svg>',
)}`;
const html = readFileSync(docsFile, "utf8");
if (!cdnLogo.test(html)) console.warn("docs: Redoc's CDN logo URL was not found; check the page for other network requests");
writeFileSync(docsFile, html.replace(cdnLogo, inlineLogo));

console.log(`docs: ${relative(process.cwd(), docsFile)} (open it in a browser; it needs no network)`);
