// The analytics report: every figure of buildAnalyticsReport adds up against the API's own answers (fetched here
// separately, through other endpoints or groupings where the API has them), the previous period is cut at the
// first day with data and says so, the calls run concurrently, failures are clear and leave no file behind, and
// the rendered page escapes what the API sends and can request nothing.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { FIRST_DATA_DAY, startEmulator, type Emulator } from "../../src/emulator/index.js";
import {
  APIUserAbortError,
  OrgAgent,
  PermissionDeniedError,
  ValidationError,
  buildAnalyticsReport,
  type AnalyticsReport,
  type ClientOptions,
  type ReportProgress,
  type UserRow,
} from "../../src/index.js";
import { ReportWriteError, renderReportHtml, reportFileName, writeAnalyticsReport, writeFileAtomic } from "../../src/report/index.js";

const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const shift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const range = { startDate: day(30), endDate: day(1) };
const previousRange = { startDate: day(60), endDate: day(31) };
const sum = <T>(items: readonly T[], pick: (item: T) => number) => items.reduce((total, item) => total + pick(item), 0);

let emulator: Emulator;
let dir: string;
const client = (options: ClientOptions = {}) =>
  new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.owner, maxRetries: 0, logLevel: "off", ...options });

let report: AnalyticsReport;
let progress: ReportProgress[];

beforeAll(async () => {
  emulator = await startEmulator({ seed: "report", users: 80 });
  dir = mkdtempSync(join(tmpdir(), "orgagent-report-"));
  progress = [];
  report = await buildAnalyticsReport(client(), range, { onProgress: (p) => progress.push(p) });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the figures add up against the API's answers", () => {
  test("credits: the period's total and each day's and model's figure are those of /tokens without group_by", async () => {
    const { data } = await client().analytics.tokens(range);
    expect(report.credits.total).toBe(sum(data, (row) => row.billable_tokens));
    expect(report.credits.daily.map((d) => [d.date, d.total])).toEqual(data.map((row) => [row.date, row.billable_tokens]));
    for (const { model, credits } of report.credits.byModel) {
      expect(credits).toBe(
        sum(
          data.flatMap((row) => row.by_model.filter((m) => m.model_id === model)),
          (m) => m.billable_tokens,
        ),
      );
    }
    expect(sum(report.credits.byModel, (m) => m.share)).toBeCloseTo(1, 10);
    // Most credits first.
    const credits = report.credits.byModel.map((m) => m.credits);
    expect(credits).toEqual([...credits].sort((a, b) => b - a));
  });

  test("credits: the change is against the 30 days before, from /tokens of that period", async () => {
    const before = sum((await client().analytics.tokens(previousRange)).data, (row) => row.billable_tokens);
    expect(report.credits.previous).toMatchObject({ ...previousRange, days: 30, clamped: false, total: before });
    expect(report.credits.previous!.change).toEqual({
      basis: "total",
      absolute: report.credits.total - before,
      ratio: (report.credits.total - before) / before,
    });
  });

  test("active users: daily, 7-day and 30-day figures and those by client are /activity's (and /activity?group_by=client's)", async () => {
    const [{ data }, { data: byClient }] = await Promise.all([
      client().analytics.activity(range),
      client().analytics.activity({ ...range, group_by: "client" }),
    ]);
    expect(report.activity.daily.map((d) => [d.date, d.dailyActiveUsers, d.weeklyActiveUsers, d.monthlyActiveUsers])).toEqual(
      data.map((row) => [row.date, row.daily_active_users, row.weekly_active_users, row.monthly_active_users]),
    );
    expect(report.activity.averageDailyActiveUsers).toBeCloseTo(sum(data, (row) => row.daily_active_users) / 30, 10);
    expect(report.activity.monthlyActiveUsersAtEnd).toBe(data.at(-1)!.monthly_active_users);
    for (const { client: name, averageDailyActiveUsers, peakDailyActiveUsers } of report.activity.byClient) {
      const rows = byClient.filter((row) => row.group_key === name);
      expect(averageDailyActiveUsers).toBeCloseTo(sum(rows, (row) => row.daily_active_users) / 30, 10);
      expect(peakDailyActiveUsers).toBe(Math.max(...rows.map((row) => row.daily_active_users)));
    }
    expect(report.activity.sessions).toBe(sum(data, (row) => row.sessions));
  });

  test("top users: the 20 with the most credits over every page of /users, with their share of the period's total", async () => {
    const rows: UserRow[] = [];
    for await (const row of client().analytics.users({ ...range, limit: 7 })) rows.push(row);
    const byUser = new Map<string, number>();
    for (const row of rows) byUser.set(row.user_id, (byUser.get(row.user_id) ?? 0) + row.billable_tokens);
    const expected = [...byUser].sort((a, b) => b[1] - a[1]).slice(0, 20);

    expect(report.topUsers.rows).toBe(rows.length);
    expect(report.topUsers.people).toBe(byUser.size);
    expect(report.topUsers.credits).toBe(report.credits.total);
    expect(report.topUsers.top.map((user) => [user.userId, user.credits])).toEqual(expected);
    for (const user of report.topUsers.top) {
      expect(user.share).toBe(user.credits / report.credits.total);
      expect(user.activeDays).toBe(rows.filter((row) => row.user_id === user.userId).length);
    }
    expect(report.topUsers.topShare).toBeCloseTo(sum(expected, ([, credits]) => credits) / report.credits.total, 12);
  });

  test("tools: the top 15 tools are those of /tools?group_by=tool_name; MCP servers merge names that differ by case", async () => {
    const [{ data }, { data: byTool }] = await Promise.all([
      client().analytics.tools(range),
      client().analytics.tools({ ...range, group_by: "tool_name" }),
    ]);
    const calls = new Map<string, number>();
    for (const row of byTool) calls.set(row.group_key, (calls.get(row.group_key) ?? 0) + row.tool_calls);
    expect(report.tools.toolCalls).toBe(sum(data, (row) => row.tool_calls));
    expect(report.tools.top.map((t) => [t.tool, t.calls])).toEqual([...calls].sort((a, b) => b[1] - a[1]).slice(0, 15));

    const servers = data.flatMap((row) => row.mcp_by_server);
    expect(report.tools.mcpCalls).toBe(sum(servers, (s) => s.invocations));
    const github = report.tools.mcpServers.find((s) => s.server.toLowerCase() === "github")!;
    expect([...github.names].sort()).toEqual(["GitHub", "github"]);
    expect(github.calls).toBe(
      sum(
        servers.filter((s) => s.server.toLowerCase() === "github"),
        (s) => s.invocations,
      ),
    );
    expect(report.tools.mcpServers.filter((s) => s.server.toLowerCase() === "github")).toHaveLength(1);
  });

  test("productivity and hooks: totals, days and languages are /productivity's and /tools' sums", async () => {
    const [{ data }, { data: tools }] = await Promise.all([client().analytics.productivity(range), client().analytics.tools(range)]);
    const p = report.productivity;
    expect([p.filesCreated, p.filesEdited, p.commits, p.pullRequests]).toEqual([
      sum(data, (r) => r.files_created),
      sum(data, (r) => r.files_edited),
      sum(data, (r) => r.git_commits),
      sum(data, (r) => r.git_prs_created),
    ]);
    expect(p.daily.map((d) => d.commits)).toEqual(data.map((r) => r.git_commits));
    expect(sum(p.byLanguage, (l) => l.files)).toBe(
      sum(
        data.flatMap((r) => r.by_language),
        (l) => l.count ?? Number.NaN,
      ),
    );

    expect(report.hooks.executions).toBe(sum(tools, (r) => r.hooks_invocations));
    expect(sum(report.hooks.byEvent, (e) => e.executions)).toBe(report.hooks.executions);
    expect(sum(report.hooks.byHook, (h) => h.executions)).toBe(report.hooks.executions);
  });

  test("every day of the range is present in each daily series, days without usage as zeros", () => {
    for (const daily of [report.credits.daily, report.activity.daily, report.productivity.daily]) {
      expect(daily.map((d) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => shift(range.startDate, i)));
    }
  });
});

describe("the previous period", () => {
  test("is cut to start on the first day with data, and the change then compares credits per day", async () => {
    const early = await buildAnalyticsReport(client(), { startDate: shift(FIRST_DATA_DAY, 4), endDate: shift(FIRST_DATA_DAY, 13) });
    const before = sum(
      (await client().analytics.tokens({ startDate: FIRST_DATA_DAY, endDate: shift(FIRST_DATA_DAY, 3) })).data,
      (r) => r.billable_tokens,
    );
    const previous = early.credits.previous!;
    expect(previous).toMatchObject({ startDate: FIRST_DATA_DAY, endDate: shift(FIRST_DATA_DAY, 3), days: 4, clamped: true, total: before });
    expect(previous.firstDataDay).toBe(FIRST_DATA_DAY);
    expect(previous.change.basis).toBe("dailyAverage");
    expect(previous.change.absolute).toBeCloseTo(early.credits.total / 10 - before / 4, 6);
  });

  test("is null when the range starts on the first day with data: nothing is invented", async () => {
    const first = await buildAnalyticsReport(client(), { startDate: FIRST_DATA_DAY, endDate: shift(FIRST_DATA_DAY, 6) });
    expect(first.credits.previous).toBeNull();
    expect(renderReportHtml(first)).toContain(`the API has no data before ${FIRST_DATA_DAY}`);
  });
});

describe("fetching", () => {
  test("the calls run concurrently, and progress counts the parts and the /users pages", async () => {
    let inFlight = 0;
    let most = 0;
    let usersInFlight = 0;
    let mostUsers = 0;
    const counting: typeof fetch = async (...args) => {
      const input = args[0];
      const users = new URL(input instanceof Request ? input.url : input).pathname.endsWith("/analytics/users");
      most = Math.max(most, ++inFlight);
      if (users) mostUsers = Math.max(mostUsers, ++usersInFlight);
      try {
        return await fetch(...args);
      } finally {
        inFlight--;
        if (users) usersInFlight--;
      }
    };
    await buildAnalyticsReport(client({ fetch: counting }), range);
    // Five analytics calls, the previous period's credits and the first /users page, all at once.
    expect(most).toBeGreaterThanOrEqual(6);
    // And /users itself is paged through concurrently (date windows), not as one chain of pages.
    expect(mostUsers).toBeGreaterThanOrEqual(2);

    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
    expect(progress.at(-1)).toMatchObject({ done: 6, total: 6 });
    expect(Math.max(...progress.map((p) => p.userRows))).toBe(report.topUsers.rows);
    expect(progress.filter((p) => p.part === "users" && p.done < 6).length).toBeGreaterThan(0);
  });

  test("a member key: PermissionDeniedError saying that reports need a Manager or Owner key; its cause is the API's own error", async () => {
    const error = await buildAnalyticsReport(client({ apiKey: emulator.keys.member }), range).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).status).toBe(403);
    expect((error as Error).message).toMatch(/^Analytics reports need a Manager or Owner API key/);
    expect((error as Error).cause).toBeInstanceOf(PermissionDeniedError);
    expect(((error as Error).cause as Error).message).toMatch(/^403 Forbidden: .*Member/);
  });

  test("a bad range is a ValidationError before any request", async () => {
    let requests = 0;
    const counting: typeof fetch = (...args) => (requests++, fetch(...args));
    for (const bad of [
      { startDate: range.endDate, endDate: range.startDate },
      { startDate: "2026-02-30", endDate: range.endDate },
      { startDate: day(0), endDate: day(0) },
    ]) {
      await expect(buildAnalyticsReport(client({ fetch: counting }), bad)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(requests).toBe(0);
  });

  test("aborting rejects with APIUserAbortError", async () => {
    const controller = new AbortController();
    const pending = buildAnalyticsReport(client(), range, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
  });
});

describe("writing the file", () => {
  test("writes the page to the path given, or to a file named after the range", async () => {
    const out = join(dir, "given.html");
    const written = await writeAnalyticsReport(client(), range, { out });
    expect(written.path).toBe(out);
    expect(readFileSync(out, "utf8")).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
    expect(written.bytes).toBe(readFileSync(out).length);
    expect(reportFileName(range)).toBe(`orgagent-report-${range.startDate}_${range.endDate}.html`);
  });

  test("a call that fails (a /users page, late) leaves the old file as it was and no temporary file", async () => {
    const out = join(dir, "kept.html");
    writeFileSync(out, "the previous report");
    let pages = 0;
    const failing: typeof fetch = async (input, init) => {
      if (String(input).includes("/users") && ++pages === 3) return new Response("{}", { status: 500 });
      return fetch(input, init);
    };
    await expect(writeAnalyticsReport(client({ fetch: failing }), range, { out })).rejects.toThrow(/500/);
    expect(readFileSync(out, "utf8")).toBe("the previous report");
    expect(readdirSync(dir).filter((name) => name.includes("kept"))).toEqual(["kept.html"]);

    await expect(writeAnalyticsReport(client({ apiKey: emulator.keys.member }), range, { out: join(dir, "member.html") })).rejects.toThrow(
      PermissionDeniedError,
    );
    expect(existsSync(join(dir, "member.html"))).toBe(false);
  });

  test("a file that cannot be written is a ReportWriteError naming it, and nothing is left behind", async () => {
    const missing = join(dir, "no-such-dir", "report.html");
    const error = await writeAnalyticsReport(client(), range, { out: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportWriteError);
    expect((error as ReportWriteError).path).toBe(missing);
    expect((error as Error).message).toContain(missing);

    // The rename fails (the target is a directory): the temporary file is removed.
    const blocked = join(dir, "a-directory.html");
    mkdirSync(blocked);
    const before = readdirSync(dir).sort();
    await expect(writeFileAtomic(blocked, "text")).rejects.toThrow();
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  test("a file replaced keeps its permissions (a 0600 report stays 0600); a new file gets the umask", async () => {
    const kept = join(dir, "private.html");
    writeFileSync(kept, "old");
    chmodSync(kept, 0o600);
    await writeFileAtomic(kept, "new");
    expect([readFileSync(kept, "utf8"), statSync(kept).mode & 0o7777]).toEqual(["new", 0o600]);
    chmodSync(kept, 0o640);
    await writeFileAtomic(kept, "newer");
    expect(statSync(kept).mode & 0o7777).toBe(0o640);
    const created = join(dir, "created.html");
    await writeFileAtomic(created, "first");
    expect(statSync(created).mode & 0o7777).toBe(0o666 & ~process.umask());
  });

  test("a symbolic link is followed: the file it points to is replaced, with its permissions, and the link stays", async () => {
    const archive = join(dir, "archive");
    mkdirSync(archive);
    const real = join(archive, "2026-11.html");
    writeFileSync(real, "old");
    chmodSync(real, 0o600);
    const link = join(dir, "latest.html");
    symlinkSync(real, link);
    await writeFileAtomic(link, "new");
    expect([lstatSync(link).isSymbolicLink(), readlinkSync(link), readFileSync(real, "utf8"), statSync(real).mode & 0o7777]).toEqual([
      true,
      real,
      "new",
      0o600,
    ]);
    expect(readdirSync(archive)).toEqual(["2026-11.html"]);

    // A link to nothing is refused: nothing is created where it points, or beside it.
    const dangling = join(dir, "dangling.html");
    symlinkSync(join(archive, "missing.html"), dangling);
    const before = readdirSync(dir).sort();
    await expect(writeFileAtomic(dangling, "text")).rejects.toThrow("it is a symbolic link to a file that does not exist");
    expect([readdirSync(dir).sort(), readdirSync(archive)]).toEqual([before, ["2026-11.html"]]);
  });
});

describe("names the API chooses are data, never an object's own properties", () => {
  // Model ids, client types, tools, languages and people named after Object.prototype's properties: valid strings.
  const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"] as const;
  const [first, second] = [day(2), day(1)];
  let server: Server;
  let base: string;

  /** The five analytics answers for a range of `first` and `second`, every breakdown keyed by those names. */
  function answer(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, "http://x");
    const dates = [url.searchParams.get("startDate")!, url.searchParams.get("endDate")!].filter((d, i, all) => all.indexOf(d) === i);
    const meta = { org_id: "org_1", start_date: dates[0], end_date: dates.at(-1) };
    const rows = (make: (date: string, i: number) => object | object[]) => dates.flatMap((date, i) => make(date, i));
    const send = (body: object) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    switch (url.pathname) {
      case "/api/v1/analytics/tokens":
        // Day one: constructor 10, __proto__ 20, toString 30; day two: constructor 1, hasOwnProperty 2.
        return send({
          data: rows((date, i) =>
            (i === 0
              ? [
                  [NAMES[0], 10],
                  [NAMES[1], 20],
                  [NAMES[2], 30],
                ]
              : [
                  [NAMES[0], 1],
                  [NAMES[3], 2],
                ]
            ).map(([group_key, billable_tokens]) => ({ date, group_key, billable_tokens, input_tokens: 0, output_tokens: 0 })),
          ),
          meta,
        });
      case "/api/v1/analytics/activity":
        return send({
          data: rows((date, i) => ({
            date,
            daily_active_users: 3,
            weekly_active_users: 3,
            monthly_active_users: 3,
            sessions: 1,
            messages: 2,
            user_messages: 1,
            daily_active_users_by_client: JSON.parse(i === 0 ? '{"constructor":1,"__proto__":2,"toString":3}' : '{"valueOf":4}'),
          })),
          meta,
        });
      case "/api/v1/analytics/tools":
        return send({
          data: rows((date) => ({
            date,
            tool_calls: 11,
            by_tool: [
              { tool: NAMES[0], invocations: 5 },
              { tool: NAMES[1], invocations: 6 },
            ],
            mcp_users_with_mcp: 1,
            mcp_by_server: [
              { server: NAMES[2], invocations: 1 },
              { server: NAMES[1], invocations: 2 },
            ],
            skills_invocations: 0,
            skills_by_name: [],
            slash_commands_invocations: 0,
            slash_commands_by_name: [],
            hooks_invocations: 2,
            hooks_by_event: [{ event: NAMES[0], matcher: NAMES[1], command: NAMES[2], count: 2 }],
            web_users: 0,
            autonomy_ratio_avg: 1,
            autonomy_ratio_p50: 1,
            autonomy_ratio_p90: 1,
            tool_calls_per_session_avg: 1,
            user_turns_per_session_avg: 1,
            tool_autonomy_level_ratio: { auto_high: 1, auto_medium: 0, auto_low: 0, manual: 0 },
          })),
          meta,
        });
      case "/api/v1/analytics/productivity":
        return send({
          data: rows((date) => ({
            date,
            files_created: 1,
            files_edited: 2,
            git_commits: 1,
            git_prs_created: 0,
            by_extension: [],
            by_language: [
              { language: NAMES[1], count: 3 },
              { language: NAMES[0], count: 4 },
            ],
          })),
          meta,
        });
      case "/api/v1/analytics/users":
        return send({
          data: rows((date) =>
            NAMES.map((name, n) => ({
              user_id: name,
              user_email: `${name}@example.com`,
              date,
              tool_calls: 1,
              billable_tokens: n + (date === second ? 1 : 0),
              primary_model: NAMES[(n + 1) % NAMES.length],
              primary_model_tier: "standard",
              files_created: 0,
              files_edited: 0,
              git_commits: 0,
              git_prs_created: 0,
              mcp_calls: 0,
              skill_calls: 0,
              slash_commands: 0,
              hooks: 0,
              sessions: 1,
              messages: 1,
              user_messages: 1,
              assistant_messages: 0,
              autonomy_ratio: 1,
              delegation_level: "manual",
              languages: [],
            })),
          ),
          meta: { ...meta, has_more: false, next_cursor: null },
        });
    }
    res.writeHead(404).end();
  }

  beforeAll(async () => {
    server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  test("credits, clients, tools, servers, languages, hooks and people named like Object.prototype's properties add up", async () => {
    const named = await buildAnalyticsReport(
      new OrgAgent({ baseUrl: base, apiKey: "oa-test-key-123456", maxRetries: 0, logLevel: "off" }),
      { startDate: first, endDate: second },
    );
    expect(named.credits.total).toBe(63);
    expect(named.credits.byModel.map(({ model, credits }) => [model, credits])).toEqual([
      ["toString", 30],
      ["__proto__", 20],
      ["constructor", 11],
      ["hasOwnProperty", 2],
    ]);
    expect(named.credits.daily.map((d) => ({ ...d.byModel }))).toEqual([
      JSON.parse('{"constructor":10,"__proto__":20,"toString":30}'),
      { constructor: 1, hasOwnProperty: 2 },
    ]);
    expect(named.credits.daily[1]!.byModel.toString).toBeUndefined();
    expect(named.activity.byClient).toEqual([
      { client: "valueOf", averageDailyActiveUsers: 2, peakDailyActiveUsers: 4 },
      { client: "toString", averageDailyActiveUsers: 1.5, peakDailyActiveUsers: 3 },
      { client: "__proto__", averageDailyActiveUsers: 1, peakDailyActiveUsers: 2 },
      { client: "constructor", averageDailyActiveUsers: 0.5, peakDailyActiveUsers: 1 },
    ]);
    expect(named.tools.top.map(({ tool, calls }) => [tool, calls])).toEqual([
      ["__proto__", 12],
      ["constructor", 10],
    ]);
    expect(named.tools.mcpServers.map(({ server, calls }) => [server, calls])).toEqual([
      ["__proto__", 4],
      ["toString", 2],
    ]);
    expect(named.productivity.byLanguage.map(({ language, files }) => [language, files])).toEqual([
      ["constructor", 8],
      ["__proto__", 6],
    ]);
    expect(named.hooks.byHook).toEqual([{ event: "constructor", matcher: "__proto__", command: "toString", executions: 4 }]);
    expect(named.topUsers.top.map((user) => [user.userId, user.credits])).toEqual([
      ["valueOf", 9],
      ["hasOwnProperty", 7],
      ["toString", 5],
      ["__proto__", 3],
      ["constructor", 1],
    ]);

    const html = renderReportHtml(named);
    expect(html).not.toMatch(/NaN|undefined|\[object |function /);
    for (const name of NAMES) expect(html).toContain(name);
  });
});

describe("the page", () => {
  const hostile = '<img src="https://example.com/x.png" onerror="alert(1)">';
  const poisoned = (): AnalyticsReport => {
    const copy = structuredClone(report);
    copy.tools.top[0]!.tool = hostile;
    copy.tools.mcpServers[0]!.names = [hostile];
    copy.topUsers.top[0]!.email = `${hostile}@example.com`;
    copy.hooks.byHook[0]!.command = `</script>${hostile}`;
    copy.credits.byModel[0]!.model = hostile;
    return copy;
  };

  test("escapes every name the API sends, in tables, takeaways, axes and hover titles", () => {
    const html = renderReportHtml(poisoned());
    expect(html).not.toContain("<img");
    expect(html).not.toContain("</script>");
    expect(html).toContain("&lt;img");
  });

  test("can load nothing: no script, no external address, and a Content-Security-Policy that forbids any request", () => {
    const html = renderReportHtml(report);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    // url(#…) points into the page itself (the line markers), never to a file or the network.
    expect(html).not.toMatch(/<script|<link|<iframe|<img|\bsrc=|\bhref=|url\((?!#)/i);
    expect(html).not.toMatch(/\b(https?|ftp|file|data):/i);
  });

  test("draws a one-day report too, without a word on the console", async () => {
    const oneDay = await buildAnalyticsReport(client(), { startDate: range.endDate, endDate: range.endDate });
    const said: unknown[] = [];
    const spies = (["log", "warn", "error"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args) => said.push(args)),
    );
    try {
      expect(renderReportHtml(oneDay)).toContain(`<section id="credits">`);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(said).toEqual([]);
  });

  test("has every section with a chart and a takeaway; hooks say so when none ran", () => {
    const html = renderReportHtml(report);
    for (const id of ["credits", "activity", "top-users", "tools", "productivity", "hooks"]) {
      expect(html).toMatch(new RegExp(`<section id="${id}">\\s*<h2>[^<]+</h2>\\s*<p class="takeaway">[^<]+</p>[\\s\\S]*?<svg`));
    }
    const quiet = structuredClone(report);
    quiet.hooks = { executions: 0, byEvent: [], byHook: [] };
    expect(renderReportHtml(quiet)).toMatch(/<section id="hooks">[\s\S]*No hook ran in this period\.[\s\S]*?<\/section>/);
  });
});
