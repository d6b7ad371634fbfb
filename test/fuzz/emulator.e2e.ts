// A seeded fuzz of the emulator from the spec: random requests of every operation (parameters and bodies drawn from
// the spec's schemas, with ids that exist and values that do not, under every key) go through `prism proxy --errors`,
// one proxy per host bundle, to the emulator. Prism checks each request and each answer against the spec: an answer
// that breaks it becomes a 500, and so does a failure of the emulator's own. Every answer must be one the spec
// documents for its operation. Prism answers an invalid request itself (422) without forwarding it.
//   npm run test:fuzz                      FUZZ_SEED=7 FUZZ_RUNS=3000 npm run test:fuzz
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { startPrism } from "../../scripts/prism.mjs";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { arbitraryOf } from "../support/schema-arbitrary.js";
import { deref, operationObject, specOperations, type SpecOperation } from "../support/spec.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_200);
const DAY = 86_400_000;
const bundle = (host: string) => new URL(`../../generated/openapi.${host}.json`, import.meta.url).pathname;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

let emulator: Emulator;
let proxies: { api: { url: string; close(): Promise<void> }; app: { url: string; close(): Promise<void> } };
let pools: Record<string, string[]>;

beforeAll(async () => {
  // Sessions start and answer at once, installs take an hour: every state a session or computer can be in exists.
  emulator = await startEmulator({ seed: "fuzz", timing: { sessionStartMs: 0, replyMs: 50, installMs: 3_600_000 } });
  const [api, app] = await Promise.all([
    startPrism({ mode: "proxy", upstream: emulator.baseUrl, spec: bundle("api") }),
    startPrism({ mode: "proxy", upstream: emulator.appUrl, spec: bundle("app") }),
  ]);
  proxies = { api, app };
  const owner = { authorization: `Bearer ${emulator.keys.owner}`, "content-type": "application/json" };
  const computers = emulator.org.computers;
  const active = computers.find((c) => c.name === "build-box-eu-1")!.id;
  const sessions: string[] = [];
  const messages: string[] = [];
  for (let i = 0; i < 3; i++) {
    const session = (await (
      await fetch(`${emulator.baseUrl}/api/v0/sessions`, { method: "POST", headers: owner, body: JSON.stringify({ computerId: active }) })
    ).json()) as { sessionId: string };
    sessions.push(session.sessionId);
    const sent = (await (
      await fetch(`${emulator.baseUrl}/api/v0/sessions/${session.sessionId}/messages`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({ text: "hi" }),
      })
    ).json()) as { messageId: string };
    messages.push(sent.messageId, `${sent.messageId}_reply`);
  }
  const reports = (
    (await (await fetch(`${emulator.appUrl}/api/organization/maturity-level-reports?limit=3`, { headers: owner })).json()) as {
      reports: Array<{ reportId: string }>;
    }
  ).reports;
  // Values that exist, and values that do not (or are not allowed), for the fields that name something.
  pools = {
    sessionId: [...sessions, "sess_missing", "x y", "ä/ö"],
    messageId: [...messages, "msg_missing"],
    computerId: [...computers.map((c) => c.id), "cmp_missing", ""],
    name: [...computers.map((c) => c.name), "no-such-box", "x".repeat(64)],
    email: [...emulator.org.users.slice(0, 5).map((u) => u.email), "nobody@example.com", "NOAH.RAHMAN@acme-robotics.com", "not-an-email"],
    startDate: [day(1), day(3), day(30), "2026-01-14", "2025-12-30", day(0), day(-1), "2026-02-30", "yesterday"],
    endDate: [day(1), day(2), day(10), "2026-01-20", "2025-12-31", day(0), "2026-13-01"],
    cursor: ["rev_10", "rev_9999", "page-two", `${emulator.org.users[3]!.id}@${day(2)}`, emulator.org.users[7]!.id, ""],
    startAfter: [...reports.map((r) => r.reportId), "00000000-0000-4000-8000-000000000000"],
    repoId: ["acme-robotics/fleet-control", "https://github.com/acme-robotics/fleet-control", "nobody/nothing"],
  };
});
afterAll(() => Promise.all([proxies?.api.close(), proxies?.app.close(), emulator?.close()]));

interface Sent {
  operationId: OperationId;
  method: string;
  target: string;
  key: string | null;
  body?: string;
  contentType?: string;
}

/** A random request of one operation: its parameters and body drawn from the spec, sometimes broken. */
function requestOf(op: SpecOperation): fc.Arbitrary<Sent> {
  const params = op.parameters.filter((p) => p.in === "path" || p.in === "query");
  const junk = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("", "-1", "0", "1e2", "5.0", "+5", "%", "null"));
  const value = (param: (typeof params)[number]) =>
    fc.oneof({ weight: 5, arbitrary: arbitraryOf(param.schema, { pools }, param.name) }, { weight: 1, arbitrary: junk });
  const paramValues = fc.tuple(
    ...params.map((param) =>
      param.required || param.in === "path"
        ? value(param).map((v) => [param, v] as const)
        : fc.option(
            value(param).map((v) => [param, v] as const),
            { nil: undefined },
          ),
    ),
  );
  const body = deref(operationObject(op.operationId).requestBody)?.content?.["application/json"]?.schema;
  const bodies: fc.Arbitrary<{ body?: string; contentType?: string }> = body
    ? fc.oneof(
        { weight: 8, arbitrary: arbitraryOf(body, { pools }).map((value) => ({ body: JSON.stringify(value) })) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ body: JSON.stringify(value) })) },
        { weight: 1, arbitrary: fc.constant({ body: "not json", contentType: "text/plain" }) },
      )
    : fc.constant({});
  const keys = fc.constantFrom(
    emulator.keys.owner,
    emulator.keys.owner,
    emulator.keys.owner,
    emulator.keys.manager,
    emulator.keys.member,
    emulator.keys.guest,
    "oa-wrong-key",
    null,
  );
  return fc.tuple(paramValues, bodies, keys).map(([values, payload, key]) => {
    let path = op.path;
    const query = new URLSearchParams();
    for (const entry of values) {
      if (!entry) continue;
      const [param, v] = entry;
      if (param.in === "path") path = path.replace(`{${param.name}}`, encodeURIComponent(String(v)));
      else query.append(param.name, String(v));
    }
    return { operationId: op.operationId, method: op.method, target: `${path}${query.size ? `?${query}` : ""}`, key, ...payload };
  });
}

test(`${RUNS} random requests through prism proxy --errors: every answer valid and documented (seed ${SEED})`, async () => {
  const seen = new Map<string, number>();
  const requests = fc.constantFrom(...specOperations).chain((op) => requestOf(op));
  await fc.assert(
    fc.asyncProperty(requests, async (sent) => {
      // A path segment "." or ".." is resolved away by URL parsers: it would not reach the path it names.
      fc.pre(!/\/\.\.?(\/|$|\?)/.test(sent.target));
      const operation = specOperations.find((op) => op.operationId === sent.operationId)!;
      const proxy = operations[sent.operationId].host === "app_url" ? proxies.app : proxies.api;
      const headers: Record<string, string> = sent.key === null ? {} : { authorization: `Bearer ${sent.key}` };
      if (sent.body !== undefined) headers["content-type"] = sent.contentType ?? "application/json";
      const response = await fetch(`${proxy.url}${sent.target}`, {
        method: sent.method,
        headers,
        ...(sent.body === undefined ? {} : { body: sent.body }),
      });
      const text = await response.text();
      const label = `${sent.method} ${sent.target} (${sent.key ?? "no key"}) → ${response.status}: ${text.slice(0, 300)}`;
      expect(response.status, label).not.toBe(500);
      const body = text ? JSON.parse(text) : undefined;
      // Prism's own answer to a request the spec does not allow: nothing reached the emulator.
      if (response.status === 422 && String(body?.type).startsWith("https://stoplight.io/prism/errors")) {
        seen.set("refused by Prism", (seen.get("refused by Prism") ?? 0) + 1);
        return;
      }
      expect(Object.keys(operation.responses), label).toContain(String(response.status));
      const key = `${sent.operationId} ${response.status}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  console.log(
    `answers by operation and status:\n${[...seen]
      .sort()
      .map(([key, n]) => `  ${key}: ${n}`)
      .join("\n")}`,
  );
  // A run of the default length reaches every operation's success (a shorter one, FUZZ_RUNS, may not).
  const unreached = specOperations.filter((op) => !seen.has(`${op.operationId} ${op.successStatus}`)).map((op) => op.operationId);
  if (RUNS >= 1_200) expect(unreached).toEqual([]);
});
