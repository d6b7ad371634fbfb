// Shared pieces of the benchmark: statistics, fixtures read from the bundled spec, and the esbuild build of the
// SDK that every section measures (the compiled JavaScript a user runs, not the TypeScript source under a loader).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { deref as derefIn } from "../spec-tables.mjs";

export const root = fileURLToPath(new URL("../../", import.meta.url));
/** Where the results go (gitignored). */
export const outDir = `${root}dist/bench/`;
/**
 * orgagent built from src/index.ts as a package build would ship it: ESM, openapi-fetch left as an import.
 * Kept under node_modules/.cache (not dist/, which `npm run build` clears) so openapi-fetch still resolves.
 */
export const sdkBundle = `${root}node_modules/.cache/orgagent-bench/orgagent.mjs`;

export async function buildSdk() {
  await build({
    entryPoints: [`${root}src/index.ts`],
    outfile: sdkBundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["openapi-fetch"],
    logLevel: "error",
  });
  return sdkBundle;
}

/** The emulator (orgagent/emulator) built the same way, for the jobs benchmark's server process. */
export const emulatorBundle = `${root}node_modules/.cache/orgagent-bench/emulator.mjs`;

export async function buildEmulator() {
  await build({
    entryPoints: [`${root}src/emulator/index.ts`],
    outfile: emulatorBundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
  });
  return emulatorBundle;
}

/**
 * The SDK's rate controllers alone (src/core/rate-registry.ts, one per key and host), built the same way, for a
 * contender that paces by them.
 */
export const rateControllerBundle = `${root}node_modules/.cache/orgagent-bench/rate-registry.mjs`;

export async function buildRateController() {
  await build({
    entryPoints: [`${root}src/core/rate-registry.ts`],
    outfile: rateControllerBundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
  });
  return rateControllerBundle;
}

/**
 * A hand-written loop over the pages of /users, as a user would write it without an SDK: fetch, parse, follow
 * `meta.next_cursor` while `meta.has_more`. Yields each page.
 */
export async function* cursorLoop(url, query, headers) {
  let cursor;
  for (;;) {
    const search = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${url}?${search}`, { headers });
    if (!response.ok) throw new Error(`cursor loop: ${response.status}`);
    const page = await response.json();
    yield page;
    if (!page.meta.has_more) return;
    cursor = page.meta.next_cursor;
  }
}

const spec = JSON.parse(readFileSync(`${root}generated/openapi.json`, "utf8"));

const deref = (node) => derefIn(spec, node);

/** The first example of an operation's 200 JSON response, with its path and method. */
function example(path, method = "get") {
  const media = deref(spec.paths[path][method].responses["200"]).content["application/json"];
  const first = Object.values(media.examples)[0];
  return deref(first).value;
}

function usersExample() {
  const path = Object.keys(spec.paths).find((p) => spec.paths[p].get?.operationId === "listAnalyticsUsers");
  const page = example(path);
  return {
    path,
    page,
    // The example's own date range, so the SDK's validation (earliest date, not after yesterday) accepts it.
    query: { startDate: page.meta.start_date, endDate: page.meta.end_date },
  };
}

function computerExample() {
  const path = Object.keys(spec.paths).find((p) => spec.paths[p].get?.operationId === "getComputer");
  const body = example(path);
  return { path, body, computerId: body.id };
}

/** The API host's documented URL: only stubbed fetches use it, so nothing is sent there. */
const baseUrl = spec.servers[0].url;

export const fixtures = { baseUrl, users: usersExample(), computer: computerExample() };

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median over rounds of a[i] ÷ b[i]: each round's two figures were taken moments apart, so a burst of load
 * from elsewhere on the machine affects both and cancels out of the ratio.
 */
export function pairedRatio(a, b) {
  return median(a.map((value, i) => value / b[i]));
}

export function shuffle(items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A markdown table from a header row and rows of cells. */
export function table(header, rows) {
  const lines = [header, header.map(() => "---"), ...rows];
  return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

export const fmt = (value, digits = 1) =>
  value === undefined || Number.isNaN(value)
    ? "–"
    : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const ratio = (value) => (value === undefined || Number.isNaN(value) ? "–" : `${value.toFixed(2)}×`);
