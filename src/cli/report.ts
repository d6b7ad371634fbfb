// `orgagent report`: the analytics report of a date range as one self-contained HTML file (orgagent/report), with a
// progress line on a terminal while the data arrives and the written file's path on stdout at the end.
import { accessSync, constants, existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { operations } from "../../generated/spec-tables.js";
import { validateCall } from "../core/validate.js";
import type { ReportProgress } from "../index.js";
import type { Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { RANGE_FIELDS, addRangeOptions, dataStartNote, examples, rangeOf, type RangeFlags } from "./options.js";

type Flags = RangeFlags & { out?: string; title?: string };

const PART_NAMES: Record<ReportProgress["part"], string> = {
  credits: "credits",
  previousCredits: "previous period",
  activity: "activity",
  tools: "tools",
  productivity: "productivity",
  users: "users",
};

// The file system's usual refusals, in words (its messages name the temporary file, not the one asked for).
const REFUSALS: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
};

export function reportCommand(program: Command, context: Context): void {
  const report = program.command("report").description("an offline HTML report with charts (Manager or Owner key)");
  addRangeOptions(report)
    .option(
      "--out <file>",
      "the HTML file to write, or an existing directory to write it in (default: orgagent-report-START_END.html in the current directory)",
    )
    .option("--title <text>", "the page's heading (default: Agent analytics)");
  report.addHelpText(
    "after",
    [
      "",
      "One self-contained HTML file that opens offline in any browser: credits by model, active users, the top 20",
      "users, tools and MCP servers, what the agent produced, hooks. On a terminal, a progress line on stderr while",
      "the data arrives; then the file's path on stdout (with its size on a terminal). The file is written whole or",
      "not at all: when a call fails, nothing is written and an existing file of that name is left as it was.",
    ].join("\n"),
  );
  examples(report, [
    "orgagent report --days 30",
    "orgagent report --month 2026-10 --out reports/",
    'orgagent report --start 2026-10-01 --end 2026-10-31 --out october.html --title "Acme Robotics, October"',
    'xdg-open "$(orgagent report --days 7)"',
  ]);
  report.action(async (flags: Flags, cmd: Command) => {
    context.begin(cmd, RANGE_FIELDS);
    const range = rangeOf(flags);
    // The range before --out: its dates name the default file (`--start 2026/10/01` is a bad date, not a directory).
    validateCall(operations.getAnalyticsTokens, { query: { ...range } });
    const client = context.client(cmd);
    // Loaded here, not at start-up: the charting library is large and no other command needs it.
    const { ReportWriteError, reportFileName, writeAnalyticsReport } = await import("../report/index.js");
    const out = writablePath(flags.out, reportFileName(range));
    const progress = context.out.progress();
    let written: { path: string; bytes: number };
    try {
      written = await writeAnalyticsReport(client, range, { out, title: flags.title, onProgress: (p) => progress(progressLine(p)) });
    } catch (error) {
      if (!(error instanceof ReportWriteError)) throw error;
      const cause = error.cause as NodeJS.ErrnoException;
      const subject =
        flags.out === undefined
          ? `cannot write the report to ${error.path}`
          : `--out ${flags.out}: cannot write the report to ${error.path}`;
      throw new CliError(
        `${subject}: ${REFUSALS[cause.code ?? ""] ?? cause.message}.`,
        EXIT.error,
        "Nothing was written. Check the directory and the free space, then run the command again.",
      );
    } finally {
      progress(undefined);
    }
    const note = dataStartNote(range);
    if (note) context.out.note(note);
    context.out.line(context.out.tty ? `${written.path} (${Math.max(1, Math.round(written.bytes / 1024))} kB)` : written.path);
  });
}

/** `report: 3 of 6 parts (tools done); users: 800 rows, 8 pages`, then what happens once every part is in. */
function progressLine({ part, done, total, userRows, userPages }: ReportProgress): string {
  if (done === total) return `report: ${total} of ${total} parts; drawing the charts`;
  const users = userPages ? `; users: ${userRows} rows, ${userPages} page${userPages === 1 ? "" : "s"}` : "";
  return `report: ${done} of ${total} parts${part === "users" ? "" : ` (${PART_NAMES[part]} done)`}${users}`;
}

/**
 * The absolute path to write: --out, inside --out when it is a directory, or the default name in the current
 * directory. Its directory must exist and be writable: checked before any request, so that a typo in --out costs no
 * fetch (exit 2).
 */
function writablePath(out: string | undefined, defaultName: string): string {
  const path = out !== undefined && (out.endsWith("/") || isDirectory(out)) ? resolve(out, defaultName) : resolve(out ?? defaultName);
  // A symbolic link is followed (the file it points to is replaced): that file's directory is the one written in.
  let directory = resolve(path, "..");
  let refusal: string | undefined;
  try {
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
      if (!existsSync(path))
        throw new CliError(
          `${out === undefined ? path : `--out ${out}`}: it is a symbolic link to a file that does not exist.`,
          EXIT.usage,
          "Nothing was sent. Point --out at a file, or at a link to a file that exists.",
        );
      directory = resolve(realpathSync(path), "..");
    }
    if (!statSync(directory).isDirectory()) refusal = "not a directory";
    else accessSync(directory, constants.W_OK);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "";
    refusal = code === "ENOENT" ? "no such directory" : (REFUSALS[code] ?? (error as Error).message);
  }
  if (refusal === undefined) return path;
  if (out === undefined) {
    throw new CliError(
      `cannot write the report in the current directory ${directory}: ${refusal}.`,
      EXIT.usage,
      "Nothing was sent. Pass --out FILE to write it elsewhere.",
    );
  }
  throw new CliError(
    `--out ${out}: cannot write in ${directory}: ${refusal}.`,
    EXIT.usage,
    "Nothing was sent. Give --out a file in an existing directory you can write to, or that directory.",
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
