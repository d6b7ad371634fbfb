// The `orgagent` CLI's commands as a user runs them: a subprocess against the emulator, configured by ORGAGENT_*
// variables or flags, with their output formats, exit codes and bad input. Output is piped here (machine output);
// test/cli/terminal.test.ts covers the terminal, pipes closed early, error wording, help and completion.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tableColumns } from "../../generated/spec-tables.js";
import { parseLimitsCsv, run } from "../../src/cli.js";
import { diffSettings } from "../../src/cli/controls.js";
import { replyIdOf, startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, dateRange, type EnterpriseControlChange, type UserRow } from "../../src/index.js";
import { bundleCli, cleanEnv, day, runProcess, writeFile, type Run } from "./support.js";

const range = ["--start", day(3), "--end", day(1)];
// Replies take 30 s of emulator time: a test moves the emulator's clock (`offset`) instead of waiting.
const TIMING = { sessionStartMs: 100, replyMs: 30_000, installMs: 60_000 };
let offset = 0;

let emulator: Emulator;
let sdk: OrgAgent;
let dir: string;
let bundle: string;

beforeAll(async () => {
  [emulator, { dir, bundle }] = await Promise.all([
    startEmulator({ seed: "cli", timing: TIMING, now: () => Date.now() + offset }),
    bundleCli(),
  ]);
  sdk = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner });
});
afterAll(() => emulator?.close());

/** Runs the CLI with the emulator's URLs and owner key in the environment (overridable per call). */
function orgagent(
  args: string[],
  env: Record<string, string> = {},
  { source = false, input, cwd }: { source?: boolean; input?: string; cwd?: string } = {},
): Promise<Run> {
  const entry = source ? ["--import", "tsx", "src/cli.ts"] : [bundle];
  return runProcess(
    process.execPath,
    [...entry, ...args],
    cleanEnv({ ORGAGENT_BASE_URL: emulator.baseUrl, ORGAGENT_APP_URL: emulator.appUrl, ORGAGENT_API_KEY: emulator.keys.owner, ...env }),
    input,
    cwd,
  );
}

const computer = (name: string) => emulator.org.computers.find((c) => c.name === name)!.id;

/** Runs the CLI in this process with a terminal on stderr only: the same `run` the bin calls. */
async function runInProcess(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: true });
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => (out += chunk));
  stderr.on("data", (chunk) => (err += chunk));
  const code = await run(["--api-key", emulator.keys.owner, "--base-url", emulator.baseUrl, ...args], { stdout, stderr });
  return { code, out, err };
}
const tsv = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => line.split("\t"));

describe.concurrent("usage", () => {
  test("runs from source through tsx", async () => {
    const [help, computerRun] = await Promise.all([
      orgagent(["--help"], {}, { source: true }),
      orgagent(["computers", "by-name", "build-box-eu-1"], {}, { source: true }),
    ]);
    expect([help.code, computerRun.code]).toEqual([0, 0]);
    expect(help.stdout).toContain("Usage: orgagent");
    expect(JSON.parse(computerRun.stdout)).toMatchObject({ name: "build-box-eu-1", status: "active" });
  });

  test("usage errors exit 2: unknown command, no date range, --end without --start, conflicting ranges, unknown format, bad number", async () => {
    const runs = await Promise.all([
      orgagent(["analytics", "costs"]),
      orgagent(["analytics", "tokens"]),
      orgagent(["analytics", "tokens", "--end", day(2)]),
      orgagent(["analytics", "tokens", "--days", "7", "--start", day(9)]),
      orgagent(["analytics", "tokens", ...range, "--format", "xml"]),
      orgagent(["analytics", "users", ...range, "--page-size", "ten"]),
      orgagent(["analytics"]),
      orgagent(["analytics", "tokens", "--month", "2026-13"]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
    expect(runs[0]!.stderr).toContain("unknown command");
    expect(runs[1]!.stderr).toContain(
      "orgagent: no date range.\nPass --start YYYY-MM-DD (and --end, default yesterday), --days N or --month YYYY-MM.",
    );
    expect(runs[2]!.stderr).toContain("--end needs --start");
    expect(runs[3]!.stderr).toMatch(/--days <n>' cannot be used with option '--start/);
    expect(runs[4]!.stderr).toContain("table, json, ndjson, csv");
    expect(runs[5]!.stderr).toContain("--page-size takes a whole number from 1 to 100");
    expect(runs[7]!.stderr).toMatch(/^orgagent: --month 2026-13 is not allowed: expected a month YYYY-MM up to \d{4}-\d{2}\.\n/);
  });

  test("missing configuration exits 2 and names the flag and the variable", async () => {
    const noKey = await orgagent(["computers", "get", "x"], { ORGAGENT_API_KEY: "" });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("orgagent: no API key.\nSet ORGAGENT_API_KEY or pass --api-key");
    const noApp = await orgagent(["readiness", "list"], { ORGAGENT_APP_URL: "" });
    expect(noApp.code).toBe(2);
    expect(noApp.stderr).toContain("Set ORGAGENT_APP_URL or pass --app-url");
    // A first run, with nothing set: both are named at once.
    const [neither, neitherApp] = await Promise.all([
      orgagent(["computers", "get", "x"], { ORGAGENT_API_KEY: "", ORGAGENT_BASE_URL: "" }),
      orgagent(["readiness", "list"], { ORGAGENT_API_KEY: "", ORGAGENT_APP_URL: "" }),
    ]);
    expect(neither).toMatchObject({ code: 2, stdout: "" });
    expect(neither.stderr).toBe(
      "orgagent: no API key and no API host.\nSet ORGAGENT_API_KEY and ORGAGENT_BASE_URL, or pass --api-key and --base-url: an API key or JWT from the app's API-key settings, and the host, e.g. http://127.0.0.1:4000 for the emulator of 'npm start'.\n",
    );
    expect(neitherApp.stderr).toMatch(
      /^orgagent: no API key and no app host\.\nSet ORGAGENT_API_KEY and ORGAGENT_APP_URL, or pass --api-key and --app-url: /,
    );
  });
});

describe.concurrent("analytics", () => {
  test("json output is the rows the SDK returns; flags override the environment; --json is the alias of --format json", async () => {
    const args = ["analytics", "tokens", ...range, "--group-by", "model", "--api-key", emulator.keys.manager];
    const member = { ORGAGENT_API_KEY: emulator.keys.member }; // would get 403: the flag must win
    const [format, alias] = await Promise.all([orgagent([...args, "--format", "json"], member), orgagent([...args, "--json"], member)]);
    expect([format.code, alias.code]).toEqual([0, 0]);
    const expected = await sdk.analytics.tokens({ startDate: day(3), endDate: day(1), group_by: "model" });
    expect(JSON.parse(format.stdout)).toEqual(expected.data);
    expect(alias.stdout).toBe(format.stdout);
  });

  test("--json with fields keeps those fields, in that order; an unknown field is a usage error listing the known ones", async () => {
    const [picked, unknown] = await Promise.all([
      orgagent(["analytics", "activity", ...range, "--json", "sessions,date"]),
      orgagent(["analytics", "activity", ...range, "--json", "date,nope"]),
    ]);
    expect(picked.code).toBe(0);
    const rows = JSON.parse(picked.stdout) as object[];
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(Object.keys(row)).toEqual(["sessions", "date"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^orgagent: unknown --json field nope\nFields: date, daily_active_users, .*user_messages\.\n$/);
  });

  test("piped, a table is tab-separated with a header and every column; csv is the same cells, quoted as CSV", async () => {
    const [table, csv] = await Promise.all([
      orgagent(["analytics", "activity", ...range]),
      orgagent(["analytics", "activity", ...range, "--format", "csv"]),
    ]);
    expect([table.code, csv.code]).toEqual([0, 0]);
    const lines = tsv(table.stdout);
    expect(lines).toHaveLength(1 + 3);
    expect(lines[0]!.slice(0, 3)).toEqual(["date", "daily_active_users", "weekly_active_users"]);
    expect(lines[0]).toContain("daily_active_users_by_client.web");
    expect(
      csv.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(",")),
    ).toEqual(lines);
  });

  test("--days N and --month YYYY-MM are the SDK's date ranges; --start alone runs to yesterday", async () => {
    const month = dateRange.lastDays(40).startDate.slice(0, 7);
    const [days, byMonth, fromStart] = await Promise.all([
      orgagent(["analytics", "productivity", "--days", "5", "--json", "date"]),
      orgagent(["analytics", "productivity", "--month", month, "--json", "date"]),
      orgagent(["analytics", "productivity", "--start", day(2), "--json", "date"]),
    ]);
    const dates = (r: Run) => (JSON.parse(r.stdout) as Array<{ date: string }>).map((row) => row.date);
    expect(dates(days)).toEqual([5, 4, 3, 2, 1].map(day));
    const expected = dateRange.month(month);
    expect([dates(byMonth)[0], dates(byMonth).at(-1)]).toEqual([expected.startDate, expected.endDate]);
    expect(dates(fromStart)).toEqual([day(2), day(1)]);
  });

  test("users pages through everything; ndjson streams one row a line; no progress line when stderr is not a terminal", async () => {
    const expected: UserRow[] = [];
    for await (const row of sdk.analytics.users({ startDate: day(3), endDate: day(1), limit: 100 })) expected.push(row);
    const [windows, chain] = await Promise.all([
      orgagent(["analytics", "users", ...range, "--format", "ndjson", "--page-size", "50"]),
      orgagent(["analytics", "users", ...range, "--format", "ndjson", "--page-size", "50", "--concurrency", "1"]),
    ]);
    expect([windows.code, windows.stderr, chain.code, chain.stderr]).toEqual([0, "", 0, ""]);
    const rowsOf = (run: Run) =>
      run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as UserRow);
    expect(expected.length).toBeGreaterThan(100);
    // One chain: the API's order. Date windows (the default): the same rows, each once, day by day.
    expect(rowsOf(chain)).toEqual(expected);
    const byKey = (rows: UserRow[]) => rows.map((row) => `${row.date} ${row.user_id}`).sort();
    expect(byKey(rowsOf(windows))).toEqual(byKey(expected));
    const dates = rowsOf(windows).map((row) => row.date);
    expect(dates).toEqual([...dates].sort());
  });

  test("a progress line on stderr when stderr is a terminal, cleared at the end", async () => {
    const args = ["analytics", "users", ...range, "--page-size", "100", "--format", "csv"];
    const [chain, windows] = await Promise.all([runInProcess([...args, "--concurrency", "1"]), runInProcess(args)]);
    expect([chain.code, windows.code]).toEqual([0, 0]);
    expect(chain.err).toMatch(/\r\x1b\[2Kusers: 100 rows, 1 page\r\x1b\[2Kusers: 200 rows, 2 pages/);
    expect(windows.err).toMatch(/^\r\x1b\[2Kusers: \d+ rows, 1 page\r\x1b\[2Kusers: \d+ rows, 2 pages/);
    for (const { err, out } of [chain, windows]) {
      expect(err.endsWith("\r\x1b[2K")).toBe(true);
      expect(out.trim().split("\n").length).toBeGreaterThan(200);
    }
  });

  test("an API error exits 1 with the status and the detail: a member key on analytics", async () => {
    const { code, stderr } = await orgagent(["analytics", "tools", ...range], { ORGAGENT_API_KEY: emulator.keys.member });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^orgagent: the API answered 403 Forbidden: .*Member/);
  });
});

describe.concurrent("report", () => {
  /** A new empty directory to run in or write to. */
  const freshDir = () => mkdtempSync(join(dir, "report-"));

  test("--days N: the file named by its range, in the current directory; its path alone on stdout, nothing on stderr when piped", async () => {
    const cwd = freshDir();
    const { code, stdout, stderr } = await orgagent(["report", "--days", "3"], {}, { cwd });
    const name = `orgagent-report-${day(3)}_${day(1)}.html`;
    expect([code, stdout, stderr]).toEqual([0, `${join(cwd, name)}\n`, ""]);
    expect(readdirSync(cwd)).toEqual([name]);
    const html = readFileSync(join(cwd, name), "utf8");
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(`<title>Agent analytics: ${day(3)} to ${day(1)}</title>`);
  });

  test("--month into an --out directory; --start/--end to an --out file with --title", async () => {
    const month = dateRange.lastDays(40).startDate.slice(0, 7);
    const [into, named] = [freshDir(), freshDir()];
    const [byMonth, byDates] = await Promise.all([
      orgagent(["report", "--month", month, "--out", into]),
      orgagent(["report", "--start", day(4), "--end", day(2), "--out", join(named, "r.html"), "--title", "Acme <Robotics> weekly"]),
    ]);
    expect([byMonth.code, byDates.code]).toEqual([0, 0]);
    const { startDate, endDate } = dateRange.month(month);
    const monthFile = join(into, `orgagent-report-${startDate}_${endDate}.html`);
    expect(byMonth.stdout).toBe(`${monthFile}\n`);
    expect(existsSync(monthFile)).toBe(true);
    expect(byDates.stdout).toBe(`${join(named, "r.html")}\n`);
    expect(readFileSync(join(named, "r.html"), "utf8")).toContain(`<title>Acme &lt;Robotics&gt; weekly: ${day(4)} to ${day(2)}</title>`);
  });

  test("a member key exits 1: the API's 403, then which variable holds the key and that reports need a Manager or Owner key; nothing written", async () => {
    const cwd = freshDir();
    const existing = writeFile(cwd, "old.html", "the report of last week");
    const member = { ORGAGENT_API_KEY: emulator.keys.member };
    const [{ code, stdout, stderr }, replacing] = await Promise.all([
      orgagent(["report", "--days", "3"], member, { cwd }),
      orgagent(["report", "--days", "3", "--out", existing], member, { cwd }),
    ]);
    expect([code, replacing.code, stdout]).toEqual([1, 1, ""]);
    const [cause, hint, ...rest] = stderr.split("\n");
    // The API's words, then which request they answered.
    expect(cause).toMatch(
      /^orgagent: the API answered 403 Forbidden: .*Member.* \(request req_\w+\) \[getAnalytics\w+: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/analytics\/\w+\?\S+\]$/,
    );
    expect(hint).toBe(
      "The key in ORGAGENT_API_KEY may not do this: analytics and reports, usage limits and enterprise controls need a Manager or Owner key.",
    );
    expect(rest).toEqual([""]);
    expect(readdirSync(cwd)).toEqual(["old.html"]);
    expect(readFileSync(existing, "utf8")).toBe("the report of last week");
  });

  test("an --out in no directory, or under a file, names --out; a bad date names its flag, not a directory; exit 2 before any request (a member key would get 403)", async () => {
    const cwd = freshDir();
    const file = writeFile(cwd, "a-file", "");
    const member = { ORGAGENT_API_KEY: emulator.keys.member };
    const [missing, underFile, slashes] = await Promise.all([
      orgagent(["report", "--days", "3", "--out", "no-such-dir/r.html"], member, { cwd }),
      orgagent(["report", "--days", "3", "--out", `${file}/r.html`], member, { cwd }),
      orgagent(["report", "--start", "2026/10/01"], member, { cwd }),
    ]);
    expect([missing.code, underFile.code, slashes.code]).toEqual([2, 2, 2]);
    expect(missing.stderr).toBe(
      `orgagent: --out no-such-dir/r.html: cannot write in ${join(cwd, "no-such-dir")}: no such directory.\n` +
        "Nothing was sent. Give --out a file in an existing directory you can write to, or that directory.\n",
    );
    expect(underFile.stderr).toMatch(/^orgagent: --out .*a-file\/r\.html: cannot write in .*a-file: not a directory\.\n/);
    expect(slashes.stderr).toMatch(/^orgagent: --start 2026\/10\/01 is not allowed: expected a real calendar date YYYY-MM-DD/);
    expect(readdirSync(cwd)).toEqual(["a-file"]);
  });

  test("--out a symbolic link: to a file, that file is replaced and the link stays; to nothing, exit 2 before any request", async () => {
    const cwd = freshDir();
    mkdirSync(join(cwd, "archive"));
    const real = writeFile(join(cwd, "archive"), "week.html", "old");
    symlinkSync(real, join(cwd, "latest.html"));
    symlinkSync(join(cwd, "archive", "missing.html"), join(cwd, "dangling.html"));
    const [followed, dangling] = await Promise.all([
      orgagent(["report", "--days", "2", "--out", "latest.html"], {}, { cwd }),
      orgagent(["report", "--days", "2", "--out", "dangling.html"], { ORGAGENT_API_KEY: emulator.keys.member }, { cwd }),
    ]);
    expect([followed.code, followed.stdout]).toEqual([0, `${join(cwd, "latest.html")}\n`]);
    expect([lstatSync(join(cwd, "latest.html")).isSymbolicLink(), readFileSync(real, "utf8")]).toEqual([
      true,
      expect.stringMatching(/^<!doctype html>/),
    ]);
    expect(dangling.code).toBe(2);
    expect(dangling.stderr).toBe(
      "orgagent: --out dangling.html: it is a symbolic link to a file that does not exist.\nNothing was sent. Point --out at a file, or at a link to a file that exists.\n",
    );
    expect(readdirSync(join(cwd, "archive"))).toEqual(["week.html"]);
  });

  // As root, the check of the directory passes and creating the file fails: the write's own error, after the fetch.
  test.runIf(process.getuid?.() === 0 && existsSync("/proc/self"))(
    "a write that fails after the fetch names --out and exits 1",
    async () => {
      const { code, stdout, stderr } = await orgagent(["report", "--days", "2", "--out", "/proc/report.html"]);
      expect([code, stdout]).toEqual([1, ""]);
      expect(stderr).toBe(
        "orgagent: --out /proc/report.html: cannot write the report to /proc/report.html: no such file or directory.\n" +
          "Nothing was written. Check the directory and the free space, then run the command again.\n",
      );
    },
  );
});

test("--days 400: the 400 days are asked for, and stderr says where analytics data starts", async () => {
  const [days, month, recent] = await Promise.all([
    orgagent(["analytics", "activity", "--days", "400"]),
    orgagent(["analytics", "tokens", "--month", "2025-12", "--format", "csv"]),
    orgagent(["analytics", "activity", "--days", "3"]),
  ]);
  const start = dateRange.lastDays(400).startDate;
  const before = (Date.parse("2026-01-14") - Date.parse(start)) / 86_400_000;
  expect([days.code, days.stderr]).toEqual([
    0,
    `note: analytics data starts on 2026-01-14; the ${before} days of this range before it (from ${start}) have no rows.\n`,
  ]);
  expect(tsv(days.stdout)[1]![0]).toBe("2026-01-14");
  expect([month.code, month.stdout, month.stderr]).toEqual([
    0,
    `${tableColumns.CreditsRow.join(",")}\n`,
    "note: analytics data starts on 2026-01-14; this range (2025-12-01 to 2025-12-31) is before it and has no rows.\n",
  ]);
  expect(recent.stderr).toBe("");
});

describe("limits set", () => {
  test("applies every entry of a file with a header, in chunks (exit 0)", async () => {
    const users = emulator.org.users;
    const file = writeFile(dir, "all.csv", ["email,limit", ...users.map((u, i) => `${u.email},${500 + i}`)].join("\n"));
    const { code, stdout } = await orgagent(["limits", "set", "--file", file]);
    expect([code, stdout.trim()]).toEqual([0, `Applied ${users.length} of ${users.length} limits; rejected 0.`]);
    expect(emulator.limits().get(users.at(-1)!.email)).toBe(500 + users.length - 1);
  });

  test("rejected entries are listed with their lines and the exit code is 3; columns may come in any order", async () => {
    const [a, b] = emulator.org.users;
    const file = writeFile(
      dir,
      "mixed.csv",
      `limit,email\n7000,${a!.email}\n5,nobody@acme-robotics.com\n6,nobody-else@acme-robotics.com\n8,${b!.email}\n`,
    );
    const { code, stdout } = await orgagent(["limits", "set", "--file", file]);
    expect(code).toBe(3);
    expect(stdout).toContain("Applied 2 of 4 limits; rejected 2.");
    expect(stdout).toMatch(/rejected {2}line 3 {2}nobody@acme-robotics\.com: No user/);
    expect(stdout).toMatch(/rejected {2}line 4 {2}nobody-else@acme-robotics\.com: No user/);
    expect(emulator.limits().get(a!.email)).toBe(7000);
  });

  test("a repeated e-mail (in any letter case): the last row is the one entry sent, the earlier ones are counted, and a rejection blames its line", async () => {
    const [a, b] = emulator.org.users;
    const rows = [
      `${a!.email},100`,
      `${b!.email},200`,
      `${a!.email.toUpperCase()},300`,
      "ghost@acme-robotics.com,1",
      "GHOST@acme-robotics.com,2",
    ];
    const file = writeFile(dir, "repeated.csv", `${rows.join("\n")}\n`);
    const dry = await orgagent(["limits", "set", "--file", file, "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      users: [
        { email: b!.email, limit: 200 },
        { email: a!.email.toUpperCase(), limit: 300 },
        { email: "GHOST@acme-robotics.com", limit: 2 },
      ],
    });
    expect(dry.stderr).toContain(`warning: line 3: ${a!.email.toUpperCase()} is also on line 1; line 3 wins (limit 300)`);
    const table = await orgagent(["limits", "set", "--file", file, "--dry-run"]);
    // An aligned table: numbers to the right, e-mails to the left, each column as wide as its widest cell.
    const width = Math.max(a!.email.length, b!.email.length, "GHOST@acme-robotics.com".length);
    expect(table.stdout).toBe(
      [
        "Dry run: only the file was checked, against the API's rules; the service was not asked and nothing was sent.",
        "3 limits would be set:",
        `  line  ${"email".padEnd(width)}  limit`,
        `     2  ${b!.email.padEnd(width)}    200`,
        `     3  ${a!.email.toUpperCase().padEnd(width)}    300`,
        `     5  ${"GHOST@acme-robotics.com".padEnd(width)}      2`,
        "",
      ].join("\n"),
    );
    const sent = await orgagent(["limits", "set", "--file", file]);
    expect(sent.code).toBe(3);
    expect(sent.stdout).toContain("Applied 2 of 3 limits; rejected 1; 2 earlier rows for the same e-mail not sent (a later row wins).");
    expect(sent.stdout).toMatch(/rejected {2}line 5 {2}GHOST@acme-robotics\.com: No user/);
    expect(emulator.limits().get(a!.email)).toBe(300);
  });

  test("malformed rows are all reported with their line numbers and nothing is sent (exit 2)", async () => {
    const [a, b] = emulator.org.users;
    const before = emulator.limits();
    const file = writeFile(
      dir,
      "bad.csv",
      `${a!.email},123456\n\n${b!.email}\nnot-an-email,5\n${b!.email},lots\n${a!.email},1,2\n${a!.email},1.5\n`,
    );
    const { code, stdout, stderr } = await orgagent(["limits", "set", "--file", file, "--dry-run"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("5 malformed rows, nothing was sent");
    for (const line of [3, 4, 5, 6, 7]) expect(stderr).toContain(`line ${line}:`);
    expect(stderr).not.toContain("line 1:");
    expect(emulator.limits()).toEqual(before);
  });

  test("a file separated by ';' or tabs: every row is reported with a hint at --delimiter, which then reads it", async () => {
    const [a, b] = emulator.org.users;
    const semicolons = writeFile(dir, "semicolons.csv", `email;limit\n${a!.email};10\n${b!.email};20\n`);
    const tabs = writeFile(dir, "tabs.csv", `${a!.email}\t10\n${b!.email}\t20\n`);
    const [semi, tab, semiOk, tabOk] = await Promise.all([
      orgagent(["limits", "set", "--file", semicolons, "--dry-run"]),
      orgagent(["limits", "set", "--file", tabs, "--dry-run"]),
      orgagent(["limits", "set", "--file", semicolons, "--dry-run", "--delimiter", ";"]),
      orgagent(["limits", "set", "--file", tabs, "--dry-run", "--delimiter", "tab"]),
    ]);
    expect([semi.code, tab.code, semiOk.code, tabOk.code]).toEqual([2, 2, 0, 0]);
    expect(semi.stderr).toContain(`the rows seem to be separated by ";", not ",": pass --delimiter ';'`);
    expect(tab.stderr).toContain(`the rows seem to be separated by tabs, not ",": pass --delimiter tab`);
    expect(semiOk.stdout).toContain("\n2 limits would be set:\n");
    expect(tabOk.stdout).toContain("\n2 limits would be set:\n");
  });

  test("40,000 rows of one unknown e-mail: one entry sent, its rejection blamed on the last line, in linear time", async () => {
    const file = writeFile(dir, "one-ghost.csv", Array.from({ length: 40_000 }, (_, i) => `ghost@acme-robotics.com,${i}`).join("\n"));
    const { code, stdout, stderr, ms } = await orgagent(["limits", "set", "--file", file]);
    expect(code).toBe(3);
    expect(stdout).toBe(
      "Applied 0 of 1 limits; rejected 1; 39999 earlier rows for the same e-mail not sent (a later row wins).\n" +
        "  rejected  line 40000  ghost@acme-robotics.com: No user with this e-mail in the organization.\n",
    );
    expect(stderr.trim().split("\n")).toHaveLength(11);
    expect(stderr).toContain("... and 39989 more rows repeat an earlier e-mail");
    expect(ms).toBeLessThan(5_000); // 40,000 entries sent and looked up one by one took 12 s
  });

  test("a row is reported by the line it starts on: a quoted field spanning lines 4-5 is line 4; blank lines and CRLF count", () => {
    const text =
      'email,limit\r\n\r\na@acme-robotics.com,1\r\n"broken\r\nmail",2\r\n\r\n  \r\nb@acme-robotics.com,"3\n"\r\nc@acme-robotics.com,4';
    expect(parseLimitsCsv(text)).toEqual({
      entries: [
        { email: "a@acme-robotics.com", limit: 1 },
        { email: "c@acme-robotics.com", limit: 4 },
      ],
      lines: [3, 10],
      problems: ['line 4: "broken\\r\\nmail" is not an e-mail address', 'line 8: limit "3\\n" is not a whole number'],
      warnings: [],
    });
  });

  test("line numbers stay right where the quick count of records cannot be trusted: a row of one tab, tab-separated", () => {
    const text = 'email\tlimit\na@acme-robotics.com\t1\n\t\n\n"b\nc@acme-robotics.com"\t2\nd@acme-robotics.com\t3\n';
    expect(parseLimitsCsv(text, { delimiter: "\t" })).toEqual({
      entries: [
        { email: "a@acme-robotics.com", limit: 1 },
        { email: "d@acme-robotics.com", limit: 3 },
      ],
      lines: [2, 7],
      problems: ['line 3: "" is not an e-mail address', 'line 5: "b\\nc@acme-robotics.com" is not an e-mail address'],
      warnings: [],
    });
  });

  test("--json: each rejected or superseded entry carries the line it came from, besides its position among the rows", async () => {
    const [a] = emulator.org.users;
    const file = writeFile(
      dir,
      "json-errors.csv",
      `email,limit\nghost@acme-robotics.com,1\n${a!.email},10\n\nGHOST@acme-robotics.com,2\nother-ghost@acme-robotics.com,3\n`,
    );
    const { code, stdout } = await orgagent(["limits", "set", "--file", file, "--json"]);
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toEqual({
      updated: [{ email: a!.email, limit: 10 }],
      errors: [
        { email: "GHOST@acme-robotics.com", error: "No user with this e-mail in the organization.", index: 2, line: 5 },
        { email: "other-ghost@acme-robotics.com", error: "No user with this e-mail in the organization.", index: 3, line: 6 },
      ],
      superseded: [{ email: "ghost@acme-robotics.com", limit: 1, index: 0, by: 2, line: 2 }],
      throttled: 0,
    });
  });

  test("a negative limit is caught by --dry-run (the API's rule says 0 or more), with its line; nothing is sent", async () => {
    const [a, b] = emulator.org.users;
    const before = emulator.limits();
    const file = writeFile(dir, "negative.csv", `email,limit\n${a!.email},100\n${b!.email},-5\n`);
    const { code, stdout, stderr } = await orgagent(["limits", "set", "--file", file, "--dry-run"]);
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toContain("1 malformed row, nothing was sent");
    expect(stderr).toContain("line 3: limit -5 is not allowed; expected an integer >= 0");
    expect(emulator.limits()).toEqual(before);
  });

  test("chunks go out --concurrency at once; every entry is applied; a bad --concurrency is a usage error", async () => {
    const users = emulator.org.users;
    const file = writeFile(dir, "concurrent.csv", users.map((u, i) => `${u.email},${7_000 + i}`).join("\n"));
    const [one, many, bad] = await Promise.all([
      orgagent(["limits", "set", "--file", file, "--concurrency", "1"]),
      orgagent(["limits", "set", "--file", file, "--concurrency", "3"]),
      orgagent(["limits", "set", "--file", file, "--concurrency", "0"]),
    ]);
    expect([one.code, many.code, bad.code]).toEqual([0, 0, 2]);
    expect(many.stdout.trim()).toBe(`Applied ${users.length} of ${users.length} limits; rejected 0.`);
    expect(bad.stderr).toContain("--concurrency takes a whole number from 1 to 64");
    expect(emulator.limits().get(users.at(-1)!.email)).toBe(7_000 + users.length - 1);
  });

  test("a progress line on stderr when it is a terminal, counting entries as chunks complete, cleared at the end", async () => {
    const users = emulator.org.users;
    const file = writeFile(dir, "progress.csv", users.map((u) => `${u.email},1234`).join("\n"));
    const { code, out, err } = await runInProcess(["limits", "set", "--file", file, "--concurrency", "1"]);
    expect(code).toBe(0);
    expect(err).toContain(`\r\x1b[2Klimits: 100 of ${users.length} entries, 1 of 3 chunks`);
    expect(err).toContain(`\r\x1b[2Klimits: ${users.length} of ${users.length} entries, 3 of 3 chunks`);
    expect(err.endsWith("\r\x1b[2K")).toBe(true);
    expect(out).toBe(`Applied ${users.length} of ${users.length} limits; rejected 0.\n`);
  });

  test("a key that may not set limits exits 1 with the 403, and nothing is applied", async () => {
    const [a] = emulator.org.users;
    const before = emulator.limits();
    const file = writeFile(dir, "member.csv", `email,limit\n${a!.email},9000\n`);
    const { code, stderr } = await orgagent(["limits", "set", "--file", file], { ORGAGENT_API_KEY: emulator.keys.member });
    expect(code).toBe(1);
    expect(stderr).toMatch(/403/);
    expect(emulator.limits()).toEqual(before);
  });

  test("an unreadable or empty file exits 2; - reads standard input", async () => {
    const [a] = emulator.org.users;
    const [missing, empty, stdin] = await Promise.all([
      orgagent(["limits", "set", "--file", `${dir}/missing.csv`]),
      orgagent(["limits", "set", "--file", writeFile(dir, "empty.csv", "email,limit\n")]),
      orgagent(["limits", "set", "--file", "-", "--dry-run"], {}, { input: `${a!.email},77\n` }),
    ]);
    expect([missing.code, empty.code, stdin.code]).toEqual([2, 2, 0]);
    expect(missing.stderr).toContain("cannot read");
    expect(stdin.stdout).toContain(`\n     1  ${a!.email}     77\n`);
  });
});

describe("readiness and controls", () => {
  test("readiness list pages through everything; an empty list still has its CSV header", async () => {
    const [reports, empty] = await Promise.all([
      orgagent(["readiness", "list", "--page-size", "7", "--format", "ndjson"]),
      orgagent(["readiness", "list", "--repo-id", "nobody/nothing", "--format", "csv"]),
    ]);
    expect([reports.code, empty.code]).toEqual([0, 0]);
    const all = (await sdk.readiness.list({ limit: 1000 })).reports;
    expect(
      reports.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).reportId),
    ).toEqual(all.map((r) => r.reportId));
    expect(empty.stdout).toBe("reportId,createdAt,repoUrl,branch,criteria_met\n");
  });

  test("controls history pages through everything and names the settings each revision changed", async () => {
    const history = await orgagent(["controls", "history", "--page-size", "10", "--format", "csv"]);
    expect(history.code).toBe(0);
    const lines = history.stdout.trim().split("\n");
    expect(lines[0]).toBe("revision,updatedAt,changed,name,email");
    const rows = lines.slice(1).map((line) => line.split(","));
    expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: rows.length }, (_, i) => rows.length - i));
    expect(rows.at(-1)![2]).toBe("(first revision)");
    for (const row of rows) expect(row[2]).toMatch(/^[\w.]+( [\w.]+)*$|^\(first revision\)$/);
  });

  test("controls history --max N still names what the oldest shown revision changed", async () => {
    const { stdout } = await orgagent(["controls", "history", "--max", "3"]);
    const rows = tsv(stdout).slice(1);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row[2]).not.toBe("");
  });

  test("controls diff REV [REV]: changed values with both sides; lists as items added and removed and, after them, moved; every changed setting listed", async () => {
    const changes: EnterpriseControlChange[] = [];
    for await (const change of sdk.enterpriseControls.history({ limit: 100 })) changes.push(change);
    const settingsOf = (revision: number) => changes.find((c) => c.revision === revision)!.settings;
    const latest = changes[0]!.revision;
    // Pairs whose lists gain and lose items, and pairs (from the seeded history) where only the order of some items changes.
    const reordering = changes
      .slice(0, -1)
      .map((change, i) => [changes[i + 1]!.revision, change.revision] as const)
      .filter(([from, to]) => reordered(settingsOf(from), settingsOf(to)));
    expect(reordering.length).toBeGreaterThan(0);
    const pairs = [[13, 14], [10, 14], [14, 10], [1, latest], ...reordering.slice(0, 3)] as const;
    const runs = await Promise.all(
      pairs.map(([from, to], i) => orgagent(["controls", "diff", ...(i === 0 ? [String(to)] : [String(from), String(to)]), "--json"])),
    );
    expect(runs.map((r) => r.code)).toEqual(pairs.map(() => 0));
    const at = (settings: object, path: string) => path.split(".").reduce<any>((value, key) => value?.[key], settings);
    const json = (value: unknown) => JSON.stringify(value);
    let moves = 0;
    for (const [i, [from, to]] of pairs.entries()) {
      type Row = { setting: string; change: string; before?: unknown; after?: unknown; item?: unknown };
      const diff = JSON.parse(runs[i]!.stdout) as Row[];
      expect(diff.length).toBeGreaterThan(0);
      // Order changes come apart, after every other difference.
      const firstMove = diff.findIndex((row) => row.change === "moved");
      if (firstMove !== -1) expect(diff.slice(firstMove).every((row) => row.change === "moved")).toBe(true);
      moves += diff.filter((row) => row.change === "moved").length;
      for (const setting of new Set(diff.map((row) => row.setting))) {
        const [old, now] = [at(settingsOf(from), setting), at(settingsOf(to), setting)];
        const rows = diff.filter((row) => row.setting === setting);
        if (rows.some((row) => row.change === "changed")) {
          expect(rows).toEqual([{ setting, change: "changed", before: old, after: now }]);
          expect(isDeepStrictEqual(old, now)).toBe(false);
          continue;
        }
        // A list: never shown whole; what was removed, added and moved turns the list before into the list after.
        const [before, after] = [(old ?? []) as unknown[], (now ?? []) as unknown[]];
        for (const row of rows) expect(row.change).toMatch(/^(added|removed|moved)$/);
        const left = before.map(json);
        for (const row of rows.filter((r) => r.change === "removed")) left.splice(left.indexOf(json(row.item)), 1);
        const added = rows.filter((r) => r.change === "added").map((r) => json(r.item));
        expect([...left, ...added].sort(), setting).toEqual(after.map(json).sort());
        const moved = rows.filter((r) => r.change === "moved") as Array<Row & { before: number; after: number }>;
        for (const move of moved) {
          expect(json(before[move.before - 1])).toBe(json(move.item));
          expect(json(after[move.after - 1])).toBe(json(move.item));
        }
        // The items that did not move keep their order.
        const still = (list: unknown[], drop: Set<number>, gone: string[]) =>
          list
            .filter((_, k) => !drop.has(k + 1))
            .map(json)
            .filter((item) => !gone.includes(item));
        const removed = rows.filter((r) => r.change === "removed").map((r) => json(r.item));
        expect(still(before, new Set(moved.map((m) => m.before)), removed)).toEqual(
          still(after, new Set(moved.map((m) => m.after)), added),
        );
      }
      // Nothing missing: the settings listed are exactly those whose values differ.
      expect([...new Set(diff.map((change) => change.setting))].sort(), `${from} → ${to}`).toEqual(
        changedSettings(settingsOf(from), settingsOf(to)),
      );
    }
    expect(moves).toBeGreaterThan(0);
    const table = await orgagent(["controls", "diff", String(reordering[0]![0]), String(reordering[0]![1])]);
    const cells = tsv(table.stdout);
    expect(cells[0]).toEqual(["setting", "change", "before", "after"]);
    expect(cells.at(-1)).toEqual([expect.any(String), "moved", expect.stringMatching(/ at \d+$/), expect.stringMatching(/ at \d+$/)]);
    for (const cell of cells.flat()) expect(cell).not.toMatch(/^\[/);
  });

  test("settings named like Object.prototype's properties are compared as any other", () => {
    const before = JSON.parse('{"__proto__": {"a": 1}, "constructor": true, "toString": "x", "same": 1}');
    const after = JSON.parse('{"__proto__": {"a": 2}, "valueOf": 3, "toString": "x", "same": 1}');
    expect(diffSettings(before, after)).toEqual([
      { change: "changed", setting: "__proto__.a", before: 1, after: 2 },
      { change: "changed", setting: "constructor", before: true, after: undefined },
      { change: "changed", setting: "valueOf", before: undefined, after: 3 },
    ]);
  });

  test("controls diff of the first revision, or of one that does not exist, says so", async () => {
    const [first, missing, bad] = await Promise.all([
      orgagent(["controls", "diff", "1"]),
      orgagent(["controls", "diff", "3", "999"]),
      orgagent(["controls", "diff", "x"]),
    ]);
    expect([first.code, missing.code, bad.code]).toEqual([2, 1, 2]);
    expect(first.stderr).toContain("revision 1 is the first");
    expect(missing.stderr).toContain("no revision 999 in the history");
    expect(bad.stderr).toContain("<revision> takes a whole number");
  });
});

/** Whether some list setting keeps items whose order changed (compared item by item, by JSON). */
function reordered(before: object, after: object): boolean {
  return changedSettings(before, after).some((setting) => {
    const at = (settings: object) => setting.split(".").reduce<any>((value, key) => value?.[key], settings);
    const [old, now] = [at(before), at(after)];
    if (!Array.isArray(old) || !Array.isArray(now)) return false;
    const common = (list: unknown[], other: unknown[]) =>
      list.map((item) => JSON.stringify(item)).filter((item) => other.map((o) => JSON.stringify(o)).includes(item));
    return JSON.stringify(common(old, now)) !== JSON.stringify(common(now, old));
  });
}

/**
 * The dotted names of the settings that differ between two snapshots, sorted: objects are walked key by key, lists
 * and scalars compared whole (docs/cli.md); a setting that is an object on one side only differs in each of its
 * leaves.
 */
function changedSettings(before: unknown, after: unknown, path = ""): string[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  const name = (key: string) => (path ? `${path}.${key}` : key);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => changedSettings(before[key], after[key], name(key))).sort();
  }
  if (isObject(before) || isObject(after)) {
    const [object, other] = isObject(before) ? [before, after] : [after as Record<string, unknown>, before];
    const leaves = changedSettings(object, Object.fromEntries(Object.keys(object).map((key) => [key, undefined])), path);
    return [...leaves, ...(other === undefined ? [] : [path])].sort();
  }
  return isDeepStrictEqual(before, after) ? [] : [path];
}

describe("sessions and computers (these move the emulator's clock)", () => {
  test("create, send, wait until idle, read the reply", async () => {
    const created = await orgagent(["sessions", "create", "--computer", computer("build-box-eu-1"), "--cwd", "/srv/app"]);
    expect(created.code).toBe(0);
    const { sessionId, status } = JSON.parse(created.stdout) as { sessionId: string; status: string };
    expect(status).toBe("pending");

    const sent = await orgagent(["sessions", "send", sessionId, "make", "the", "build", "faster"]);
    const { messageId } = JSON.parse(sent.stdout) as { messageId: string };
    const tooSoon = await orgagent(["sessions", "wait", sessionId, "--timeout", "1"]);
    expect(tooSoon.code).toBe(4);
    expect(tooSoon.stderr).toMatch(
      /^orgagent: session sess_\w+ is still (pending|running) after 1 s\.\nWait longer with --timeout SECONDS/,
    );

    offset += TIMING.sessionStartMs + TIMING.replyMs;
    const waited = await orgagent(["sessions", "wait", sessionId]);
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ sessionId, status: "idle", messageCount: 2 });
    const reply = await orgagent(["sessions", "message", sessionId, replyIdOf(messageId), "--format", "text"]);
    expect(reply.stdout).toContain('"make the build faster"');
    const got = await orgagent(["sessions", "get", sessionId, "--json", "title,status"]);
    expect(JSON.parse(got.stdout)).toEqual({ title: "make the build faster", status: "idle" });
  });

  test("sessions send --wait prints the message id and the idle session once the agent has answered", async () => {
    const { sessionId } = await sdk.sessions.create({ computerId: computer("build-box-us-2") });
    offset += TIMING.sessionStartMs;
    const sending = orgagent(["sessions", "send", sessionId, "why", "is", "CI", "red?", "--wait", "--timeout", "20"]);
    // The agent answers once the emulator's clock has moved on: move it once the message has arrived (a loaded
    // machine takes seconds to start the CLI; moved earlier, the reply would still be 30 s of emulator time away).
    // The CLI polls every second meanwhile.
    for (const started = Date.now(); (await sdk.sessions.get(sessionId)).messageCount === 0; ) {
      if (Date.now() - started > 15_000) throw new Error("the CLI sent no message within 15 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    offset += TIMING.replyMs;
    const { code, stdout } = await sending;
    expect(code).toBe(0);
    const { messageId, session } = JSON.parse(stdout) as { messageId: string; session: { status: string; messageCount: number } };
    expect(session).toMatchObject({ status: "idle", messageCount: 2 });
    expect((await sdk.sessions.getMessage(sessionId, replyIdOf(messageId))).role).toBe("assistant");
  });

  test("computers: by id and by name; wait on a failed install exits 1 naming the step; retry-install, then wait until active", async () => {
    const gpu = computer("gpu-box-1");
    const [byId, byName] = await Promise.all([orgagent(["computers", "get", gpu]), orgagent(["computers", "by-name", "gpu-box-1"])]);
    expect(JSON.parse(byId.stdout)).toEqual(JSON.parse(byName.stdout));

    const failed = await orgagent(["computers", "wait", gpu]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^orgagent: computer gpu-box-1 \(cmp_\w+\) is error: step "Install dependencies" failed: apt-get install .*\n/,
    );
    expect(failed.stderr).toContain(`orgagent computers retry-install ${gpu}`);

    const retried = await orgagent(["computers", "retry-install", gpu]);
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ status: "provisioning" });
    const again = await orgagent(["computers", "retry-install", gpu]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("409 Conflict");
    const tooSoon = await orgagent(["computers", "wait", gpu, "--timeout", "1"]);
    expect(tooSoon.code).toBe(4);
    expect(tooSoon.stderr).toContain(`computer ${gpu} is still provisioning after 1 s.`);

    offset += TIMING.installMs;
    const active = await orgagent(["computers", "wait", gpu, "--json", "status"]);
    expect([active.code, active.stdout]).toEqual([0, '{\n  "status": "active"\n}\n']);
    const unknown = await orgagent(["computers", "by-name", "nope"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("404 Not Found")]);
  });

  test("a computer's name where its id is asked: looked up, and the id used said on stderr; an id is used as it is", async () => {
    const box = computer("build-box-eu-1");
    const note = `Using computer ${box} (build-box-eu-1).\n`;
    const [byName, byId, created, waited, retried] = await Promise.all([
      orgagent(["computers", "get", "build-box-eu-1"]),
      orgagent(["computers", "get", box]),
      orgagent(["sessions", "create", "--computer", "build-box-eu-1", "--json", "sessionId,computerId"]),
      orgagent(["computers", "wait", "laptop-maya", "--json", "name,status"]),
      orgagent(["computers", "retry-install", "ci-runner-arm64"]),
    ]);
    expect(byName).toMatchObject({ code: 0, stderr: note });
    expect(JSON.parse(byName.stdout)).toEqual(JSON.parse(byId.stdout));
    expect(byId.stderr).toBe("");
    expect(created).toMatchObject({ code: 0, stderr: note });
    const { sessionId, computerId } = JSON.parse(created.stdout) as { sessionId: string; computerId: string };
    expect(computerId).toBe(box);
    expect((await sdk.sessions.get(sessionId)).computerId).toBe(box);
    expect(waited).toMatchObject({ code: 0, stdout: '{\n  "name": "laptop-maya",\n  "status": "active"\n}\n' });
    expect(waited.stderr).toBe(`Using computer ${computer("laptop-maya")} (laptop-maya).\n`);
    // The write goes to the computer the name stands for.
    expect(retried.stderr).toBe(`Using computer ${computer("ci-runner-arm64")} (ci-runner-arm64).\n`);
    expect(JSON.parse(retried.stdout)).toMatchObject({ id: computer("ci-runner-arm64"), status: "provisioning" });

    const [unknown, unknownCreate] = await Promise.all([
      orgagent(["computers", "get", "build-box-eu-9"]),
      orgagent(["sessions", "create", "--computer", "build-box-eu-9", "--debug"]),
    ]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toBe(
      'orgagent: no computer has the id or the name "build-box-eu-9".\nCheck the id or name: both are case-sensitive.\n',
    );
    // Nothing is created for a computer that is not there: the lookups are reads, and no POST follows them.
    expect(unknownCreate.code).toBe(1);
    expect(unknownCreate.stderr).toMatch(/→ GET/);
    expect(unknownCreate.stderr).not.toMatch(/→ POST/);
  });
});
