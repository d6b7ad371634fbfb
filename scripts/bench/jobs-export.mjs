// Jobs section 1: a full /users export over the emulator's latency. The reference is a hand-written sequential
// cursor loop (lib.mjs); orgagent runs one chain, then date windows 8 and 16 at once. Every run's rows are compared
// with the loop's: rows lost, duplicated or foreign are counted, never assumed away.
import { cursorLoop, median } from "./lib.mjs";

const key = (row) => `${row.user_id}|${row.date}`;

/** How `rows` (keys) compare with the reference's: missing, duplicated, and rows the reference does not have. */
export function compareRows(reference, keys) {
  const seen = new Set();
  let duplicated = 0;
  let foreign = 0;
  for (const k of keys) {
    if (seen.has(k)) duplicated++;
    else if (!reference.has(k)) foreign++;
    seen.add(k);
  }
  let lost = 0;
  for (const k of reference) if (!seen.has(k)) lost++;
  return { lost, duplicated, foreign };
}

/** A fetch that counts answers by status into `statuses` (a Map). */
export function countingFetch(statuses) {
  return async (input, init) => {
    const response = await fetch(input, init);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    return response;
  };
}

/** One export with orgagent: every page of the range, `concurrency` windows at once (undefined: one chain). */
async function orgagentExport(OrgAgent, server, query, concurrency) {
  const statuses = new Map();
  const client = new OrgAgent({ baseUrl: server.baseUrl, apiKey: server.key, logLevel: "off", fetch: countingFetch(statuses) });
  const keys = [];
  const started = performance.now();
  let failed = 0;
  try {
    for await (const page of client.analytics.users(query, { concurrency }).pages()) for (const row of page.data) keys.push(key(row));
  } catch (error) {
    failed = 1;
    process.stderr.write(`bench: export failed: ${error.message}\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, keys, statuses, failed };
}

/**
 * The export's rows per second, by contender; `server` has the latency. `repeats` runs of each windowed contender
 * (the median is kept); the sequential ones run once (they are long).
 */
export async function measureExport({ OrgAgent, server, query, latencyMs, repeats, concurrencies }) {
  const url = `${server.baseUrl}${server.usersPath}`;
  const headers = { Authorization: `Bearer ${server.key}`, Accept: "application/json" };

  // Warm-up: both processes compile their hot paths, and the emulator fills its caches of the days.
  await orgagentExport(OrgAgent, server, query, 16);

  const started = performance.now();
  const referenceKeys = [];
  let pages = 0;
  for await (const page of cursorLoop(url, query, headers)) {
    pages++;
    for (const row of page.data) referenceKeys.push(key(row));
  }
  const loopSeconds = (performance.now() - started) / 1000;
  const reference = new Set(referenceKeys);
  const ideal = (concurrency) => (pages * latencyMs) / 1000 / concurrency;
  const runs = [
    {
      name: "hand-written sequential cursor loop",
      concurrency: 1,
      seconds: loopSeconds,
      requests: pages,
      rows: referenceKeys.length,
      ...compareRows(reference, referenceKeys),
      failed: 0,
    },
  ];
  for (const concurrency of [undefined, ...concurrencies]) {
    const samples = [];
    for (let r = 0; r < (concurrency ? repeats : 1); r++) samples.push(await orgagentExport(OrgAgent, server, query, concurrency));
    const mid = samples.find((s) => s.seconds === median(samples.map((x) => x.seconds))) ?? samples[0];
    runs.push({
      name: concurrency ? `orgagent, concurrency ${concurrency}` : "orgagent, one chain",
      concurrency: concurrency ?? 1,
      seconds: mid.seconds,
      secondsAll: samples.map((s) => s.seconds),
      requests: mid.statuses.get(200) ?? 0,
      rows: mid.keys.length,
      ...compareRows(reference, mid.keys),
      failed: mid.failed,
    });
  }
  for (const run of runs) {
    run.rowsPerSecond = run.rows / run.seconds;
    run.speedup = loopSeconds / run.seconds;
    run.ideal = ideal(run.concurrency);
    run.toIdeal = run.seconds / run.ideal;
  }

  return { pages, rows: referenceKeys.length, runs };
}
