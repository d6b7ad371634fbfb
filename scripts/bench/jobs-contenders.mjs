// The contenders of the jobs under a rate limit, each able to run the two jobs (a /users export, credit limits for
// many people): orgagent with concurrency 8, a plain sequential loop, and a p-limit baseline with 8 at once. The two
// baselines are what a user writes without an SDK: fetch, and on 429 or 503 wait for the Retry-After (a second when
// there is none) and send the same request again, up to 10 times. With the SDK's rate controllers given, one more:
// the p-limit baseline with every attempt paced by the controller of its key and host (src/core/rate-registry.ts).
import pLimit from "p-limit";

const LIMITS_PATH = "/api/v0/organization/usage/limits/users";
const CHUNK = 100;
const MAX_ATTEMPTS = 10;
const DAY_MS = 86_400_000;

/**
 * A fetch that counts answers by status, and the PUT bodies answered 200 (a body applied twice shows as a count of 2).
 * `stats` is `{ statuses: Map, applied: Map }`.
 */
export function countingFetch(stats) {
  return async (input, init) => {
    const response = await fetch(input, init);
    stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
    if (init?.method === "PUT" && response.status === 200 && typeof init.body === "string") {
      stats.applied.set(init.body, (stats.applied.get(init.body) ?? 0) + 1);
    }
    return response;
  };
}

export const newStats = () => ({ statuses: new Map(), applied: new Map() });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** fetch, and on 429 or 503 wait as told (or a second) and try again; any other failure throws. */
async function patientFetch(fetchImpl, url, init) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetchImpl(url, init);
    if (response.ok) return response.json();
    await response.arrayBuffer();
    if (![429, 503].includes(response.status) || attempt >= MAX_ATTEMPTS)
      throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status}`);
    const seconds = Number(response.headers.get("retry-after"));
    await sleep(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000);
  }
}

/**
 * fetch through a rate controller: every attempt acquires first and tells it the answer; a refusal waits what the
 * controller says and goes again (refusals do not count as attempts; up to 100 of them).
 */
function pacedFetch(controller) {
  return async (fetchImpl, url, init) => {
    for (let refusals = 0, retry = false; ; retry = true) {
      const permit = await controller.acquire({ retry });
      let response;
      try {
        response = await fetchImpl(url, init);
      } catch (error) {
        permit.release();
        throw error;
      }
      const throttle = permit.observe(response.status, response.headers);
      if (response.ok) return response.json();
      await response.arrayBuffer();
      if (!throttle || ++refusals >= 100) throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status}`);
      if (throttle.wait > 0) await sleep(throttle.wait);
    }
  };
}

/** The pages of one cursor chain over [startDate, endDate], each request through `run` (a p-limit, or straight). */
async function chain(server, fetchImpl, query, run, onPage, send = patientFetch) {
  const headers = { Authorization: `Bearer ${server.key}`, Accept: "application/json" };
  let cursor;
  for (;;) {
    const search = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const page = await run(() => send(fetchImpl, `${server.baseUrl}${server.usersPath}?${search}`, { headers }));
    onPage(page);
    if (!page.meta.has_more) return;
    cursor = page.meta.next_cursor;
  }
}

/** The days of a range, as dates. */
function daysOf({ startDate, endDate }) {
  const days = [];
  for (let day = Date.parse(`${startDate}T00:00:00Z`); day <= Date.parse(`${endDate}T00:00:00Z`); day += DAY_MS)
    days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

const rowKey = (row) => `${row.user_id}|${row.date}`;
/** An entry as `email|limit`: every entry of a run has a limit of its own, so the key names one entry. */
export const entryKey = (entry) => `${entry.email.toLowerCase()}|${entry.limit}`;

/** `entries` in chunks of 100, PUT as `{ users }`, each through `run`; resolves to the entries applied. */
async function putChunks(server, fetchImpl, entries, run, send = patientFetch) {
  const headers = { Authorization: `Bearer ${server.key}`, Accept: "application/json", "Content-Type": "application/json" };
  const chunks = [];
  for (let i = 0; i < entries.length; i += CHUNK) chunks.push(entries.slice(i, i + CHUNK));
  const applied = await Promise.all(
    chunks.map((users) =>
      run(() => send(fetchImpl, `${server.baseUrl}${LIMITS_PATH}`, { method: "PUT", headers, body: JSON.stringify({ users }) })),
    ),
  );
  return applied.flatMap((answer) => answer.updated);
}

/** Runs `job` and times it; a job that throws is counted as failed, with what it did so far. */
async function timed(job) {
  const started = performance.now();
  let failed = 0;
  let error;
  try {
    await job();
  } catch (caught) {
    failed = 1;
    error = caught;
  }
  return { seconds: (performance.now() - started) / 1000, failed, error };
}

/**
 * The contenders. Each `exportJob(server, query, stats)` resolves to `{ seconds, failed, keys }` (the rows' keys),
 * each `limitsJob(server, entries, stats)` to `{ seconds, failed, accounted, notAppliedByJob }` (`accounted`: the
 * entryKey of every entry whose outcome the job reports, applied or not; `notAppliedByJob`: those it reports not
 * applied), and `both(server, query, entries, stats)` runs the two at once, with one client or
 * limiter per job as a user would (orgagent: one client for both).
 */
export function contenders(OrgAgent, rateController) {
  const sdk = (server, stats) =>
    new OrgAgent({ baseUrl: server.baseUrl, apiKey: server.key, logLevel: "off", fetch: countingFetch(stats) });
  const sdkExport = async (client, query) => {
    const keys = [];
    const run = await timed(async () => {
      for await (const page of client.analytics.users(query, { concurrency: 8 }).pages())
        for (const row of page.data) keys.push(rowKey(row));
    });
    return { ...run, keys };
  };
  const sdkLimits = async (client, entries) => {
    let result;
    const run = await timed(async () => {
      result = await client.usageLimits.setUserLimits(entries, { concurrency: 8 });
    });
    // An aborted job says what it did in `partial`; every entry is in one of its lists (any list the result has).
    const outcome = result ?? run.error?.partial;
    const lists = outcome ? Object.values(outcome).filter(Array.isArray) : [];
    const accounted = lists.flatMap((list) => list.map((e) => entryKey(e.index === undefined ? e : (entries[e.index] ?? e))));
    // Not applied: in `errors`, `notSent` or `uncertain`, or superseded by an entry that is (its outcome is that one's).
    const failed = new Set(
      lists.filter((list) => list !== outcome.updated && list !== outcome.superseded).flatMap((list) => list.map((e) => e.index)),
    );
    const notApplied = outcome ? failed.size + (outcome.superseded ?? []).filter((e) => failed.has(e.by)).length : entries.length;
    return { ...run, accounted, notAppliedByJob: notApplied, throttled: outcome?.throttled };
  };

  /** `paced`: each job's requests go through the controller of the server's key and host (both jobs share it). */
  const baseline = (name, concurrency, paced) => {
    const runner = () => pLimit(concurrency);
    const sendOf = (server) => (paced ? pacedFetch(paced.rateControllerFor(server.key, server.baseUrl)) : patientFetch);
    const exportJob = async (server, query, stats) => {
      const keys = [];
      const fetchImpl = countingFetch(stats);
      const onPage = (page) => page.data.forEach((row) => keys.push(rowKey(row)));
      const run = await timed(async () => {
        const send = sendOf(server);
        if (concurrency === 1) return chain(server, fetchImpl, query, runner(), onPage, send);
        // A cursor chain per day, every request through one p-limit: what a user does to go faster.
        const limit = runner();
        const pages = new Map();
        await Promise.all(
          daysOf(query).map((day) =>
            chain(
              server,
              fetchImpl,
              { ...query, startDate: day, endDate: day },
              limit,
              (page) => pages.set(day, [...(pages.get(day) ?? []), page]),
              send,
            ),
          ),
        );
        for (const day of daysOf(query)) for (const page of pages.get(day) ?? []) onPage(page);
      });
      return { ...run, keys };
    };
    const limitsJob = async (server, entries, stats) => {
      let updated = [];
      const run = await timed(async () => {
        updated = await putChunks(server, countingFetch(stats), entries, runner(), sendOf(server));
      });
      return { ...run, accounted: run.failed ? [] : updated.map(entryKey), notAppliedByJob: run.failed ? entries.length : 0 };
    };
    return {
      name,
      concurrency,
      exportJob,
      limitsJob,
      both: async (server, query, entries, stats) => Promise.all([exportJob(server, query, stats), limitsJob(server, entries, stats)]),
    };
  };

  return [
    {
      name: "orgagent, concurrency 8",
      concurrency: 8,
      exportJob: (server, query, stats) => sdkExport(sdk(server, stats), query),
      limitsJob: (server, entries, stats) => sdkLimits(sdk(server, stats), entries),
      both: async (server, query, entries, stats) => {
        const client = sdk(server, stats);
        return Promise.all([sdkExport(client, query), sdkLimits(client, entries)]);
      },
    },
    baseline("plain sequential loop", 1),
    baseline("p-limit, 8 at once", 8),
    ...(rateController ? [baseline("p-limit, 8 at once, paced by the rate controller", 8, rateController)] : []),
  ];
}
