// The emulator behaves like the service: pages that end, figures that agree, limits that stick, sessions that
// move, computers that provision, keys with roles and the documented 400s. Driven through the SDK (and by hand
// where the SDK would refuse to send), with the emulator's clock under the test's control.
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { FIRST_DATA_DAY, replyIdOf, startEmulator, type Emulator } from "../../src/emulator/index.js";

const usersLimit = operations.listAnalyticsUsers.params.limit.schema;
const dayBeforeFirst = new Date(Date.parse(`${FIRST_DATA_DAY}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  OrgAgent,
  PermissionDeniedError,
  type ActivityGroupedRow,
  type ActivityRow,
  type UserRow,
} from "../../src/index.js";

// The emulator's "now": mid-June 2026, so yesterday is 2026-06-14. Tests move it forward with `advance`.
const START = Date.parse("2026-06-15T12:00:00Z");
let clock = START;
const advance = (ms: number) => (clock += ms);
const TIMING = { sessionStartMs: 500, replyMs: 2_000, installMs: 10_000 };

let emulator: Emulator;
let sdk: OrgAgent;
const week = { startDate: "2026-06-08", endDate: "2026-06-14" };

beforeAll(async () => {
  emulator = await startEmulator({ seed: 7, now: () => clock, timing: TIMING });
  sdk = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner, maxRetries: 0, logLevel: "off" });
});
afterAll(() => emulator?.close());

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
const total = <T>(items: readonly T[], pick: (item: T) => number) => items.reduce((sum, item) => sum + pick(item), 0);
const computer = (name: string) => emulator.org.computers.find((c) => c.name === name)!.id;

/** A request sent by hand (the SDK validates before sending, so it cannot send the bad ones). */
async function raw(url: string, key: string | null = emulator.keys.owner) {
  const response = await fetch(url, { headers: key === null ? {} : { Authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("startup and hosts", () => {
  test("starts in well under a second, with one loopback listener per host", async () => {
    const started = performance.now();
    const other = await startEmulator({ seed: "startup" });
    const elapsed = performance.now() - started;
    await other.close();
    expect(elapsed).toBeLessThan(1_000);
    expect(new URL(emulator.baseUrl).hostname).toBe("127.0.0.1");
    expect(new URL(emulator.appUrl).hostname).toBe("127.0.0.1");
    expect(emulator.baseUrl).not.toBe(emulator.appUrl);
    expect(emulator.org.users.length).toBeGreaterThanOrEqual(200);
  });

  test("each host serves only its own paths", async () => {
    const readiness = operations.listReadinessReports.path;
    const tokens = `${operations.getAnalyticsTokens.path}?startDate=${week.startDate}&endDate=${week.endDate}`;
    expect((await raw(`${emulator.baseUrl}${readiness}`)).status).toBe(404);
    expect((await raw(`${emulator.appUrl}${tokens}`)).status).toBe(404);
    expect((await raw(`${emulator.appUrl}${readiness}`)).status).toBe(200);
    expect((await raw(`${emulator.baseUrl}${tokens}`)).status).toBe(200);
  });

  test("the same seed and clock give the same organization and figures; another seed does not", async () => {
    const [a, b, c] = await Promise.all([7, 7, 8].map((seed) => startEmulator({ seed, now: () => START })));
    try {
      const tokens = (e: Emulator) => raw(`${e.baseUrl}${operations.getAnalyticsTokens.path}?startDate=2026-03-02&endDate=2026-03-03`);
      expect(a!.org).toEqual(b!.org);
      expect((await tokens(a!)).body).toEqual((await tokens(b!)).body);
      expect(c!.org.users).not.toEqual(a!.org.users);
      expect((await tokens(c!)).body.data).not.toEqual((await tokens(a!)).body.data);
    } finally {
      await Promise.all([a, b, c].map((e) => e!.close()));
    }
  });
});

describe("analytics figures agree with each other", () => {
  test("credits: totals are the sums of by_model and of by_user; grouped rows are by_model", async () => {
    const [daily, grouped] = await Promise.all([sdk.analytics.tokens(week), sdk.analytics.tokens({ ...week, group_by: "model" })]);
    expect(daily.data.map((row) => row.date)).toEqual([
      "2026-06-08",
      "2026-06-09",
      "2026-06-10",
      "2026-06-11",
      "2026-06-12",
      "2026-06-13",
      "2026-06-14",
    ]);
    for (const row of daily.data) {
      expect(total(row.by_model, (m) => m.billable_tokens)).toBe(row.billable_tokens);
      expect(total(row.by_model, (m) => m.input_tokens)).toBe(row.input_tokens);
      expect(total(row.by_model, (m) => m.output_tokens)).toBe(row.output_tokens);
      expect(total(row.by_user, (u) => u.billable_tokens)).toBe(row.billable_tokens);
      for (const user of row.by_user) expect(total(user.by_model, (m) => m.billable_tokens)).toBe(user.billable_tokens);
      const groups = grouped.data.filter((g) => g.date === row.date);
      expect(
        groups.map(({ group_key, billable_tokens, input_tokens, output_tokens }) => ({
          model_id: group_key,
          billable_tokens,
          input_tokens,
          output_tokens,
        })),
      ).toEqual(
        row.by_model.map(({ model_id, billable_tokens, input_tokens, output_tokens }) => ({
          model_id,
          billable_tokens,
          input_tokens,
          output_tokens,
        })),
      );
    }
  });

  test("tools: every total is the sum of its breakdown; grouped rows are by_tool", async () => {
    const [daily, grouped] = await Promise.all([sdk.analytics.tools(week), sdk.analytics.tools({ ...week, group_by: "tool_name" })]);
    for (const row of daily.data) {
      expect(total(row.by_tool, (t) => t.invocations)).toBe(row.tool_calls);
      expect(total(row.skills_by_name, (s) => s.count)).toBe(row.skills_invocations);
      expect(total(row.slash_commands_by_name, (s) => s.count)).toBe(row.slash_commands_invocations);
      expect(total(row.hooks_by_event, (h) => h.count)).toBe(row.hooks_invocations);
      const ratio = row.tool_autonomy_level_ratio;
      // The emulator sends all four levels (the spec lets any be absent).
      expect(ratio.auto_high! + ratio.auto_medium! + ratio.auto_low! + ratio.manual!).toBeCloseTo(1, 2);
      expect(row.autonomy_ratio_p50).toBeLessThanOrEqual(row.autonomy_ratio_p90);
      expect(grouped.data.filter((g) => g.date === row.date).map((g) => [g.group_key, g.tool_calls])).toEqual(
        row.by_tool.map((t) => [t.tool, t.invocations]),
      );
    }
  });

  test("activity: daily active users are distinct users, per client at most once each; windows only grow", async () => {
    const [daily, grouped, tokens] = await Promise.all([
      sdk.analytics.activity(week) as Promise<{ data: ActivityRow[] }>,
      sdk.analytics.activity({ ...week, group_by: "client" }) as Promise<{ data: ActivityGroupedRow[] }>,
      sdk.analytics.tokens(week),
    ]);
    for (const row of daily.data) {
      const byUser = tokens.data.find((t) => t.date === row.date)!.by_user;
      expect(new Set(byUser.map((u) => u.user_id)).size).toBe(row.daily_active_users);
      const perClient = Object.values(row.daily_active_users_by_client).map((count) => count ?? Number.NaN);
      for (const count of perClient) expect(count).toBeLessThanOrEqual(row.daily_active_users);
      expect(total(perClient, (n) => n)).toBeGreaterThanOrEqual(row.daily_active_users);
      expect(Object.fromEntries(grouped.data.filter((g) => g.date === row.date).map((g) => [g.group_key, g.daily_active_users]))).toEqual(
        row.daily_active_users_by_client,
      );
      expect(row.daily_active_users).toBeLessThanOrEqual(row.weekly_active_users);
      expect(row.weekly_active_users).toBeLessThanOrEqual(row.monthly_active_users);
      expect(row.monthly_active_users).toBeLessThanOrEqual(emulator.org.users.length);
      expect(row.messages).toBeGreaterThan(row.user_messages);
    }
  });

  test("productivity: per extension and per language both add up to the files created plus edited", async () => {
    const { data } = await sdk.analytics.productivity(week);
    for (const row of data) {
      expect(total(row.by_extension, (e) => e.count ?? Number.NaN)).toBe(row.files_created + row.files_edited);
      expect(total(row.by_language, (l) => l.count ?? Number.NaN)).toBe(row.files_created + row.files_edited);
    }
  });

  test("/users rows are the per-user side of the same facts: they sum to every daily figure", async () => {
    const [rows, tokens, tools, activity, productivity] = await Promise.all([
      all(sdk.analytics.users({ ...week, limit: 100 })),
      sdk.analytics.tokens(week),
      sdk.analytics.tools(week),
      sdk.analytics.activity(week) as Promise<{ data: ActivityRow[] }>,
      sdk.analytics.productivity(week),
    ]);
    for (const day of tokens.data) {
      const ofDay = rows.filter((r) => r.date === day.date);
      expect(Object.fromEntries(ofDay.map((r) => [r.user_id, r.billable_tokens]))).toEqual(
        Object.fromEntries(day.by_user.map((u) => [u.user_id, u.billable_tokens])),
      );
      expect(ofDay.map((r) => r.user_email).sort()).toEqual(day.by_user.map((u) => u.user_email).sort());
      const toolsRow = tools.data.find((t) => t.date === day.date)!;
      expect(total(ofDay, (r) => r.tool_calls)).toBe(toolsRow.tool_calls);
      expect(total(ofDay, (r) => r.skill_calls)).toBe(toolsRow.skills_invocations);
      expect(total(ofDay, (r) => r.hooks)).toBe(toolsRow.hooks_invocations);
      expect(ofDay.filter((r) => r.mcp_calls > 0).length).toBe(toolsRow.mcp_users_with_mcp);
      const activityRow = activity.data.find((a) => a.date === day.date)!;
      expect(ofDay.length).toBe(activityRow.daily_active_users);
      expect(total(ofDay, (r) => r.sessions)).toBe(activityRow.sessions);
      expect(total(ofDay, (r) => r.messages)).toBe(activityRow.messages);
      expect(total(ofDay, (r) => r.user_messages)).toBe(activityRow.user_messages);
      const productivityRow = productivity.data.find((p) => p.date === day.date)!;
      expect(total(ofDay, (r) => r.files_created)).toBe(productivityRow.files_created);
      expect(total(ofDay, (r) => r.git_commits)).toBe(productivityRow.git_commits);
      for (const row of ofDay) {
        expect(row.messages).toBe(row.user_messages + row.assistant_messages);
        const models = day.by_user.find((u) => u.user_id === row.user_id)!.by_model;
        const top = models.reduce((a, b) => (b.billable_tokens > a.billable_tokens ? b : a));
        expect([row.primary_model, row.primary_model_tier]).toEqual([top.model_id, top.model_tier]);
      }
    }
  });
});

describe("/users pagination", () => {
  const month = { startDate: "2026-05-01", endDate: "2026-05-31" };

  test("the default page size is the spec's, and the pages end", async () => {
    const first = await sdk.analytics.users(month);
    expect(first.data).toHaveLength(operations.listAnalyticsUsers.params.limit.schema.default);
    expect(first.meta).toMatchObject({
      has_more: true,
      next_cursor: expect.any(String),
      start_date: month.startDate,
      end_date: month.endDate,
    });
    const pages = await all(sdk.analytics.users({ ...month, limit: 100 }).pages());
    const last = pages.at(-1)!;
    expect(last.meta.has_more).toBe(false);
    expect(last.meta.next_cursor).toBeNull();
    for (const page of pages.slice(0, -1)) expect(page.data).toHaveLength(100);
  });

  test("any page size yields every row exactly once, in the same stable order, one row per active user per day", async () => {
    const key = (r: UserRow) => `${r.user_id} ${r.date}`;
    // 7 rows a page ends part-way through users' months: the cursor then carries the date too.
    const [small, large, activity] = await Promise.all([
      all(sdk.analytics.users({ ...month, limit: 7 })),
      all(sdk.analytics.users({ ...month, limit: 100 })),
      sdk.analytics.activity(month) as Promise<{ data: ActivityRow[] }>,
    ]);
    expect(small.map(key)).toEqual(large.map(key));
    expect(new Set(large.map(key)).size).toBe(large.length);
    expect(large.length).toBe(total(activity.data, (a) => a.daily_active_users));
  });

  test("400 with the analytics error body for today, impossible dates, reversed ranges and bad limits", async () => {
    const path = `${emulator.baseUrl}${operations.listAnalyticsUsers.path}`;
    const today = "2026-06-15";
    const bad = [
      `startDate=${today}&endDate=${today}`,
      "startDate=2026-02-30&endDate=2026-03-01",
      "startDate=2026-3-1&endDate=2026-03-02",
      "startDate=2026-03-05&endDate=2026-03-01",
      "startDate=2026-06-01&endDate=2026-06-16",
      `startDate=2026-06-01&endDate=2026-06-02&limit=${usersLimit.minimum - 1}`,
      `startDate=2026-06-01&endDate=2026-06-02&limit=${usersLimit.maximum + 1}`,
      "startDate=2026-06-01&endDate=2026-06-02&limit=ten",
      "startDate=2026-06-01&endDate=2026-06-02&cursor=page-two",
      "endDate=2026-06-02",
    ];
    for (const query of bad) {
      const { status, body } = await raw(`${path}?${query}`);
      expect([query, status]).toEqual([query, 400]);
      expect(body).toEqual({ title: "Bad Request", detail: expect.any(String), status: 400, requestId: expect.any(String) });
    }
    expect((await raw(`${path}?startDate=${today}&endDate=${today}`)).body.detail).toMatch(/lags 24 hours.*2026-06-14/);
    // Days before the first data day are days: accepted, with no rows for them.
    const early = await raw(`${path}?startDate=2025-12-20&endDate=${dayBeforeFirst}`);
    expect([early.status, early.body.data]).toEqual([200, []]);
    const straddling = await raw(
      `${emulator.baseUrl}${operations.getAnalyticsActivity.path}?startDate=${dayBeforeFirst}&endDate=2026-01-15`,
    );
    expect((straddling.body.data as Array<{ date: string }>).map((row) => row.date)).toEqual(["2026-01-14", "2026-01-15"]);
    const unknownGroup = await raw(
      `${emulator.baseUrl}${operations.getAnalyticsTokens.path}?startDate=2026-06-01&endDate=2026-06-02&group_by=user`,
    );
    expect(unknownGroup.status).toBe(400);
  });
});

describe("keys and roles", () => {
  test("members get 403 on every analytics endpoint, on history and on limits; they may use the rest", async () => {
    const member = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.member, maxRetries: 0 });
    for (const call of [
      () => member.analytics.tokens(week),
      () => member.analytics.tools(week),
      () => member.analytics.activity(week),
      () => member.analytics.productivity(week),
      () => member.analytics.users(week),
      () => member.enterpriseControls.history(),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(PermissionDeniedError);
    }
    await expect(member.computers.getByName("build-box-eu-1")).resolves.toMatchObject({ name: "build-box-eu-1" });
    await expect(member.readiness.list({ limit: 1 })).resolves.toMatchObject({ reports: [expect.any(Object)] });
    await expect(member.sessions.create({ computerId: computer("build-box-eu-1") })).resolves.toMatchObject({ status: "pending" });
    const manager = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.manager, maxRetries: 0 });
    await expect(manager.analytics.productivity(week)).resolves.toMatchObject({ data: expect.any(Array) });
  });

  test("a guest reads readiness reports (which document no 403) and gets 403 on every other operation", async () => {
    const guest = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.guest, maxRetries: 0 });
    await expect(guest.readiness.list({ limit: 1 })).resolves.toMatchObject({ reports: [expect.any(Object)] });
    for (const call of [
      () => guest.analytics.tokens(week),
      () => guest.enterpriseControls.history(),
      () => guest.usageLimits.setUserLimits([{ email: emulator.org.users[0]!.email, limit: 1 }]),
      () => guest.computers.getByName("build-box-eu-1"),
      () => guest.computers.get(computer("build-box-eu-1")),
      () => guest.computers.retryInstallDeps(computer("gpu-box-1")),
      () => guest.sessions.create({ computerId: computer("build-box-eu-1") }),
      () => guest.sessions.get("sess_1"),
      () => guest.sessions.sendMessage("sess_1", { text: "hi" }),
      () => guest.sessions.getMessage("sess_1", "msg_1"),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(PermissionDeniedError);
    }
  });

  test("a missing, malformed or unknown key gets 401, before anything else is looked at", async () => {
    const url = `${emulator.baseUrl}${operations.getAnalyticsTokens.path}?startDate=bad`;
    expect((await raw(url, null)).status).toBe(401);
    expect((await raw(url, "")).status).toBe(401);
    const basic = await fetch(url, { headers: { Authorization: `Basic ${emulator.keys.owner}` } });
    expect(basic.status).toBe(401);
    const stranger = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: "sk-unknown", maxRetries: 0 });
    await expect(stranger.computers.get(computer("build-box-eu-1"))).rejects.toBeInstanceOf(AuthenticationError);
    expect((await raw(url, "sk-unknown")).body).toMatchObject({ status: 401, title: "Unauthorized" });
  });
});

describe("readiness reports and enterprise-control history", () => {
  test("readiness pages by startAfter with no cursor field; every report once, newest first", async () => {
    const first = await sdk.readiness.list({ limit: 4 });
    expect(Object.keys(first)).toEqual(["reports"]);
    const paged = await all(sdk.readiness.list({ limit: 4 }));
    const whole = (await sdk.readiness.list({ limit: 1_000 })).reports;
    expect(paged.map((r) => r.reportId)).toEqual(whole.map((r) => r.reportId));
    expect(new Set(whole.map((r) => r.reportId)).size).toBe(whole.length);
    for (let i = 1; i < whole.length; i++) expect(whole[i]!.createdAt).toBeLessThanOrEqual(whole[i - 1]!.createdAt);
    const after = await sdk.readiness.list({ startAfter: whole.at(-1)!.reportId });
    expect(after.reports).toEqual([]);
    const repo = await all(sdk.readiness.list({ repoId: "acme-robotics/motor-controller" }));
    expect(repo.length).toBeGreaterThan(0);
    expect(repo.every((r) => r.repoUrl === "https://github.com/acme-robotics/motor-controller")).toBe(true);
  });

  test("history: newest revision first, cursor pages cover every revision once and end", async () => {
    const pages = await all(sdk.enterpriseControls.history({ limit: 6 }).pages());
    const revisions = pages.flatMap((page) => page.changes.map((c) => c.revision));
    expect(revisions).toEqual(Array.from({ length: revisions.length }, (_, i) => revisions.length - i));
    expect(pages.at(-1)!.pagination).toEqual({ hasMore: false, nextCursor: null });
    for (const page of pages.slice(0, -1)) expect(page.pagination).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
  });
});

describe("page sizes and page ends, as docs/emulator.md states them", () => {
  const documented = readFileSync(new URL("../../docs/emulator.md", import.meta.url), "utf8");

  test("without a limit, readiness and history pages hold the documented default", async () => {
    const readinessDefault = Number(/\*\*Readiness reports\*\*[\s\S]*?default page size (\d+)/.exec(documented)![1]);
    const historyDefault = Number(/\*\*Enterprise-controls history\*\*[\s\S]*?default (\d+)/.exec(documented)![1]);
    expect([readinessDefault, historyDefault]).toEqual([20, 20]);
    expect((await sdk.readiness.list()).reports).toHaveLength(readinessDefault);
    expect((await sdk.enterpriseControls.history()).changes).toHaveLength(historyDefault);
  });

  test("history paged by a size that divides the total ends on a full page that says so", async () => {
    const count = (await sdk.enterpriseControls.history({ limit: 100 })).changes.length; // 57: fits one page
    const size = [...Array(count).keys()].reverse().find((n) => n > 1 && count % n === 0) ?? 1;
    const pages = await all(sdk.enterpriseControls.history({ limit: size }).pages());
    expect(pages).toHaveLength(count / size);
    expect(pages.at(-1)!.changes).toHaveLength(size);
    expect(pages.at(-1)!.pagination).toEqual({ hasMore: false, nextCursor: null });
  });
});

describe("methods", () => {
  test("a path served with another method answers 405 with Allow naming the right one", async () => {
    const response = await fetch(`${emulator.baseUrl}/api/v0/computers/${computer("build-box-eu-1")}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${emulator.keys.owner}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    expect(await response.json()).toMatchObject({ status: 405, title: "Method Not Allowed" });
  });
});

describe("enterprise-control history records changes", () => {
  test("every revision changes at least one setting from the one before", async () => {
    const changes = await all(sdk.enterpriseControls.history({ limit: 100 }));
    expect(changes.length).toBeGreaterThan(50);
    const unchanged = changes.slice(0, -1).filter((change, i) => isDeepStrictEqual(change.settings, changes[i + 1]!.settings));
    expect(unchanged.map((c) => c.revision)).toEqual([]);
  });
});

describe("usage limits", () => {
  test("per-entry errors for unknown e-mails; the rest apply, in chunks, and persist", async () => {
    const users = emulator.org.users;
    const entries = [
      ...users.map((u, i) => ({ email: i === 3 ? u.email.toUpperCase() : u.email, limit: 1_000 + i })),
      { email: "nobody@acme-robotics.com", limit: 10 },
      { email: "NOBODY-ELSE@acme-robotics.com", limit: 0 },
    ];
    const result = await sdk.usageLimits.setUserLimits(entries);
    expect(result.updated).toHaveLength(users.length);
    expect(result.errors).toEqual([
      { email: "nobody@acme-robotics.com", error: expect.stringMatching(/no user/i), index: users.length },
      { email: "NOBODY-ELSE@acme-robotics.com", error: expect.stringMatching(/no user/i), index: users.length + 1 },
    ]);
    const limits = emulator.limits();
    expect(limits.get(users[3]!.email.toLowerCase())).toBe(1_003);
    await sdk.usageLimits.setUserLimits([{ email: users[0]!.email, limit: 42 }]);
    expect(emulator.limits().get(users[0]!.email.toLowerCase())).toBe(42);
    expect(emulator.limits().get(users[1]!.email.toLowerCase())).toBe(1_001);
  });

  test("a limit of 0 is a limit like any other: applied, and read back as 0", async () => {
    const user = emulator.org.users[2]!;
    const result = await sdk.usageLimits.setUserLimits([{ email: user.email, limit: 0 }]);
    expect(result).toMatchObject({ updated: [{ email: user.email, limit: 0 }], errors: [] });
    expect(emulator.limits().get(user.email.toLowerCase())).toBe(0);
  });

  test("a negative limit (sent by hand: the SDK refuses it) breaks the spec's minimum: 400 naming it, nothing applied", async () => {
    const [a, b] = emulator.org.users;
    const before = emulator.limits();
    const response = await fetch(`${emulator.baseUrl}${operations.setUserLimits.path}`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${emulator.keys.owner}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        users: [
          { email: a!.email, limit: 5 },
          { email: b!.email, limit: -5 },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/body\.users\[1\]\.limit: -5 is not allowed/);
    expect(emulator.limits()).toEqual(before);
  });
});

describe("sessions", () => {
  test("pending while starting, running while working, idle when the reply is written", async () => {
    const created = await sdk.sessions.create({ computerId: computer("build-box-eu-1"), cwd: "/srv/app" });
    expect(created).toMatchObject({ status: "pending", messageCount: 0, computerId: computer("build-box-eu-1") });

    const sent = await sdk.sessions.sendMessage(created.sessionId, { text: "Why is the build slow?" });
    expect(sent.status).toBe("pending");
    await expect(sdk.sessions.getMessage(created.sessionId, sent.messageId)).resolves.toMatchObject({
      role: "user",
      content: [{ text: "Why is the build slow?" }],
    });

    advance(TIMING.sessionStartMs);
    expect((await sdk.sessions.get(created.sessionId)).status).toBe("running");
    await expect(sdk.sessions.getMessage(created.sessionId, replyIdOf(sent.messageId))).rejects.toBeInstanceOf(NotFoundError);

    advance(TIMING.replyMs);
    const idle = await sdk.sessions.get(created.sessionId);
    expect(idle).toMatchObject({ status: "idle", messageCount: 2, completedAt: clock, title: "Why is the build slow?" });
    expect(idle.sessionSettings?.tokenUsage?.inputTokens).toBeGreaterThan(0);
    const reply = await sdk.sessions.getMessage(created.sessionId, replyIdOf(sent.messageId));
    expect(reply).toMatchObject({ role: "assistant", parentId: sent.messageId, createdAt: clock });
    expect(reply.content[0]!.text).toContain("Why is the build slow?");
  });

  test("messages sent while the agent works are queued and answered in order", async () => {
    const { sessionId } = await sdk.sessions.create({ computerId: computer("build-box-us-2") });
    advance(TIMING.sessionStartMs);
    expect((await sdk.sessions.get(sessionId)).status).toBe("idle");
    const first = await sdk.sessions.sendMessage(sessionId, { text: "one" });
    const second = await sdk.sessions.sendMessage(sessionId, { text: "two" });
    expect([first.status, second.status]).toEqual(["running", "running"]);
    advance(TIMING.replyMs);
    expect(await sdk.sessions.get(sessionId)).toMatchObject({ status: "running", messageCount: 3 });
    await expect(sdk.sessions.getMessage(sessionId, replyIdOf(first.messageId))).resolves.toMatchObject({ role: "assistant" });
    advance(TIMING.replyMs);
    expect(await sdk.sessions.get(sessionId)).toMatchObject({ status: "idle", messageCount: 4 });
  });

  test("404 for unknown sessions and computers; 409 for a computer that is not active", async () => {
    await expect(sdk.sessions.get("sess_nope")).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.sessions.sendMessage("sess_nope", { text: "hi" })).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.sessions.create({ computerId: "cmp_nope" })).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.sessions.create({ computerId: computer("gpu-box-1") })).rejects.toBeInstanceOf(ConflictError);
    const { sessionId } = await sdk.sessions.create({ computerId: computer("build-box-eu-1") });
    await expect(sdk.sessions.get(sessionId, { computerId: computer("build-box-us-2") })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("computers", () => {
  test("the same computer by id and by name", async () => {
    for (const { id, name } of emulator.org.computers) {
      expect(await sdk.computers.getByName(name)).toEqual(await sdk.computers.get(id));
    }
    await expect(sdk.computers.getByName("../sessions")).rejects.toBeInstanceOf(NotFoundError);
  });

  test("install-deps answers 202 with the step running, refuses a second retry, then completes", async () => {
    const id = computer("gpu-box-1");
    const failed = await sdk.computers.get(id);
    expect(failed.status).toBe("error");
    const before = failed.provisioningSteps!.find((s) => s.id === "install-deps")!;
    expect(before).toMatchObject({ status: "failed", error: expect.any(String) });

    const response = await fetch(`${emulator.baseUrl}${operations.retryComputerInstallDeps.path.replace("{computerId}", id)}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${emulator.keys.owner}` },
    });
    expect(response.status).toBe(operations.retryComputerInstallDeps.successStatus);
    const accepted = (await response.json()) as Awaited<ReturnType<typeof sdk.computers.get>>;
    const running = accepted.provisioningSteps!.find((s) => s.id === "install-deps")!;
    expect(accepted.status).toBe("provisioning");
    expect(running).toMatchObject({ status: "running", startedAt: clock });
    expect(running.installSessionId).not.toBe(before.installSessionId);
    expect(running.error).toBeUndefined();

    await expect(sdk.computers.retryInstallDeps(id)).rejects.toBeInstanceOf(ConflictError);
    advance(TIMING.installMs);
    const done = await sdk.computers.get(id);
    expect(done.status).toBe("active");
    expect(done.provisioningSteps!.find((s) => s.id === "install-deps")).toMatchObject({ status: "completed", completedAt: clock });
    await expect(sdk.sessions.create({ computerId: id })).resolves.toMatchObject({ status: "pending" });
  });
});

test("analytics data starts on the spec's first day", async () => {
  const { data } = await sdk.analytics.activity({ startDate: FIRST_DATA_DAY, endDate: FIRST_DATA_DAY });
  expect(data).toHaveLength(1);
  expect(data[0]!.date).toBe(FIRST_DATA_DAY);
});
