// Type tests (vitest typecheck): what each method returns, the grouped row shapes, paginated item types, response
// metadata, error fields, hook narrowing, and calls that must not compile. Nothing here runs; `tsc` is the judge.
// The repo's tsconfig has exactOptionalPropertyTypes on, so every line here also holds for users who turn it on.
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
  UserLimitEntry,
  UserLimitEntryInput,
  UserLimitFailure,
  UserLimitsPartialResult,
  UserLimitsProgress,
  UserLimitsResult,
  UserRow,
} from "../../src/index.js";
import {
  type APIConnectionError,
  type APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ComputerProvisioningError,
  type InvalidEntriesError,
  type NotFoundError,
  type OrgAgent,
  type OrgAgentError,
  type PagePromise,
  type RedirectError,
  type ResponseTooLargeError,
  UserLimitsAbortedError,
  type ValidationError,
  type WaitTimeoutError,
  dateRange,
  isKnownHookInput,
  parseHookInput,
  type APIPromise,
  type DateRange,
  type PositionedEntry,
  type ProvisioningStep,
  type RequestContext,
  type RequestOptions,
  type SetUserLimitsOptions,
  type SupersededEntry,
  type WaitOptions,
  type WindowOptions,
  type WithResponse,
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
    expectTypeOf((await client.analytics.tools({ ...dates, group_by: "tool_name" })).data).toEqualTypeOf<ToolsGroupedRow[]>();
    expectTypeOf((await client.analytics.tools(dates)).meta).toEqualTypeOf<AnalyticsToolsResponse["meta"]>();
  });

  it("activity: ActivityRow, or ActivityGroupedRow with group_by client", async () => {
    expectTypeOf((await client.analytics.activity(dates)).data).toEqualTypeOf<ActivityRow[]>();
    expectTypeOf((await client.analytics.activity({ ...dates, group_by: "client" })).data).toEqualTypeOf<ActivityGroupedRow[]>();
    expectTypeOf((await client.analytics.activity(dates)).meta).toEqualTypeOf<AnalyticsActivityResponse["meta"]>();
  });

  it("a group_by whose value is only known at run time gives the envelope's row union", async () => {
    const groupBy = Math.random() > 0.5 ? ("model" as const) : undefined;
    expectTypeOf((await client.analytics.tokens({ ...dates, group_by: groupBy })).data).toEqualTypeOf<(CreditsRow | CreditsGroupedRow)[]>();
  });

  it("productivity resolves to its response", () => {
    expectTypeOf(client.analytics.productivity(dates)).toEqualTypeOf<APIPromise<AnalyticsProductivityResponse>>();
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
    expectTypeOf(client.sessions.create({ computerId: "cmp_1" })).toEqualTypeOf<APIPromise<Session>>();
    expectTypeOf(client.sessions.get("sess_1")).toEqualTypeOf<APIPromise<Session>>();
    expectTypeOf(client.sessions.sendMessage("sess_1", { text: "hi" })).toEqualTypeOf<APIPromise<SendMessageResponse>>();
    expectTypeOf(client.sessions.getMessage("sess_1", "msg_1")).toEqualTypeOf<APIPromise<Message>>();
    expectTypeOf(client.computers.get("cmp_1")).toEqualTypeOf<APIPromise<Computer>>();
    expectTypeOf(client.computers.getByName("build-box-eu-1")).toEqualTypeOf<APIPromise<Computer>>();
    expectTypeOf(client.computers.retryInstallDeps("cmp_1")).toEqualTypeOf<APIPromise<Computer>>();
  });

  it("an optional field or parameter also takes undefined (exactOptionalPropertyTypes)", () => {
    const limit: number | undefined = Math.random() > 0.5 ? 50 : undefined;
    const cwd: string | undefined = undefined;
    expectTypeOf(client.analytics.users({ ...dates, limit, cursor: undefined })).toEqualTypeOf<
      PagePromise<AnalyticsUsersResponse, UserRow>
    >();
    expectTypeOf(client.sessions.create({ computerId: "cmp_1", cwd })).toEqualTypeOf<APIPromise<Session>>();
    expectTypeOf(client.computers.get("cmp_1", { timeout: undefined, signal: undefined })).toEqualTypeOf<APIPromise<Computer>>();
  });

  it("client.raw is typed by the spec's paths", async () => {
    const { data } = await client.raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId: "c" } } });
    expectTypeOf(data).toEqualTypeOf<Computer | undefined>();
  });
});

describe("response metadata", () => {
  it("a method's promise is a Promise of the data, with withResponse() for the response and request id", async () => {
    const promise = client.computers.get("cmp_1");
    const plain: Promise<Computer> = promise;
    expectTypeOf(await plain).toEqualTypeOf<Computer>();
    const answer = await promise.withResponse();
    expectTypeOf(answer).toEqualTypeOf<WithResponse<Computer>>();
    expectTypeOf(answer.data).toEqualTypeOf<Computer>();
    expectTypeOf(answer.response).toEqualTypeOf<Response>();
    expectTypeOf(answer.requestId).toEqualTypeOf<string | undefined>();
    const grouped = await client.analytics.tokens({ ...dates, group_by: "model" }).withResponse();
    expectTypeOf(grouped.data.data).toEqualTypeOf<CreditsGroupedRow[]>();
  });

  it("a paginated call: withResponse() for the first page, pages({ withResponse: true }) for every page", async () => {
    const list = client.analytics.users(dates);
    expectTypeOf(await list.withResponse()).toEqualTypeOf<WithResponse<AnalyticsUsersResponse>>();
    for await (const page of list.pages({ withResponse: true })) {
      expectTypeOf(page).toEqualTypeOf<WithResponse<AnalyticsUsersResponse>>();
      expectTypeOf(page.response.status).toEqualTypeOf<number>();
    }
    for await (const page of list.pages({ withResponse: false })) expectTypeOf(page).toEqualTypeOf<AnalyticsUsersResponse>();
  });

  it("helpers that make many requests resolve to plain promises", () => {
    expectTypeOf(client.sessions.waitUntilIdle("sess_1")).toEqualTypeOf<Promise<Session>>();
    expectTypeOf(client.computers.waitUntilActive("cmp_1")).toEqualTypeOf<Promise<Computer>>();
    expectTypeOf(client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }])).not.toHaveProperty("withResponse");
  });
});

describe("collecting pages", () => {
  it("toArray resolves to the items; limit is optional", async () => {
    expectTypeOf(await client.analytics.users(dates).toArray()).toEqualTypeOf<UserRow[]>();
    expectTypeOf(await client.readiness.list({}, { maxItems: 50 }).toArray({ limit: 10 })).toEqualTypeOf<ReadinessReport[]>();
    expectTypeOf(await client.enterpriseControls.history().toArray({ limit: undefined })).toEqualTypeOf<EnterpriseControlChange[]>();
  });
});

describe("errors carry where the request went", () => {
  it("APIError and APIConnectionError (and their subclasses) have operationId, method, path and url", () => {
    type Located = {
      readonly operationId: string | undefined;
      readonly method: string | undefined;
      readonly path: string | undefined;
      readonly url: string | undefined;
    };
    expectTypeOf<Pick<APIError, keyof RequestContext>>().toEqualTypeOf<Located>();
    expectTypeOf<Pick<NotFoundError, keyof RequestContext>>().toEqualTypeOf<Located>();
    expectTypeOf<Pick<RedirectError, keyof RequestContext>>().toEqualTypeOf<Located>();
    expectTypeOf<Pick<ResponseTooLargeError, keyof RequestContext>>().toEqualTypeOf<Located>();
    expectTypeOf<Pick<APIConnectionError, keyof RequestContext>>().toEqualTypeOf<Located>();
    expectTypeOf<Pick<APIConnectionTimeoutError, keyof RequestContext>>().toEqualTypeOf<Located>();
    expectTypeOf<APIUserAbortError["cause"]>().toEqualTypeOf<unknown>();
  });
});

describe("the public client", () => {
  it("has no internal call or paginate", () => {
    expectTypeOf<OrgAgent>().not.toHaveProperty("call");
    expectTypeOf<OrgAgent>().not.toHaveProperty("paginate");
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

  it("sendMessageAndWait and waitUntilActive are plain promises of their results; onPoll sees each one's snapshot", () => {
    expectTypeOf(
      client.sessions.sendMessageAndWait(
        "sess_1",
        { text: "hi" },
        { onPoll: (snapshot) => expectTypeOf(snapshot).toEqualTypeOf<Session>() },
      ),
    ).toEqualTypeOf<Promise<{ messageId: string; session: Session }>>();
    expectTypeOf(
      client.computers.waitUntilActive("cmp_1", {
        interval: 2_000,
        onPoll: (snapshot) => expectTypeOf(snapshot).toEqualTypeOf<Computer>(),
      }),
    ).toEqualTypeOf<Promise<Computer>>();
    expectTypeOf(client.sessions.sendMessageAndWait).parameter(2).toEqualTypeOf<WaitOptions<Session> | undefined>();
    expectTypeOf(client.computers.waitUntilActive).parameter(1).toEqualTypeOf<WaitOptions<Computer> | undefined>();
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
    expectTypeOf((await client.analytics.tokens({ ...dateRange.lastDays(30), group_by: "model" })).data).toEqualTypeOf<
      CreditsGroupedRow[]
    >();
  });
});

describe("bulk jobs", () => {
  it("setUserLimits takes the entries and { concurrency, onProgress } with the request options, and resolves to the result", () => {
    const entries: readonly UserLimitEntryInput[] = [{ email: "a@b.c", limit: 1 }];
    const job = client.usageLimits.setUserLimits(entries, {
      concurrency: 8,
      onProgress: (progress) => expectTypeOf(progress).toEqualTypeOf<UserLimitsProgress>(),
      signal: AbortSignal.timeout(60_000),
      maxRetries: 3,
    });
    expectTypeOf(job).toEqualTypeOf<Promise<UserLimitsResult>>();
    expectTypeOf(client.usageLimits.setUserLimits).parameter(1).toEqualTypeOf<SetUserLimitsOptions | undefined>();
    expectTypeOf<SetUserLimitsOptions>().toMatchTypeOf<RequestOptions>();
    expectTypeOf<SetUserLimitsOptions["concurrency"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<SetUserLimitsOptions["onProgress"]>().toEqualTypeOf<((progress: UserLimitsProgress) => void) | undefined>();
  });

  it("a progress report: the chunk's position of how many, its entries applied and not, those they decide, and the running totals", () => {
    expectTypeOf<UserLimitsProgress>().toEqualTypeOf<{
      chunk: number;
      chunks: number;
      updated: UserLimitEntry[];
      errors: UserLimitFailure[];
      superseded: SupersededEntry[];
      done: number;
      total: number;
      throttled: number;
    }>();
  });

  it("an entry of errors is the API's { email, error } with the entry's position in the input, index", () => {
    expectTypeOf<UserLimitFailure>().toEqualTypeOf<{ email: string; error: string; index: number }>();
    expectTypeOf<UserLimitsResult>().toEqualTypeOf<{
      updated: UserLimitEntry[];
      errors: UserLimitFailure[];
      superseded: SupersededEntry[];
      throttled: number;
    }>();
    expectTypeOf<SupersededEntry>().toEqualTypeOf<{ email: string; limit: number; index: number; by: number }>();
    // Destructured as before the superseded entries were reported: every earlier use still compiles.
    const use = ({ updated, errors }: UserLimitsResult) => [updated.length, errors.length];
    expectTypeOf(use).returns.toEqualTypeOf<number[]>();
  });

  it("UserLimitsAbortedError is an APIUserAbortError whose partial holds every entry in one of five lists, each with its index", () => {
    expectTypeOf<UserLimitsAbortedError>().toMatchTypeOf<APIUserAbortError>();
    expectTypeOf<UserLimitsAbortedError["partial"]>().toEqualTypeOf<UserLimitsPartialResult>();
    expectTypeOf<UserLimitsPartialResult>().toEqualTypeOf<{
      updated: UserLimitEntry[];
      errors: UserLimitFailure[];
      superseded: SupersededEntry[];
      throttled: number;
      notSent: PositionedEntry[];
      uncertain: PositionedEntry[];
    }>();
    expectTypeOf<PositionedEntry>().toEqualTypeOf<{ email: string; limit: number; index: number }>();
    // What was not sent, or may not have been applied, can be sent again as it is.
    const error: unknown = new Error();
    if (error instanceof UserLimitsAbortedError) {
      expectTypeOf(error.partial.notSent[0]?.index).toEqualTypeOf<number | undefined>();
      expectTypeOf(client.usageLimits.setUserLimits([...error.partial.notSent, ...error.partial.uncertain])).toEqualTypeOf<
        Promise<UserLimitsResult>
      >();
    }
  });

  it("InvalidEntriesError is a ValidationError listing every bad entry with its position", () => {
    expectTypeOf<InvalidEntriesError>().toMatchTypeOf<ValidationError>();
    expectTypeOf<InvalidEntriesError["entries"]>().toEqualTypeOf<
      ReadonlyArray<{ readonly index: number; readonly error: ValidationError }>
    >();
  });

  it("analytics.users takes { concurrency } beside maxItems and signal, and gives the same page promise", async () => {
    const list = client.analytics.users({ ...dates, limit: 100 }, { concurrency: 8, maxItems: 1_000, signal: AbortSignal.timeout(60_000) });
    expectTypeOf(list).toEqualTypeOf<PagePromise<AnalyticsUsersResponse, UserRow>>();
    expectTypeOf(await list).toEqualTypeOf<AnalyticsUsersResponse>();
    for await (const row of list) expectTypeOf(row).toEqualTypeOf<UserRow>();
    for await (const page of list.pages({ withResponse: true })) expectTypeOf(page).toEqualTypeOf<WithResponse<AnalyticsUsersResponse>>();
    expectTypeOf(await list.toArray({ limit: 10 })).toEqualTypeOf<UserRow[]>();
    expectTypeOf<WindowOptions["concurrency"]>().toEqualTypeOf<number | undefined>();
  });
});

describe("client.request: any operation by its operationId", () => {
  it("is typed by the operationId: its parameters, its answer, and a list's pages and items", async () => {
    expectTypeOf(client.request("getComputer", { path: { computerId: "cmp_1" } })).toEqualTypeOf<APIPromise<Computer>>();
    expectTypeOf(client.request("createSession", { body: { computerId: "cmp_1" } })).toEqualTypeOf<APIPromise<Session>>();
    const users = client.request("listAnalyticsUsers", { query: { ...dates, limit: 50 } }, { concurrency: 4, maxItems: 100 });
    expectTypeOf(users).toEqualTypeOf<PagePromise<AnalyticsUsersResponse, UserRow>>();
    for await (const report of client.request("listReadinessReports")) expectTypeOf(report).toEqualTypeOf<ReadinessReport>();
  });

  it("refuses what the operation does not take", () => {
    // @ts-expect-error the path parameters are required
    void client.request("getComputer");
    // @ts-expect-error an operationId the spec does not have
    void client.request("getComputers", {});
    // @ts-expect-error a query parameter of the wrong type
    void client.request("listAnalyticsUsers", { query: { ...dates, limit: "50" } });
    // @ts-expect-error only a list over a date range takes concurrency
    void client.request("listReadinessReports", {}, { concurrency: 4 });
    // @ts-expect-error a single answer takes no paging options
    void client.request("getComputer", { path: { computerId: "cmp_1" } }, { maxItems: 5 });
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

  it("rejects wrong uses of withResponse, toArray and pages, and the internal methods", async () => {
    // @ts-expect-error withResponse() is a promise: await it before reading data
    void client.computers.get("cmp_1").withResponse().data;
    // @ts-expect-error waiting makes many requests: no single response to show
    void client.sessions.waitUntilIdle("sess_1").withResponse();
    // @ts-expect-error setUserLimits sends several chunks: no single response to show
    void client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }]).withResponse();
    // @ts-expect-error toArray's limit is a number
    void client.analytics.users(dates).toArray({ limit: "10" });
    // @ts-expect-error toArray takes { limit }, not a bare number
    void client.analytics.users(dates).toArray(10);
    // @ts-expect-error unknown toArray option
    void client.analytics.users(dates).toArray({ max: 10 });
    // @ts-expect-error pages' withResponse is a boolean
    void client.analytics.users(dates).pages({ withResponse: "yes" });
    // @ts-expect-error a page without withResponse has no response
    for await (const page of client.analytics.users(dates).pages()) void page.response;
    // @ts-expect-error the internal call is not on the public client
    void client.call("getComputer", { path: { computerId: "cmp_1" } });
    // @ts-expect-error the internal paginate is not on the public client
    void client.paginate("listAnalyticsUsers", dates);
    // @ts-expect-error the error's operationId is a string, not a number
    const id: number | undefined = new APIError(404, new Headers(), {}).operationId;
    void id;
  });

  it("rejects wrong bulk-job options, entries and results", () => {
    const entries = [{ email: "a@b.c", limit: 1 }];
    // @ts-expect-error concurrency is a number, not a string
    void client.usageLimits.setUserLimits(entries, { concurrency: "4" });
    // @ts-expect-error onProgress hears a UserLimitsProgress, not a number
    void client.usageLimits.setUserLimits(entries, { onProgress: (done: number) => done });
    // @ts-expect-error a progress report has no index (its errors each have one)
    void client.usageLimits.setUserLimits(entries, { onProgress: (progress) => progress.index });
    // @ts-expect-error onProgress is a function
    void client.usageLimits.setUserLimits(entries, { onProgress: true });
    // @ts-expect-error every entry needs its email, not only the first
    void client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }, { limit: 2 }]);
    // @ts-expect-error the entries are an array, even for one
    void client.usageLimits.setUserLimits({ email: "a@b.c", limit: 1 });
    // @ts-expect-error the chunk size is the spec's maxItems, not an option
    void client.usageLimits.setUserLimits(entries, { chunkSize: 50 });
    // @ts-expect-error an error entry's index is a number
    const where: string = ({} as UserLimitFailure).index;
    void where;
    // @ts-expect-error a plain APIUserAbortError has no partial result
    void new APIUserAbortError().partial;
    // @ts-expect-error an entry of partial.notSent says where it was as index, not position
    void ({} as UserLimitsAbortedError).partial.notSent[0]?.position;
    // @ts-expect-error concurrency of analytics.users is a number
    void client.analytics.users(dates, { concurrency: "8" });
    // @ts-expect-error only analytics.users is cut into date windows: readiness.list takes no concurrency
    void client.readiness.list({ limit: 20 }, { concurrency: 4 });
    // @ts-expect-error waitUntilActive's onPoll sees a Computer, not a Session
    void client.computers.waitUntilActive("cmp_1", { onPoll: (session: Session) => session.sessionId });
    // @ts-expect-error sendMessageAndWait resolves to { messageId, session }, not the session alone
    const idle: Promise<Session> = client.sessions.sendMessageAndWait("sess_1", { text: "hi" });
    void idle;
    // @ts-expect-error sendMessageAndWait's body needs its text
    void client.sessions.sendMessageAndWait("sess_1", { images: [] });
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
