// Per-user daily facts: the single source every analytics figure is computed from. A fact depends only on the
// seed, the user and the day, so any day can be computed on demand (nothing is generated at startup), and the
// five analytics endpoints agree with each other because they sum the same facts.
import type { ClientType, DelegationLevel } from "../../generated/openapi.js";
import { CLIENTS, HOOKS, LEVEL_MIX, SKILLS, SLASH_COMMANDS, TOOLS, TOOL_WEIGHTS, credits, type ModelInfo } from "./catalog.js";
import type { Organization, OrgUser } from "./org.js";
import { Random, split } from "./random.js";

export interface ModelUse {
  readonly model: ModelInfo;
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly billable: number;
}

/** What one user did on one day they were active. Every breakdown sums to its total. */
export interface UserDay {
  readonly user: OrgUser;
  readonly date: string;
  readonly clients: readonly ClientType[];
  readonly sessions: number;
  readonly userMessages: number;
  readonly assistantMessages: number;
  readonly toolCalls: number;
  readonly byTool: ReadonlyArray<readonly [string, number]>;
  /** Tool calls at the levels auto_high, auto_medium, auto_low, manual. */
  readonly toolCallsByLevel: readonly [number, number, number, number];
  readonly mcpCalls: number;
  readonly byMcpServer: ReadonlyArray<readonly [string, number]>;
  readonly skillCalls: number;
  readonly bySkill: ReadonlyArray<readonly [string, number]>;
  readonly slashCommands: number;
  readonly bySlashCommand: ReadonlyArray<readonly [string, number]>;
  readonly hooks: number;
  /** Executions per index into HOOKS. */
  readonly byHook: ReadonlyArray<readonly [number, number]>;
  readonly models: readonly ModelUse[];
  readonly billable: number;
  readonly filesCreated: number;
  readonly filesEdited: number;
  readonly byExtension: ReadonlyArray<readonly [string, number]>;
  readonly byLanguage: ReadonlyArray<readonly [string, number]>;
  readonly languages: readonly string[];
  readonly gitCommits: number;
  readonly gitPrs: number;
  readonly delegation: DelegationLevel;
  /** Tool calls per user turn, rounded to 2 decimals. */
  readonly autonomyRatio: number;
}

const DAY_MS = 86_400_000;
const CACHED_DAYS = 120;

export class Facts {
  readonly #seed: string;
  readonly #org: Organization;
  readonly #firstDayMs: number;
  readonly #active = new Map<number, Uint8Array>();
  readonly #days = new Map<number, readonly UserDay[]>();
  /** Each day's date, formatted once (every /users row has one). */
  readonly #dates = new Map<number, string>();

  constructor(seed: string, org: Organization, firstDay: string) {
    this.#seed = seed;
    this.#org = org;
    this.#firstDayMs = Date.parse(firstDay);
  }

  dayIndex(date: string): number {
    return Math.round((Date.parse(date) - this.#firstDayMs) / DAY_MS);
  }

  dateOf(day: number): string {
    let date = this.#dates.get(day);
    if (date === undefined) this.#dates.set(day, (date = new Date(this.#firstDayMs + day * DAY_MS).toISOString().slice(0, 10)));
    return date;
  }

  /** Which users were active on a day: one byte per user (in id order). Cheap, and cached for every day. */
  activeOn(day: number): Uint8Array {
    let flags = this.#active.get(day);
    if (!flags) {
      const weekday = new Date(this.#firstDayMs + day * DAY_MS).getUTCDay();
      const weekend = weekday === 0 || weekday === 6;
      flags = new Uint8Array(this.#org.users.length);
      for (const user of this.#org.users) {
        const chance = day < 0 || day < user.joinDay ? 0 : weekend ? user.activity * 0.15 : user.activity;
        flags[user.index] = Random.of(this.#seed, "active", user.index, day).next() < chance ? 1 : 0;
      }
      this.#active.set(day, flags);
    }
    return flags;
  }

  /** Distinct users active on any day of [from, to] (inclusive day indexes). */
  activeBetween(from: number, to: number): number {
    const seen = new Uint8Array(this.#org.users.length);
    for (let day = Math.max(0, from); day <= to; day++) {
      const flags = this.activeOn(day);
      for (let i = 0; i < flags.length; i++) seen[i]! |= flags[i]!;
    }
    return seen.reduce((a, b) => a + b, 0);
  }

  /** The facts of every user active on a day, in user id order. */
  day(day: number): readonly UserDay[] {
    let facts = this.#days.get(day);
    if (!facts) {
      const flags = this.activeOn(day);
      facts = this.#org.users.filter((user) => flags[user.index]).map((user) => this.userDay(user, day));
      if (this.#days.size >= CACHED_DAYS) this.#days.delete(this.#days.keys().next().value!);
      this.#days.set(day, facts);
    }
    return facts;
  }

  /** One user's facts on a day they were active. */
  userDay(user: OrgUser, day: number): UserDay {
    const cached = this.#days.get(day);
    if (cached) {
      const found = cached.find((fact) => fact.user === user);
      if (found) return found;
    }
    const r = Random.of(this.#seed, "day", user.index, day);
    const scale = user.intensity * (0.5 + r.next());

    const clients = CLIENTS.filter((_, i) => user.clientWeights[i]! >= 10 || (user.clientWeights[i]! > 0 && r.chance(0.35)));
    const sessions = Math.max(1, Math.round(r.int(1, 4) * scale));
    const userMessages = sessions * r.int(2, 6);
    const assistantMessages = userMessages * r.int(2, 5);
    const toolCalls = Math.max(1, Math.round(userMessages * user.autonomy * (0.7 + r.next() * 0.6)));
    const toolWeights = TOOL_WEIGHTS.map((w) => w * (0.5 + r.next()));
    const byTool = nonZero(TOOLS, split(toolCalls, toolWeights));
    const delegation = r.chance(0.85) ? user.delegation : r.pick(Object.keys(LEVEL_MIX) as DelegationLevel[]);
    const [high, medium, low, manual] = split(toolCalls, LEVEL_MIX[delegation]);

    const mcpCalls = user.mcpServers.length && r.chance(0.6) ? r.int(1, 25) : 0;
    const byMcpServer = nonZero(
      user.mcpServers,
      split(
        mcpCalls,
        user.mcpServers.map(() => 0.5 + r.next()),
      ),
    );
    const skillCalls = r.chance(0.3) ? r.int(1, 4) : 0;
    const bySkill = nonZero(
      SKILLS,
      split(
        skillCalls,
        SKILLS.map(() => r.next()),
      ),
    );
    const slashCommands = r.chance(0.5) ? r.int(1, 6) : 0;
    const bySlashCommand = nonZero(
      SLASH_COMMANDS,
      split(
        slashCommands,
        SLASH_COMMANDS.map(() => r.next()),
      ),
    );
    const byHook = user.hookIndexes
      .map((index) => {
        const hook = HOOKS[index]!;
        const base = hook.event === "PostToolUse" ? Math.round(toolCalls / 6) : hook.event === "Notification" ? userMessages : sessions;
        return [index, Math.max(0, base + r.int(-1, 1))] as const;
      })
      .filter(([, count]) => count > 0);
    const hooks = byHook.reduce((sum, [, count]) => sum + count, 0);

    const inputTotal = Math.round(toolCalls * r.int(1500, 4500));
    const modelShares = split(
      inputTotal,
      user.models.map((_, i) => (i === 0 ? 6 : 1 + r.next() * 2)),
    );
    const models = user.models
      .map((model, i): ModelUse => {
        const input = modelShares[i]!;
        const output = Math.round(input / r.int(15, 40));
        const cacheRead = Math.round(input * (0.3 + r.next() * 0.5));
        const cacheWrite = Math.round(input * (0.05 + r.next() * 0.2));
        return { model, input, output, cacheRead, cacheWrite, billable: credits(model, input, output, cacheRead, cacheWrite) };
      })
      .filter((use) => use.input > 0);
    const billable = models.reduce((sum, use) => sum + use.billable, 0);

    const filesCreated = r.int(0, Math.ceil(sessions * 1.5));
    const filesEdited = Math.round((byTool.find(([tool]) => tool === "Edit")?.[1] ?? 0) / r.int(2, 4));
    const files = filesCreated + filesEdited;
    const languagesToday = user.languages.filter((_, i) => i === 0 || r.chance(0.5));
    const languageCounts = split(
      files,
      languagesToday.map((_, i) => (i === 0 ? 4 : 1 + r.next())),
    );
    const byLanguage = nonZero(
      languagesToday.map((l) => l.name),
      languageCounts,
    );
    const extensionCounts = new Map<string, number>();
    languagesToday.forEach((language, i) => {
      const parts = split(
        languageCounts[i]!,
        language.extensions.map((_, j) => (j === 0 ? 3 : 1)),
      );
      language.extensions.forEach((extension, j) => {
        if (parts[j]) extensionCounts.set(extension, (extensionCounts.get(extension) ?? 0) + parts[j]!);
      });
    });
    const gitCommits = files ? r.int(0, Math.ceil(files / 3)) : 0;
    const gitPrs = gitCommits ? r.int(0, Math.ceil(gitCommits / 3)) : 0;

    return {
      user,
      date: this.dateOf(day),
      clients: clients.length ? clients : [CLIENTS[0]!],
      sessions,
      userMessages,
      assistantMessages,
      toolCalls,
      byTool,
      toolCallsByLevel: [high!, medium!, low!, manual!],
      mcpCalls,
      byMcpServer,
      skillCalls,
      bySkill,
      slashCommands,
      bySlashCommand,
      hooks,
      byHook,
      models,
      billable,
      filesCreated,
      filesEdited,
      byExtension: [...extensionCounts],
      byLanguage,
      languages: languagesToday.map((l) => l.name),
      gitCommits,
      gitPrs,
      delegation,
      autonomyRatio: round(toolCalls / userMessages, 2),
    };
  }
}

function nonZero<K>(keys: readonly K[], counts: readonly number[]): Array<readonly [K, number]> {
  return keys.map((key, i) => [key, counts[i] ?? 0] as const).filter(([, count]) => count > 0);
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
