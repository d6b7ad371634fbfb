// Every status the spec documents for an operation (500 aside: the emulator never fails on purpose) can be provoked
// from the emulator, with a body valid against the spec's schema for that status. The list is read from the spec:
// a status added to it fails here until the emulator can answer it and this table says how. An operation added
// without emulated behaviour is answered from its example: its success, 401, 429 and 503 come from its example values.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { OperationId } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { validateResponse } from "../contract/schema-validator.js";
import { exampleInput } from "../support/operation-calls.js";
import { specOperations, type SpecOperation } from "../support/spec.js";

interface Call {
  method?: string;
  /** Path and query, e.g. `/api/v0/computers/cmp_1?x=1`. */
  target: string;
  body?: string;
  contentType?: string;
  /** The key to send; null sends no Authorization. Default: the owner's. */
  key?: string | null;
  /** Send to a rate-limited emulator, twice, and answer with the second: 429 (a rate limit) or 503 (overload). */
  overTheLimit?: "429" | "503";
  /** Announce a body of this many bytes and send only its first bytes. */
  announce?: number;
}

interface Answer {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  body: unknown;
}

let emulator: Emulator;
let limited: Emulator;
let overloaded: Emulator;
const ids = { session: "", busySession: "", message: "", computer: "", failed: "", busyComputer: "", provisioning: "" };
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
const range = `startDate=${day(3)}&endDate=${day(1)}`;
const JSON_TYPE = "application/json";

beforeAll(async () => {
  // Install steps take an hour, so a computer made busy here stays busy; sessions are ready at once.
  const timing = { sessionStartMs: 0, replyMs: 3_600_000, installMs: 3_600_000 };
  [emulator, limited, overloaded] = await Promise.all([
    startEmulator({ seed: "statuses", timing }),
    startEmulator({ seed: "statuses", timing, rateLimit: { requestsPerSecond: 0.01, burst: 1 } }),
    startEmulator({ seed: "statuses", timing, rateLimit: { requestsPerSecond: 0.01, burst: 1, style: "overload" } }),
  ]);
  const byName = (name: string) => emulator.org.computers.find((c) => c.name === name)!.id;
  Object.assign(ids, {
    computer: byName("build-box-eu-1"),
    failed: byName("gpu-box-1"),
    busyComputer: byName("ci-runner-arm64"),
    provisioning: byName("sandbox-frontend"),
  });
  const created = await send({ method: "POST", target: "/api/v0/sessions", body: JSON.stringify({ computerId: ids.computer }) });
  ids.session = (created.body as { sessionId: string }).sessionId;
  const sent = await send({ method: "POST", target: `/api/v0/sessions/${ids.session}/messages`, body: JSON.stringify({ text: "hello" }) });
  ids.message = (sent.body as { messageId: string }).messageId;
  // A session whose computer is then busy installing its dependencies: sending to it is 409.
  const busy = await send({ method: "POST", target: "/api/v0/sessions", body: JSON.stringify({ computerId: ids.busyComputer }) });
  ids.busySession = (busy.body as { sessionId: string }).sessionId;
  expect((await send({ method: "POST", target: `/api/v0/computers/${ids.busyComputer}/install-deps` })).status).toBe(202);
});
afterAll(() => Promise.all([emulator?.close(), limited?.close(), overloaded?.close()]));

/** Sends one request to the emulator (or, over the limit, two to a rate-limited one) and reads the answer. */
async function send(call: Call): Promise<Answer> {
  const server = limiterFor(call.overTheLimit);
  const key = call.key === undefined ? server.keys.owner : call.key;
  const headers: Record<string, string> = { ...(key === null ? {} : { authorization: `Bearer ${key}` }) };
  if (call.body !== undefined) headers["content-type"] = call.contentType ?? JSON_TYPE;
  if (call.announce !== undefined) return announced(server, call, headers);
  const once = () =>
    fetch(`${server.baseUrl}${call.target}`, {
      method: call.method ?? "GET",
      headers,
      ...(call.body === undefined ? {} : { body: call.body }),
    });
  if (call.overTheLimit) await (await once()).arrayBuffer();
  const response = await once();
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** A request that announces a large body (Content-Length) and sends a few bytes of it. */
function announced(server: Emulator, call: Call, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.baseUrl}${call.target}`,
      { method: call.method, headers: { ...headers, "content-type": JSON_TYPE, "content-length": String(call.announce) } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) });
          req.destroy();
        });
      },
    );
    req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
    req.write('{"users":[');
  });
}

const SEVENTEEN_MIB = 17 * 1024 * 1024;
const analytics = (path: string) => ({
  "200": () => send({ target: `${path}?${range}` }),
  "400": () => send({ target: `${path}?startDate=2026-02-30&endDate=${day(1)}` }),
  "401": () => send({ target: `${path}?${range}`, key: null }),
  "403": () => send({ target: `${path}?${range}`, key: emulator.keys.member }),
  "429": () => send({ target: `${path}?${range}`, overTheLimit: "429" }),
  "503": () => send({ target: `${path}?${range}`, overTheLimit: "503" }),
});
/** A request with a JSON body: its 413 (announced too large) and 415 (sent as text) come with it. */
const withBody = (method: string, target: string, body: string) => ({
  "413": () => send({ method, target, announce: SEVENTEEN_MIB }),
  "415": () => send({ method, target, body, contentType: "text/plain" }),
});
const everyone = (call: Call) => ({
  "401": () => send({ ...call, key: null }),
  "403": () => send({ ...call, key: emulator.keys.guest }),
  "429": () => send({ ...call, overTheLimit: "429" }),
  "503": () => send({ ...call, overTheLimit: "503" }),
});

/** How to provoke each documented status of each operation with emulated behaviour. */
const provoke: Partial<Record<OperationId, Record<string, () => Promise<Answer>>>> = {
  getAnalyticsTokens: analytics("/api/v1/analytics/tokens"),
  getAnalyticsTools: analytics("/api/v1/analytics/tools"),
  getAnalyticsActivity: analytics("/api/v1/analytics/activity"),
  getAnalyticsProductivity: analytics("/api/v1/analytics/productivity"),
  listAnalyticsUsers: {
    ...analytics("/api/v1/analytics/users"),
    "400": () => send({ target: `/api/v1/analytics/users?${range}&limit=0` }),
  },
  listReadinessReports: {
    "200": () => readiness(""),
    "400": () => readiness("?startAfter=00000000-0000-4000-8000-000000000000"),
    "401": () => readiness("", null),
    "429": () => readiness("", undefined, "429"),
    "503": () => readiness("", undefined, "503"),
  },
  listEnterpriseControlsHistory: {
    ...everyone({ target: "/api/v0/organization/enterprise-controls/history" }),
    "200": () => send({ target: "/api/v0/organization/enterprise-controls/history" }),
    "400": () => send({ target: "/api/v0/organization/enterprise-controls/history?cursor=yesterday" }),
    "403": () => send({ target: "/api/v0/organization/enterprise-controls/history", key: emulator.keys.member }),
  },
  setUserLimits: {
    ...everyone({
      method: "PUT",
      target: "/api/v0/organization/usage/limits/users",
      body: JSON.stringify({ users: [{ email: "x@example.com", limit: 1 }] }),
    }),
    ...withBody("PUT", "/api/v0/organization/usage/limits/users", JSON.stringify({ users: [{ email: "x@example.com", limit: 1 }] })),
    "200": () =>
      send({
        method: "PUT",
        target: "/api/v0/organization/usage/limits/users",
        body: JSON.stringify({ users: [{ email: emulator.org.users[0]!.email, limit: 1 }] }),
      }),
    "400": () => send({ method: "PUT", target: "/api/v0/organization/usage/limits/users", body: JSON.stringify({ users: [] }) }),
    "403": () =>
      send({
        method: "PUT",
        target: "/api/v0/organization/usage/limits/users",
        body: JSON.stringify({ users: [{ email: "x@example.com", limit: 1 }] }),
        key: emulator.keys.member,
      }),
  },
  createSession: {
    ...everyone({ method: "POST", target: "/api/v0/sessions", body: JSON.stringify({ computerId: ids.computer }) }),
    ...withBody("POST", "/api/v0/sessions", "{}"),
    "201": () => send({ method: "POST", target: "/api/v0/sessions", body: JSON.stringify({ computerId: ids.computer }) }),
    "400": () => send({ method: "POST", target: "/api/v0/sessions", body: "{}" }),
    "404": () => send({ method: "POST", target: "/api/v0/sessions", body: JSON.stringify({ computerId: "cmp_missing" }) }),
    "409": () => send({ method: "POST", target: "/api/v0/sessions", body: JSON.stringify({ computerId: ids.provisioning }) }),
  },
  getSession: {
    ...lazy(() => everyone({ target: `/api/v0/sessions/${ids.session}` })),
    "200": () => send({ target: `/api/v0/sessions/${ids.session}` }),
    "400": () => send({ target: `/api/v0/sessions/${ids.session}?computerId=` }),
    "404": () => send({ target: "/api/v0/sessions/sess_missing" }),
  },
  sendSessionMessage: {
    ...lazy(() => everyone({ method: "POST", target: `/api/v0/sessions/${ids.session}/messages`, body: JSON.stringify({ text: "hi" }) })),
    ...lazy(() => withBody("POST", `/api/v0/sessions/${ids.session}/messages`, JSON.stringify({ text: "hi" }))),
    "200": () => send({ method: "POST", target: `/api/v0/sessions/${ids.session}/messages`, body: JSON.stringify({ text: "hi" }) }),
    "400": () => send({ method: "POST", target: `/api/v0/sessions/${ids.session}/messages`, body: "{}" }),
    "404": () => send({ method: "POST", target: "/api/v0/sessions/sess_missing/messages", body: JSON.stringify({ text: "hi" }) }),
    "409": () => send({ method: "POST", target: `/api/v0/sessions/${ids.busySession}/messages`, body: JSON.stringify({ text: "hi" }) }),
  },
  getSessionMessage: {
    ...lazy(() => everyone({ target: `/api/v0/sessions/${ids.session}/messages/${ids.message}` })),
    "200": () => send({ target: `/api/v0/sessions/${ids.session}/messages/${ids.message}` }),
    "400": () => send({ target: `/api/v0/sessions/${ids.session}/messages/${ids.message}?computerId=` }),
    "404": () => send({ target: `/api/v0/sessions/${ids.session}/messages/msg_missing` }),
  },
  getComputer: {
    ...lazy(() => everyone({ target: `/api/v0/computers/${ids.computer}` })),
    "200": () => send({ target: `/api/v0/computers/${ids.computer}` }),
    "400": () => send({ target: "/api/v0/computers/%ZZ" }),
    "404": () => send({ target: "/api/v0/computers/cmp_missing" }),
  },
  getComputerByName: {
    ...everyone({ target: "/api/v0/computers/name/build-box-eu-1" }),
    "200": () => send({ target: "/api/v0/computers/name/build-box-eu-1" }),
    "400": () => send({ target: `/api/v0/computers/name/${"x".repeat(64)}` }),
    "404": () => send({ target: "/api/v0/computers/name/no-such-box" }),
  },
  retryComputerInstallDeps: {
    ...lazy(() => everyone({ method: "POST", target: `/api/v0/computers/${ids.failed}/install-deps` })),
    "202": () => send({ method: "POST", target: `/api/v0/computers/${ids.failed}/install-deps` }),
    "400": () => send({ method: "POST", target: `/api/v0/computers/${ids.computer}/install-deps`, body: "{}" }),
    "404": () => send({ method: "POST", target: "/api/v0/computers/cmp_missing/install-deps" }),
    "409": () => send({ method: "POST", target: `/api/v0/computers/${ids.busyComputer}/install-deps` }),
  },
};

/**
 * An operation the emulator answers from the spec's example (no behaviour of its own): its success from its example
 * values, 401 without a key, 403 with the guest key, 429 over the rate limit, and 400 for a number parameter given
 * text (when it has one).
 */
function fromExample(op: SpecOperation): Record<string, () => Promise<Answer>> {
  const { path = {}, query = {} } = exampleInput(op.operationId, { optional: false });
  const target = (extra: Record<string, unknown> = {}) => {
    const search = new URLSearchParams(Object.entries({ ...query, ...extra }).map(([name, value]) => [name, String(value)])).toString();
    return `${op.path.replace(/\{([^{}]+)\}/g, (_, name: string) => encodeURIComponent(String(path[name])))}${search ? `?${search}` : ""}`;
  };
  const body = op.requestExample === undefined ? {} : { body: JSON.stringify(op.requestExample) };
  const call: Call = { method: op.method, target: target(), ...body };
  const number = op.parameters.find((p) => p.in === "query" && ["integer", "number"].includes(p.schema?.type));
  return {
    ...everyone(call),
    [String(op.successStatus)]: () => send(call),
    ...(number ? { "400": () => send({ ...call, target: target({ [number.name]: "many" }) }) } : {}),
  };
}

/** Provokers whose requests name ids known only once the emulator runs: their requests are built when called. */
function lazy(make: () => Record<string, () => Promise<Answer>>): Record<string, () => Promise<Answer>> {
  return Object.fromEntries(Object.keys(make()).map((status) => [status, () => make()[status]!()]));
}

/** The emulator a call over the limit goes to: one answering 429, one shedding load with 503; otherwise the unlimited one. */
function limiterFor(overTheLimit: "429" | "503" | undefined): Emulator {
  return overTheLimit === "429" ? limited : overTheLimit === "503" ? overloaded : emulator;
}

/** The app host's readiness reports. */
async function readiness(query: string, key: string | null = emulator.keys.owner, overTheLimit?: "429" | "503"): Promise<Answer> {
  const server = limiterFor(overTheLimit);
  const headers = key === null ? {} : { authorization: `Bearer ${key === emulator.keys.owner ? server.keys.owner : key}` };
  const once = () => fetch(`${server.appUrl}/api/organization/maturity-level-reports${query}`, { headers });
  if (overTheLimit) await (await once()).arrayBuffer();
  const response = await once();
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const documented = specOperations.flatMap((op) =>
  Object.keys(op.responses)
    .filter((status) => status !== "500")
    .map((status) => [op.operationId, status, op] as const),
);

describe("every documented status of every operation, provoked from the emulator", () => {
  test("the spec documents 413 and 415 where the emulator answers them, and 403 where a key's role can be refused", () => {
    const statuses = (id: string) => Object.keys(specOperations.find((op) => op.operationId === id)!.responses);
    for (const id of ["createSession", "sendSessionMessage", "setUserLimits"])
      expect(statuses(id)).toEqual(expect.arrayContaining(["413", "415"]));
    for (const op of specOperations) if (op.path.startsWith("/api/v")) expect(statuses(op.operationId), op.operationId).toContain("403");
  });

  test.each(documented.map(([id, status]) => [`${id} ${status}`, id, status] as const))("%s", async (_, id, status) => {
    const op = documented.find(([i, s]) => i === id && s === status)![2];
    const how = ((provoke[id] ?? fromExample(op)) as Record<string, (() => Promise<Answer>) | undefined>)[status];
    if (!how) throw new Error(`${id} documents ${status}, and nothing here provokes it from the emulator`);
    const answer = await how();
    expect(answer.status).toBe(Number(status));
    const verdict = validateResponse(op.path, op.method.toLowerCase(), status, answer.body);
    expect(verdict.errors).toEqual([]);
    const requestId = answer.headers instanceof Headers ? answer.headers.get("x-request-id") : answer.headers["x-request-id"];
    expect(requestId).toMatch(/^req_/);
  });
});
