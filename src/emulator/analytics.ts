// The five analytics views, each a sum over the same per-user daily facts (facts.ts): totals equal the sums of
// their breakdowns, daily active users are distinct users, and /users rows are the /tokens by_user entries.
import type {
  ActivityGroupedRow,
  ActivityRow,
  CreditsGroupedRow,
  CreditsModelBreakdown,
  CreditsRow,
  ProductivityRow,
  ToolsGroupedRow,
  ToolsRow,
  UserRow,
} from "../../generated/openapi.js";
import { CLIENTS, HOOKS, MODELS, TOOLS } from "./catalog.js";
import { round, type Facts, type ModelUse, type UserDay } from "./facts.js";

/** Inclusive day indexes of a validated date range. */
export interface DayRange {
  readonly from: number;
  readonly to: number;
}

function* days({ from, to }: DayRange): Generator<number> {
  for (let day = from; day <= to; day++) yield day;
}

/** Sums `[key, count]` pairs by key, keeping the order in which keys first appear in `order` (else first seen). */
function tally<K>(pairs: Iterable<readonly [K, number]>, order: readonly K[] = []): Array<[K, number]> {
  const totals = new Map<K, number>(order.map((key) => [key, 0]));
  for (const [key, count] of pairs) totals.set(key, (totals.get(key) ?? 0) + count);
  return [...totals].filter(([, count]) => count > 0);
}

function sum(facts: readonly UserDay[], pick: (fact: UserDay) => number): number {
  return facts.reduce((total, fact) => total + pick(fact), 0);
}

function modelBreakdown(uses: Iterable<ModelUse>): CreditsModelBreakdown[] {
  const totals = new Map<string, CreditsModelBreakdown>();
  for (const model of MODELS) {
    totals.set(model.id, { model_id: model.id, model_tier: model.tier, billable_tokens: 0, input_tokens: 0, output_tokens: 0 });
  }
  for (const use of uses) {
    const entry = totals.get(use.model.id)!;
    entry.billable_tokens += use.billable;
    entry.input_tokens += use.input;
    entry.output_tokens += use.output;
  }
  return [...totals.values()].filter((entry) => entry.input_tokens > 0);
}

export function creditsRows(facts: Facts, range: DayRange): CreditsRow[] {
  return [...days(range)].map((day) => {
    const users = facts.day(day);
    const uses = users.flatMap((fact) => fact.models);
    return {
      date: facts.dateOf(day),
      billable_tokens: sum(users, (f) => f.billable),
      input_tokens: uses.reduce((t, u) => t + u.input, 0),
      output_tokens: uses.reduce((t, u) => t + u.output, 0),
      cache_read_tokens: uses.reduce((t, u) => t + u.cacheRead, 0),
      cache_write_tokens: uses.reduce((t, u) => t + u.cacheWrite, 0),
      by_model: modelBreakdown(uses),
      by_user: users.map((fact) => ({
        user_id: fact.user.id,
        user_email: fact.user.email,
        billable_tokens: fact.billable,
        by_model: modelBreakdown(fact.models),
      })),
    };
  });
}

export function creditsByModelRows(facts: Facts, range: DayRange): CreditsGroupedRow[] {
  return [...days(range)].flatMap((day) =>
    modelBreakdown(facts.day(day).flatMap((fact) => fact.models)).map((entry) => ({
      date: facts.dateOf(day),
      group_key: entry.model_id,
      billable_tokens: entry.billable_tokens,
      input_tokens: entry.input_tokens,
      output_tokens: entry.output_tokens,
    })),
  );
}

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function toolsRows(facts: Facts, range: DayRange): ToolsRow[] {
  return [...days(range)].map((day) => {
    const users = facts.day(day);
    const toolCalls = sum(users, (f) => f.toolCalls);
    const sessions = sum(users, (f) => f.sessions);
    const ratios = users.map((f) => f.autonomyRatio).sort((a, b) => a - b);
    const levels = [0, 1, 2, 3].map((i) => sum(users, (f) => f.toolCallsByLevel[i]!));
    const share = (n: number) => (toolCalls ? round(n / toolCalls, 4) : 0);
    return {
      date: facts.dateOf(day),
      tool_calls: toolCalls,
      by_tool: tally(
        users.flatMap((f) => f.byTool),
        TOOLS,
      ).map(([tool, invocations]) => ({ tool, invocations })),
      mcp_users_with_mcp: users.filter((f) => f.mcpCalls > 0).length,
      mcp_by_server: tally(users.flatMap((f) => f.byMcpServer)).map(([server, invocations]) => ({ server, invocations })),
      skills_invocations: sum(users, (f) => f.skillCalls),
      skills_by_name: tally(users.flatMap((f) => f.bySkill)).map(([name, count]) => ({ name, count })),
      slash_commands_invocations: sum(users, (f) => f.slashCommands),
      slash_commands_by_name: tally(users.flatMap((f) => f.bySlashCommand)).map(([name, count]) => ({ name, count })),
      hooks_invocations: sum(users, (f) => f.hooks),
      hooks_by_event: tally(
        users.flatMap((f) => f.byHook),
        HOOKS.map((_, i) => i),
      ).map(([index, count]) => ({ ...HOOKS[index]!, count })),
      web_users: users.filter((f) => f.clients.includes("web")).length,
      autonomy_ratio_avg: ratios.length ? round(ratios.reduce((a, b) => a + b, 0) / ratios.length, 2) : 0,
      autonomy_ratio_p50: percentile(ratios, 0.5),
      autonomy_ratio_p90: percentile(ratios, 0.9),
      tool_calls_per_session_avg: sessions ? round(toolCalls / sessions, 2) : 0,
      user_turns_per_session_avg: sessions ? round(sum(users, (f) => f.userMessages) / sessions, 2) : 0,
      tool_autonomy_level_ratio: {
        auto_high: share(levels[0]!),
        auto_medium: share(levels[1]!),
        auto_low: share(levels[2]!),
        manual: share(levels[3]!),
      },
    };
  });
}

export function toolsByNameRows(facts: Facts, range: DayRange): ToolsGroupedRow[] {
  return [...days(range)].flatMap((day) =>
    tally(
      facts.day(day).flatMap((f) => f.byTool),
      TOOLS,
    ).map(([tool, count]) => ({
      date: facts.dateOf(day),
      group_key: tool,
      tool_calls: count,
    })),
  );
}

export function activityRows(facts: Facts, range: DayRange): ActivityRow[] {
  return [...days(range)].map((day) => {
    const users = facts.day(day);
    const userMessages = sum(users, (f) => f.userMessages);
    return {
      date: facts.dateOf(day),
      daily_active_users: users.length,
      weekly_active_users: facts.activeBetween(day - 6, day),
      monthly_active_users: facts.activeBetween(day - 29, day),
      daily_active_users_by_client: Object.fromEntries(
        CLIENTS.map((client) => [client, users.filter((f) => f.clients.includes(client)).length]),
      ),
      sessions: sum(users, (f) => f.sessions),
      messages: userMessages + sum(users, (f) => f.assistantMessages),
      user_messages: userMessages,
    };
  });
}

export function activityByClientRows(facts: Facts, range: DayRange): ActivityGroupedRow[] {
  return [...days(range)].flatMap((day) => {
    const users = facts.day(day);
    return CLIENTS.map((client) => ({
      date: facts.dateOf(day),
      group_key: client,
      daily_active_users: users.filter((f) => f.clients.includes(client)).length,
    }));
  });
}

export function productivityRows(facts: Facts, range: DayRange): ProductivityRow[] {
  return [...days(range)].map((day) => {
    const users = facts.day(day);
    return {
      date: facts.dateOf(day),
      files_created: sum(users, (f) => f.filesCreated),
      files_edited: sum(users, (f) => f.filesEdited),
      by_extension: tally(users.flatMap((f) => f.byExtension))
        .sort((a, b) => b[1] - a[1])
        .map(([extension, count]) => ({ extension, count })),
      by_language: tally(users.flatMap((f) => f.byLanguage))
        .sort((a, b) => b[1] - a[1])
        .map(([language, count]) => ({ language, count })),
      git_commits: sum(users, (f) => f.gitCommits),
      git_prs_created: sum(users, (f) => f.gitPrs),
    };
  });
}

export function userRow(fact: UserDay): UserRow {
  const primary = fact.models.reduce((best, use) => (use.billable > best.billable ? use : best));
  return {
    user_id: fact.user.id,
    user_email: fact.user.email,
    date: fact.date,
    tool_calls: fact.toolCalls,
    billable_tokens: fact.billable,
    primary_model: primary.model.id,
    primary_model_tier: primary.model.tier,
    files_created: fact.filesCreated,
    files_edited: fact.filesEdited,
    git_commits: fact.gitCommits,
    git_prs_created: fact.gitPrs,
    mcp_calls: fact.mcpCalls,
    skill_calls: fact.skillCalls,
    slash_commands: fact.slashCommands,
    hooks: fact.hooks,
    sessions: fact.sessions,
    messages: fact.userMessages + fact.assistantMessages,
    user_messages: fact.userMessages,
    assistant_messages: fact.assistantMessages,
    autonomy_ratio: fact.autonomyRatio,
    delegation_level: fact.delegation,
    languages: [...fact.languages],
  };
}

/** Position of a /users row: rows are ordered by user id, then by date. */
export interface UserRowKey {
  readonly userIndex: number;
  readonly day: number;
}

/** Every /users row of a range, as keys (cheap: only the activity flags are consulted). */
export function userRowKeys(facts: Facts, userCount: number, range: DayRange): UserRowKey[] {
  const flags = [...days(range)].map((day) => [day, facts.activeOn(day)] as const);
  const keys: UserRowKey[] = [];
  for (let userIndex = 0; userIndex < userCount; userIndex++) {
    for (const [day, active] of flags) if (active[userIndex]) keys.push({ userIndex, day });
  }
  return keys;
}
