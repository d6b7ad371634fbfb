// `orgagent analytics tokens|tools|activity|productivity|users`: one analytics endpoint over a date range.
import type { Command } from "commander";
import { Option } from "commander";
import { operations, tableColumns } from "../../generated/spec-tables.js";
import type { Context } from "./context.js";
import { askedColumns } from "./columns.js";
import { UnknownFieldError, type Row } from "./output.js";
import {
  LIST_DEFAULT,
  LIST_FORMATS,
  RANGE_FIELDS,
  addOutputOptions,
  addRangeOptions,
  concurrencyOption,
  dataStartNote,
  examples,
  pageSizeOption,
  rangeOf,
  type RangeFlags,
  type WithOutput,
} from "./options.js";

// Each command, its operation and the spec's row schemas (ungrouped, grouped) that name its table columns.
const ENDPOINTS = {
  tokens: { operationId: "getAnalyticsTokens", rows: ["CreditsRow", "CreditsGroupedRow"], what: "credits" },
  tools: { operationId: "getAnalyticsTools", rows: ["ToolsRow", "ToolsGroupedRow"], what: "tool use" },
  activity: {
    operationId: "getAnalyticsActivity",
    rows: ["ActivityRow", "ActivityGroupedRow"],
    what: "active users, sessions and messages",
  },
  productivity: {
    operationId: "getAnalyticsProductivity",
    rows: ["ProductivityRow", "ProductivityRow"],
    what: "files, commits and pull requests",
  },
} as const;

type Flags = WithOutput<RangeFlags & { groupBy?: string; pageSize?: number; concurrency?: number }>;

// The columns a table on a terminal shows first without --columns: when and who, then the figures worth a glance;
// the others follow as far as the width allows and are named under the table. Piped output and CSV keep the spec's
// order. Rows not listed here keep it on a terminal too.
export const TERMINAL_COLUMNS: Partial<Record<keyof typeof tableColumns, readonly string[]>> = {
  UserRow: [
    "date",
    "user_email",
    "billable_tokens",
    "tool_calls",
    "sessions",
    "messages",
    "primary_model",
    "git_commits",
    "git_prs_created",
  ],
  ToolsRow: [
    "date",
    "tool_calls",
    "tool_calls_per_session_avg",
    "autonomy_ratio_avg",
    "mcp_users_with_mcp",
    "skills_invocations",
    "hooks_invocations",
  ],
  ActivityRow: ["date", "daily_active_users", "sessions", "messages", "user_messages", "weekly_active_users", "monthly_active_users"],
};
const FIELDS = { ...RANGE_FIELDS, "query.group_by": "--group-by", "query.limit": "--page-size", "options.concurrency": "--concurrency" };

/** After the answer (a bad range is an error, not a note): where analytics data starts, when the range starts earlier. */
function noteDataStart(context: Context, range: { startDate: string; endDate: string }): void {
  const note = dataStartNote(range);
  if (note) context.out.note(note);
}

export function analyticsCommands(program: Command, context: Context): void {
  const analytics = examples(program.command("analytics").description("organization analytics, daily, in UTC (Manager or Owner key)"), [
    "orgagent analytics tokens --days 7 --group-by model",
    "orgagent analytics users --month 2026-10 --format csv > october.csv",
  ]);

  for (const [name, { operationId, rows, what }] of Object.entries(ENDPOINTS)) {
    const command = analytics.command(name).description(`daily ${what} over a date range`);
    addRangeOptions(command);
    const groupBy = (operations[operationId].params as { group_by?: { schema: { enum: readonly string[] } } }).group_by;
    if (groupBy) command.addOption(new Option("--group-by <key>", "one row per group per day").choices(groupBy.schema.enum));
    addOutputOptions(command, LIST_FORMATS, LIST_DEFAULT);
    examples(command, [
      `orgagent analytics ${name} --days 7${groupBy ? ` --group-by ${groupBy.schema.enum[0]}` : ""}`,
      `orgagent analytics ${name} --start 2026-10-01 --end 2026-10-31 --format csv`,
      `orgagent analytics ${name} --month 2026-10 --json | jq '.[0]'`,
    ]);
    command.action(async (flags: Flags, cmd: Command) => {
      context.begin(cmd, FIELDS);
      const range = rangeOf(flags);
      const query = { ...range, ...(flags.groupBy ? { group_by: flags.groupBy } : {}) };
      // Any of the four operations by its operationId: the query checked against its own parameters.
      const page = await context.client(cmd).request(operationId, { query });
      noteDataStart(context, range);
      const row = rows[flags.groupBy ? 1 : 0];
      context.out.list(page.data, flags, { columns: tableColumns[row], firstColumns: TERMINAL_COLUMNS[row] });
    });
  }

  const users = analytics.command("users").description("per-user daily metrics over a date range, every page");
  addRangeOptions(users);
  users.addOption(
    pageSizeOption(operations.listAnalyticsUsers.params.limit.schema, "rows").default(
      operations.listAnalyticsUsers.params.limit.schema.maximum,
    ),
  );
  users.addOption(concurrencyOption("date windows paged through"));
  users.addHelpText(
    "after",
    [
      "",
      "With --concurrency above 1 the range is cut into windows of days, paged through at once: the rows come window",
      "by window in date order (within a window, as the API orders them). --concurrency 1 is one chain of pages, in",
      "the API's order (by person, then date).",
    ].join("\n"),
  );
  addOutputOptions(users, LIST_FORMATS, LIST_DEFAULT);
  examples(users, [
    "orgagent analytics users --days 30 --format ndjson | jq -s 'group_by(.user_email) | length'",
    "orgagent analytics users --start 2026-11-01 --format csv > november.csv",
    "orgagent analytics users --start 2026-01-14 --concurrency 16 --format ndjson > year.ndjson",
  ]);
  users.action(async (flags: Flags, cmd: Command) => {
    context.begin(cmd, FIELDS);
    // A long export should not end in a typo: the columns of a user row are known before the first request.
    const unknown = askedColumns(flags.columns)?.filter((column) => !(tableColumns.UserRow as readonly string[]).includes(column));
    if (unknown?.length) throw new UnknownFieldError(unknown, tableColumns.UserRow, "--columns column");
    const range = rangeOf(flags);
    const query = { ...range, limit: flags.pageSize };
    const pages = context.client(cmd).analytics.users(query, { concurrency: flags.concurrency }).pages();
    const progress = context.out.progress();
    const streaming = flags.format === "ndjson" && flags.json === undefined;
    const rows: Row[] = [];
    let pageCount = 0;
    let rowCount = 0;
    for await (const page of pages) {
      pageCount++;
      rowCount += page.data.length;
      // ndjson streams as it goes; the other formats need every row first (column widths, one JSON array).
      if (streaming) for (const row of page.data) context.out.json(row);
      else rows.push(...page.data);
      progress(`users: ${rowCount} rows, ${pageCount} page${pageCount === 1 ? "" : "s"}`);
    }
    progress(undefined);
    noteDataStart(context, range);
    if (!streaming) context.out.list(rows, flags, { columns: tableColumns.UserRow, firstColumns: TERMINAL_COLUMNS.UserRow });
  });
}
