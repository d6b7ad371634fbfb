// The consumer program: written the way a user writes against the published package (`import … from "orgagent"`,
// TypeScript strict), it is
//   - type-checked in a clean consumer project under moduleResolution node16 and bundler (test/package),
//     and with TypeScript 5.4, 5.9, 6.0 and 7.0 (test/package/typescript-versions.e2e.ts);
//   - compiled once and run against Prism on Node 20, 22, 24, Bun, Deno and headless Chromium (test/runtimes),
//     and from CommonJS with require() on Node (test/package).
// It lives in a dot-directory so the repo's own `tsc -p .` (which has no "orgagent" package to resolve before a
// build) and vitest skip it; the tests copy it into the consumer project.
// Only globals every runtime has (fetch, Request, URL, console): no Node types, no DOM-only APIs.
import {
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  ComputerProvisioningError,
  NotFoundError,
  OrgAgent,
  OrgAgentError,
  ValidationError,
  dateRange,
  type APIPromise,
  type ClientOptions,
  type Computer,
  type DateRange,
  type CreditsGroupedRow,
  type ReadinessReport,
  type Session,
  type UserLimitsProgress,
  type UserLimitsResult,
  type UserRow,
  type WithResponse,
} from "orgagent";

export interface SmokeConfig {
  apiKey: string;
  baseUrl: string;
  appUrl: string;
  /** A date range analytics accepts. */
  startDate: string;
  endDate: string;
  /**
   * Prism serves the first example of a response unless a request names another (`Prefer: example=…`): the
   * grouped `/tokens` call asks for the grouped example, requests that continue a list from a cursor ask for
   * the last page of `/users`, so iterating the list ends as a real one does, waits on a session ask for the idle
   * session, and a wait on a computer that fails asks for the computer whose install step failed.
   */
  examples: { groupedTokens: string; lastUsersPage: string; idleSession: string; failedComputer: string };
  /**
   * A server that holds requests: `/never/…` are never answered, `/endless/…` get headers and a body that never
   * ends; `/held` says how many requests it holds on connections still open; `/redirect/…` redirects to the same
   * path on Prism (another origin). It answers CORS preflights.
   */
  stalledUrl: string;
}

/** What the smoke saw; the runner compares it with what the spec's examples say, the same on every runtime. */
export interface SmokeSummary {
  tokenDays: string[];
  groupedModels: string[];
  userIds: string[];
  userPageSizes: number[];
  readinessReportIds: string[];
  sessionStatus: Session["status"];
  /** What waitUntilIdle resolved to, and how many days dateRange.lastDays(7) spans. */
  waited: { status: Session["status"]; lastWeekDays: number };
  /** sendMessageAndWait: the id of the message sent, the session it waited for, and the status of each poll. */
  sentAndWaited: { messageId: string; status: Session["status"]; polled: Session["status"][] };
  /** waitUntilActive on an active computer (the status of each poll), and on one whose install step failed. */
  activeComputer: { id: string; status: Computer["status"]; polled: Computer["status"][] };
  failedProvisioning: { errorClass: string; computerStatus: Computer["status"]; stepId: string | undefined; stepError: string | undefined };
  /**
   * setUserLimits in two chunks at once: each chunk's progress report (by chunk: how many of its entries were
   * applied and not), the running total of the last report, and the merged result (e-mails applied; errors with
   * their positions).
   */
  limits: {
    reports: { chunk: number; chunks: number; total: number; updated: number; errors: number }[];
    done: number;
    updatedEmails: string[];
    errors: { index: number; email: string }[];
  };
  /** analytics.users cut into date windows, 2 at once: the rows in the order they came, and the date ranges asked for. */
  windowed: { userIds: string[]; ranges: string[] };
  messageRole: string;
  computerName: string;
  rawComputerId: string;
  /** What an API error says about where it came from (the URL's host is the runner's, so only its path). */
  notFound: {
    errorClass: string;
    status: number;
    hasTitle: boolean;
    operationId: string | undefined;
    method: string | undefined;
    path: string | undefined;
    urlPath: string;
    messageEndsWithUrl: boolean;
  };
  /** A call's data with its response: the status, and whether the data is what `await` gives. */
  withResponse: { status: number; sameData: boolean; requestId: string | null; pageStatuses: number[] };
  /** The first user ids by toArray({ limit }), across the page boundary. */
  firstUsers: string[];
  /** An AbortSignal.timeout() abort: the error class and its cause's name. */
  abortedByTimeout: { errorClass: string; causeName: string; saysTimedOut: boolean };
  validation: { errorClass: string; requestsSent: number };
  /** A fetch that never answers, and one whose body never ends: each call ends on time all the same. */
  timeouts: { errorClass: string; withinMs: boolean }[];
  /** Calls to a real server that stalls (no answer; an endless body): on time, and 1 s later no connection holds them. */
  stalled: { errorClass: string; withinMs: boolean }[];
  heldOneSecondLater: number;
  /** What a redirect to another origin (Prism, which wants a key) comes to: the key must not follow it. */
  crossOriginRedirect: string;
  /** Whether the client refuses to start without `dangerouslyAllowBrowser` (in a browser only). */
  browserRefused: boolean;
}

export async function runSmoke(config: SmokeConfig): Promise<SmokeSummary> {
  let requestsSent = 0;
  const continuesFromCursor: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    requestsSent++;
    if (new URL(request.url).searchParams.has("cursor")) {
      request.headers.set("Prefer", `code=200, example=${config.examples.lastUsersPage}`);
    }
    return fetch(request);
  };
  let browserRefused = false;
  try {
    new OrgAgent({ apiKey: config.apiKey, baseUrl: config.baseUrl });
  } catch (error) {
    if (!(error instanceof OrgAgentError) || !/dangerouslyAllowBrowser/.test(error.message)) throw error;
    browserRefused = true;
  }
  const options: ClientOptions = {
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    appUrl: config.appUrl,
    fetch: continuesFromCursor,
    maxRetries: 0,
    // The smoke's key is a test key, and the page is the test's own: see docs/reliability.md.
    dangerouslyAllowBrowser: browserRefused,
  };
  const client = new OrgAgent(options);
  const range = { startDate: config.startDate, endDate: config.endDate };

  // API host: analytics, plain and grouped (the grouped overload types the rows).
  const tokens = await client.analytics.tokens(range);
  const grouped = await client.analytics.tokens(
    { ...range, group_by: "model" },
    { headers: { Prefer: `code=200, example=${config.examples.groupedTokens}` } },
  );
  const groupedRows: CreditsGroupedRow[] = grouped.data;

  // Auto-pagination across pages.
  const users: UserRow[] = [];
  for await (const user of client.analytics.users({ ...range, limit: 2 })) users.push(user);
  const userPageSizes: number[] = [];
  for await (const page of client.analytics.users({ ...range, limit: 2 }).pages()) userPageSizes.push(page.data.length);

  // App host: readiness reports.
  const reports: ReadinessReport[] = [];
  for await (const report of client.readiness.list({ limit: 20 })) reports.push(report);

  // Writes and reads on the API host.
  const session = await client.sessions.create({ computerId: "cmp_3e9d0a4b7c2f4e61", cwd: "/home/builder/project" });
  const sent = await client.sessions.sendMessage(session.sessionId, { text: "Run the test suite." });
  const message = await client.sessions.getMessage(session.sessionId, sent.messageId);
  const computer = await client.computers.getByName("build-box-eu-1");

  // Response metadata: the same data as `await`, with the response it came in; each page's response too.
  const pending: APIPromise<Computer> = client.computers.get(computer.id);
  const described: WithResponse<Computer> = await pending.withResponse();
  const pageStatuses: number[] = [];
  for await (const page of client.analytics.users({ ...range, limit: 2 }).pages({ withResponse: true })) {
    pageStatuses.push(page.response.status);
  }
  const withResponse = {
    status: described.response.status,
    sameData: (await pending) === described.data,
    requestId: described.requestId ?? null,
    pageStatuses,
  };

  // Collecting: the first 3 rows, across the first page's end.
  const firstUsers: UserRow[] = await client.analytics.users({ ...range, limit: 2 }).toArray({ limit: 3 });

  // Waiting on a session (Prism's idle example settles it at once), and a date range that ends yesterday (UTC).
  const idle = await client.sessions.waitUntilIdle(session.sessionId, {
    interval: 100,
    timeout: 10_000,
    headers: { Prefer: `code=200, example=${config.examples.idleSession}` },
  });
  const week: DateRange = dateRange.lastDays(7);

  // Sending and waiting: Prism answers the send with its example, and every poll of the session with the idle
  // session (asked for on the session's GETs only: the send has no example of that name).
  const idleOnPoll: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    if (request.method !== "GET" || !/\/sessions\/[^/]+$/.test(new URL(request.url).pathname)) return continuesFromCursor(input, init);
    request.headers.set("Prefer", `code=200, example=${config.examples.idleSession}`);
    return continuesFromCursor(request);
  };
  const sessionsPolled: Session["status"][] = [];
  const answered: { messageId: string; session: Session } = await new OrgAgent({ ...options, fetch: idleOnPoll }).sessions.sendMessageAndWait(
    session.sessionId,
    { text: "Why is CI red?" },
    { interval: 100, timeout: 10_000, onPoll: (snapshot) => sessionsPolled.push(snapshot.status) },
  );

  // Waiting on a computer: Prism's first example is active, so the first poll settles the wait. A computer whose
  // install step failed ends the wait with ComputerProvisioningError, naming the step.
  const computersPolled: Computer["status"][] = [];
  const active: Computer = await client.computers.waitUntilActive(computer.id, {
    interval: 100,
    timeout: 10_000,
    onPoll: (snapshot) => computersPolled.push(snapshot.status),
  });
  let failedProvisioning: SmokeSummary["failedProvisioning"] | undefined;
  try {
    await client.computers.waitUntilActive(computer.id, {
      interval: 100,
      timeout: 10_000,
      headers: { Prefer: `code=200, example=${config.examples.failedComputer}` },
    });
  } catch (error) {
    if (!(error instanceof ComputerProvisioningError)) throw error;
    failedProvisioning = { errorClass: error.name, computerStatus: error.computer.status, stepId: error.step?.id, stepError: error.step?.error };
  }
  if (!failedProvisioning) throw new Error("expected a ComputerProvisioningError");

  // Bulk limits: 150 entries go as two chunks of the spec's maxItems (100), both at once. Prism checks each chunk
  // against the spec (a chunk it refused would be in errors) and answers each with the spec's first example.
  const limitEntries = Array.from({ length: 150 }, (_, i) => ({ email: `person-${i}@acme-robotics.com`, limit: 1_000 * i }));
  const limitReports: UserLimitsProgress[] = [];
  const limitsSet: UserLimitsResult = await client.usageLimits.setUserLimits(limitEntries, {
    concurrency: 2,
    onProgress: (progress) => limitReports.push(progress),
  });
  const limits: SmokeSummary["limits"] = {
    reports: [...limitReports]
      .sort((a, b) => a.chunk - b.chunk)
      .map(({ chunk, chunks, total, updated, errors }) => ({ chunk, chunks, total, updated: updated.length, errors: errors.length })),
    done: limitReports[limitReports.length - 1]?.done ?? 0,
    updatedEmails: limitsSet.updated.map((entry) => entry.email),
    errors: limitsSet.errors.map(({ index, email }) => ({ index, email })),
  };

  // A /users list in date windows, 2 at once: each window is paged through by its own cursor chain (the request
  // with a cursor gets the last page), and the rows come window by window in date order.
  const ranges = new Set<string>();
  const recordsRanges: typeof fetch = (input, init) => {
    const url = new URL(new Request(input, init).url);
    ranges.add(`${url.searchParams.get("startDate")}..${url.searchParams.get("endDate")}`);
    return continuesFromCursor(input, init);
  };
  const windowedUsers: UserRow[] = [];
  const windowedList = new OrgAgent({ ...options, fetch: recordsRanges }).analytics.users({ ...range, limit: 2 }, { concurrency: 2 });
  for await (const user of windowedList) windowedUsers.push(user);

  // The raw openapi-fetch client, typed by the spec's paths.
  const raw = await client.raw.GET("/api/v0/computers/{computerId}", {
    params: { path: { computerId: computer.id } },
  });
  if (!raw.data) throw new Error(`raw GET failed with ${raw.response.status}`);

  // A typed API error.
  let notFound: SmokeSummary["notFound"] | undefined;
  try {
    await client.computers.get("cmp_missing", { headers: { Prefer: "code=404" } });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const apiError: APIError = error;
    notFound = {
      errorClass: error.name,
      status: apiError.status,
      hasTitle: typeof apiError.title === "string",
      operationId: apiError.operationId,
      method: apiError.method,
      path: apiError.path,
      urlPath: new URL(apiError.url ?? "http://missing/").pathname,
      messageEndsWithUrl: apiError.message.endsWith(`[getComputer: GET ${apiError.url}]`),
    };
  }
  if (!notFound) throw new Error("expected a NotFoundError");

  // Bad input is refused before anything is sent.
  let validation: SmokeSummary["validation"] | undefined;
  const before = requestsSent;
  try {
    await client.analytics.tokens({ startDate: config.endDate, endDate: config.startDate });
  } catch (error) {
    if (!(error instanceof ValidationError) || !(error instanceof OrgAgentError)) throw error;
    validation = { errorClass: error.name, requestsSent: requestsSent - before };
  }
  if (!validation) throw new Error("expected a ValidationError");

  // Timeouts: an answer that never comes, and a body that never ends, each end the call on time, even from a fetch
  // that ignores its signal (the answer is raced against the timer).
  const never: typeof fetch = () => new Promise<Response>(() => {});
  const endless: typeof fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"id":')) }),
      { headers: { "content-type": "application/json" } },
    );
  let abortedByTimeout: SmokeSummary["abortedByTimeout"] | undefined;
  try {
    await new OrgAgent({ ...options, fetch: never }).computers.get("cmp_3e9d0a4b7c2f4e61", { signal: AbortSignal.timeout(100) });
  } catch (error) {
    if (!(error instanceof APIUserAbortError)) throw error;
    const cause = error.cause as { name?: string } | undefined;
    abortedByTimeout = { errorClass: error.name, causeName: String(cause?.name), saysTimedOut: /timed out/.test(error.message) };
  }
  if (!abortedByTimeout) throw new Error("expected an APIUserAbortError");

  const timeouts: SmokeSummary["timeouts"] = [];
  for (const stalled of [never, endless]) {
    const started = Date.now();
    try {
      await new OrgAgent({ ...options, fetch: stalled, timeout: 100 }).computers.get("cmp_3e9d0a4b7c2f4e61");
    } catch (error) {
      if (!(error instanceof APIConnectionTimeoutError)) throw error;
      timeouts.push({ errorClass: error.name, withinMs: Date.now() - started < 5_000 });
    }
  }

  // The same against a real server that stalls: each attempt's connection is closed when it times out, so 1 s later
  // the server holds nothing (and the program exits at once when it is done: the runner times that).
  const stalled: SmokeSummary["stalled"] = [];
  for (const path of ["never", "endless"]) {
    const started = Date.now();
    const stalledClient = new OrgAgent({ ...options, fetch: undefined, baseUrl: `${config.stalledUrl}/${path}`, timeout: 100 });
    try {
      await stalledClient.computers.get("cmp_3e9d0a4b7c2f4e61");
    } catch (error) {
      if (!(error instanceof APIConnectionTimeoutError)) throw error;
      stalled.push({ errorClass: error.name, withinMs: Date.now() - started < 5_000 });
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const held = (await (await fetch(`${config.stalledUrl}/held`)).json()) as { held: number };

  let crossOriginRedirect = "resolved";
  try {
    await new OrgAgent({ ...options, fetch: undefined, baseUrl: `${config.stalledUrl}/redirect` }).computers.get("cmp_3e9d0a4b7c2f4e61");
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    crossOriginRedirect = `${error.name} ${error.status}`;
  }

  return {
    tokenDays: tokens.data.map((row) => row.date),
    groupedModels: groupedRows.map((row) => row.group_key),
    userIds: users.map((user) => user.user_id),
    userPageSizes,
    readinessReportIds: reports.map((report) => report.reportId),
    sessionStatus: session.status,
    waited: { status: idle.status, lastWeekDays: (Date.parse(week.endDate) - Date.parse(week.startDate)) / 86_400_000 + 1 },
    sentAndWaited: { messageId: answered.messageId, status: answered.session.status, polled: sessionsPolled },
    activeComputer: { id: active.id, status: active.status, polled: computersPolled },
    failedProvisioning,
    limits,
    windowed: { userIds: windowedUsers.map((user) => user.user_id), ranges: [...ranges].sort() },
    messageRole: message.role,
    computerName: computer.name,
    rawComputerId: raw.data.id,
    notFound,
    withResponse,
    firstUsers: firstUsers.map((user) => user.user_id),
    abortedByTimeout,
    validation,
    timeouts,
    stalled,
    heldOneSecondLater: held.held,
    crossOriginRedirect,
    browserRefused,
  };
}

// Never called: each line must fail to compile, so the checks above are not passing on `any`.
export function wrongUsesDoNotCompile(client: OrgAgent): void {
  // @ts-expect-error endDate is required
  void client.analytics.tokens({ startDate: "2026-03-02" });
  // @ts-expect-error group_by of /tokens is "model" only
  void client.analytics.tokens({ startDate: "2026-03-02", endDate: "2026-03-03", group_by: "tool_name" });
  // @ts-expect-error computerId is required
  void client.sessions.create({ cwd: "/tmp" });
  // @ts-expect-error text must be a string
  void client.sessions.sendMessage("sess_1", { text: 42 });
  // @ts-expect-error wait intervals are milliseconds, a number
  void client.sessions.waitUntilIdle("sess_1", { interval: "1s" });
  // @ts-expect-error a computer's wait polls Computers, not Sessions
  void client.computers.waitUntilActive("cmp_1", { onPoll: (session: Session) => session.sessionId });
  // @ts-expect-error sendMessageAndWait resolves to { messageId, session }
  const idle: Promise<Session> = client.sessions.sendMessageAndWait("sess_1", { text: "hi" });
  void idle;
  // @ts-expect-error onProgress hears a progress report, not a number
  void client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }], { onProgress: (done: number) => done });
  // @ts-expect-error concurrency is a number
  void client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }], { concurrency: "2" });
  // @ts-expect-error every entry needs its email
  void client.usageLimits.setUserLimits([{ limit: 1 }]);
  // @ts-expect-error an error's position is a number
  const position: string = ({} as UserLimitsResult).errors[0]!.index;
  void position;
  // @ts-expect-error the windows of /users are a number of them at once
  void client.analytics.users({ startDate: "2026-03-02", endDate: "2026-03-03" }, { concurrency: "2" });
  // @ts-expect-error a month is "YYYY-MM" text
  void dateRange.month(202610);
  // @ts-expect-error a path the spec does not have
  void client.raw.GET("/api/v0/nowhere");
  // @ts-expect-error toArray's limit is a number
  void client.readiness.list().toArray({ limit: "3" });
  // @ts-expect-error a wait makes many requests: it has no single response
  void client.sessions.waitUntilIdle("sess_1").withResponse();
  // @ts-expect-error the client's internal call is not public
  void client.call("getComputer", {});
  // @ts-expect-error an error's operationId is a string
  const operation: number | undefined = new APIError(404, new Headers(), undefined).operationId;
  void operation;
  // @ts-expect-error rows of a grouped call are grouped rows
  const ungrouped: Promise<{ data: { group_key: number }[] }> = client.analytics.tokens({
    startDate: "2026-03-02",
    endDate: "2026-03-03",
    group_by: "model",
  });
  void ungrouped;
}
