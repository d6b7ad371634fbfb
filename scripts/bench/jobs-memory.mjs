// Jobs section 3, run in a fresh process per concurrency:
//   node --expose-gc jobs-memory.mjs <sdk module URL> <base URL> <key> <concurrency> <startDate> <endDate>
// exports every /users row of the range with `concurrency` date windows at once (1: one chain) and prints the live
// heap peak: the highest heapUsed after a full GC, taken every 10 pages, over a post-warm-up baseline. What the
// export keeps alive (pages read ahead, calls in flight), not garbage waiting to be collected.
const [sdkUrl, baseUrl, key, concurrencyArg, startDate, endDate] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const { OrgAgent } = await import(sdkUrl);
if (typeof globalThis.gc !== "function") throw new Error("run with --expose-gc");

const client = new OrgAgent({ baseUrl, apiKey: key, logLevel: "off" });
const query = { startDate, endDate, limit: 100 };

async function settledHeap() {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return process.memoryUsage().heapUsed;
}

// Warm-up: compile the hot paths and open the connections before the baseline.
for await (const _ of client.analytics.users({ ...query, endDate: startDate }, { concurrency })) {
  // every row of the first day
}
const baseline = await settledHeap();
let livePeak = 0;
let pages = 0;
let rows = 0;
const started = performance.now();
for await (const page of client.analytics.users(query, { concurrency }).pages()) {
  rows += page.data.length;
  if (++pages % 10 === 0) livePeak = Math.max(livePeak, (await settledHeap()) - baseline);
}
process.stdout.write(`${JSON.stringify({ concurrency, pages, rows, livePeak, ms: performance.now() - started })}\n`);
