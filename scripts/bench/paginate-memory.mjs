// Section 4, run in a fresh process per client and size:
//   node --expose-gc paginate-memory.mjs <orgagent|fetch> <sdk module URL> <server URL> <rows> [raw]
// iterates every row of /users in pages of 100 and prints heap growth over a post-GC baseline. `orgagent` is
// `for await` over analytics.users; `fetch` is a hand-written fetch loop over the same pages, the reference:
// Node's fetch keeps a little state of its own that grows with the number of requests.
//   livePeak: the highest heapUsed after a full GC, taken every 10 pages: what the iteration keeps alive.
//             Flat means this does not grow with the number of rows.
//   rawPeak:  (with `raw`) the highest heapUsed after every page with no forced GC, in a second pass. It includes
//             garbage not yet collected, so it tracks V8's heap sizing, which grows with the allocation volume.
const [clientName, sdkUrl, baseUrl, rowsArg, rawArg] = process.argv.slice(2);
const rows = Number(rowsArg);
const { cursorLoop, fixtures } = await import("./lib.mjs");
const { OrgAgent } = await import(sdkUrl);
if (typeof globalThis.gc !== "function") throw new Error("run with --expose-gc");

const PAGE = 100;
const client = new OrgAgent({ apiKey: "bench-key", baseUrl, headers: { "x-bench-rows": String(rows) } });
const query = { ...fixtures.users.query, limit: PAGE };
const heap = () => process.memoryUsage().heapUsed;

/** heapUsed after a full GC, once FinalizationRegistry callbacks (undici registers one per request) have run. */
async function settledHeap() {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return heap();
}

/** The rows of /users by hand: the benchmark's cursor loop (lib.mjs). */
async function* fetchLoop(maxItems = Infinity) {
  const headers = { Authorization: "Bearer bench-key", "x-bench-rows": String(rows) };
  let n = 0;
  for await (const page of cursorLoop(`${baseUrl}${fixtures.users.path}`, query, headers)) {
    for (const row of page.data) {
      yield row;
      if (++n >= maxItems) return;
    }
  }
}

const rowsOf = (maxItems) => (clientName === "fetch" ? fetchLoop(maxItems) : client.analytics.users(query, maxItems ? { maxItems } : {}));

/** Iterates every row; `onPage` runs after each full page. */
async function iterate(onPage, maxItems) {
  let count = 0;
  for await (const row of rowsOf(maxItems)) {
    if (!row.user_id) throw new Error("row without user_id");
    if (++count % PAGE === 0) await onPage(count);
  }
  return count;
}

// Warm-up: compile the hot paths and open the connection before any baseline.
await iterate(() => {}, Math.min(rows, 50 * PAGE));

let baseline = await settledHeap();
let livePeak = 0;
const started = performance.now();
const count = await iterate(async (n) => {
  if (n % (10 * PAGE) === 0) livePeak = Math.max(livePeak, (await settledHeap()) - baseline);
});
const ms = performance.now() - started;
if (count !== rows) throw new Error(`iterated ${count} rows, expected ${rows}`);

let rawPeak;
if (rawArg === "raw") {
  baseline = await settledHeap();
  rawPeak = 0;
  await iterate(() => {
    rawPeak = Math.max(rawPeak, heap() - baseline);
  });
}

process.stdout.write(`${JSON.stringify({ client: clientName, rows, livePeak, rawPeak, ms })}\n`);
