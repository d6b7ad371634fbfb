// Jobs section 2: credit limits for every person of a 10,000-person organization over the emulator's latency, in
// chunks one after another (concurrency 1) and 8 and 16 at once. Each run sets values of
// its own, and the emulator is asked afterwards how many of them it holds: entries lost or applied wrongly show.
import { countingFetch } from "./jobs-export.mjs";
import { median } from "./lib.mjs";

let runNumber = 0;

/** One setUserLimits job; `check(first, count)` asks the emulator how many limits equal first + i. */
async function limitsJob(OrgAgent, server, emails, concurrency, check) {
  const statuses = new Map();
  const client = new OrgAgent({ baseUrl: server.baseUrl, apiKey: server.key, logLevel: "off", fetch: countingFetch(statuses) });
  const first = ++runNumber * 1_000_000;
  const entries = emails.map((email, i) => ({ email, limit: first + i }));
  const started = performance.now();
  let result;
  let failed = 0;
  try {
    result = await client.usageLimits.setUserLimits(entries, { concurrency });
  } catch (error) {
    failed = 1;
    process.stderr.write(`bench: limits job failed: ${error.message}\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  const updated = result?.updated ?? [];
  const unique = new Set(updated.map((entry) => entry.email)).size;
  const { matching } = await check(first, emails.length);
  return {
    seconds,
    statuses,
    failed: failed + (result?.errors.length ?? 0),
    // Entries the job does not report applied, reported twice, and the server's view: limits that are not this run's.
    lost: emails.length - unique,
    duplicated: updated.length - unique,
    notApplied: emails.length - matching,
  };
}

export async function measureLimits({ OrgAgent, server, check, repeats, concurrencies }) {
  const runs = [];
  for (const concurrency of [1, ...concurrencies]) {
    const samples = [];
    for (let r = 0; r < (concurrency > 1 ? repeats : 1); r++)
      samples.push(await limitsJob(OrgAgent, server, server.emails, concurrency, (f, n) => check("limits", f, n)));
    const mid = samples.find((s) => s.seconds === median(samples.map((x) => x.seconds))) ?? samples[0];
    runs.push({
      name: concurrency === 1 ? "orgagent, chunks one after another" : `orgagent, concurrency ${concurrency}`,
      concurrency,
      seconds: mid.seconds,
      secondsAll: samples.map((s) => s.seconds),
      requests: mid.statuses.get(200) ?? 0,
      entries: server.emails.length,
      failed: mid.failed,
      lost: mid.lost,
      duplicated: mid.duplicated,
      notApplied: mid.notApplied,
    });
  }
  const sequential = runs[0].seconds;
  for (const run of runs) {
    run.entriesPerSecond = run.entries / run.seconds;
    run.speedup = sequential / run.seconds;
  }
  return { entries: server.emails.length, runs };
}
