// Jobs section 4: small limits jobs at the round-trip bound, with no rate limit. 2,000 entries at concurrency 8 and
// 50 ms, for 2,000 people (one entry each) and for 250 people (8 each, in 8 rounds over everyone, so every chunk
// names people of earlier chunks). Only the last entry of a person decides the final state, so the bound is the round
// trips of the distinct chunks: ceil(ceil(people ÷ 100) ÷ concurrency). Every run is checked against the server's final state
// (a contender that does not keep a person's entries in order may leave an earlier value) and its own account.
import { checkLimits, entriesFor } from "./jobs-rate.mjs";
import { contenders, newStats } from "./jobs-contenders.mjs";
import { median } from "./lib.mjs";

const CHUNK = 100;

export async function measureSmallJobs({ OrgAgent, rateController, servers, settings, step }) {
  const { latencyMs, entries: total, repeats } = settings;
  const name = "small";
  const server = await servers.start(name, { latency: { ms: latencyMs }, users: total, emails: true });
  const cases = [
    { what: `${total.toLocaleString("en-US")} people, one entry each`, people: server.emails },
    { what: `${(total / 8).toLocaleString("en-US")} people, 8 entries each`, people: server.emails.slice(0, total / 8) },
  ];
  const runs = [];
  try {
    for (const { what, people } of cases) {
      step(`small limits job: ${total.toLocaleString("en-US")} entries for ${what}`);
      const roundsOver = total / people.length;
      for (const contender of contenders(OrgAgent, rateController)) {
        const boundTrips = Math.ceil(Math.ceil(people.length / CHUNK) / contender.concurrency);
        const samples = [];
        for (let r = 0; r < repeats; r++) {
          // 8 rounds over the people: the entry of round k for person p is k × people + p.
          const entries = entriesFor(Array.from({ length: roundsOver }, () => people).flat());
          const stats = newStats();
          const job = await contender.limitsJob(server, entries, stats);
          samples.push({
            seconds: job.seconds,
            failed: job.failed,
            ...checkLimits(entries, job, await servers.limitsOf(name), stats),
            requests: stats.statuses.get(200) ?? 0,
          });
        }
        const mid = samples.find((s) => s.seconds === median(samples.map((x) => x.seconds))) ?? samples[0];
        const trips = mid.seconds / (latencyMs / 1000);
        runs.push({
          case: what,
          contender: contender.name,
          ...mid,
          secondsAll: samples.map((s) => s.seconds),
          trips,
          boundTrips,
          toBound: trips / boundTrips,
        });
      }
    }
  } finally {
    await servers.stop(name);
  }
  return { entries: total, runs };
}
