// `npm run bench:jobs`: the jobs users wait for, over a network: every figure against emulators with a 50 ms
// latency on every answer, in a server process of their own, in this one run. A full /users export (a hand-written
// cursor loop, orgagent's one chain, date windows 8 and 16 at once), credit limits for 10,000 people (chunks one
// after another and at once), both jobs under a 20 requests-per-second rate limit in every style the emulator speaks
// (orgagent next to a plain sequential loop and p-limit), small limits jobs against the round-trip bound, and the
// export's live heap with 16 windows at once against one chain. Writes dist/bench/jobs.{json,md} and prints the
// tables. With --check, exits 1 when a goal is missed by more than its failure margin; --quick runs a shorter version
// of each job (and only orgagent under the rate limits); --styles bucket,window runs only those styles, --sections
// rate,small only those sections (export, limits, rate, small, memory), --contenders loop,paced only the contenders of the
// rate section whose names contain one of those words.
//   node scripts/bench/jobs.mjs [--quick] [--check] [--styles a,b] [--sections a,b] [--contenders a,b]
import { execFile, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { measureExport } from "./jobs-export.mjs";
import { measureLimits } from "./jobs-limits.mjs";
import { STYLES, measureRateStyles } from "./jobs-rate.mjs";
import { measureSmallJobs } from "./jobs-small.mjs";
import { buildEmulator, buildRateController, buildSdk, fixtures, fmt, outDir, ratio, root, table } from "./lib.mjs";

const argv = process.argv.slice(2);
const args = new Set(argv);
const quick = args.has("--quick");
const check = args.has("--check");
const listArg = (flag, all) => (args.has(flag) ? argv[argv.indexOf(flag) + 1].split(",") : all);
const styles = listArg("--styles", STYLES);
const SECTIONS = ["export", "limits", "rate", "small", "memory"];
const sections = new Set(listArg("--sections", SECTIONS));
const contenderFilter = listArg("--contenders", undefined);

const LATENCY_MS = 50;
const RATE = 20;
const DAY_MS = 86_400_000;
const SETTINGS = quick
  ? { days: 45, people: 4_000, repeats: 1, concurrencies: [8, 16] }
  : { days: undefined, people: 10_000, repeats: 3, concurrencies: [8, 16] };
/**
 * Under the rate limits: an organization of `people` (the limits job sets one limit each) and an export of its last
 * `days` days; the quick run measures orgagent alone, with both jobs at once. The small jobs: `entries` limits, `repeats` runs each.
 */
const RATE_SETTINGS = quick
  ? { rate: RATE, latencyMs: LATENCY_MS, people: 2_000, days: 3, styles, jobs: ["both"], contenderNames: ["orgagent, concurrency 8"] }
  : { rate: RATE, latencyMs: LATENCY_MS, people: 10_000, days: 3, styles, jobs: ["export", "limits", "both"], contenderFilter };
const SMALL_SETTINGS = { latencyMs: LATENCY_MS, entries: 2_000, repeats: quick ? 1 : 3 };
const MB = 1e6;
// Live-heap growth below this is noise (as in the microbenchmarks' pagination section): both sides are floored here.
const MEMORY_NOISE_FLOOR = 1 * MB;

/**
 * The goals, and the line past which --check fails. The time ratios move with the machine's load (other work slows
 * the emulator and the client, not the latency), so their lines are wide; the quick run's export is short, so its
 * first windows (one day each, until a week of rows per day is known) weigh more there. Failed calls, rows or entries
 * lost or duplicated fail at the first one.
 */
const TARGETS = [
  {
    what: "export, concurrency 8 × faster than the cursor loop",
    target: 6,
    fail: quick ? 2.5 : 3,
    higherIsBetter: true,
    value: (r) => run(r.export, 8).speedup,
  },
  {
    what: "export, concurrency 8 ÷ ideal (pages × latency ÷ 8)",
    target: 1.3,
    fail: quick ? 3 : 2,
    higherIsBetter: false,
    value: (r) => run(r.export, 8).toIdeal,
  },
  {
    what: `${SETTINGS.people.toLocaleString("en-US")} limits, concurrency 8 × faster than chunks one after another`,
    target: 6,
    fail: quick ? 2.5 : 3,
    higherIsBetter: true,
    value: (r) => run(r.limits, 8).speedup,
  },
  ...styles.flatMap((style) =>
    RATE_SETTINGS.jobs.map((job) => ({
      what: `orgagent under ${RATE} req/s, ${style}, ${job === "both" ? "both jobs at once" : `${job} alone`}: fraction of the bound`,
      target: 0.9,
      fail: 0.5,
      higherIsBetter: true,
      value: (r) => rateRun(r, style, job).fraction,
    })),
  ),
  ...["one entry each", "8 entries each"].map((people) => ({
    what: `${SMALL_SETTINGS.entries.toLocaleString("en-US")} limits for people with ${people}, concurrency 8: round trips ÷ the bound of the distinct chunks`,
    target: 1.5,
    fail: quick ? 20 : 12,
    higherIsBetter: false,
    value: (r) => r.small.runs.find((x) => x.case.endsWith(people) && x.contender.startsWith("orgagent")).toBound,
  })),
  {
    what: "failed calls or jobs, every orgagent job",
    target: 0,
    fail: 0,
    higherIsBetter: false,
    value: (r) => sdkJobs(r).reduce((n, j) => n + j.failed, 0),
  },
  {
    what: "rows or entries lost or duplicated, every job",
    target: 0,
    fail: 0,
    higherIsBetter: false,
    value: (r) => jobs(r).reduce((n, j) => n + (j.lost ?? 0) + (j.duplicated ?? 0) + (j.foreign ?? 0) + (j.notApplied ?? 0), 0),
  },
  {
    what: "entries unaccounted for or accounted twice, PUT bodies applied twice, every job",
    target: 0,
    fail: 0,
    higherIsBetter: false,
    value: (r) =>
      [...runsOf(r.rate), ...runsOf(r.small)].reduce(
        (n, j) => n + (j.unaccounted ?? 0) + (j.accountedTwice ?? 0) + (j.appliedTwice ?? 0),
        0,
      ),
  },
  {
    what: "orgagent: limits not in the final state (given up, or left by an earlier entry), every job",
    target: 0,
    fail: 0,
    higherIsBetter: false,
    value: (r) => orgagent([...runsOf(r.rate), ...runsOf(r.small)]).reduce((n, j) => n + (j.finalStateWrong ?? 0), 0),
  },
  {
    what: "export live heap peak, 16 windows ÷ one chain (1 MB floor)",
    target: 2,
    fail: 4,
    higherIsBetter: false,
    value: (r) => r.memory.ratio,
  },
];
const run = (section, concurrency) => section.runs.find((r) => r.concurrency === concurrency && r.name.startsWith("orgagent"));
const rateRun = (r, style, job) => r.rate.runs.find((x) => x.style === style && x.job === job && x.contender.startsWith("orgagent"));
const runsOf = (section) => section?.runs ?? [];
const jobs = (r) => [...runsOf(r.export), ...runsOf(r.limits), ...runsOf(r.rate)];
const orgagent = (runs) => runs.filter((x) => x.contender.startsWith("orgagent"));
const sdkJobs = (r) => [...runsOf(r.export), ...runsOf(r.limits), ...orgagent(runsOf(r.rate)), ...orgagent(runsOf(r.small))];

const step = (name) => process.stderr.write(`bench:jobs: ${name}…\n`);
const exec = promisify(execFile);

/** Starts jobs-server.mjs with emulators of these configurations; resolves to their URLs and a way to ask them. */
async function startServers(emulatorBundle, configs) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("jobs-server.mjs", import.meta.url)), emulatorBundle, JSON.stringify(configs)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise((resolve) => lines.once("line", (line) => resolve(JSON.parse(line))));
  const exited = new Promise((_, reject) => child.once("exit", (code) => reject(new Error(`jobs server exited (${code})`))));
  const info = await Promise.race([next(), exited]);
  for (const server of Object.values(info)) server.usersPath = fixtures.users.path;
  // One question at a time: the answers come in order.
  let queue = Promise.resolve();
  const ask = (line) => {
    const answer = queue.then(() => {
      const reply = next();
      child.stdin.write(`${line}\n`);
      return Promise.race([reply, exited]);
    });
    queue = answer.catch(() => {});
    return answer;
  };
  return {
    info,
    check: (name, first, count) => ask(`limits ${name} ${first} ${count}`),
    start: async (name, options) => ({ ...(await ask(`start ${name} ${JSON.stringify(options)}`)), usersPath: fixtures.users.path }),
    stop: (name) => ask(`stop ${name}`),
    limitsOf: async (name) => new Map((await ask(`limits ${name}`)).limits),
    close: () =>
      new Promise((done) => {
        child.removeAllListeners("exit");
        child.once("exit", done);
        child.stdin.end();
      }),
  };
}

async function memory(sdkUrl, server, query) {
  const script = fileURLToPath(new URL("jobs-memory.mjs", import.meta.url));
  const sizes = [];
  for (const concurrency of [1, 16]) {
    const argv = ["--expose-gc", script, sdkUrl, server.baseUrl, server.key, String(concurrency), query.startDate, query.endDate];
    const { stdout } = await exec(process.execPath, argv, { cwd: root, maxBuffer: 1 << 20 });
    sizes.push(JSON.parse(stdout));
  }
  const floored = (bytes) => Math.max(bytes, MEMORY_NOISE_FLOOR);
  return { sizes, ratio: floored(sizes[1].livePeak) / floored(sizes[0].livePeak) };
}

async function main() {
  const started = performance.now();
  step("building orgagent and its emulator from src/ with esbuild");
  const [sdkBundle, emulatorBundle, controllerBundle] = await Promise.all([buildSdk(), buildEmulator(), buildRateController()]);
  const rateController = await import(pathToFileURL(controllerBundle).href);
  const sdkUrl = pathToFileURL(sdkBundle).href;
  const { OrgAgent, FIRST_DATA_DAY } = { ...(await import(sdkUrl)), ...(await import(pathToFileURL(emulatorBundle).href)) };
  const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
  const startDate = SETTINGS.days ? new Date(Date.now() - SETTINGS.days * DAY_MS).toISOString().slice(0, 10) : FIRST_DATA_DAY;
  const query = { startDate, endDate: yesterday, limit: 100 };

  const latency = { ms: LATENCY_MS };
  const servers = await startServers(emulatorBundle, {
    export: { latency },
    limits: { latency, users: SETTINGS.people, emails: true },
  });
  let results;
  try {
    const { info } = servers;
    const common = { OrgAgent, repeats: SETTINGS.repeats, concurrencies: SETTINGS.concurrencies };
    const section = async (name, measure) => (sections.has(name) ? measure() : undefined);
    const exportResult = await section("export", () => {
      step(`export ${query.startDate} to ${query.endDate}, at ${LATENCY_MS} ms a request`);
      return measureExport({ ...common, server: info.export, query, latencyMs: LATENCY_MS });
    });
    const limitsResult = await section("limits", () => {
      step(`${SETTINGS.people.toLocaleString("en-US")} limits`);
      return measureLimits({ ...common, server: info.limits, check: servers.check });
    });
    await servers.stop("export");
    await servers.stop("limits");
    const rateResult = await section("rate", () => measureRateStyles({ OrgAgent, rateController, servers, settings: RATE_SETTINGS, step }));
    const smallResult = await section("small", () => measureSmallJobs({ OrgAgent, servers, settings: SMALL_SETTINGS, step }));
    const memoryResult = await section("memory", async () => {
      step("the export's live heap, 16 windows and one chain (a fresh process each)");
      return memory(sdkUrl, await servers.start("memory", { latency }), query);
    });
    results = {
      date: new Date().toISOString(),
      mode: quick ? "quick" : "full",
      machine: {
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpu: cpus()[0]?.model ?? "unknown",
        cores: cpus().length,
      },
      settings: { ...SETTINGS, latencyMs: LATENCY_MS, rate: RATE, query, rateLimits: RATE_SETTINGS, small: SMALL_SETTINGS },
      export: exportResult,
      limits: limitsResult,
      rate: rateResult,
      small: smallResult,
      memory: memoryResult,
    };
  } finally {
    await servers.close();
  }
  results.seconds = (performance.now() - started) / 1000;
  // A goal of a section not run is left out.
  const measured = (t) => {
    try {
      return t.value(results);
    } catch {
      return undefined;
    }
  };
  results.targets = TARGETS.filter((t) => measured(t) !== undefined).map((t) => {
    const value = measured(t);
    const meets = t.higherIsBetter ? value >= t.target : value <= t.target;
    const fails = t.higherIsBetter ? value < t.fail : value > t.fail;
    return { what: t.what, value, target: t.target, failMargin: t.fail, status: meets ? "met" : fails ? "FAIL" : "missed" };
  });

  const markdown = render(results);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}jobs.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${outDir}jobs.md`, markdown);
  process.stdout.write(markdown);
  process.stderr.write(`bench:jobs: wrote dist/bench/jobs.{json,md} in ${results.seconds.toFixed(0)} s\n`);
  const failed = results.targets.filter((t) => t.status === "FAIL");
  if (check && failed.length) {
    process.stderr.write(`bench:jobs: ${failed.length} goal(s) missed by more than the failure margin:\n`);
    for (const t of failed) process.stderr.write(`  ${t.what}: ${fmt(t.value, 2)} (fail past ${t.failMargin})\n`);
    process.exitCode = 1;
  }
}

/** The rate-limit section: one summary table (styles × contenders), then every run with its checks. */
function renderRate(r) {
  const { rate, settings } = r;
  const count = (n) => n.toLocaleString("en-US");
  const contenderNames = [...new Set(rate.runs.map((x) => x.contender))];
  const styleNames = [...new Set(rate.runs.map((x) => x.style))];
  const cell = (style, contender) =>
    settings.rateLimits.jobs
      .map((job) => fmt(rate.runs.find((x) => x.style === style && x.contender === contender && x.job === job)?.fraction, 2))
      .join(" / ");
  const checks = (x) =>
    [
      x.lost === undefined ? "–" : `${x.lost}/${x.duplicated}/${x.foreign}`,
      x.unaccounted === undefined
        ? "–"
        : `${x.unaccounted}/${x.accountedTwice}/${x.notAppliedByJob}/${x.finalStateWrong}/${x.appliedTwice}`,
    ].join(" | ");
  return [
    `**Under a rate limit of ${settings.rate} requests per second per key, every style** (an organization of ${count(rate.entries)} people: ` +
      `an export of ${rate.query.startDate} to ${rate.query.endDate}, ${count(rate.rows)} rows; limits for all ${count(rate.entries)}). ` +
      `Each figure is a fraction of the physical bound: requests answered 200 per second ÷ min(${settings.rate}, concurrency ÷ ${settings.latencyMs} ms), ` +
      `the allowed rate counted without any burst. Cells: ${settings.rateLimits.jobs.map((job) => (job === "both" ? "both jobs at once on one key (concurrency counted for both)" : `${job} alone`)).join(" / ")}.`,
    "",
    table(
      ["style", ...contenderNames],
      styleNames.map((style) => [style, ...contenderNames.map((c) => cell(style, c))]),
    ),
    "",
    "Every run. Rows: lost / duplicated / foreign against a reference export. Entries: unaccounted for / accounted twice / " +
      "reported not applied / not in the server's final state / PUT bodies applied twice.",
    "",
    table(
      ["style", "contender", "job", "seconds", "answered", "refused (429/503)", "req/s", "÷ bound", "failed", "rows", "entries"],
      rate.runs.map((x) => [
        x.style,
        x.contender,
        x.job,
        fmt(x.seconds, 2),
        count(x.answered),
        count(x.refused),
        fmt(x.achieved, 1),
        fmt(x.fraction, 2),
        String(x.failed),
        checks(x),
      ]),
    ),
    "",
  ];
}

/** The small jobs: round trips against the bound of the distinct chunks. */
function renderSmall(r) {
  const { small, settings } = r;
  return [
    `**Small limits jobs, no rate limit** (${small.entries.toLocaleString("en-US")} entries, ${settings.latencyMs} ms a request). Round trips: ` +
      `seconds ÷ ${settings.latencyMs} ms. Bound: the round trips of the distinct chunks (one per 100 people) at the contender's concurrency. ` +
      "Final state wrong: people whose limit is not their last entry's.",
    "",
    table(
      [
        "entries for",
        "contender",
        "requests",
        "seconds",
        "round trips",
        "bound",
        "÷ bound",
        "failed",
        "unaccounted / twice",
        "final state wrong",
        "applied twice",
      ],
      small.runs.map((x) => [
        x.case,
        x.contender,
        String(x.requests),
        fmt(x.seconds, 2),
        fmt(x.trips, 1),
        String(x.boundTrips),
        ratio(x.toBound),
        String(x.failed),
        `${x.unaccounted} / ${x.accountedTwice}`,
        String(x.finalStateWrong),
        String(x.appliedTwice),
      ]),
    ),
    "",
  ];
}

function renderExport(r) {
  const { export: ex, settings } = r;
  const count = (n) => n.toLocaleString("en-US");
  const ok = (job) => `${job.failed} / ${job.lost} / ${job.duplicated}`;
  return [
    `**A /users export, ${settings.query.startDate} to ${settings.query.endDate}** (${count(ex.rows)} rows, ${count(ex.pages)} pages of 100 in one chain). ` +
      `Ideal: ${count(ex.pages)} pages × ${settings.latencyMs} ms ÷ concurrency.`,
    "",
    table(
      ["export", "requests", "seconds", "rows/s", "× cursor loop", "ideal s", "÷ ideal", "failed / lost / duplicated"],
      ex.runs.map((x) => [
        x.name,
        count(x.requests),
        fmt(x.seconds, 2),
        count(Math.round(x.rowsPerSecond)),
        ratio(x.speedup),
        fmt(x.ideal, 2),
        ratio(x.toIdeal),
        ok(x),
      ]),
    ),
    "",
  ];
}

function renderLimits(r) {
  const { limits } = r;
  const count = (n) => n.toLocaleString("en-US");
  const ok = (job) => `${job.failed} / ${job.lost} / ${job.duplicated}`;
  return [
    `**Credit limits for ${count(limits.entries)} people** (${count(Math.ceil(limits.entries / 100))} chunks of 100).`,
    "",
    table(
      ["limits", "requests", "seconds", "entries/s", "× one after another", "failed / lost / duplicated"],
      limits.runs.map((x) => [
        x.name,
        count(x.requests),
        fmt(x.seconds, 2),
        count(Math.round(x.entriesPerSecond)),
        ratio(x.speedup),
        ok(x),
      ]),
    ),
    "",
  ];
}

function renderMemory(r) {
  const { memory: mem } = r;
  return [
    "**The export's live heap** (highest heapUsed after a full GC, every 10 pages, over a post-warm-up baseline; fresh process each).",
    "",
    table(
      ["export", "pages", "live heap peak MB", "seconds"],
      mem.sizes.map((m) => [
        m.concurrency === 1 ? "one chain" : `${m.concurrency} windows at once`,
        m.pages.toLocaleString("en-US"),
        fmt(m.livePeak / MB, 2),
        fmt(m.ms / 1000, 2),
      ]),
    ),
    "",
    `16 windows ÷ one chain: ${ratio(mem.ratio)} (each side floored at ${MEMORY_NOISE_FLOOR / MB} MB).`,
    "",
  ];
}

function render(r) {
  const { export: ex, limits, memory: mem, settings } = r;
  return [
    `## Jobs benchmark (${r.mode}) — ${r.date.slice(0, 10)}, Node ${r.machine.node}, ${r.machine.platform}, ${r.machine.cores} × ${r.machine.cpu}`,
    "",
    `Every request pays ${settings.latencyMs} ms of latency (the emulator's option, in its own process). Seconds are the median of ` +
      `${settings.repeats} run(s) for the concurrent jobs, one run for the sequential ones.`,
    "",
    ...(ex ? renderExport(r) : []),
    ...(limits ? renderLimits(r) : []),
    ...(r.rate ? renderRate(r) : []),
    ...(r.small ? renderSmall(r) : []),
    ...(mem ? renderMemory(r) : []),
    "### Goals",
    "",
    table(
      ["goal", "measured", "goal", "fails past", "status"],
      r.targets.map((t) => [t.what, fmt(t.value, 2), String(t.target), String(t.failMargin), t.status]),
    ),
    "",
  ].join("\n");
}

await main();
