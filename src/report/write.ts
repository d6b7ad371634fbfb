// Writing the report: fetch, render, then write atomically (a temporary file beside the target, renamed over
// it), so a failed or interrupted run never leaves a half-written report, nor replaces a good one. An existing
// file keeps its permissions; a symbolic link is followed, as a shell's `>` would, and stays a link.
import { randomBytes } from "node:crypto";
import { lstat, open, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { APIUserAbortError, OrgAgentError, buildAnalyticsReport } from "../index.js";
import type { AnalyticsReport, BuildReportOptions, OrgAgent, ReportRange } from "../index.js";
import { renderReportHtml, type RenderReportOptions } from "./html.js";

export interface WriteReportOptions extends BuildReportOptions, RenderReportOptions {
  /** The file to write. Default: `orgagent-report-<startDate>_<endDate>.html` in the current directory. */
  out?: string | undefined;
}

export interface WrittenReport {
  /** Absolute path of the file written. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
  /** The data the page was drawn from. */
  report: AnalyticsReport;
}

/** Writing the file failed (no such directory, no permission, disk full); nothing was left behind. */
export class ReportWriteError extends OrgAgentError {
  override name = "ReportWriteError";
  constructor(
    /** The file that was to be written. */
    readonly path: string,
    options: { cause: unknown },
  ) {
    super(
      `Could not write the report to ${path}: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`,
      options,
    );
  }
}

/** The default file name of a report: `orgagent-report-2026-10-01_2026-10-31.html`. */
export function reportFileName({ startDate, endDate }: ReportRange): string {
  return `orgagent-report-${startDate}_${endDate}.html`;
}

/**
 * Fetches the report of a range, renders it and writes it atomically: what `orgagent report` runs. Throws the
 * SDK's errors for the fetch (a ValidationError for a bad range before any request; a PermissionDeniedError
 * saying that reports need a Manager or Owner key; APIUserAbortError when `signal` aborts), and
 * ReportWriteError when the file cannot be written. On any failure no file is written or changed.
 */
export async function writeAnalyticsReport(client: OrgAgent, range: ReportRange, options: WriteReportOptions = {}): Promise<WrittenReport> {
  const report = await buildAnalyticsReport(client, range, options);
  const html = renderReportHtml(report, options);
  const path = resolve(options.out ?? reportFileName(range));
  if (options.signal?.aborted) throw APIUserAbortError.of(options.signal);
  try {
    await writeFileAtomic(path, html);
  } catch (cause) {
    throw new ReportWriteError(path, { cause });
  }
  return { path, bytes: Buffer.byteLength(html), report };
}

/**
 * Writes `text` to `path` through a new temporary file in the same directory and a rename. A file that exists keeps
 * its permission bits (a 0600 report stays 0600); a new one gets the process's umask. When `path` is a symbolic link
 * to a file, that file is replaced and the link stays; a link to nothing is refused (ENOENT), and nothing is written.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const target = await linkTarget(path);
  const existing = await stat(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  // `wx`: created new, never an existing file or a link planted under that name. An existing file's mode is set
  // before anything is written, so its text is never readable by more people than before, not even for a moment.
  const file = await open(temporary, "wx", existing ? existing.mode & 0o666 : 0o666);
  try {
    try {
      if (existing) await file.chmod(existing.mode & 0o7777);
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The file a path names: itself, or the file a symbolic link (or a chain of them) points to. */
async function linkTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // No such file. A link pointing to nothing is refused (`>` would create its target wherever it points).
  const link = await lstat(path).catch(() => undefined);
  if (link?.isSymbolicLink()) throw new Error("it is a symbolic link to a file that does not exist");
  return path;
}
