// Section 1: per-call overhead. Every contender gets the same stubbed `fetch`, which answers the spec's
// getComputer example as a fresh Response each call, so what is timed is the client's own work per call:
// building the request, headers, URL, retry bookkeeping, reading and parsing the body.
// The stub first does what fetch itself does before touching the network, `new Request(input, init)`: a client
// that hands fetch a prebuilt Request or an AbortSignal then pays here what it pays against a real server
// (undici clones the Request and follows its signal), and one that does not is not charged for it.
import Anthropic from "@anthropic-ai/sdk";
import { Octokit } from "@octokit/core";
import OpenAI from "openai";
import createClient from "openapi-fetch";
import { fixtures, median, shuffle } from "./lib.mjs";

const BASE_URL = fixtures.baseUrl;
const API_KEY = "bench-key";

export async function contenders(sdkUrl) {
  const { OrgAgent } = await import(sdkUrl);
  const { path, body, computerId } = fixtures.computer;
  const text = JSON.stringify(body);
  const length = String(Buffer.byteLength(text));
  const stubFetch = async (input, init) => {
    new Request(input, init);
    return new Response(text, { status: 200, headers: { "content-type": "application/json", "content-length": length } });
  };
  const url = `${BASE_URL}${path.replace("{computerId}", encodeURIComponent(computerId))}`;
  const auth = { Authorization: `Bearer ${API_KEY}`, Accept: "application/json" };

  const bare = createClient({ baseUrl: BASE_URL, fetch: stubFetch, headers: auth });
  const octokit = new Octokit({ baseUrl: BASE_URL, auth: API_KEY, request: { fetch: stubFetch } });
  const openai = new OpenAI({ apiKey: API_KEY, baseURL: BASE_URL, fetch: stubFetch });
  const anthropic = new Anthropic({ apiKey: API_KEY, baseURL: BASE_URL, fetch: stubFetch });
  const orgagent = new OrgAgent({ apiKey: API_KEY, baseUrl: BASE_URL, fetch: stubFetch });
  const octokitRoute = `GET ${path}`;
  const relative = url.slice(BASE_URL.length);

  return [
    {
      name: "raw fetch",
      call: async () => {
        const response = await stubFetch(url, { headers: auth });
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      },
    },
    { name: "openapi-fetch (bare)", call: () => bare.GET(path, { params: { path: { computerId } } }) },
    { name: "@octokit/core request", fullFeatured: true, call: () => octokit.request(octokitRoute, { computerId }) },
    { name: "openai client.get", fullFeatured: true, call: () => openai.get(relative) },
    { name: "@anthropic-ai/sdk client.get", fullFeatured: true, call: () => anthropic.get(relative) },
    { name: "orgagent computers.get", call: () => orgagent.computers.get(computerId) },
    { name: "orgagent client.raw.GET", call: () => orgagent.raw.GET(path, { params: { path: { computerId } } }) },
  ];
}

/** µs per call: CPU time of the process (all threads, so GC included) and wall time. */
async function batch(call, n) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  const wall = Number(process.hrtime.bigint() - start) / 1e3 / n;
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / n, wall };
}

/**
 * Median µs per call of each contender; contenders interleaved in a new random order every round. CPU time is
 * the figure the ratios use: on a shared machine, time spent waiting for a core inflates wall time, not CPU time.
 * (No forced GC between batches: a full gc() here makes the next few thousand calls several times slower.)
 */
export async function measureOverhead(sdkUrl, { warmup, rounds, calls }) {
  const list = await contenders(sdkUrl);
  // Each must really get the computer, not resolve to an error object.
  for (const c of list) {
    const result = await c.call();
    const body = result?.data ?? result;
    if (body?.id !== fixtures.computer.computerId) throw new Error(`${c.name}: unexpected result ${JSON.stringify(result)}`);
  }
  for (const c of list) await batch(c.call, warmup);
  const samples = new Map(list.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of shuffle(list)) samples.get(c.name).push(await batch(c.call, calls));
  }
  return list.map((c) => {
    const cpu = samples.get(c.name).map((s) => s.cpu);
    const wall = samples.get(c.name).map((s) => s.wall);
    return { name: c.name, fullFeatured: c.fullFeatured === true, cpu: median(cpu), wall: median(wall), cpuRounds: cpu };
  });
}
