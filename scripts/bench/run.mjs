// `npm run bench` / `npm run bench:quick`: orgagent measured side by side with raw fetch and its peers, every
// figure taken in this one run so the ratios hold on a noisy machine. Writes dist/bench/results.{json,md} and
// prints the table. With --check, exits 1 when a figure is past its failure line (a goal missed by more than its
// margin, or a regression guard crossed).
//   node --expose-gc scripts/bench/run.mjs [--quick] [--check]
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { measureBundles } from "./bundle.mjs";
import { measureImports } from "./import-time.mjs";
import { buildSdk, fmt, median, outDir, pairedRatio, ratio, root, table } from "./lib.mjs";
import { startServer } from "./loopback.mjs";
import { measureOverhead } from "./overhead.mjs";
import { CONCURRENCY, measureThroughput } from "./throughput.mjs";

const args = new Set(process.argv.slice(2));
const quick = args.has("--quick");
const check = args.has("--check");

const SETTINGS = quick
  ? {
      overhead: { warmup: 1_500, rounds: 21, calls: 200 },
      throughput: { rounds: 31, sequentialCalls: 100, concurrentCalls: 960 },
      // orgagent only, live heap only: the figure the check needs.
      memory: { runs: 1, clients: ["orgagent"], rawPeak: false },
      importRuns: 5,
    }
  : {
      overhead: { warmup: 3_000, rounds: 41, calls: 250 },
      throughput: { rounds: 41, sequentialCalls: 200, concurrentCalls: 1280 },
      memory: { runs: 3, clients: ["orgagent", "fetch"], rawPeak: true },
      importRuns: 15,
    };
const MEMORY_SIZES = [10_000, 100_000];
const KB = 1000; // sizes are reported in kB of 1,000 bytes
const MB = 1e6;
// Live-heap growth below this is measurement noise (Node's fetch alone moves by ~0.5 MB over 1,000 requests):
// the flatness ratio counts anything smaller as this much, so 0.1 MB → 0.5 MB does not read as "5× more".
const MEMORY_NOISE_FLOOR = 1 * MB;

/**
 * What --check holds the figures to. A goal has a target and a wider failure margin; a regression guard has no
 * target, only a line that real regressions cross (wide, so a noisy machine does not fail CI). Per-call overhead and
 * loopback throughput are guards: their goals were met, and nothing may trade correctness or connection release for
 * them. Throughput ratios move by up to ±0.1 between quick runs on a loaded 2-core machine, and every attempt carries
 * an AbortSignal (about 0.85× raw fetch with 32 in flight), so the concurrent line sits at 0.7. The bundle size is
 * deterministic: its guard sits just over the current size (see docs/performance.md), so any growth fails at once.
 */
const TARGETS = [
  {
    what: "per-call overhead, orgagent computers.get ÷ bare openapi-fetch",
    // The goal is 1.2; the same code measured 1.09 to 1.26 in quick runs on 2026-11-27, so CI fails only
    // past 1.3, and a run over 1.2 reads "missed".
    target: 1.2,
    fail: 1.3,
    higherIsBetter: false,
    value: (r) => r.overhead.ratios.orgagentToOpenapiFetch,
  },
  {
    what: "per-call overhead, orgagent computers.get ÷ fastest full-featured peer",
    fail: 0.75,
    higherIsBetter: false,
    value: (r) => r.overhead.ratios.orgagentToFastestPeer,
  },
  {
    what: "loopback throughput sequential, orgagent ÷ raw fetch",
    fail: 0.75,
    higherIsBetter: true,
    value: (r) => r.throughput.ratios.sequential,
  },
  {
    what: `loopback throughput ${CONCURRENCY} concurrent, orgagent ÷ raw fetch`,
    fail: 0.7,
    higherIsBetter: true,
    value: (r) => r.throughput.ratios.concurrent,
  },
  {
    what: "bundle, orgagent min+gzip (kB)",
    // The measured size (25.35 kB) and a little: what each part costs is in docs/performance.md. It was 18.24 kB
    // before the one request pipeline (middleware on every call, client.request, plugins, raw under the same
    // limits, credentials scrubbed from every error field, unknown keys refused with a suggestion: 21.38 kB), and the
    // rate controller with its header dialects added about 3.9 kB.
    fail: 25.6,
    higherIsBetter: false,
    value: (r) => r.bundle.sizes.find((s) => s.name === "orgagent").gzip / KB,
  },
  {
    what: "pagination memory, live heap peak 100k ÷ 10k rows (1 MB floor)",
    target: 1.5,
    fail: 3,
    higherIsBetter: false,
    value: (r) => r.memory.ratios.live,
  },
];

const run = promisify(execFile);
const step = (name) => process.stderr.write(`bench: ${name}…\n`);

async function memory(sdkUrl, baseUrl) {
  const script = fileURLToPath(new URL("paginate-memory.mjs", import.meta.url));
  const { runs, clients, rawPeak } = SETTINGS.memory;
  const results = [];
  for (const client of clients) {
    for (const rows of MEMORY_SIZES) {
      const samples = [];
      for (let i = 0; i < runs; i++) {
        const argv = ["--expose-gc", script, client, sdkUrl, baseUrl, String(rows), ...(rawPeak ? ["raw"] : [])];
        const { stdout } = await run(process.execPath, argv, { cwd: root, maxBuffer: 1 << 20 });
        samples.push(JSON.parse(stdout));
      }
      const mid = (key) => (samples[0][key] === undefined ? undefined : median(samples.map((r) => r[key])));
      results.push({ client, rows, livePeak: mid("livePeak"), rawPeak: mid("rawPeak"), ms: mid("ms") });
    }
  }
  return results;
}

async function main() {
  const started = performance.now();
  step("building orgagent from src/ with esbuild");
  const sdkUrl = pathToFileURL(await buildSdk()).href;

  step("per-call overhead (stubbed fetch)");
  const calls = await measureOverhead(sdkUrl, SETTINGS.overhead);
  const roundsOf = (name) => calls.find((c) => c.name === name).cpuRounds;
  const bare = roundsOf("openapi-fetch (bare)");
  for (const c of calls) c.toOpenapiFetch = pairedRatio(c.cpuRounds, bare);
  const fastestPeer = calls.filter((c) => c.fullFeatured).reduce((a, b) => (b.cpu < a.cpu ? b : a));
  const overhead = {
    calls,
    ratios: {
      orgagentToOpenapiFetch: pairedRatio(roundsOf("orgagent computers.get"), bare),
      rawToOpenapiFetch: pairedRatio(roundsOf("orgagent client.raw.GET"), bare),
      orgagentToFastestPeer: pairedRatio(roundsOf("orgagent computers.get"), fastestPeer.cpuRounds),
      fastestPeer: fastestPeer.name,
    },
  };

  step("loopback throughput and pagination memory");
  const server = await startServer();
  let throughput;
  let memoryRows;
  try {
    const rates = await measureThroughput(sdkUrl, server.url, SETTINGS.throughput);
    const rawFetch = rates.find((r) => r.name === "raw fetch");
    for (const r of rates) {
      r.sequentialToFetch = pairedRatio(r.sequentialRounds, rawFetch.sequentialRounds);
      r.concurrentToFetch = pairedRatio(r.concurrentRounds, rawFetch.concurrentRounds);
    }
    const orgagent = rates.find((r) => r.name === "orgagent analytics.users");
    throughput = {
      rates,
      ratios: { sequential: orgagent.sequentialToFetch, concurrent: orgagent.concurrentToFetch },
    };
    memoryRows = await memory(sdkUrl, server.url);
  } finally {
    await server.stop();
  }
  const [small, large] = MEMORY_SIZES.map((rows) => memoryRows.find((m) => m.client === "orgagent" && m.rows === rows));
  const floored = (bytes) => Math.max(bytes, MEMORY_NOISE_FLOOR);
  const memoryResult = {
    sizes: memoryRows,
    ratios: {
      live: floored(large.livePeak) / floored(small.livePeak),
      raw: large.rawPeak === undefined ? undefined : large.rawPeak / small.rawPeak,
    },
  };

  step("bundle sizes (esbuild, minified, gzip -9)");
  const bundle = await measureBundles();

  step("cold import time");
  const imports = await measureImports(
    [
      { name: "orgagent", specifier: sdkUrl },
      { name: "openapi-fetch", specifier: "openapi-fetch" },
      { name: "@octokit/core", specifier: "@octokit/core" },
      { name: "openai", specifier: "openai" },
      { name: "@anthropic-ai/sdk", specifier: "@anthropic-ai/sdk" },
    ],
    SETTINGS.importRuns,
  );

  const results = {
    date: new Date().toISOString(),
    mode: quick ? "quick" : "full",
    machine: {
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
    },
    settings: SETTINGS,
    overhead,
    throughput,
    memory: memoryResult,
    bundle,
    imports,
    seconds: (performance.now() - started) / 1000,
  };
  results.targets = TARGETS.map((t) => {
    const value = t.value(results);
    const fails = t.higherIsBetter ? value < t.fail : value > t.fail;
    const meets = t.target === undefined || (t.higherIsBetter ? value >= t.target : value <= t.target);
    const status = fails ? "FAIL" : t.target === undefined ? "ok" : meets ? "met" : "missed";
    return { what: t.what, value, target: t.target ?? null, failMargin: t.fail, status };
  });

  const markdown = render(results);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}results.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${outDir}results.md`, markdown);
  process.stdout.write(markdown);
  process.stderr.write(`bench: wrote dist/bench/results.{json,md} in ${results.seconds.toFixed(0)} s\n`);
  const failed = results.targets.filter((t) => t.status === "FAIL");
  if (check && failed.length) {
    process.stderr.write(`bench: ${failed.length} figure(s) past their failure line:\n`);
    for (const t of failed) process.stderr.write(`  ${t.what}: ${fmt(t.value, 2)} (fail past ${t.failMargin})\n`);
    process.exitCode = 1;
  }
}

function render(r) {
  const openapiFetchSize = r.bundle.sizes.find((s) => s.name === "openapi-fetch");
  const openapiFetchImport = r.imports.find((i) => i.name === "openapi-fetch").ms;
  const parts = r.bundle.orgagentParts;
  const sections = [
    `## Benchmark (${r.mode}) — ${r.date.slice(0, 10)}, Node ${r.machine.node}, ${r.machine.platform}, ${r.machine.cores} × ${r.machine.cpu}`,
    "",
    "### 1. Per-call overhead (stubbed fetch, fixed JSON body)",
    "",
    `CPU time of this process per call (median of ${r.settings.overhead.rounds} interleaved rounds of ${r.settings.overhead.calls} calls), wall time alongside; ` +
      "ratios are the median of each round's ratio.",
    "",
    table(
      ["client", "CPU µs/call", "wall µs/call", "÷ bare openapi-fetch"],
      r.overhead.calls.map((c) => [c.name, fmt(c.cpu), fmt(c.wall), ratio(c.toOpenapiFetch)]),
    ),
    "",
    "### 2. Loopback throughput (node:http on 127.0.0.1, `/users` example page)",
    "",
    `Median requests per second of ${r.settings.throughput.rounds} rounds. Sequential: ${r.settings.throughput.sequentialCalls} calls each, ` +
      `the clients taking turns call by call; concurrent: ${r.settings.throughput.concurrentCalls} calls with ${CONCURRENCY} in flight, ` +
      `the clients one after another in a new random order. Ratios are the median of each round's ratio.`,
    "",
    table(
      ["client", "sequential req/s", "÷ raw fetch", `${CONCURRENCY} concurrent req/s`, "÷ raw fetch"],
      r.throughput.rates.map((x) => [
        x.name,
        fmt(x.sequential, 0),
        ratio(x.sequentialToFetch),
        fmt(x.concurrent, 0),
        ratio(x.concurrentToFetch),
      ]),
    ),
    "",
    "### 3. Bundle size (esbuild, browser, minified; gzip -9; one client, one call)",
    "",
    table(
      ["entry", "min kB", "min+gzip kB", "÷ openapi-fetch"],
      r.bundle.sizes.map((s) => [s.name, fmt(s.min / KB), fmt(s.gzip / KB), ratio(s.gzip / openapiFetchSize.gzip)]),
    ),
    "",
    `Inside orgagent's bundle (minified bytes): src/ ${fmt(parts.srcMin / KB)} kB, openapi-fetch ${fmt(parts.openapiFetchMin / KB)} kB, ` +
      `generated/spec-tables.ts ${fmt(parts.specTablesMin / KB)} kB (${fmt(parts.specTablesAloneGzip / KB)} kB gzipped on its own).`,
    "",
    "### 4. Pagination memory (every row of `/users`, pages of 100, fresh process each)",
    "",
    "Live heap peak: highest heapUsed after a full GC every 10 pages, over the post-warm-up baseline. " +
      "Raw heap peak: highest heapUsed after each page with no forced GC (includes uncollected garbage, so it follows V8's heap sizing).",
    "",
    table(
      ["client", "rows", "live heap peak MB", "raw heap peak MB", "time s"],
      r.memory.sizes.map((m) => [
        m.client === "fetch" ? "hand-written fetch loop" : "orgagent `for await` analytics.users",
        m.rows.toLocaleString("en-US"),
        fmt(m.livePeak / MB, 2),
        m.rawPeak === undefined ? "–" : fmt(m.rawPeak / MB, 1),
        fmt(m.ms / 1000, 2),
      ]),
    ),
    "",
    `orgagent, 100k ÷ 10k rows: live ${ratio(r.memory.ratios.live)} (each side floored at ${MEMORY_NOISE_FLOOR / MB} MB)` +
      (r.memory.ratios.raw === undefined ? "." : `, raw ${ratio(r.memory.ratios.raw)}.`),
    "",
    "### 5. Cold import time (fresh process each, median)",
    "",
    table(
      ["module", "ms", "÷ openapi-fetch"],
      r.imports.map((i) => [i.name, fmt(i.ms, 1), ratio(i.ms / openapiFetchImport)]),
    ),
    "",
    "### Goals and regression guards",
    "",
    table(
      ["figure", "measured", "goal", "fails past", "status"],
      r.targets.map((t) => [t.what, fmt(t.value, 2), t.target === null ? "guard" : String(t.target), String(t.failMargin), t.status]),
    ),
    "",
  ];
  return sections.join("\n");
}

await main();
