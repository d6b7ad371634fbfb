// Every emulator response is valid against the spec: the SDK calls every operation (and the documented error
// cases) through `prism proxy --errors` in front of the emulator, one proxy per host. Prism validates the
// request and the emulator's response in both directions and turns any violation into a 500.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { startPrism } from "../../scripts/prism.mjs";
import { EXAMPLE_ANSWER } from "../../src/emulator/examples.js";
import { replyIdOf, startEmulator, type Emulator } from "../../src/emulator/index.js";
import { callByMethod, callByRequest, exampleInput } from "../support/operation-calls.js";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  OrgAgent,
  PermissionDeniedError,
  RateLimitError,
} from "../../src/index.js";

let emulator: Emulator;
let proxies: Array<{ url: string; close(): Promise<void> }> = [];
let sdk: OrgAgent;
let baseProxy: string;
// The emulator's clock runs `offset` ms ahead of the wall clock, so a test can let simulated work finish at once.
let offset = 0;

const DAY = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
const range = { startDate: day(3), endDate: day(1) };

beforeAll(async () => {
  // Install steps take an hour here, so moving the clock a minute never finishes one by accident.
  emulator = await startEmulator({ seed: "contract", now: () => Date.now() + offset, timing: { installMs: 3_600_000 } });
  proxies = await Promise.all([
    startPrism({ mode: "proxy", upstream: emulator.baseUrl }),
    startPrism({ mode: "proxy", upstream: emulator.appUrl }),
  ]);
  baseProxy = proxies[0]!.url;
  sdk = client(emulator.keys.owner);
});

afterAll(async () => {
  await Promise.all([...proxies.map((proxy) => proxy.close()), emulator?.close()]);
});

function client(apiKey: string) {
  return new OrgAgent({ baseUrl: proxies[0]!.url, appUrl: proxies[1]!.url, apiKey, maxRetries: 0, logLevel: "off" });
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/**
 * One call (or a few, for every variant) per operation with emulated behaviour. Every other operation of the spec is
 * answered from its example (src/emulator/examples.ts), and called below with the spec's example values.
 */
const calls: Partial<Record<OperationId, () => Promise<unknown>>> = {
  getAnalyticsTokens: () => Promise.all([sdk.analytics.tokens(range), sdk.analytics.tokens({ ...range, group_by: "model" })]),
  getAnalyticsTools: () => Promise.all([sdk.analytics.tools(range), sdk.analytics.tools({ ...range, group_by: "tool_name" })]),
  getAnalyticsActivity: () => Promise.all([sdk.analytics.activity(range), sdk.analytics.activity({ ...range, group_by: "client" })]),
  getAnalyticsProductivity: () => sdk.analytics.productivity(range),
  // Every page, so the middle pages (has_more, next_cursor) and the last (next_cursor null) are all checked.
  listAnalyticsUsers: async () => {
    const pages = await all(sdk.analytics.users({ ...range, limit: 100 }).pages());
    expect(pages.length).toBeGreaterThan(1);
    return pages;
  },
  listReadinessReports: async () => {
    const reports = await all(sdk.readiness.list({ limit: 10 }));
    expect(reports.length).toBeGreaterThan(10);
    return all(sdk.readiness.list({ repoId: "acme-robotics/fleet-control" }));
  },
  listEnterpriseControlsHistory: async () => {
    const changes = await all(sdk.enterpriseControls.history({ limit: 10 }));
    expect(changes.length).toBeGreaterThan(10);
    return changes;
  },
  setUserLimits: () =>
    sdk.usageLimits.setUserLimits([
      { email: emulator.org.users[0]!.email, limit: 5_000 },
      { email: "nobody@example.com", limit: 5_000 },
      { email: "NOBODY-ELSE@example.com", limit: 0 },
    ]),
  createSession: () =>
    sdk.sessions.create({
      computerId: computerId("build-box-eu-1"),
      cwd: "/srv/app",
      sessionSettings: { model: "claude-sonnet-4-5", tags: [{ name: "contract", metadata: { run: 1 } }] },
    }),
  getSession: async () => {
    const { sessionId } = await sdk.sessions.create({ computerId: computerId("build-box-eu-1") });
    await sdk.sessions.sendMessage(sessionId, { text: "hello" });
    const states = [await sdk.sessions.get(sessionId)];
    offset += 60_000;
    states.push(await sdk.sessions.get(sessionId, { computerId: computerId("build-box-eu-1") }));
    expect(states.map((s) => s.status)).toEqual(["pending", "idle"]);
    return states;
  },
  sendSessionMessage: async () => {
    const { sessionId } = await sdk.sessions.create({ computerId: computerId("build-box-eu-1") });
    return sdk.sessions.sendMessage(sessionId, {
      text: "Look at these",
      images: [{ data: "iVBORw0KGgo=" }],
      files: [{ data: "aGVsbG8=", parsedData: "hello", name: "a.txt", path: "/tmp/a.txt" }],
    });
  },
  getSessionMessage: async () => {
    const { sessionId } = await sdk.sessions.create({ computerId: computerId("build-box-eu-1") });
    const { messageId } = await sdk.sessions.sendMessage(sessionId, { text: "Summarise the README" });
    offset += 60_000;
    return Promise.all([
      sdk.sessions.getMessage(sessionId, messageId),
      sdk.sessions.getMessage(sessionId, replyIdOf(messageId), { computerId: computerId("build-box-eu-1") }),
    ]);
  },
  getComputer: () => Promise.all(emulator.org.computers.map((c) => sdk.computers.get(c.id))),
  getComputerByName: () => Promise.all(emulator.org.computers.map((c) => sdk.computers.getByName(c.name))),
  retryComputerInstallDeps: () => sdk.computers.retryInstallDeps(computerId("gpu-box-1")),
};

function computerId(name: string): string {
  return emulator.org.computers.find((c) => c.name === name)!.id;
}

describe("every operation through prism proxy --errors", () => {
  test.each(Object.keys(operations) as OperationId[])("%s: the emulator's responses are valid", async (id) => {
    // A violation in either direction would surface as a 500 InternalServerError from Prism.
    const call = calls[id];
    if (call) return void (await expect(call()).resolves.toBeDefined());
    // No case above: the operation must be one the emulator answers from the spec's example (else it needs a case).
    const input = exampleInput(id, { optional: true });
    const { response } = await (callByMethod(sdk, id, input) ?? callByRequest(sdk, id, input)).withResponse();
    expect(response.headers.get(EXAMPLE_ANSWER.header), `${id} has emulated behaviour: give it a case in \`calls\``).toBe(
      EXAMPLE_ANSWER.value,
    );
  });
});

describe("error responses through prism proxy --errors", () => {
  test("401 for an unknown key", async () => {
    await expect(client("not-a-key").computers.getByName("build-box-eu-1")).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client("not-a-key").analytics.productivity(range)).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client("not-a-key").readiness.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  test("403 for a member on analytics, history and limits", async () => {
    const member = client(emulator.keys.member);
    await expect(member.analytics.tokens(range)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(member.enterpriseControls.history()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(member.usageLimits.setUserLimits([{ email: emulator.org.users[0]!.email, limit: 1 }])).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
  });

  test("400 with the analytics error body for today's date", async () => {
    // The SDK refuses today's date before sending, so this request is sent by hand.
    const today = day(0);
    const response = await fetch(`${baseProxy}${operations.getAnalyticsTokens.path}?startDate=${today}&endDate=${today}`, {
      headers: { Authorization: `Bearer ${emulator.keys.owner}` },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: 400, title: "Bad Request", detail: expect.stringContaining("24 hours") });
  });

  test("400 for a readiness cursor that names no report, and for a history cursor that is not one", async () => {
    await expect(sdk.readiness.list({ startAfter: "00000000-0000-4000-8000-000000000000" })).rejects.toBeInstanceOf(BadRequestError);
    await expect(sdk.enterpriseControls.history({ cursor: "yesterday" })).rejects.toBeInstanceOf(BadRequestError);
  });

  test("404 for unknown sessions, messages and computers", async () => {
    await expect(sdk.sessions.get("sess_missing")).rejects.toBeInstanceOf(NotFoundError);
    const { sessionId } = await sdk.sessions.create({ computerId: computerId("build-box-us-2") });
    await expect(sdk.sessions.getMessage(sessionId, "msg_missing")).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.computers.get("cmp_missing")).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.computers.getByName("no-such-box")).rejects.toBeInstanceOf(NotFoundError);
  });

  test("429 with Retry-After and the Problem body from an emulator with a rate limit", async () => {
    const limited = await startEmulator({ seed: "contract", rateLimit: { requestsPerSecond: 0.5, burst: 1 } });
    const proxy = await startPrism({ mode: "proxy", upstream: limited.baseUrl });
    try {
      // rateLimiting off: the 429 itself is the point, not the wait the rate controller would make of it.
      const owner = new OrgAgent({ baseUrl: proxy.url, apiKey: limited.keys.owner, maxRetries: 0, logLevel: "off", rateLimiting: false });
      await owner.computers.getByName("build-box-eu-1");
      const refused = await owner.computers.getByName("build-box-eu-1").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimitError);
      expect(refused).toMatchObject({ status: 429, title: "Too Many Requests", retryAfter: expect.any(Number) });
      expect((refused as RateLimitError).headers.get("retry-after")).toBe("2");
    } finally {
      await Promise.all([proxy.close(), limited.close()]);
    }
  });

  test("409 for a session on a computer that is not active, and for a second install retry", async () => {
    await expect(sdk.sessions.create({ computerId: computerId("sandbox-frontend") })).rejects.toBeInstanceOf(ConflictError);
    await sdk.computers.retryInstallDeps(computerId("ci-runner-arm64"));
    await expect(sdk.computers.retryInstallDeps(computerId("ci-runner-arm64"))).rejects.toBeInstanceOf(ConflictError);
  });
});
