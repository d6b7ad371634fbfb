// Type tests (vitest typecheck): what each method returns, the grouped row shapes, paginated item types, hook
// narrowing, and calls that must not compile. Nothing here runs; `tsc` is the judge.
import { describe, expectTypeOf, it } from "vitest";
import type {
  ActivityGroupedRow,
  ActivityRow,
  AnalyticsActivityResponse,
  AnalyticsProductivityResponse,
  AnalyticsTokensResponse,
  AnalyticsToolsResponse,
  AnalyticsUsersResponse,
  Computer,
  CreditsGroupedRow,
  CreditsRow,
  EnterpriseControlChange,
  EnterpriseControlsHistoryPage,
  HookInput,
  HookInputNotification,
  HookInputSessionEnd,
  HooksSettings,
  Message,
  ReadinessReport,
  ReadinessReportList,
  SendMessageResponse,
  Session,
  ToolsGroupedRow,
  ToolsRow,
  UnknownHookInput,
  UsageLimitsUpdateResponse,
  UserLimitsResult,
  UserRow,
} from "../../src/index.js";
import {
  ComputerProvisioningError,
  OrgAgent,
  OrgAgentError,
  PagePromise,
  WaitTimeoutError,
  dateRange,
  isKnownHookInput,
  parseHookInput,
  type DateRange,
  type ProvisioningStep,
  type WaitOptions,
} from "../../src/index.js";

declare const client: OrgAgent;
const dates = { startDate: "2026-03-02", endDate: "2026-03-03" };

describe("analytics", () => {
  it("tokens: ungrouped rows are CreditsRow, grouped by model are CreditsGroupedRow", async () => {
    const daily = await client.analytics.tokens(dates);
    expectTypeOf(daily.data).toEqualTypeOf<CreditsRow[]>();
    expectTypeOf(daily.meta).toEqualTypeOf<AnalyticsTokensResponse["meta"]>();
    const byModel = await client.analytics.tokens({ ...dates, group_by: "model" });
    expectTypeOf(byModel.data).toEqualTypeOf<CreditsGroupedRow[]>();
    expectTypeOf(byModel.data[0]!.group_key).toEqualTypeOf<string>();
  });

  it("tools: ToolsRow, or ToolsGroupedRow with group_by tool_name", async () => {
    expectTypeOf((await client.analytics.tools(dates)).data).toEqualTypeOf<ToolsRow[]>();
    expectTypeOf((await client.analytics.tools({ ...dates, group_by: "tool_name" })).data).toEqualTypeOf<
      ToolsGroupedRow[]
    >();
    expectTypeOf((await client.analytics.tools(dates)).meta).toEqualTypeOf<AnalyticsToolsResponse["meta"]>();
  });

  it("activity: ActivityRow, or ActivityGroupedRow with group_by client", async () => {
    expectTypeOf((await client.analytics.activity(dates)).data).toEqualTypeOf<ActivityRow[]>();
    expectTypeOf((await client.analytics.activity({ ...dates, group_by: "client" })).data).toEqualTypeOf<
      ActivityGroupedRow[]
    >();
    expectTypeOf((await client.analytics.activity(dates)).meta).toEqualTypeOf<AnalyticsActivityResponse["meta"]>();
  });

  it("a group_by whose value is only known at run time gives the envelope's row union", async () => {
    const groupBy = Math.random() > 0.5 ? ("model" as const) : undefined;
    expectTypeOf((await client.analytics.tokens({ ...dates, group_by: groupBy })).data).toEqualTypeOf<
      (CreditsRow | CreditsGroupedRow)[]
    >();
  });

  it("productivity resolves to its response", () => {
    expectTypeOf(client.analytics.productivity(dates)).toEqualTypeOf<Promise<AnalyticsProductivityResponse>>();
  });
});

describe("paginated methods", () => {
  it("users: await gives the page envelope, iteration gives UserRow", async () => {
    const list = client.analytics.users({ ...dates, limit: 50 });
    expectTypeOf(list).toEqualTypeOf<PagePromise<AnalyticsUsersResponse, UserRow>>();
    expectTypeOf(await list).toEqualTypeOf<AnalyticsUsersResponse>();
    for await (const row of list) expectTypeOf(row).toEqualTypeOf<UserRow>();
    for await (const page of list.pages()) expectTypeOf(page).toEqualTypeOf<AnalyticsUsersResponse>();
  });

  it("readiness.list: ReadinessReportList pages of ReadinessReport", async () => {
    const list = client.readiness.list();
    expectTypeOf(await list).toEqualTypeOf<ReadinessReportList>();
    for await (const report of list) expectTypeOf(report).toEqualTypeOf<ReadinessReport>();
    for await (const report of client.readiness.list({ limit: 20 }, { maxItems: 100 })) {
      expectTypeOf(report.reportId).toEqualTypeOf<string>();
    }
  });

  it("enterpriseControls.history: history pages of EnterpriseControlChange", async () => {
    const list = client.enterpriseControls.history({ limit: 10 });
    expectTypeOf(await list).toEqualTypeOf<EnterpriseControlsHistoryPage>();
    for await (const change of list) expectTypeOf(change).toEqualTypeOf<EnterpriseControlChange>();
  });
});

describe("the other methods", () => {
  it("resolve to their documented bodies", () => {
    expectTypeOf(client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }])).toEqualTypeOf<Promise<UserLimitsResult>>();
    // The result is the API's response, with each error's position in the input added.
    expectTypeOf<UserLimitsResult>().toMatchTypeOf<UsageLimitsUpdateResponse>();
    expectTypeOf<UserLimitsResult["errors"][number]["index"]>().toEqualTypeOf<number>();
    expectTypeOf(client.sessions.create({ computerId: "cmp_1" })).toEqualTypeOf<Promise<Session>>();
    expectTypeOf(client.sessions.get("sess_1")).toEqualTypeOf<Promise<Session>>();
    expectTypeOf(client.sessions.sendMessage("sess_1", { text: "hi" })).toEqualTypeOf<Promise<SendMessageResponse>>();
    expectTypeOf(client.sessions.getMessage("sess_1", "msg_1")).toEqualTypeOf<Promise<Message>>();
    expectTypeOf(client.computers.get("cmp_1")).toEqualTypeOf<Promise<Computer>>();
    expectTypeOf(client.computers.getByName("build-box-eu-1")).toEqualTypeOf<Promise<Computer>>();
    expectTypeOf(client.computers.retryInstallDeps("cmp_1")).toEqualTypeOf<Promise<Computer>>();
  });

  it("client.raw is typed by the spec's paths", async () => {
    const { data } = await client.raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId: "c" } } });
    expectTypeOf(data).toEqualTypeOf<Computer | undefined>();
  });
});

describe("hooks", () => {
  it("hook_event_name narrows the parsed input", () => {
    const input = parseHookInput({});
    expectTypeOf(input).toEqualTypeOf<HookInput>();
    if (input.hook_event_name === "Notification") {
      expectTypeOf(input).toEqualTypeOf<HookInputNotification>();
      expectTypeOf(input.message).toEqualTypeOf<string>();
    }
    switch (input.hook_event_name) {
      case "SessionEnd":
        expectTypeOf(input).toEqualTypeOf<HookInputSessionEnd>();
        expectTypeOf(input.reason).toEqualTypeOf<string | undefined>();
        break;
      case "Stop":
        // @ts-expect-error a Stop input has no message
        input.message;
        break;
    }
    if (!isKnownHookInput(input)) {
      expectTypeOf(input).toEqualTypeOf<UnknownHookInput>();
      expectTypeOf(input.hook_event_name).toMatchTypeOf<string>();
    }
  });

  it("the hooks settings object is exported", () => {
    expectTypeOf<HooksSettings>().toHaveProperty("hooks");
  });
});

describe("waiting and date ranges", () => {
  it("waitUntilIdle resolves to a Session; onPoll sees Sessions", async () => {
    const session = await client.sessions.waitUntilIdle("sess_1", {
      interval: 500,
      maxInterval: 2_000,
      timeout: 60_000,
      requestTimeout: 5_000,
      signal: AbortSignal.timeout(1_000),
      headers: { "x-trace": "1" },
      onPoll: (snapshot) => expectTypeOf(snapshot).toEqualTypeOf<Session>(),
    });
    expectTypeOf(session).toEqualTypeOf<Session>();
  });

  it("sendMessageAndWait resolves to the message id and the idle session", async () => {
    const result = await client.sessions.sendMessageAndWait("sess_1", { text: "hi" }, { timeout: 30_000 });
    expectTypeOf(result).toEqualTypeOf<{ messageId: string; session: Session }>();
  });

  it("waitUntilActive resolves to a Computer; its errors carry the computer, the step and the snapshot", async () => {
    expectTypeOf(await client.computers.waitUntilActive("cmp_1")).toEqualTypeOf<Computer>();
    expectTypeOf<ComputerProvisioningError>().toMatchTypeOf<OrgAgentError>();
    expectTypeOf<ComputerProvisioningError["computer"]>().toEqualTypeOf<Computer>();
    expectTypeOf<ComputerProvisioningError["step"]>().toEqualTypeOf<ProvisioningStep | undefined>();
    expectTypeOf<WaitTimeoutError<Session>["snapshot"]>().toEqualTypeOf<Session | undefined>();
    expectTypeOf<WaitTimeoutError>().toMatchTypeOf<OrgAgentError>();
    expectTypeOf<WaitOptions<Computer>["onPoll"]>().toEqualTypeOf<((snapshot: Computer) => void) | undefined>();
  });

  it("dateRange returns { startDate, endDate }, spread into analytics queries", async () => {
    expectTypeOf(dateRange.lastDays(7)).toEqualTypeOf<DateRange>();
    expectTypeOf(dateRange.month("2026-10", { now: new Date() })).toEqualTypeOf<DateRange>();
    expectTypeOf(dateRange.yesterday({ now: 1_790_000_000_000 })).toEqualTypeOf<DateRange>();
    expectTypeOf((await client.analytics.tokens({ ...dateRange.lastDays(30), group_by: "model" })).data).toEqualTypeOf<CreditsGroupedRow[]>();
  });
});

describe("calls that must not compile", () => {
  it("rejects wrong wait options and date-range arguments", () => {
    // @ts-expect-error interval in a string ("1s")
    void client.sessions.waitUntilIdle("sess_1", { interval: "1s" });
    // @ts-expect-error onPoll of a session does not take a Computer
    void client.sessions.waitUntilIdle("sess_1", { onPoll: (c: Computer) => c.name });
    // @ts-expect-error unknown wait option
    void client.computers.waitUntilActive("cmp_1", { pollEvery: 1_000 });
    // @ts-expect-error the session id is required
    void client.sessions.waitUntilIdle();
    // @ts-expect-error sendMessageAndWait needs the message body
    void client.sessions.sendMessageAndWait("sess_1", { timeout: 1_000 });
    // @ts-expect-error a month is "YYYY-MM" text, not a number
    void dateRange.month(202610);
    // @ts-expect-error lastDays takes a number of days
    void dateRange.lastDays("7");
  });


  it("rejects wrong parameters", () => {
    // @ts-expect-error unknown group_by value
    void client.analytics.tokens({ ...dates, group_by: "user" });
    // @ts-expect-error group_by of another endpoint
    void client.analytics.tools({ ...dates, group_by: "model" });
    // @ts-expect-error limit as a string
    void client.analytics.users({ ...dates, limit: "50" });
    // @ts-expect-error missing startDate
    void client.analytics.tokens({ endDate: "2026-03-03" });
    // @ts-expect-error productivity takes no group_by
    void client.analytics.productivity({ ...dates, group_by: "model" });
    // @ts-expect-error wrong body field
    void client.sessions.create({ computerID: "cmp_1" });
    // @ts-expect-error text is required in a message
    void client.sessions.sendMessage("sess_1", { images: [] });
    // @ts-expect-error setUserLimits entry without email
    void client.usageLimits.setUserLimits([{ limit: 1 }]);
    // @ts-expect-error setUserLimits limit as a string
    void client.usageLimits.setUserLimits([{ email: "a@b.c", limit: "1" }]);
    // @ts-expect-error readiness limit as a string
    void client.readiness.list({ limit: "20" });
    // @ts-expect-error computer id must be a string
    void client.computers.get(42);
    // @ts-expect-error raw rejects an undocumented path
    void client.raw.GET("/api/v0/not-a-path");
  });
});
