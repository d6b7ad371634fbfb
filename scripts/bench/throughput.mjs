// Section 2: loopback throughput against server.mjs, one call after another and with 32 calls in flight.
// undici.request skips the fetch layer entirely: the practical upper bound for an HTTP client on Node.
import createClient from "openapi-fetch";
import { request as undiciRequest } from "undici";
import { fixtures, median, shuffle } from "./lib.mjs";

const API_KEY = "bench-key";
export const CONCURRENCY = 32;

export async function contenders(sdkUrl, baseUrl) {
  const { OrgAgent } = await import(sdkUrl);
  const { path, query } = fixtures.users;
  const url = `${baseUrl}${path}?${new URLSearchParams(query)}`;
  const headers = { Authorization: `Bearer ${API_KEY}`, Accept: "application/json" };
  const bare = createClient({ baseUrl, headers });
  const orgagent = new OrgAgent({ apiKey: API_KEY, baseUrl });
  return [
    {
      name: "raw fetch",
      call: async () => {
        const response = await fetch(url, { headers });
        if (!response.ok) throw new Error(`raw fetch: ${response.status}`);
        return response.json();
      },
    },
    {
      name: "undici.request",
      call: async () => {
        const { statusCode, body } = await undiciRequest(url, { headers });
        if (statusCode !== 200) throw new Error(`undici: ${statusCode}`);
        return body.json();
      },
    },
    {
      name: "openapi-fetch (bare)",
      call: async () => {
        const { data, error } = await bare.GET(path, { params: { query } });
        if (error || !data) throw new Error(`openapi-fetch: ${JSON.stringify(error)}`);
        return data;
      },
    },
    // Awaiting the PagePromise fetches the first page only.
    { name: "orgagent analytics.users", call: async () => await orgagent.analytics.users(query) },
  ];
}

/**
 * Requests per second of each contender, one call after another, the contenders taking turns call by call (in
 * the order given): a change in the machine's load then hits every contender alike, where whole batches one after another
 * would each see a different moment. A contender's rate is its calls over the time spent in its own calls.
 */
async function sequential(list, n) {
  const spent = new Map(list.map((c) => [c, 0]));
  for (let i = 0; i < n; i++) {
    for (const c of list) {
      const start = performance.now();
      await c.call();
      spent.set(c, spent.get(c) + performance.now() - start);
    }
  }
  return new Map(list.map((c) => [c.name, (n / spent.get(c)) * 1000]));
}

/** Makes `n` calls with `inFlight` of them running at once. */
export async function callsInFlight(call, n, inFlight) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) await call();
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

async function concurrent(call, n) {
  const start = performance.now();
  await callsInFlight(call, n, CONCURRENCY);
  return (n / (performance.now() - start)) * 1000;
}

/** Median requests per second of each contender, sequential and concurrent, interleaved in random order. */
export async function measureThroughput(sdkUrl, baseUrl, { rounds, sequentialCalls, concurrentCalls }) {
  const list = await contenders(sdkUrl, baseUrl);
  for (const c of list) {
    const page = await c.call();
    if (!Array.isArray(page?.data) || page.data.length === 0) throw new Error(`${c.name}: unexpected body`);
    await concurrent(c.call, concurrentCalls >> 1);
  }
  await sequential(list, sequentialCalls >> 1);
  const seq = new Map(list.map((c) => [c.name, []]));
  const conc = new Map(list.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, rate] of await sequential(shuffle(list), sequentialCalls)) seq.get(name).push(rate);
    for (const c of shuffle(list)) conc.get(c.name).push(await concurrent(c.call, concurrentCalls));
  }
  return list.map((c) => ({
    name: c.name,
    sequential: median(seq.get(c.name)),
    concurrent: median(conc.get(c.name)),
    sequentialRounds: seq.get(c.name),
    concurrentRounds: conc.get(c.name),
  }));
}
