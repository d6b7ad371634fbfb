#!/usr/bin/env node
// `orgagent`: the SDK on the command line, for an admin's everyday jobs. Configured by ORGAGENT_API_KEY,
// ORGAGENT_BASE_URL and ORGAGENT_APP_URL or by the matching flags.
//
// Exit codes: 0 success; 1 the API answered with an error or could not be reached (or any other failure);
// 2 bad usage or input (unknown command or option, missing configuration, a value the API would reject,
// a malformed CSV row), reported before anything is sent; 3 partial failure: some entries were rejected
// (limits set); 4 timed out waiting (sessions wait).
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CsvError, parse as parseCsv } from "csv-parse/sync";
import { operations } from "../generated/spec-tables.js";
import {
  APIConnectionError,
  APIError,
  OrgAgent,
  OrgAgentError,
  ValidationError,
} from "./index.js";

export const EXIT = { ok: 0, error: 1, usage: 2, partial: 3, timeout: 4 } as const;

/** A failure that ends the command with a given exit code and message. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const FORMATS = ["table", "json", "ndjson", "csv"] as const;
type Format = (typeof FORMATS)[number];
type Row = Record<string, unknown>;

interface Io {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

// ---------------------------------------------------------------------------------------------- program

/** What a run ended with, when it did not end by throwing. */
interface Outcome {
  exitCode: number;
}

export function buildProgram(io: Io = process, outcome: Outcome = { exitCode: EXIT.ok }): Command {
  const program = new Command("orgagent")
    .description("Organization analytics, usage limits, sessions and computers from the command line.")
    .addOption(new Option("--api-key <key>", "API key or JWT").env("ORGAGENT_API_KEY"))
    .addOption(new Option("--base-url <url>", "API host, e.g. https://api.example.com").env("ORGAGENT_BASE_URL"))
    .addOption(new Option("--app-url <url>", "app host, which serves readiness reports").env("ORGAGENT_APP_URL"))
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      [
        "",
        "Exit codes:",
        "  0  success",
        "  1  the API answered with an error, could not be reached, or another failure",
        "  2  bad usage or input, found before anything was sent",
        "  3  partial failure: some entries were rejected (limits set)",
        "  4  timed out (sessions wait)",
      ].join("\n"),
    );

  const client = (command: Command, { appHost = false } = {}): OrgAgent => {
    const { apiKey, baseUrl, appUrl } = command.optsWithGlobals<{ apiKey?: string; baseUrl?: string; appUrl?: string }>();
    // Missing or malformed configuration is a usage problem (exit 2), named in the CLI's own terms.
    if (!apiKey) throw new CliError("Missing API key: pass --api-key or set ORGAGENT_API_KEY.", EXIT.usage);
    if (!baseUrl) throw new CliError("Missing API host: pass --base-url or set ORGAGENT_BASE_URL.", EXIT.usage);
    if (appHost && !appUrl) {
      throw new CliError("Missing app host: readiness reports are served by it; pass --app-url or set ORGAGENT_APP_URL.", EXIT.usage);
    }
    try {
      return new OrgAgent({ apiKey, baseUrl, appUrl, logLevel: "off" });
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error), EXIT.usage);
    }
  };
  const print = (text: string): void => void io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  const printJson = (value: unknown): void => print(JSON.stringify(value, null, 2));
  const formatOption = () => new Option("--format <format>", "output format").choices(FORMATS).default("table");

  // analytics ------------------------------------------------------------------------------------------
  const analytics = program.command("analytics").description("organization analytics (Manager or Owner role)");
  const endpoints = {
    tokens: "getAnalyticsTokens",
    tools: "getAnalyticsTools",
    activity: "getAnalyticsActivity",
    productivity: "getAnalyticsProductivity",
  } as const;
  for (const [name, operationId] of Object.entries(endpoints)) {
    const command = analytics
      .command(name)
      .description(`daily ${name === "tokens" ? "credits" : name} from --start to --end (UTC, inclusive)`)
      .requiredOption("--start <date>", "first day, YYYY-MM-DD")
      .requiredOption("--end <date>", "last day, YYYY-MM-DD (at most yesterday)")
      .addOption(formatOption());
    // The group_by values the spec allows for this endpoint, if it has the parameter.
    const groupBy = (operations[operationId].params as { group_by?: { schema: { enum: readonly string[] } } }).group_by;
    if (groupBy) command.addOption(new Option("--group-by <key>", "one row per group per day").choices(groupBy.schema.enum));
    command.action(async (opts: { start: string; end: string; groupBy?: string; format: Format }, cmd: Command) => {
      const query = { startDate: opts.start, endDate: opts.end, ...(opts.groupBy ? { group_by: opts.groupBy } : {}) };
      const api = client(cmd).analytics as unknown as Record<string, (q: object) => Promise<{ data: Row[] }>>;
      const page = await api[name]!(query);
      print(render(page.data, opts.format));
    });
  }
  const usersLimit = operations.listAnalyticsUsers.params.limit.schema;
  analytics
    .command("users")
    .description("per-user daily metrics from --start to --end, every page")
    .requiredOption("--start <date>", "first day, YYYY-MM-DD")
    .requiredOption("--end <date>", "last day, YYYY-MM-DD (at most yesterday)")
    .addOption(new Option("--page-size <n>", `rows per request (${usersLimit.minimum}-${usersLimit.maximum})`).argParser(integer).default(usersLimit.maximum))
    .addOption(formatOption())
    .action(async (opts: { start: string; end: string; pageSize: number; format: Format }, cmd: Command) => {
      const pages = client(cmd).analytics.users({ startDate: opts.start, endDate: opts.end, limit: opts.pageSize }).pages();
      const progress = progressLine(io.stderr);
      const rows: Row[] = [];
      let pageCount = 0;
      let rowCount = 0;
      for await (const page of pages) {
        pageCount++;
        rowCount += page.data.length;
        // ndjson streams as it goes; the other formats need every row first (column widths, one JSON array).
        if (opts.format === "ndjson") for (const row of page.data) print(JSON.stringify(row));
        else rows.push(...(page.data as unknown as Row[]));
        progress(`users: ${rowCount} rows, ${pageCount} page${pageCount === 1 ? "" : "s"}`);
      }
      progress(undefined);
      if (opts.format !== "ndjson") print(render(rows, opts.format));
    });

  // limits ---------------------------------------------------------------------------------------------
  const limits = program.command("limits").description("per-user credit limits (Manager or Owner role)");
  limits
    .command("set")
    .description("set credit limits from a CSV file of e-mail,limit rows (header optional)")
    .requiredOption("--file <path>", "CSV file; - reads standard input")
    .option("--dry-run", "check the file and show what would be sent, without sending")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .addHelpText(
      "after",
      [
        "",
        "The file has two columns, e-mail and limit (an integer). A first row naming the columns (email,limit or",
        "e-mail,limit, in either order) is optional. Every row is checked before anything is sent: a malformed row",
        "is reported with its line number and nothing is sent (exit 2). The entries are sent in chunks of the API's",
        "maximum. Entries the API rejects (unknown e-mail, negative limit) are listed and the exit code is 3.",
      ].join("\n"),
    )
    .action(async (opts: { file: string; dryRun?: boolean; format: "table" | "json" }, cmd: Command) => {
      const text = readInput(opts.file);
      const { entries, lines, problems, warnings } = parseLimitsCsv(text);
      for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
      if (problems.length) {
        throw new CliError(`${opts.file}: ${problems.length} malformed row${problems.length === 1 ? "" : "s"}, nothing was sent:\n${problems.map((p) => `  ${p}`).join("\n")}`, EXIT.usage);
      }
      if (!entries.length) throw new CliError(`${opts.file}: no entries to send.`, EXIT.usage);
      if (opts.dryRun) {
        if (opts.format === "json") printJson({ users: entries });
        else print(`Would set ${entries.length} limit${entries.length === 1 ? "" : "s"} (dry run, nothing sent):\n${entries.map((e, i) => `  line ${lines[i]}  ${e.email}  ${e.limit}`).join("\n")}`);
        return;
      }
      const result = await client(cmd).usageLimits.setUserLimits(entries);
      if (opts.format === "json") printJson(result);
      else {
        const lineOf = linesByEmail(entries, lines);
        const out = [`Applied ${result.updated.length} of ${entries.length} limits; rejected ${result.errors.length}.`];
        for (const { email, error } of result.errors) out.push(`  rejected  line ${lineOf(email) ?? "?"}  ${email}: ${error}`);
        print(out.join("\n"));
      }
      if (result.errors.length) outcome.exitCode = EXIT.partial;
    });

  // sessions -------------------------------------------------------------------------------------------
  const sessions = program.command("sessions").description("agent sessions and their messages");
  sessions
    .command("create")
    .description("create a session on a computer")
    .requiredOption("--computer <computerId>", "computer to run on")
    .option("--cwd <path>", "working directory on the computer")
    .option("--model <model>", "model of the session")
    .action(async (opts: { computer: string; cwd?: string; model?: string }, cmd: Command) => {
      printJson(
        await client(cmd).sessions.create({
          computerId: opts.computer,
          ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
          ...(opts.model !== undefined ? { sessionSettings: { model: opts.model } } : {}),
        }),
      );
    });
  sessions
    .command("get")
    .description("show a session")
    .argument("<sessionId>")
    .option("--computer <computerId>", "query this computer directly")
    .action(async (sessionId: string, opts: { computer?: string }, cmd: Command) => {
      printJson(await client(cmd).sessions.get(sessionId, opts.computer ? { computerId: opts.computer } : undefined));
    });
  sessions
    .command("send")
    .description("add a user message to a session; prints the message id and the agent status")
    .argument("<sessionId>")
    .argument("<text...>", "message text; - reads standard input")
    .option("--computer <computerId>", "route the message to this computer")
    .action(async (sessionId: string, words: string[], opts: { computer?: string }, cmd: Command) => {
      const text = words.length === 1 && words[0] === "-" ? readInput("-") : words.join(" ");
      printJson(await client(cmd).sessions.sendMessage(sessionId, { text, ...(opts.computer ? { computerId: opts.computer } : {}) }));
    });
  sessions
    .command("wait")
    .description("wait until a session is idle, then print it")
    .argument("<sessionId>")
    .addOption(new Option("--timeout <seconds>", "give up after this long (exit 4)").argParser(positive).default(300))
    .addOption(new Option("--interval <ms>", "time between polls").argParser(positive).default(1000))
    .action(async (sessionId: string, opts: { timeout: number; interval: number }, cmd: Command) => {
      const api = client(cmd);
      const progress = progressLine(io.stderr);
      const deadline = Date.now() + opts.timeout * 1000;
      for (;;) {
        const session = await api.sessions.get(sessionId);
        if (session.status === "idle") {
          progress(undefined);
          printJson(session);
          return;
        }
        progress(`session ${sessionId}: ${session.status}`);
        if (Date.now() + opts.interval > deadline) {
          progress(undefined);
          throw new CliError(`Session ${sessionId} is still ${session.status} after ${opts.timeout} s.`, EXIT.timeout);
        }
        await new Promise((resolve) => setTimeout(resolve, opts.interval));
      }
    });
  sessions
    .command("message")
    .description("show one message of a session")
    .argument("<sessionId>")
    .argument("<messageId>")
    .addOption(new Option("--format <format>", "json, or text for the message text only").choices(["json", "text"]).default("json"))
    .action(async (sessionId: string, messageId: string, opts: { format: "json" | "text" }, cmd: Command) => {
      const message = await client(cmd).sessions.getMessage(sessionId, messageId);
      if (opts.format === "text") print(message.content.map((block) => block.text ?? "").join("\n"));
      else printJson(message);
    });

  // computers ------------------------------------------------------------------------------------------
  const computers = program.command("computers").description("computers that sessions run on");
  computers
    .command("get")
    .description("show a computer by id")
    .argument("<computerId>")
    .action(async (computerId: string, _opts: unknown, cmd: Command) => printJson(await client(cmd).computers.get(computerId)));
  computers
    .command("by-name")
    .description("show a computer by name")
    .argument("<name>")
    .action(async (name: string, _opts: unknown, cmd: Command) => printJson(await client(cmd).computers.getByName(name)));
  computers
    .command("retry-install")
    .description("retry the install-dependencies step of a computer (accepted; poll with `computers get`)")
    .argument("<computerId>")
    .action(async (computerId: string, _opts: unknown, cmd: Command) =>
      printJson(await client(cmd).computers.retryInstallDeps(computerId)),
    );

  // readiness and controls -----------------------------------------------------------------------------
  program
    .command("readiness")
    .description("readiness reports (served by the app host: --app-url or ORGAGENT_APP_URL)")
    .command("list")
    .description("list readiness reports, every page")
    .option("--repo-id <id>", "only the reports of this repository")
    .addOption(new Option("--page-size <n>", "reports per request").argParser(positive))
    .addOption(new Option("--max <n>", "stop after this many reports").argParser(positive))
    .addOption(formatOption())
    .action(async (opts: { repoId?: string; pageSize?: number; max?: number; format: Format }, cmd: Command) => {
      const query = { ...(opts.repoId ? { repoId: opts.repoId } : {}), ...(opts.pageSize ? { limit: opts.pageSize } : {}) };
      const reports: Row[] = [];
      for await (const report of client(cmd, { appHost: true }).readiness.list(query, { maxItems: opts.max })) reports.push(report as unknown as Row);
      print(
        render(reports, opts.format, (r) => {
          const scores = Object.values(r.report as Record<string, { numerator: number; denominator: number }>);
          return {
            reportId: r.reportId,
            createdAt: new Date(r.createdAt as number).toISOString(),
            repoUrl: r.repoUrl,
            branch: r.branch ?? "",
            criteria_met: `${scores.filter((s) => s.numerator === s.denominator).length}/${scores.length}`,
          };
        }),
      );
    });
  program
    .command("controls")
    .description("enterprise controls (Manager or Owner role)")
    .command("history")
    .description("changes to the enterprise-control settings, newest first, every page")
    .addOption(new Option("--page-size <n>", "changes per request").argParser(positive))
    .addOption(new Option("--max <n>", "stop after this many changes").argParser(positive))
    .addOption(formatOption())
    .action(async (opts: { pageSize?: number; max?: number; format: Format }, cmd: Command) => {
      const changes: Row[] = [];
      const query = opts.pageSize ? { limit: opts.pageSize } : {};
      for await (const change of client(cmd).enterpriseControls.history(query, { maxItems: opts.max })) changes.push(change as unknown as Row);
      print(
        render(changes, opts.format, (c) => {
          const user = c.user as { email: string; name: string };
          return { revision: c.revision, updatedAt: c.updatedAt, email: user.email, name: user.name, settings: Object.keys(c.settings as object).length };
        }),
      );
    });

  return program;
}

/** Runs the CLI and returns its exit code (never calls process.exit, so output is always flushed). */
export async function run(argv: readonly string[], io: Io = process): Promise<number> {
  const outcome: Outcome = { exitCode: EXIT.ok };
  const program = buildProgram(io, outcome);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; every other parse failure is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const [message, code] = describeFailure(error);
    io.stderr.write(`orgagent: ${message}\n`);
    return code;
  }
}

function describeFailure(error: unknown): [string, number] {
  if (error instanceof CliError) return [error.message, error.exitCode];
  if (error instanceof ValidationError) return [`invalid input, nothing was sent: ${error.message}`, EXIT.usage];
  if (error instanceof APIError) return [`the API answered ${error.message}`, EXIT.error];
  if (error instanceof APIConnectionError) return [`${error.message} ${error.cause instanceof Error ? `(${error.cause.message})` : ""}`.trim(), EXIT.error];
  if (error instanceof OrgAgentError) return [error.message, EXIT.error];
  return [error instanceof Error ? error.message : String(error), EXIT.error];
}

// ---------------------------------------------------------------------------------------------- limits CSV

export interface ParsedLimits {
  readonly entries: Array<{ email: string; limit: number }>;
  /** Line number of each entry in the file. */
  readonly lines: number[];
  /** Malformed rows, as `line N: why`. */
  readonly problems: string[];
  readonly warnings: string[];
}

/** Parses `e-mail,limit` rows (header optional); every malformed row is reported, with its line number. */
export function parseLimitsCsv(text: string): ParsedLimits {
  const result: ParsedLimits = { entries: [], lines: [], problems: [], warnings: [] };
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parseCsv(text.replace(/^\uFEFF/, ""), {
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }) as unknown as typeof records;
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
  const seen = new Map<string, number>();
  for (const { record, info } of records) {
    const line = info.lines;
    if (record.length !== width) {
      result.problems.push(`line ${line}: expected ${width} columns (e-mail,limit), found ${record.length}`);
      continue;
    }
    const email = record[emailColumn]!;
    const limit = record[limitColumn]!;
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      result.problems.push(`line ${line}: ${JSON.stringify(email)} is not an e-mail address`);
      continue;
    }
    if (!/^[+-]?\d+$/.test(limit) || !Number.isSafeInteger(Number(limit))) {
      result.problems.push(`line ${line}: limit ${JSON.stringify(limit)} is not an integer`);
      continue;
    }
    const key = email.toLowerCase();
    if (seen.has(key)) result.warnings.push(`line ${line}: ${email} also appears on line ${seen.get(key)}; the later limit wins`);
    seen.set(key, line);
    result.entries.push({ email, limit: Number(limit) });
    result.lines.push(line);
  }
  return result;
}

/** Finds the line of a rejected entry by its e-mail (each line is used once, in order). */
function linesByEmail(entries: ReadonlyArray<{ email: string }>, lines: readonly number[]) {
  const byEmail = new Map<string, number[]>();
  entries.forEach(({ email }, i) => byEmail.set(email, [...(byEmail.get(email) ?? []), lines[i]!]));
  return (email: string) => byEmail.get(email)?.shift();
}

// ---------------------------------------------------------------------------------------------- output

/**
 * Renders rows. json: one array; ndjson: one object per line; table and csv: one column per scalar field, nested
 * objects flattened to dotted names, arrays of scalars joined; arrays of objects are left out (use json or ndjson,
 * or --group-by, for the nested breakdowns).
 */
export function render(rows: readonly Row[], format: Format, project?: (row: Row) => Row): string {
  if (format === "json") return JSON.stringify(rows, null, 2);
  if (format === "ndjson") return rows.map((row) => JSON.stringify(row)).join("\n");
  const flat = rows.map((row) => flatten(project ? project(row) : row));
  const columns = [...new Set(flat.flatMap((row) => Object.keys(row)))];
  const cells = flat.map((row) => columns.map((column) => row[column] ?? ""));
  if (format === "csv") return [columns, ...cells].map((line) => line.map(csvField).join(",")).join("\n");
  if (!rows.length) return "(no rows)";
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i]!.length)));
  const numeric = columns.map((_, i) => cells.every((line) => line[i] === "" || /^-?\d+(\.\d+)?$/.test(line[i]!)));
  const pad = (text: string, i: number) => (numeric[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!));
  return [columns.map(pad).join("  "), ...cells.map((line) => line.map(pad).join("  "))].map((l) => l.trimEnd()).join("\n");
}

function flatten(value: Row, prefix = "", out: Record<string, string> = {}): Record<string, string> {
  for (const [key, field] of Object.entries(value)) {
    const name = prefix + key;
    if (field === null || field === undefined) out[name] = "";
    else if (Array.isArray(field)) {
      if (field.every((item) => typeof item !== "object" || item === null)) out[name] = field.join(" ");
    } else if (typeof field === "object") flatten(field as Row, `${name}.`, out);
    else out[name] = String(field);
  }
  return out;
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A one-line progress display on a terminal; nothing at all when the stream is not a TTY. */
function progressLine(stream: NodeJS.WriteStream) {
  let shown = false;
  return (text: string | undefined) => {
    if (!stream.isTTY) return;
    if (text === undefined) {
      if (shown) stream.write("\r\x1b[2K");
      shown = false;
      return;
    }
    stream.write(`\r\x1b[2K${text}`);
    shown = true;
  };
}

function readInput(path: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path === "-" ? "standard input" : path}: ${(error as Error).message}`, EXIT.usage);
  }
}

function integer(value: string): number {
  if (!/^[+-]?\d+$/.test(value.trim())) throw new InvalidArgumentError("Expected an integer.");
  return Number(value);
}

function positive(value: string): number {
  const number = integer(value);
  if (number < 1) throw new InvalidArgumentError("Expected a positive integer.");
  return number;
}

// Run when this file is the program (node src/cli.ts, tsx, the bundled bin through its symlink), not when imported.
function isProgram(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (isProgram()) {
  run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
