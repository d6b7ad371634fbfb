// Jobs section 3: both jobs under a rate limit of 20 requests a second per key, in every style the emulator speaks
// (a token bucket with a small burst, fixed and sliding windows, the IETF draft's headers, a 429 with no hint, 503
// under overload), each contender alone and with its two jobs at once on one key. A run's figure is its fraction of
// the physical bound: requests answered per second ÷ min(allowed rate, concurrency ÷ round trip), the allowed rate
// counted without any burst. Every run is checked: rows lost, duplicated or foreign against a reference export;
// entries the job does not account for; the server's final limits; PUT bodies applied twice.
import { compareRows } from "./jobs-export.mjs";
import { contenders, entryKey, newStats } from "./jobs-contenders.mjs";
import { cursorLoop } from "./lib.mjs";

/** The styles, in the order of the tables. */
export const STYLES = ["bucket", "window", "sliding", "ietf", "no-hint", "overload"];

let runNumber = 0;

/** Entries for every e-mail, each run with values of its own (so a value names the run and the entry). */
export function entriesFor(emails) {
  const first = ++runNumber * 1_000_000;
  return emails.map((email, i) => ({ email, limit: first + i }));
}

/** How the job's account and the server's state compare with `entries` (the last entry of a person decides). */
export function checkLimits(entries, job, serverLimits, stats) {
  const expected = new Map();
  for (const entry of entries) expected.set(entry.email.toLowerCase(), entry.limit);
  let wrong = 0;
  for (const [email, limit] of expected) if (serverLimits.get(email) !== limit) wrong++;
  const counts = new Map();
  for (const key of job.accounted) counts.set(key, (counts.get(key) ?? 0) + 1);
  const unaccounted = entries.filter((entry) => !counts.has(entryKey(entry))).length;
  const accountedTwice = [...counts.values()].reduce((n, count) => n + count - 1, 0);
  let appliedTwice = 0;
  for (const count of stats.applied.values()) appliedTwice += count - 1;
  return { finalStateWrong: wrong, unaccounted, accountedTwice, appliedTwice };
}

/**
 * Runs every contender against every style. `servers.start(name, options)` starts an emulator in the server
 * process; `servers.limitsOf(name)` reads its limits (a Map by lower-cased e-mail).
 */
export async function measureRateStyles({ OrgAgent, rateController, servers, settings, step }) {
  const { rate, latencyMs, people, days, styles, jobs, contenderNames, contenderFilter } = settings;
  const endDate = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const query = { startDate: new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10), endDate, limit: 100 };

  // The reference rows: the same organization (same seed and size) without latency or limit, read by a cursor loop.
  const reference = await servers.start("rate-reference", { users: people });
  const keys = [];
  for await (const page of cursorLoop(`${reference.baseUrl}${reference.usersPath}`, query, { Authorization: `Bearer ${reference.key}` })) {
    for (const row of page.data) keys.push(`${row.user_id}|${row.date}`);
  }
  await servers.stop("rate-reference");
  const referenceRows = new Set(keys);

  const all = contenders(OrgAgent, rateController).filter(
    (c) =>
      (!contenderNames || contenderNames.includes(c.name)) && (!contenderFilter || contenderFilter.some((word) => c.name.includes(word))),
  );
  const runs = [];
  for (const style of styles) {
    const name = `rate-${style}`;
    step(`under ${rate} req/s, style ${style}: ${all.map((c) => c.name).join("; ")}`);
    const server = await servers.start(name, {
      latency: { ms: latencyMs },
      users: people,
      emails: true,
      rateLimit: { requestsPerSecond: rate, style },
    });
    try {
      for (const contender of all) {
        const bound = (concurrency) => Math.min(rate, concurrency / (latencyMs / 1000));
        // Alone: the export, then the limits; then both at once on the same key.
        for (const job of jobs) {
          // Each run starts with the limit's state of rest: a second of quiet refills any bucket or window.
          await new Promise((resolve) => setTimeout(resolve, 1_100));
          const stats = newStats();
          const entries = job === "export" ? [] : entriesFor(server.emails);
          let exported;
          let limited;
          const started = performance.now();
          if (job === "export") exported = await contender.exportJob(server, query, stats);
          else if (job === "limits") limited = await contender.limitsJob(server, entries, stats);
          else [exported, limited] = await contender.both(server, query, entries, stats);
          const seconds = (performance.now() - started) / 1000;
          const answered = stats.statuses.get(200) ?? 0;
          const refused = (stats.statuses.get(429) ?? 0) + (stats.statuses.get(503) ?? 0);
          const concurrency = contender.concurrency * (job === "both" ? 2 : 1);
          const run = {
            style,
            contender: contender.name,
            job,
            seconds,
            answered,
            refused,
            achieved: answered / seconds,
            bound: bound(concurrency),
            fraction: answered / seconds / bound(concurrency),
            failed: (exported?.failed ?? 0) + (limited?.failed ?? 0),
          };
          if (exported) Object.assign(run, compareRows(referenceRows, exported.keys));
          if (limited) {
            Object.assign(run, checkLimits(entries, limited, await servers.limitsOf(name), stats), {
              notAppliedByJob: limited.notAppliedByJob,
            });
          }
          runs.push(run);
        }
      }
    } finally {
      await servers.stop(name);
    }
  }
  return { query, rows: referenceRows.size, entries: people, runs };
}
