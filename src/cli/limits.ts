// `orgagent limits set`: per-user credit limits from a CSV file. Every row is checked (against the spec's rule for a
// limit entry) before anything is sent; a later row for the same e-mail decides that person's limit, by setUserLimits'
// own rule (the earlier rows are not sent, and are counted); rejected entries are reported with their line.
import { type Command, Option } from "commander";
import { CsvError, parse as parseCsv } from "csv-parse/sync";
import { operations } from "../../generated/spec-tables.js";
import { ValidationError } from "../core/errors.js";
import { checkField, type FieldRule } from "../core/validate.js";
import { lastEntryPerEmail } from "../usage-limits.js";
import { readInput, type Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { addOutputOptions, concurrencyOption, examples, type WithOutput } from "./options.js";
import { terminalText } from "./terminal-text.js";

export interface LimitEntry {
  email: string;
  limit: number;
}

export interface ParsedLimits {
  /** Every well-formed row, in file order (a later row for the same e-mail decides: see lastEntryPerEmail). */
  readonly entries: LimitEntry[];
  /** Line number of each entry in the file. */
  readonly lines: number[];
  /** Malformed rows, as `line N: why`. */
  readonly problems: string[];
  readonly warnings: string[];
}

const entryRule = (operations.setUserLimits.body.schema.properties.users as FieldRule).items!;
const CSV_OPTIONS = { relax_column_count: true, skip_empty_lines: true, trim: true } as const;
const MAX_WARNINGS_SHOWN = 10;

/** Parses `e-mail,limit` rows (header optional); every malformed row is reported, with the line it starts on. */
export function parseLimitsCsv(text: string, { delimiter = "," }: { delimiter?: string } = {}): ParsedLimits {
  const result: ParsedLimits = { entries: [], lines: [], problems: [], warnings: [] };
  const input = text.replace(/^\uFEFF/, "");
  let records: string[][];
  let recordLines: readonly number[];
  try {
    records = parseCsv(input, { delimiter, ...CSV_OPTIONS }) as string[][];
    recordLines = startLines(input, records.length) ?? startLinesOfRaw(input, delimiter);
  } catch (error) {
    const line = error instanceof CsvError ? (error as CsvError & { lines?: number }).lines : undefined;
    result.problems.push(`line ${line ?? "?"}: ${error instanceof Error ? error.message : String(error)}`);
    return result;
  }
  let emailColumn = 0;
  let limitColumn = 1;
  let width = 2;
  const first = records[0]?.map((field) => field.toLowerCase()) ?? [];
  const headerEmail = first.findIndex((field) => field === "email" || field === "e-mail");
  const header = headerEmail >= 0 && first.includes("limit");
  if (header) {
    emailColumn = headerEmail;
    limitColumn = first.indexOf("limit");
    width = first.length;
  }
  let otherDelimiter: string | undefined;
  for (let i = header ? 1 : 0; i < records.length; i++) {
    const record = records[i]!;
    const line = recordLines[i]!;
    if (record.length !== width) {
      otherDelimiter ??= record.length === 1 ? [";", "\t", "|"].find((d) => d !== delimiter && record[0]!.includes(d)) : undefined;
      result.problems.push(`line ${line}: expected ${width} columns (e-mail${delimiter}limit), found ${record.length}`);
      continue;
    }
    const email = record[emailColumn]!;
    const limitText = record[limitColumn]!;
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      result.problems.push(`line ${line}: ${JSON.stringify(email)} is not an e-mail address`);
      continue;
    }
    if (!/^[+-]?\d+$/.test(limitText) || !Number.isSafeInteger(Number(limitText))) {
      result.problems.push(`line ${line}: limit ${JSON.stringify(limitText)} is not a whole number`);
      continue;
    }
    const entry = { email, limit: Number(limitText) };
    try {
      checkField(entryRule, entry, "entry");
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      result.problems.push(
        `line ${line}: ${error.field.replace(/^entry\./, "")} ${JSON.stringify(error.value)} is not allowed; expected ${error.allowed}`,
      );
      continue;
    }
    result.entries.push(entry);
    result.lines.push(line);
  }
  for (const { index, by } of lastEntryPerEmail(result.entries).superseded) {
    const { email, limit } = result.entries[by]!;
    result.warnings.push(
      `line ${result.lines[by]}: ${email} is also on line ${result.lines[index]}; line ${result.lines[by]} wins (limit ${limit})`,
    );
  }
  if (otherDelimiter) {
    const shown = otherDelimiter === "\t" ? "tab" : otherDelimiter;
    result.problems.push(
      `the rows seem to be separated by ${shown === "tab" ? "tabs" : `"${shown}"`}, not "${delimiter}": pass --delimiter ${shown === "tab" ? "tab" : `'${shown}'`}`,
    );
  }
  return result;
}

/**
 * The line each of `count` records starts on, found in one pass over the text: a record starts at the first
 * character that is not blank outside quotes, and a line break inside quotes belongs to the field. csv-parse's own
 * line numbers (`info: true`) cost most of the parse (a million rows: 7 s and 1.2 GB more) and name the line a
 * record ends on. Undefined when the count differs from csv-parse's (a line of delimiters only with a blank
 * delimiter, lone carriage returns as line breaks): then startLinesOfRaw gives the lines from csv-parse itself.
 */
function startLines(text: string, count: number): number[] | undefined {
  const starts: number[] = [];
  let line = 1;
  let inRecord = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      line++;
      if (!quoted) inRecord = false;
    } else if (c === 0x22) {
      quoted = !quoted; // a doubled quote inside a quoted field flips twice
      if (!inRecord) {
        inRecord = true;
        starts.push(line);
      }
    } else if (!inRecord && c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0b && c !== 0x0c) {
      inRecord = true;
      starts.push(line);
    }
  }
  return starts.length === count ? starts : undefined;
}

/** The line each record starts on, from csv-parse's raw text of each record (slower; exact whatever the file). */
function startLinesOfRaw(text: string, delimiter: string): number[] {
  const records = parseCsv(text, { delimiter, ...CSV_OPTIONS, raw: true }) as unknown as Array<{ raw: string }>;
  let line = 1;
  return records.map(({ raw }) => {
    // Blank lines skipped before a record are part of its raw text; a record of blanks alone (tabs between tab
    // delimiters) is on the last line before its own line break.
    const breaks = raw.match(/\n/g)?.length ?? 0;
    const blank = /^\s*/.exec(raw)![0];
    const before = blank.match(/\n/g)?.length ?? 0;
    const start = line + (blank.length === raw.length && raw.endsWith("\n") ? before - 1 : before);
    line += breaks;
    return start;
  });
}

type Flags = WithOutput<{ file: string; dryRun?: boolean; delimiter: string; concurrency: number }>;

export function limitsCommands(program: Command, context: Context): void {
  const limits = examples(program.command("limits").description("per-user credit limits (Manager or Owner key)"), [
    "orgagent limits set --file limits.csv --dry-run",
  ]);
  const set = limits
    .command("set")
    .description("set credit limits from a CSV file of e-mail,limit rows (header optional)")
    .requiredOption("--file <path>", "CSV file; - reads standard input")
    .option("--dry-run", "check the file only and show what would be sent; the service is not asked")
    .addOption(new Option("--delimiter <char>", "column separator: a character, or tab").default(",").argParser(delimiterOf))
    .addOption(concurrencyOption("chunks of entries"));
  addOutputOptions(set, ["table", "json"], "table");
  set.addHelpText(
    "after",
    [
      "",
      "The file has two columns, e-mail and limit (a whole number of credits). A first row naming the columns",
      "(email,limit or e-mail,limit, in either order) is optional. Every row is checked against the API's rules",
      "before anything is sent: malformed rows are all reported with their line numbers and nothing is sent (exit 2).",
      "The last row for an e-mail (in any letter case) decides that person's limit: only it is sent, and the earlier",
      "rows are counted as replaced. The entries go out in chunks of the API's maximum, --concurrency at once, at the",
      "pace the service allows; entries the API rejects are listed with their line (exit 3).",
      "On a terminal, a progress line counts the entries as their chunks complete.",
    ].join("\n"),
  );
  examples(set, [
    "orgagent limits set --file limits.csv",
    "orgagent limits set --file limits.csv --dry-run --json",
    "orgagent limits set --file export.csv --delimiter ';'",
    "printf 'email,limit\\nmaya.chen@acme-robotics.com,2000000\\n' | orgagent limits set --file -",
  ]);
  set.action(async (flags: Flags, cmd: Command) => {
    context.begin(cmd, { "options.concurrency": "--concurrency" });
    const { entries, lines, problems, warnings } = parseLimitsCsv(readInput(flags.file), { delimiter: flags.delimiter });
    for (const warning of warnings.slice(0, MAX_WARNINGS_SHOWN)) context.out.note(`warning: ${warning}`);
    if (warnings.length > MAX_WARNINGS_SHOWN)
      context.out.note(
        `warning: ... and ${warnings.length - MAX_WARNINGS_SHOWN} more rows repeat an earlier e-mail; the later row wins each time`,
      );
    if (problems.length) {
      const rows = problems.filter((p) => p.startsWith("line ")).length;
      throw new CliError(
        `${flags.file}: ${rows} malformed row${rows === 1 ? "" : "s"}, nothing was sent:\n${problems.map((p) => `  ${terminalText(p)}`).join("\n")}`,
        EXIT.usage,
        "Fix the rows listed and run the command again.",
      );
    }
    if (!entries.length) throw new CliError(`${flags.file}: no entries to send.`, EXIT.usage, "The file needs rows of e-mail,limit.");
    const json = flags.json !== undefined || flags.format === "json";
    if (flags.dryRun) {
      const deciding = lastEntryPerEmail(entries).deciding.map((i) => ({ entry: entries[i]!, line: lines[i]! }));
      if (json) return context.out.json({ users: deciding.map((d) => d.entry) }, 2);
      const count = `${deciding.length} limit${deciding.length === 1 ? "" : "s"}`;
      context.out.line(
        `Dry run: only the file was checked, against the API's rules; the service was not asked and nothing was sent.\n${count} would be set:\n${alignedRows(
          ["line", "email", "limit"],
          deciding.map(({ entry, line }) => [String(line), context.out.one(entry.email), String(entry.limit)]),
          [true, false, true],
        )}`,
      );
      return;
    }
    const progress = context.out.progress();
    let chunks = 0;
    const result = await context
      .client(cmd)
      .usageLimits.setUserLimits(entries, {
        concurrency: flags.concurrency,
        onProgress: (p) => progress(`limits: ${p.done} of ${p.total} entries, ${++chunks} of ${p.chunks} chunks`),
      })
      .finally(() => progress(undefined));
    // Each rejected or superseded entry with the line it came from, as the text view gives it: `index` is its
    // position among the file's rows.
    if (json) {
      const line = <T extends { index: number }>(entry: T) => ({ ...entry, line: lines[entry.index] ?? null });
      context.out.json({ ...result, errors: result.errors.map(line), superseded: result.superseded.map(line) }, 2);
    } else {
      const sent = entries.length - result.superseded.length;
      const replaced = result.superseded.length;
      const rows = replaced ? `; ${replaced} earlier row${replaced === 1 ? "" : "s"} for the same e-mail not sent (a later row wins)` : "";
      const out = [`Applied ${result.updated.length} of ${sent} limits; rejected ${result.errors.length}${rows}.`];
      for (const { email, error, index } of result.errors)
        out.push(`  rejected  line ${lines[index] ?? "?"}  ${context.out.one(email)}: ${context.out.one(error)}`);
      context.out.line(out.join("\n"));
    }
    if (result.errors.length) context.exitCode = EXIT.partial;
  });
}

/** Rows under a header, each column as wide as its widest cell; `right` aligns a column's cells to the right. */
function alignedRows(header: readonly string[], rows: ReadonlyArray<readonly string[]>, right: readonly boolean[]): string {
  const widths = header.map((title, i) => rows.reduce((widest, row) => Math.max(widest, row[i]!.length), title.length));
  const render = (row: readonly string[]) =>
    `  ${row
      .map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd()}`;
  return [header, ...rows].map(render).join("\n");
}

function delimiterOf(value: string): string {
  if (value === "tab" || value === "\\t") return "\t";
  if ([...value].length !== 1) throw new CliError(`--delimiter takes one character, or tab; got ${JSON.stringify(value)}.`, EXIT.usage);
  return value;
}
