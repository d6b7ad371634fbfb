#!/usr/bin/env node
// `npm run docs`: the API reference as one self-contained page, dist/docs/index.html, rendered by Redoc from the
// bundled spec as `referenceSpec` shows it (scripts/reference-spec.mjs: every host in the Servers card, a curl
// sample on every operation). `--inlineBundle` embeds Redoc's script (without it the page loads Redoc from a CDN),
// so the page opens from disk with no network. Telemetry is off, both in the CLI and in the page (Redoc's
// `disableTelemetry`, set from `telemetry: off` in scripts/docs.redocly.yaml).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { referenceSpec } from "./reference-spec.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const docsFile = join(root, "dist", "docs", "index.html");

const work = mkdtempSync(join(tmpdir(), "orgagent-docs-"));
try {
  const specFile = join(work, "openapi.json");
  const bundle = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));
  writeFileSync(specFile, JSON.stringify(referenceSpec(bundle)));
  execFileSync(
    join(root, "node_modules", ".bin", "redocly"),
    [
      "build-docs",
      specFile,
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
} finally {
  rmSync(work, { recursive: true, force: true });
}

// Redoc 3 always shows "API docs by <Redocly logo>" in the sidebar and loads that logo from its CDN: the one
// request the page would make. Keep the attribution, drawn inline instead.
const cdnLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const inlineLogo = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16">' +
    '<text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="bold" fill="#0044d4">Redocly</text></svg>',
)}`;
// Redoc scrolls a long code line sideways with no visible scroll bar, so its end looks cut off. Wrap it instead, in
// the samples panel and in code blocks of descriptions alike: the samples are written to fit a 1440-pixel-wide
// window, and wrap on narrower ones. (`!important`: Redoc adds its own styles after this one, at load.)
const wrapCode = ["CodeBlock/CodeBlock", "Markdown/Markdown"].map((name) => `[data-component-name="${name}"] pre`);
const style = `<style>${wrapCode.join(", ")} { white-space: pre-wrap !important; overflow-wrap: anywhere; }</style>`;

let html = readFileSync(docsFile, "utf8");
if (!cdnLogo.test(html)) console.warn("docs: Redoc's CDN logo URL was not found; check the page for other network requests");
html = html.replace(cdnLogo, inlineLogo);
if (!html.includes("</head>")) throw new Error("docs: no </head> in Redoc's page to add the code-wrapping style to");
writeFileSync(docsFile, html.replace("</head>", `${style}</head>`));

console.log(`docs: ${relative(process.cwd(), docsFile)} (open it in a browser; it needs no network)`);
