// The resource methods: thin typed wrappers over the ResourceClient's `call` and `paginate`. Parameter and field
// names are the API's own; every type comes from generated/openapi.ts, by the spec's own names (`Session`), so
// hovers and compiler messages read the way the spec does.
import type * as api from "../generated/openapi.js";
import { operations, statusLifecycles } from "../generated/spec-tables.js";
import type { QueryParams, ResourceClient } from "./client.js";
import { OrgAgentError } from "./core/errors.js";
import type { PageOptions, PagePromise } from "./core/pagination.js";
import type { RequestOptions } from "./core/request.js";
import type { APIPromise } from "./core/response.js";
import { pollUntilSettled, requestOptionsOf, type WaitOptions } from "./core/wait.js";
import { inDateWindows, type WindowOptions } from "./core/windows.js";
import { setUserLimits, type SetUserLimitsOptions, type UserLimitsResult } from "./usage-limits.js";

/** An analytics envelope whose rows are all of one shape (grouped or not). */
export type AnalyticsPage<Envelope extends { data: unknown[] }, Row> = Omit<Envelope, "data"> & { data: Row[] };

/**
 * An analytics response whose grouping is known only at run time: the spec's daily or grouped envelope, typed as
 * one envelope whose rows may be of either shape.
 */
export type AnalyticsTokensResponse = AnalyticsPage<
  api.AnalyticsTokensDailyResponse,
  api.CreditsRow | api.CreditsGroupedRow
>;
export type AnalyticsToolsResponse = AnalyticsPage<api.AnalyticsToolsDailyResponse, api.ToolsRow | api.ToolsGroupedRow>;
export type AnalyticsActivityResponse = AnalyticsPage<
  api.AnalyticsActivityDailyResponse,
  api.ActivityRow | api.ActivityGroupedRow
>;

type TokensQuery = QueryParams<"getAnalyticsTokens">;
type ToolsQuery = QueryParams<"getAnalyticsTools">;
type ActivityQuery = QueryParams<"getAnalyticsActivity">;
type Grouped<Q, Key extends string> = Q & { group_by: Key };
type Ungrouped<Q> = Q & { group_by?: undefined };

export class Analytics {
  readonly #client: ResourceClient;
  constructor(client: ResourceClient) {
    this.#client = client;
  }

  /** Daily credit consumption; with `group_by: "model"`, one row per model per day. */
  tokens(query: Grouped<TokensQuery, "model">, options?: RequestOptions): APIPromise<api.AnalyticsTokensGroupedResponse>;
  tokens(query: Ungrouped<TokensQuery>, options?: RequestOptions): APIPromise<api.AnalyticsTokensDailyResponse>;
  tokens(query: TokensQuery, options?: RequestOptions): APIPromise<AnalyticsTokensResponse>;
  tokens(query: TokensQuery, options?: RequestOptions) {
    return this.#client.call("getAnalyticsTokens", { query }, undefined, options);
  }

  /** Daily tool usage; with `group_by: "tool_name"`, one row per tool per day. */
  tools(query: Grouped<ToolsQuery, "tool_name">, options?: RequestOptions): APIPromise<api.AnalyticsToolsGroupedResponse>;
  tools(query: Ungrouped<ToolsQuery>, options?: RequestOptions): APIPromise<api.AnalyticsToolsDailyResponse>;
  tools(query: ToolsQuery, options?: RequestOptions): APIPromise<AnalyticsToolsResponse>;
  tools(query: ToolsQuery, options?: RequestOptions) {
    return this.#client.call("getAnalyticsTools", { query }, undefined, options);
  }

  /** Daily active users, sessions and messages; with `group_by: "client"`, one row per client type per day. */
  activity(query: Grouped<ActivityQuery, "client">, options?: RequestOptions): APIPromise<api.AnalyticsActivityGroupedResponse>;
  activity(query: Ungrouped<ActivityQuery>, options?: RequestOptions): APIPromise<api.AnalyticsActivityDailyResponse>;
  activity(query: ActivityQuery, options?: RequestOptions): APIPromise<AnalyticsActivityResponse>;
  activity(query: ActivityQuery, options?: RequestOptions) {
    return this.#client.call("getAnalyticsActivity", { query }, undefined, options);
  }

  /** Daily files, commits and pull requests made by the agent. */
  productivity(query: QueryParams<"getAnalyticsProductivity">, options?: RequestOptions): APIPromise<api.AnalyticsProductivityResponse> {
    return this.#client.call("getAnalyticsProductivity", { query }, undefined, options);
  }

  /**
   * Per-user daily metrics, cursor-paginated: await for the first page, `for await` for every row. With
   * `concurrency` above 1, the date range is paged through as that many date windows at once (core/windows.ts).
   */
  users(
    query: QueryParams<"listAnalyticsUsers">,
    options?: RequestOptions & PageOptions & WindowOptions,
  ): PagePromise<api.AnalyticsUsersResponse, api.UserRow> {
    const { concurrency, ...rest } = options ?? {};
    const windows = inDateWindows<api.AnalyticsUsersResponse>(operations.listAnalyticsUsers, query, concurrency, rest.signal);
    return this.#client.paginate("listAnalyticsUsers", query, rest, windows);
  }
}

export class Readiness {
  readonly #client: ResourceClient;
  constructor(client: ResourceClient) {
    this.#client = client;
  }

  /** Readiness reports (app host), paged by `startAfter`: await for the first page, `for await` for every report. */
  list(
    query: QueryParams<"listReadinessReports"> = {},
    options?: RequestOptions & PageOptions,
  ): PagePromise<api.ReadinessReportList, api.ReadinessReport> {
    return this.#client.paginate("listReadinessReports", query ?? {}, options);
  }
}

export class EnterpriseControls {
  readonly #client: ResourceClient;
  constructor(client: ResourceClient) {
    this.#client = client;
  }

  /** Changes to the enterprise-control settings, newest revision first: await for a page, `for await` for all. */
  history(
    query: QueryParams<"listEnterpriseControlsHistory"> = {},
    options?: RequestOptions & PageOptions,
  ): PagePromise<api.EnterpriseControlsHistoryPage, api.EnterpriseControlChange> {
    return this.#client.paginate("listEnterpriseControlsHistory", query ?? {}, options);
  }
}

export class UsageLimits {
  readonly #client: ResourceClient;
  constructor(client: ResourceClient) {
    this.#client = client;
  }

  /**
   * Sets per-user credit limits. Takes any number of entries and sends them in chunks of the API's maximum (100),
   * `concurrency` at once (default 1). Resolves to the merged `updated` and `errors` of all chunks, in input order;
   * each error names the entry's position (`index`), and entries of a chunk that failed come back in `errors` with
   * the reason, so every entry is accounted for. Every bad entry is reported at once (InvalidEntriesError) before
   * anything is sent. Throws the failure itself when nothing was or may have been applied (a 401 on the first chunk,
   * say), and UserLimitsAbortedError, carrying what was done, when aborted part-way or when `onProgress` throws.
   * `onProgress` hears of each chunk.
   */
  setUserLimits(users: readonly api.UserLimitEntryInput[], options?: SetUserLimitsOptions): Promise<UserLimitsResult> {
    return setUserLimits(this.#client, users, options);
  }
}

export class Sessions {
  readonly #client: ResourceClient;
  constructor(client: ResourceClient) {
    this.#client = client;
  }

  /** Creates a session on a computer. Not retried after a possible delivery unless `idempotent: true`. */
  create(body: api.CreateSessionRequest, options?: RequestOptions): APIPromise<api.Session> {
    return this.#client.call("createSession", {}, body, options);
  }

  get(sessionId: string, query?: QueryParams<"getSession">, options?: RequestOptions): APIPromise<api.Session> {
    return this.#client.call("getSession", { path: { sessionId }, query }, undefined, options);
  }

  /** Adds a user message; resolves to the message id and the agent status after submission. */
  sendMessage(
    sessionId: string,
    body: api.SendMessageRequest,
    options?: RequestOptions,
  ): APIPromise<api.SendMessageResponse> {
    return this.#client.call("sendSessionMessage", { path: { sessionId } }, body, options);
  }

  /**
   * Polls the session until it is idle and resolves to it; rejects with WaitTimeoutError (carrying the last
   * snapshot) after `options.timeout`. Which statuses are transient comes from the spec (`x-status-lifecycle`).
   */
  waitUntilIdle(sessionId: string, options?: WaitOptions<api.Session>): Promise<api.Session> {
    return pollUntilSettled(
      {
        poll: (request) => this.get(sessionId, undefined, request),
        status: (session) => session.status,
        lifecycle: statusLifecycles.SessionStatus,
        what: `session ${sessionId}`,
      },
      options,
    );
  }

  /**
   * Sends a user message, then waits until the session is idle again (the agent has answered). Resolves to the
   * message id and the idle session. The request options in `options` apply to the send and to every poll.
   */
  async sendMessageAndWait(
    sessionId: string,
    body: api.SendMessageRequest,
    options?: WaitOptions<api.Session>,
  ): Promise<{ messageId: string; session: api.Session }> {
    const { messageId } = await this.sendMessage(sessionId, body, requestOptionsOf(options));
    return { messageId, session: await this.waitUntilIdle(sessionId, options) };
  }

  getMessage(
    sessionId: string,
    messageId: string,
    query?: QueryParams<"getSessionMessage">,
    options?: RequestOptions,
  ): APIPromise<api.Message> {
    return this.#client.call("getSessionMessage", { path: { sessionId, messageId }, query }, undefined, options);
  }
}

export class Computers {
  readonly #client: ResourceClient;
  constructor(client: ResourceClient) {
    this.#client = client;
  }

  get(computerId: string, options?: RequestOptions): APIPromise<api.Computer> {
    return this.#client.call("getComputer", { path: { computerId } }, undefined, options);
  }

  /** A computer by its name (1-63 characters); the name is percent-encoded into the path. */
  getByName(name: string, options?: RequestOptions): APIPromise<api.Computer> {
    return this.#client.call("getComputerByName", { path: { name } }, undefined, options);
  }

  /**
   * Polls the computer until it is active and resolves to it. Rejects with ComputerProvisioningError (carrying
   * the failed provisioning step) when it ends in `error`, and with WaitTimeoutError after `options.timeout`.
   */
  waitUntilActive(computerId: string, options?: WaitOptions<api.Computer>): Promise<api.Computer> {
    return pollUntilSettled(
      {
        poll: (request) => this.get(computerId, request),
        status: (computer) => computer.status,
        lifecycle: statusLifecycles.ComputerStatus,
        what: `computer ${computerId}`,
        failure: (computer) => new ComputerProvisioningError(computer),
      },
      options,
    );
  }

  /** Retries the install-dependencies step; resolves to the computer (202, work continues asynchronously). */
  retryInstallDeps(computerId: string, options?: RequestOptions): APIPromise<api.Computer> {
    return this.#client.call("retryComputerInstallDeps", { path: { computerId } }, undefined, options);
  }
}

/** A computer waited on ended in a failed status: `step` is the provisioning step that failed, when one says so. */
export class ComputerProvisioningError extends OrgAgentError {
  override name = "ComputerProvisioningError";
  /** The failed step: the first with an `error`, if any. */
  readonly step: api.ProvisioningStep | undefined;
  constructor(readonly computer: api.Computer) {
    const step = computer.provisioningSteps?.find((s) => s.error !== undefined);
    const which = step ? `: step ${JSON.stringify(step.name ?? step.id)} failed${step.error ? `: ${step.error}` : ""}` : "";
    super(`Computer ${computer.name} (${computer.id}) is ${computer.status}${which}`);
    this.step = step;
  }
}
