// The shape of the analytics report: plain typed objects, every figure a sum of the API's answers for one range
// of days. buildAnalyticsReport (data.ts) computes them; the HTML renderer (html.ts) draws them.

/** Inclusive range of UTC days, `YYYY-MM-DD`, as the analytics endpoints take it. */
export interface ReportRange {
  startDate: string;
  endDate: string;
}

/** The parts of the report fetched from the API, in the order progress counts them. */
export type ReportPart = "credits" | "previousCredits" | "activity" | "tools" | "productivity" | "users";

export interface ReportProgress {
  /** The part that just finished, or (`users`) just received a page. */
  part: ReportPart;
  /** Parts finished so far. */
  done: number;
  /** Parts in all (5 without a previous period to compare with, else 6). */
  total: number;
  /** `/users` rows and pages received so far. */
  userRows: number;
  userPages: number;
}

export interface BuildReportOptions {
  /** Called whenever a part finishes and for every page of `/users`; for a progress line. */
  onProgress?: ((progress: ReportProgress) => void) | undefined;
  /** Aborts every call in flight; the build rejects with APIUserAbortError. */
  signal?: AbortSignal | undefined;
}

export interface AnalyticsReport {
  /** The organization, from the responses' `meta.org_id`. */
  orgId: string;
  range: ReportRange & { days: number };
  /** When the data was fetched (ISO 8601). */
  fetchedAt: string;
  credits: CreditsSection;
  activity: ActivitySection;
  topUsers: TopUsersSection;
  tools: ToolsSection;
  productivity: ProductivitySection;
  hooks: HooksSection;
}

/** Credits per day by model (`/tokens?group_by=model`), and the comparison with the period before. */
export interface CreditsSection {
  total: number;
  /** Every model seen, most credits first, with its share of `total` (0 to 1). */
  byModel: Array<{ model: string; credits: number; share: number }>;
  /**
   * Every day of the range, days without usage included (zeros). `byModel` holds only models used that day; it has no
   * prototype, so any model id (even `constructor`) is a key of its own.
   */
  daily: Array<{ date: string; total: number; byModel: Record<string, number> }>;
  /**
   * The period of the same length just before the range. Null when the range starts on the first day the API
   * has data for (the spec's `firstDataDay`), so there is nothing to compare with.
   */
  previous: PreviousPeriod | null;
}

export interface PreviousPeriod extends ReportRange {
  days: number;
  /**
   * True when the period of the same length would start before the first day with data: it is then cut to start
   * on that day and has fewer `days` than the range, and `change` compares daily averages instead of totals.
   */
  clamped: boolean;
  /** The first day the API has data for (the spec's `firstDataDay`; earlier days have no rows). */
  firstDataDay: string;
  total: number;
  change: {
    /** `total`: the two periods' totals; `dailyAverage`: credits per day, when the previous period is clamped. */
    basis: "total" | "dailyAverage";
    /** This period minus the previous one, on that basis. */
    absolute: number;
    /** `absolute` relative to the previous period (0.25 = +25%); null when the previous period used nothing. */
    ratio: number | null;
  };
}

/** Active users (`/activity`): daily, trailing 7-day and trailing 30-day, and daily by client. */
export interface ActivitySection {
  daily: Array<{
    date: string;
    dailyActiveUsers: number;
    weeklyActiveUsers: number;
    monthlyActiveUsers: number;
    /** Users by client type, as the API sent them; no prototype, so any client name is a key of its own. */
    byClient: Record<string, number>;
  }>;
  averageDailyActiveUsers: number;
  peakDailyActiveUsers: { date: string; users: number } | null;
  /** Trailing 7-day and 30-day active users on the range's last day. */
  weeklyActiveUsersAtEnd: number;
  monthlyActiveUsersAtEnd: number;
  /**
   * Every client seen, highest average first. A person active on several clients counts in each, so the
   * averages can add up to more than `averageDailyActiveUsers`.
   */
  byClient: Array<{ client: string; averageDailyActiveUsers: number; peakDailyActiveUsers: number }>;
  sessions: number;
  messages: number;
}

/** The heaviest users by credits, from every page of `/users`. */
export interface TopUsersSection {
  /** Distinct people with at least one `/users` row in the range. */
  people: number;
  /** `/users` rows read (one per person per active day). */
  rows: number;
  /** Credits of everyone in `/users`. */
  credits: number;
  /** Up to 20 people, most credits first; `share` is of the period's total (`credits.total`). */
  top: TopUser[];
  /** Combined share of `top`. */
  topShare: number;
}

export interface TopUser {
  rank: number;
  userId: string;
  /** Null when the API gives none. */
  email: string | null;
  credits: number;
  share: number;
  activeDays: number;
  sessions: number;
  toolCalls: number;
  /** The model most often primary on the person's active days. */
  primaryModel: string;
}

/** Tool calls (`/tools`): the most used tools and the MCP servers. */
export interface ToolsSection {
  toolCalls: number;
  /** Distinct tool names seen. */
  tools: number;
  /** Up to 15 tools, most calls first; `share` is of `toolCalls`. */
  top: Array<{ tool: string; calls: number; share: number }>;
  mcpCalls: number;
  /**
   * MCP servers, most calls first. Names that differ only by letter case are one server (the API documents such
   * duplicates): `server` is its most used spelling and `names` every spelling seen.
   */
  mcpServers: Array<{ server: string; names: string[]; calls: number; share: number }>;
}

/** What the agent produced (`/productivity`). */
export interface ProductivitySection {
  filesCreated: number;
  filesEdited: number;
  commits: number;
  pullRequests: number;
  daily: Array<{ date: string; filesCreated: number; filesEdited: number; commits: number; pullRequests: number }>;
  /** Files created or edited per language, most first; `share` is of all files counted by language. */
  byLanguage: Array<{ language: string; files: number; share: number }>;
}

/** Local command hooks executed by the agent client (`/tools`, `hooks_by_event`). */
export interface HooksSection {
  executions: number;
  /** Empty when no hook ran. */
  byEvent: Array<{ event: string; executions: number; share: number }>;
  /** Each configured hook (event, matcher, command), most executions first. */
  byHook: Array<{ event: string; matcher: string; command: string; executions: number }>;
}
