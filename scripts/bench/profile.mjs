// `npm run bench:profile`: where orgagent's time per call goes, next to raw fetch, on the throughput section's
// loopback server. Each client makes the same calls under the V8 CPU profiler (node:inspector, in this process);
// self time is summed per function and divided by the number of calls. The table lists the functions where
// orgagent spends more than raw fetch: what the SDK adds, and where to look next.
//   node scripts/bench/profile.mjs [--calls 20000] [--concurrency 1] [--top 25]
import { writeFile, mkdir } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { buildSdk, fmt, outDir, table } from "./lib.mjs";
import { startServer } from "./loopback.mjs";
import { callsInFlight, contenders } from "./throughput.mjs";
import { pathToFileURL } from "node:url";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "1" },
    top: { type: "string", default: "25" },
  },
});
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);
const top = Number(values.top);
const PROFILED = ["raw fetch", "orgagent analytics.users"];
// Not work of any function: the profiler's own buckets.
const NOT_CODE = new Set(["(idle)", "(program)", "(root)"]);

/** µs per call of self time, by "function file" (line numbers dropped, so both runs name undici's code alike). */
function selfTimes(profile, n) {
  const byNode = new Map();
  profile.samples.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map();
  for (const node of profile.nodes) {
    const { functionName, url } = node.callFrame;
    const name = functionName || "(anonymous)";
    if (NOT_CODE.has(name)) continue;
    const file = url ? basename(url).replace(/^orgagent\.mjs$/, "orgagent") : "";
    const key = file ? `${name} (${file})` : name;
    byFunction.set(key, (byFunction.get(key) ?? 0) + (byNode.get(node.id) ?? 0) / n);
  }
  return byFunction;
}

const sdkUrl = pathToFileURL(await buildSdk()).href;
const server = await startServer();
const session = new Session();
session.connect();
try {
  const list = (await contenders(sdkUrl, server.url)).filter((c) => PROFILED.includes(c.name));
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  const times = {};
  for (const c of list) {
    await callsInFlight(c.call, 3_000, concurrency); // warm-up: JIT and keep-alive connections
    await session.post("Profiler.start");
    await callsInFlight(c.call, calls, concurrency);
    const { profile } = await session.post("Profiler.stop");
    times[c.name] = selfTimes(profile, calls);
  }
  const [raw, sdk] = PROFILED.map((name) => times[name]);
  const total = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  const all = [...new Set([...raw.keys(), ...sdk.keys()])]
    .map((key) => ({ key, raw: raw.get(key) ?? 0, sdk: sdk.get(key) ?? 0 }))
    .map((r) => ({ ...r, diff: r.sdk - r.raw }))
    .sort((a, b) => b.diff - a.diff);
  // The top of the list, then the few where raw fetch spends more (its JSON.parse runs in undici's
  // parseJSONFromBytes; orgagent's is inlined into parseBody), so the two ends can be read against each other.
  const rows = [...all.slice(0, top), ...all.slice(-5)];
  const out = [
    `## Profile: CPU self time per call (µs), ${calls} calls, ${concurrency} in flight, Node ${process.version}`,
    "",
    `Total: raw fetch ${fmt(total(raw))} µs/call, orgagent ${fmt(total(sdk))} µs/call (garbage collection included;`,
    "sampled, so single runs differ by several µs). The last 5 rows are where raw fetch spends more.",
    "",
    table(
      ["function (file)", "raw fetch", "orgagent", "orgagent − raw"],
      rows.map((r) => [`\`${r.key}\``, fmt(r.raw, 2), fmt(r.sdk, 2), fmt(r.diff, 2)]),
    ),
    "",
  ].join("\n");
  console.log(out);
  await mkdir(outDir, { recursive: true });
  await writeFile(`${outDir}profile.md`, out);
} finally {
  session.disconnect();
  await server.stop();
}
