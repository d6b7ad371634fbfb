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
const MAX_WARNINGS_SHOWN = 10;

/** Parses `e-mail,limit` rows (header optional); every malformed row is reported, with its line number. */
export function parseLimitsCsv(text: string, { delimiter = "," }: { delimiter?: string } = {}): ParsedLimits {
  const result: ParsedLimits = { entries: [], lines: [], problems: [], warnings: [] };
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parseCsv(text.replace(/^\uFEFF/, ""), { delimiter, info: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as unknown as typeof records;
  } catch (error) {
    const line = error instanceof CsvError ? (error as CsvError & { lines?: number }).lines : undefined;
    result.problems.push(`line ${line ?? "?"}: ${error instanceof Error ? error.message : String(error)}`);
    return result;
  }
  let emailColumn = 0;
  let limitColumn = 1;
  let width = 2;
  const first = records[0]?.record.map((field) => field.toLowerCase()) ?? [];
  const headerEmail = first.findIndex((field) => field === "email" || field === "e-mail");
  if (headerEmail >= 0 && first.includes("limit")) {
    emailColumn = headerEmail;
    limitColumn = first.indexOf("limit");
    width = first.length;
    records = records.slice(1);
  }
  let otherDelimiter: string | undefined;
  for (const { record, info } of records) {
    const line = info.lines;
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
      result.problems.push(`line ${line}: ${error.field.replace(/^entry\./, "")} ${JSON.stringify(error.value)} is not allowed; expected ${error.allowed}`);
      continue;
    }
    result.entries.push(entry);
    result.lines.push(line);
  }
  for (const { index, by } of lastEntryPerEmail(result.entries).superseded) {
    const { email, limit } = result.entries[by]!;
    result.warnings.push(`line ${result.lines[by]}: ${email} is also on line ${result.lines[index]}; line ${result.lines[by]} wins (limit ${limit})`);
  }
  if (otherDelimiter) {
    const shown = otherDelimiter === "\t" ? "tab" : otherDelimiter;
    result.problems.push(`the rows seem to be separated by ${shown === "tab" ? "tabs" : `"${shown}"`}, not "${delimiter}": pass --delimiter ${shown === "tab" ? "tab" : `'${shown}'`}`);
  }
  return result;
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
    .option("--dry-run", "check the file and show what would be sent, without sending")
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
    if (warnings.length > MAX_WARNINGS_SHOWN) context.out.note(`warning: ... and ${warnings.length - MAX_WARNINGS_SHOWN} more rows repeat an earlier e-mail; the later row wins each time`);
    if (problems.length) {
      const rows = problems.filter((p) => p.startsWith("line ")).length;
      throw new CliError(
        `${flags.file}: ${rows} malformed row${rows === 1 ? "" : "s"}, nothing was sent:\n${problems.map((p) => `  ${p}`).join("\n")}`,
        EXIT.usage,
        "Fix the rows listed and run the command again.",
      );
    }
    if (!entries.length) throw new CliError(`${flags.file}: no entries to send.`, EXIT.usage, "The file needs rows of e-mail,limit.");
    const json = flags.json !== undefined || flags.format === "json";
    if (flags.dryRun) {
      const deciding = lastEntryPerEmail(entries).deciding;
      if (json) context.out.line(JSON.stringify({ users: deciding.map((i) => entries[i]) }, null, 2));
      else context.out.line(`Would set ${deciding.length} limit${deciding.length === 1 ? "" : "s"} (dry run, nothing sent):\n${deciding.map((i) => `  line ${lines[i]}  ${entries[i]!.email}  ${entries[i]!.limit}`).join("\n")}`);
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
    if (json) context.out.line(JSON.stringify(result, null, 2));
    else {
      const sent = entries.length - result.superseded.length;
      const replaced = result.superseded.length;
      const rows = replaced ? `; ${replaced} earlier row${replaced === 1 ? "" : "s"} for the same e-mail not sent (a later row wins)` : "";
      const out = [`Applied ${result.updated.length} of ${sent} limits; rejected ${result.errors.length}${rows}.`];
      for (const { email, error, index } of result.errors) out.push(`  rejected  line ${lines[index] ?? "?"}  ${email}: ${error}`);
      context.out.line(out.join("\n"));
    }
    if (result.errors.length) context.exitCode = EXIT.partial;
  });
}

function delimiterOf(value: string): string {
  if (value === "tab" || value === "\\t") return "\t";
  if ([...value].length !== 1) throw new CliError(`--delimiter takes one character, or tab; got ${JSON.stringify(value)}.`, EXIT.usage);
  return value;
}
