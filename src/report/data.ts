// The analytics report as data: every figure of the report (types.ts), computed from the API's own answers for
// one range of days: five analytics calls and every page of /users, run concurrently.
import type * as api from "../../generated/openapi.js";
import { operations } from "../../generated/spec-tables.js";
import type { OrgAgent } from "../client.js";
import { dateOf, dayOf } from "../core/days.js";
import { APIUserAbortError, PermissionDeniedError } from "../core/errors.js";
import type { PageOptions } from "../core/pagination.js";
import type { WindowOptions } from "../core/windows.js";
import { validateCall, type OperationRules } from "../core/validate.js";
import type {
  ActivitySection,
  AnalyticsReport,
  BuildReportOptions,
  CreditsSection,
  HooksSection,
  PreviousPeriod,
  ProductivitySection,
  ReportPart,
  ReportProgress,
  ReportRange,
  ToolsSection,
  TopUsersSection,
} from "./types.js";

const TOP_USERS = 20;
const TOP_TOOLS = 15;

/**
 * Options for reading every page of `/users`: eight date windows at once. The report sums the rows, so their order
 * does not matter, and a year of /users comes in the time of a few weeks one page after another.
 */
const USERS_PAGING: PageOptions & WindowOptions = { concurrency: 8 };

const tokensRules: OperationRules = operations.getAnalyticsTokens;
/** The first day the API has data for, as the spec states it. */
const FIRST_DATA_DAY = operations.getAnalyticsTokens.params.startDate.schema.dateRange.firstDataDay;
const USERS_PAGE_SIZE = operations.listAnalyticsUsers.params.limit.schema.maximum;

/**
 * Fetches and computes the report for a range of days. Independent calls run concurrently; the first failure
 * aborts the others and rejects. A 403 becomes a PermissionDeniedError that says reports need a Manager or
 * Owner key; a bad range is a ValidationError before any request.
 */
export async function buildAnalyticsReport(
  client: OrgAgent,
  range: ReportRange,
  options: BuildReportOptions = {},
): Promise<AnalyticsReport> {
  const { startDate, endDate } = range ?? ({} as ReportRange);
  validateCall(tokensRules, { query: { startDate, endDate } });
  const days = datesBetween(startDate, endDate);
  const previousRange = previousPeriod(startDate, days.length);

  // One controller for every call: the user's abort, or the first failure, stops the rest.
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const call = { signal: controller.signal };

  const progress: ReportProgress = { part: "credits", done: 0, total: previousRange ? 6 : 5, userRows: 0, userPages: 0 };
  const report = (part: ReportPart, finished: boolean) => {
    if (finished) progress.done++;
    options.onProgress?.({ ...progress, part });
  };
  const part = <T>(name: ReportPart, promise: Promise<T>): Promise<T> =>
    promise.then((value) => {
      report(name, true);
      return value;
    });

  const query = { startDate, endDate };
  try {
    const [credits, previousCredits, activity, tools, productivity, users] = await Promise.all([
      part("credits", client.analytics.tokens({ ...query, group_by: "model" }, call)),
      previousRange ? part("previousCredits", client.analytics.tokens({ ...previousRange, group_by: "model" }, call)) : undefined,
      part("activity", client.analytics.activity(query, call)),
      part("tools", client.analytics.tools(query, call)),
      part("productivity", client.analytics.productivity(query, call)),
      part(
        "users",
        (async () => {
          const rows: api.UserRow[] = [];
          const pages = client.analytics.users({ ...query, limit: USERS_PAGE_SIZE }, { ...USERS_PAGING, ...call }).pages();
          for await (const page of pages) {
            rows.push(...page.data);
            progress.userRows = rows.length;
            progress.userPages++;
            report("users", false);
          }
          return rows;
        })(),
      ),
    ]).catch((error: unknown) => {
      controller.abort();
      throw reportError(error, options.signal);
    });

    const creditsSection = creditsOf(days, credits.data, previousRange, previousCredits?.data);
    return {
      orgId: credits.meta.org_id,
      range: { startDate, endDate, days: days.length },
      fetchedAt: new Date().toISOString(),
      credits: creditsSection,
      activity: activityOf(days, activity.data),
      topUsers: topUsersOf(users, creditsSection.total),
      tools: toolsOf(tools.data),
      productivity: productivityOf(days, productivity.data),
      hooks: hooksOf(tools.data),
    };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

function reportError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted && !(error instanceof APIUserAbortError)) return APIUserAbortError.of(signal);
  if (error instanceof PermissionDeniedError) {
    const denied = new PermissionDeniedError(
      error.status,
      error.headers,
      error.body,
      `Analytics reports need a Manager or Owner API key; the API refused this key (${error.message}).`,
    );
    denied.cause = error; // the API's own answer, for callers that show it in their own words
    return denied;
  }
  return error;
}

// Dates ---------------------------------------------------------------------------------------------------------

/** Every day from start to end, inclusive. */
function datesBetween(startDate: string, endDate: string): string[] {
  const dates: string[] = [];
  for (let day = dayOf(startDate); day <= dayOf(endDate); day++) dates.push(dateOf(day));
  return dates;
}

/** The `length` days before `startDate`, cut to start on the first day with data; null when none is left. */
function previousPeriod(startDate: string, length: number): ReportRange | null {
  const end = dayOf(startDate) - 1;
  const start = Math.max(end - length + 1, dayOf(FIRST_DATA_DAY));
  return start > end ? null : { startDate: dateOf(start), endDate: dateOf(end) };
}

// Sections ------------------------------------------------------------------------------------------------------

function creditsOf(
  days: readonly string[],
  rows: readonly api.CreditsGroupedRow[],
  previousRange: ReportRange | null,
  previousRows: readonly api.CreditsGroupedRow[] | undefined,
): CreditsSection {
  const daily = new Map(days.map((date) => [date, { date, total: 0, byModel: keyed<number>() }]));
  const models = new Map<string, number>();
  for (const row of rows) {
    const day = daily.get(row.date);
    if (!day) continue;
    day.total += row.billable_tokens;
    day.byModel[row.group_key] = (day.byModel[row.group_key] ?? 0) + row.billable_tokens;
    models.set(row.group_key, (models.get(row.group_key) ?? 0) + row.billable_tokens);
  }
  const total = sum(models.values());
  let previous: PreviousPeriod | null = null;
  if (previousRange && previousRows) {
    const previousDays = datesBetween(previousRange.startDate, previousRange.endDate).length;
    const previousTotal = sum(previousRows.map((row) => row.billable_tokens));
    const clamped = previousDays < days.length;
    const [now, before] = clamped ? [total / days.length, previousTotal / previousDays] : [total, previousTotal];
    previous = {
      ...previousRange,
      days: previousDays,
      clamped,
      firstDataDay: FIRST_DATA_DAY,
      total: previousTotal,
      change: { basis: clamped ? "dailyAverage" : "total", absolute: now - before, ratio: before ? (now - before) / before : null },
    };
  }
  return {
    total,
    byModel: ranked(models).map(([model, credits]) => ({ model, credits, share: ratio(credits, total) })),
    daily: [...daily.values()],
    previous,
  };
}

function activityOf(days: readonly string[], rows: readonly api.ActivityRow[]): ActivitySection {
  const daily = perDay(days, rows, (date, row) => ({
    date,
    dailyActiveUsers: row?.daily_active_users ?? 0,
    weeklyActiveUsers: row?.weekly_active_users ?? 0,
    monthlyActiveUsers: row?.monthly_active_users ?? 0,
    byClient: numbersOf(row?.daily_active_users_by_client),
  }));
  const clients = new Map<string, { total: number; peak: number }>();
  for (const day of daily) {
    for (const [client, users] of Object.entries(day.byClient)) {
      const entry = clients.get(client) ?? { total: 0, peak: 0 };
      entry.total += users;
      entry.peak = Math.max(entry.peak, users);
      clients.set(client, entry);
    }
  }
  const peak = daily.reduce<(typeof daily)[number] | null>(
    (best, day) => (!best || day.dailyActiveUsers > best.dailyActiveUsers ? day : best),
    null,
  );
  const last = daily.at(-1);
  return {
    daily,
    averageDailyActiveUsers: sum(daily.map((day) => day.dailyActiveUsers)) / daily.length,
    peakDailyActiveUsers: peak ? { date: peak.date, users: peak.dailyActiveUsers } : null,
    weeklyActiveUsersAtEnd: last?.weeklyActiveUsers ?? 0,
    monthlyActiveUsersAtEnd: last?.monthlyActiveUsers ?? 0,
    byClient: [...clients]
      .map(([client, { total, peak }]) => ({ client, averageDailyActiveUsers: total / daily.length, peakDailyActiveUsers: peak }))
      .sort((a, b) => b.averageDailyActiveUsers - a.averageDailyActiveUsers),
    sessions: sum(rows.map((row) => row.sessions)),
    messages: sum(rows.map((row) => row.messages)),
  };
}

function topUsersOf(rows: readonly api.UserRow[], periodCredits: number): TopUsersSection {
  const people = new Map<
    string,
    { email: string | null; credits: number; days: number; sessions: number; toolCalls: number; models: Map<string, number> }
  >();
  for (const row of rows) {
    let person = people.get(row.user_id);
    if (!person) people.set(row.user_id, (person = { email: null, credits: 0, days: 0, sessions: 0, toolCalls: 0, models: new Map() }));
    person.email ??= row.user_email;
    person.credits += row.billable_tokens;
    person.days++;
    person.sessions += row.sessions;
    person.toolCalls += row.tool_calls;
    person.models.set(row.primary_model, (person.models.get(row.primary_model) ?? 0) + 1);
  }
  const top = [...people]
    .sort(([idA, a], [idB, b]) => b.credits - a.credits || (idA < idB ? -1 : 1))
    .slice(0, TOP_USERS)
    .map(([userId, person], i) => ({
      rank: i + 1,
      userId,
      email: person.email,
      credits: person.credits,
      share: ratio(person.credits, periodCredits),
      activeDays: person.days,
      sessions: person.sessions,
      toolCalls: person.toolCalls,
      primaryModel: ranked(person.models)[0]![0],
    }));
  return {
    people: people.size,
    rows: rows.length,
    credits: sum(rows.map((row) => row.billable_tokens)),
    top,
    topShare: ratio(sum(top.map((user) => user.credits)), periodCredits),
  };
}

function toolsOf(rows: readonly api.ToolsRow[]): ToolsSection {
  const toolCalls = sum(rows.map((row) => row.tool_calls));
  const tools = tallyBy(rows.flatMap((row) => row.by_tool.map((entry) => [entry.tool, entry.invocations] as const)));
  // One entry per server whatever its letter case, named by its most used spelling.
  const spellings = tallyBy(rows.flatMap((row) => row.mcp_by_server.map((entry) => [entry.server, entry.invocations] as const)));
  const servers = new Map<string, { names: string[]; calls: number }>();
  for (const [name, calls] of ranked(spellings)) {
    const server = servers.get(name.toLowerCase()) ?? { names: [], calls: 0 };
    server.names.push(name);
    server.calls += calls;
    servers.set(name.toLowerCase(), server);
  }
  const mcpCalls = sum(spellings.values());
  return {
    toolCalls,
    tools: tools.size,
    top: ranked(tools)
      .slice(0, TOP_TOOLS)
      .map(([tool, calls]) => ({ tool, calls, share: ratio(calls, toolCalls) })),
    mcpCalls,
    mcpServers: [...servers.values()]
      .sort((a, b) => b.calls - a.calls)
      .map(({ names, calls }) => ({ server: names[0]!, names, calls, share: ratio(calls, mcpCalls) })),
  };
}

function productivityOf(days: readonly string[], rows: readonly api.ProductivityRow[]): ProductivitySection {
  const daily = perDay(days, rows, (date, row) => ({
    date,
    filesCreated: row?.files_created ?? 0,
    filesEdited: row?.files_edited ?? 0,
    commits: row?.git_commits ?? 0,
    pullRequests: row?.git_prs_created ?? 0,
  }));
  // An entry may lack either field: one without a language cannot be told apart, and a missing count is none.
  const languages = tallyBy(
    rows.flatMap((row) =>
      row.by_language.flatMap((entry) => (entry.language === undefined ? [] : [[entry.language, entry.count ?? 0] as const])),
    ),
  );
  const files = sum(languages.values());
  return {
    filesCreated: sum(daily.map((day) => day.filesCreated)),
    filesEdited: sum(daily.map((day) => day.filesEdited)),
    commits: sum(daily.map((day) => day.commits)),
    pullRequests: sum(daily.map((day) => day.pullRequests)),
    daily,
    byLanguage: ranked(languages).map(([language, count]) => ({ language, files: count, share: ratio(count, files) })),
  };
}

function hooksOf(rows: readonly api.ToolsRow[]): HooksSection {
  const executions = sum(rows.map((row) => row.hooks_invocations));
  const entries = rows.flatMap((row) => row.hooks_by_event);
  const events = tallyBy(entries.map((entry) => [entry.event, entry.count] as const));
  const hooks = new Map<string, { event: string; matcher: string; command: string; executions: number }>();
  for (const { event, matcher, command, count } of entries) {
    const key = JSON.stringify([event, matcher, command]);
    const hook = hooks.get(key) ?? { event, matcher, command, executions: 0 };
    hook.executions += count;
    hooks.set(key, hook);
  }
  const byEventTotal = sum(events.values());
  return {
    executions,
    byEvent: ranked(events).map(([event, count]) => ({ event, executions: count, share: ratio(count, byEventTotal) })),
    byHook: [...hooks.values()].sort((a, b) => b.executions - a.executions),
  };
}

// Helpers -------------------------------------------------------------------------------------------------------

/** One entry per day of the range, from that day's row when the API sent one (a day without usage may have none). */
function perDay<Row extends { date: string }, Entry>(
  days: readonly string[],
  rows: readonly Row[],
  entry: (date: string, row: Row | undefined) => Entry,
): Entry[] {
  const byDate = new Map(rows.map((row) => [row.date, row]));
  return days.map((date) => entry(date, byDate.get(date)));
}

/**
 * An object keyed by names the API sends (model ids, client types): without a prototype, so that a model called
 * `constructor`, `toString` or `__proto__` is a key like any other, and a name that is not there reads undefined.
 */
function keyed<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** The number-valued entries of an API map (an open map's values are numbers), keyed without a prototype. */
function numbersOf(map: object | undefined): Record<string, number> {
  const numbers = keyed<number>();
  for (const [key, value] of Object.entries(map ?? {})) if (typeof value === "number") numbers[key] = value;
  return numbers;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function ratio(part: number, whole: number): number {
  return whole ? part / whole : 0;
}

function tallyBy<K>(pairs: Iterable<readonly [K, number]>): Map<K, number> {
  const totals = new Map<K, number>();
  for (const [key, count] of pairs) totals.set(key, (totals.get(key) ?? 0) + count);
  return totals;
}

/** Entries by count, highest first; ties keep the order of first appearance. */
function ranked<K>(totals: Map<K, number>): Array<[K, number]> {
  return [...totals].sort((a, b) => b[1] - a[1]);
}
