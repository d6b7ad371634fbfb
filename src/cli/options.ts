// Options shared by several commands, each saying its unit: output (--format, --json), date ranges (--start/--end,
// --days, --month), page sizes (bounds from the spec), whole seconds for waits.
import { type Command, InvalidArgumentError, Option } from "commander";
import { dayOf } from "../core/days.js";
import { MAX_CONCURRENCY } from "../core/options.js";
import type { FieldRule } from "../core/validate.js";
import { dateRange, type DateRange } from "../index.js";
import { CliError, EXIT } from "./errors.js";
import { columnsOption } from "./columns.js";
import { OutputUsageError, type OutputChoice } from "./output.js";

/** `--format` (the given choices) and `--json [fields]`, its familiar alias; `--columns` for lists (CSV among the formats). */
export function addOutputOptions(command: Command, formats: readonly string[], defaultText: string): Command {
  command
    .addOption(new Option("--format <format>", `output format (default: ${defaultText})`).choices(formats))
    .addOption(new Option("--json [fields]", "JSON output; optionally only these comma-separated top-level fields").conflicts("format"));
  if (!formats.includes("csv")) return command;
  // Checked before anything is sent: --columns is for tables and CSV.
  return command.addOption(columnsOption()).hook("preAction", (_, action) => {
    const { columns, format } = action.opts<OutputChoice>();
    if (columns !== undefined && (format === "json" || format === "ndjson")) {
      throw new OutputUsageError(
        `--columns picks the columns of tables and CSV, not the fields of --format ${format}.`,
        "Name the fields with --json a,b,c instead.",
      );
    }
  });
}

export const LIST_FORMATS = ["table", "json", "ndjson", "csv"] as const;
export const LIST_DEFAULT = "table on a terminal, tab-separated when piped";
export const RESOURCE_FORMATS = ["table", "json"] as const;
export const RESOURCE_DEFAULT = "table (key/value) on a terminal, json when piped";

export type WithOutput<T> = T & OutputChoice;

/** --start/--end, --days and --month: one analytics date range, in UTC. */
export function addRangeOptions(command: Command): Command {
  return command
    .addOption(new Option("--start <date>", "first day, YYYY-MM-DD (UTC; required unless --days or --month)"))
    .addOption(new Option("--end <date>", "last day, YYYY-MM-DD (UTC; default: yesterday, the latest day with data)"))
    .addOption(
      new Option("--days <n>", "the n days ending yesterday (UTC)")
        .argParser(wholeNumber("--days", 1))
        .conflicts(["start", "end", "month"]),
    )
    .addOption(
      new Option("--month <YYYY-MM>", "one calendar month (UTC); the current month runs to yesterday").conflicts(["start", "end"]),
    );
}

export interface RangeFlags {
  start?: string;
  end?: string;
  days?: number;
  month?: string;
}

/** The range the flags ask for, from the SDK's dateRange for --days and --month (never after yesterday). */
export function rangeOf(flags: RangeFlags): DateRange {
  if (flags.days !== undefined) return dateRange.lastDays(flags.days);
  if (flags.month !== undefined) return dateRange.month(flags.month);
  if (flags.start === undefined) {
    throw new CliError(
      flags.end === undefined ? "no date range." : "--end needs --start.",
      EXIT.usage,
      "Pass --start YYYY-MM-DD (and --end, default yesterday), --days N or --month YYYY-MM.",
    );
  }
  return { startDate: flags.start, endDate: flags.end ?? dateRange.yesterday().endDate };
}

/**
 * A note for a range that starts before analytics data does: the days before it are asked for like any other (the API
 * answers them with no rows), and the note says where the data starts, so that fewer rows than days is no surprise.
 */
export function dataStartNote({ startDate, endDate }: DateRange): string | undefined {
  const first = dateRange.firstDataDay;
  if (startDate >= first) return undefined;
  const days = dayOf(first) - dayOf(startDate);
  return endDate < first
    ? `note: analytics data starts on ${first}; this range (${startDate} to ${endDate}) is before it and has no rows.`
    : `note: analytics data starts on ${first}; the ${days} day${days === 1 ? "" : "s"} of this range before it (from ${startDate}) have no rows.`;
}

/** Which flag gave each date field, for errors. */
export const RANGE_FIELDS = { "query.startDate": "--start", "query.endDate": "--end", days: "--days", month: "--month" };

/** `--page-size`, bounded as the spec bounds the operation's `limit`. */
export function pageSizeOption(rule: FieldRule, what: string): Option {
  const { minimum = 1, maximum } = rule;
  const range = maximum === undefined ? `${minimum} or more` : `${minimum}-${maximum}`;
  return new Option("--page-size <n>", `${what} per request (${range})`).argParser(wholeNumber("--page-size", minimum, maximum));
}

/**
 * The CLI's default for `--concurrency`: eight requests at once, which is the speed-up a bulk job over a real
 * network gets; the SDK paces the requests by itself at the rate the API allows.
 */
export const CONCURRENCY_DEFAULT = 8;

/** `--concurrency`: how many `what` the SDK has in flight at once. */
export function concurrencyOption(what: string): Option {
  return new Option("--concurrency <n>", `${what} in flight at once (1-${MAX_CONCURRENCY}; paced to the API's rate limit)`)
    .argParser(wholeNumber("--concurrency", 1, MAX_CONCURRENCY))
    .default(CONCURRENCY_DEFAULT);
}

/** A whole number within bounds, or a usage error naming the flag. */
export function wholeNumber(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\s*[+-]?\d+\s*$/.test(value) || number < min || number > max) {
      throw new InvalidArgumentError(
        `${flag} takes a whole number ${max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`}.`,
      );
    }
    return number;
  };
}

/** Durations are whole seconds everywhere in the CLI. */
export function seconds(flag: string) {
  return (value: string): number => {
    if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1) {
      throw new InvalidArgumentError(`${flag} takes whole seconds, 1 or more (e.g. 90, not 0.5 or 1m).`);
    }
    return Number(value);
  };
}

/** The "Examples:" section every command's help ends with. */
export function examples(command: Command, lines: readonly string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n`);
}
