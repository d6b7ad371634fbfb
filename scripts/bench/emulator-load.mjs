// `node scripts/bench/emulator-load.mjs`: how the emulator holds up under the analytics answer that costs it most,
// ungrouped /tokens over 300 days (every active person of every day, about 12 MB of JSON). The emulator runs in a
// process of its own, which watches its event loop. Measured: the first and a repeated request alone (time, and the
// longest the emulator's event loop was blocked), then 500 clients asking for a computer by name in a loop for
// 10 s while 4 clients keep asking for the 300 days: the small requests' latency (p50, p99, max) and the blocks.
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { buildEmulator, root } from "./lib.mjs";

const CLIENTS = 500;
const HEAVY_CLIENTS = 4;
const DURATION_MS = 10_000;
const DAYS = 300;
const DAY_MS = 86_400_000;

const bundle = await buildEmulator();
const server = spawn(process.execPath, [`${root}scripts/bench/emulator-load-server.mjs`, bundle], { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
const next = async () => JSON.parse((await lines.next()).value);
const { baseUrl, key } = await next();
const ask = async (command) => {
  server.stdin.write(`${command}\n`);
  return command === "stats" ? next() : undefined;
};

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS + HEAVY_CLIENTS });
const date = (ms) => new Date(ms).toISOString().slice(0, 10);
const yesterday = Date.now() - DAY_MS;
const tokens = `/api/v1/analytics/tokens?startDate=${date(yesterday - (DAYS - 1) * DAY_MS)}&endDate=${date(yesterday)}`;
const computer = "/api/v0/computers/name/build-box-eu-1";

/** One GET: resolves to [ms, bytes] once the whole body is read. */
function get(path) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(`${baseUrl}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk) => (bytes += chunk.length));
      res.on("end", () =>
        res.statusCode === 200 ? resolve([performance.now() - started, bytes]) : reject(new Error(`${path}: ${res.statusCode}`)),
      );
    })
      .on("error", reject)
      .end();
  });
}

const results = {};
for (const run of ["first", "repeated"]) {
  await ask("reset");
  const [ms, bytes] = await get(tokens);
  results[`${DAYS} days of /tokens, ${run} request`] = { ms: Math.round(ms), MB: +(bytes / 1e6).toFixed(1), ...(await ask("stats")) };
}

await ask("reset");
const latencies = [];
let heavy = 0;
const until = performance.now() + DURATION_MS;
const loop = async (path, record) => {
  while (performance.now() < until) record((await get(path))[0]);
};
await Promise.all([
  ...Array.from({ length: CLIENTS }, () => loop(computer, (ms) => latencies.push(ms))),
  ...Array.from({ length: HEAVY_CLIENTS }, () => loop(tokens, () => heavy++)),
]);
latencies.sort((a, b) => a - b);
const at = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]);
results[`${CLIENTS} clients + ${HEAVY_CLIENTS} asking for ${DAYS} days, ${DURATION_MS / 1000} s`] = {
  requests: latencies.length,
  p50: at(0.5),
  p99: at(0.99),
  max: Math.round(latencies.at(-1)),
  heavyAnswers: heavy,
  ...(await ask("stats")),
};
console.table(results);
agent.destroy();
server.stdin.end();
