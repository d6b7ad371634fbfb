// Lists on a terminal as `gh` shows them: the columns worth a glance first, `--columns` to pick them (tables,
// tab-separated, CSV), and long tables through a pager (ORGAGENT_PAGER, else PAGER), never when piped. Run on a real
// pseudo-terminal (test/cli/terminal.py, 40 rows) where the output differs from a pipe.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tableColumns } from "../../generated/spec-tables.js";
import { TERMINAL_COLUMNS } from "../../src/cli/analytics.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { bundleCli, cleanEnv, runOnTerminal, runProcess, type Run } from "./support.js";

let emulator: Emulator;
let bundle: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  [emulator, { bundle }] = await Promise.all([startEmulator({ seed: "tables" }), bundleCli()]);
  // No pager from the machine running the tests: each test sets its own.
  env = cleanEnv({
    ORGAGENT_BASE_URL: emulator.baseUrl,
    ORGAGENT_APP_URL: emulator.appUrl,
    ORGAGENT_API_KEY: emulator.keys.owner,
    PAGER: "",
  });
});
afterAll(() => emulator?.close());

const orgagent = (args: string[], extra: Record<string, string> = {}) =>
  runProcess(process.execPath, [bundle, ...args], { ...env, ...extra });
const onTerminal = (args: string[], extra: Record<string, string> = {}, columns = 80) =>
  runOnTerminal(bundle, args, { ...env, ...extra }, columns);
/** What the terminal showed, without the progress line (cleared with \r\x1b[2K) and with \n line ends. */
const screen = (run: Run) => run.stdout.replace(/\r\n/g, "\n").replace(/^(?:[^\n]*\r\x1b\[2K)+/, "");
const lines = (text: string) => text.trimEnd().split("\n");

describe.concurrent("columns", () => {
  test("the columns a terminal shows first exist in the spec's rows", () => {
    for (const [row, columns] of Object.entries(TERMINAL_COLUMNS)) {
      expect(tableColumns[row as keyof typeof tableColumns], row).toEqual(expect.arrayContaining([...columns!]));
    }
  });

  test("analytics users at 80 columns: when, who, credits and tool calls first; the others named, with --columns", async () => {
    const [terminal, piped] = await Promise.all([
      onTerminal(["analytics", "users", "--days", "2"]),
      orgagent(["analytics", "users", "--days", "2"]),
    ]);
    expect([terminal.code, piped.code]).toEqual([0, 0]);
    const shown = screen(terminal);
    expect(lines(shown)[0]).toMatch(/^date +user_email +billable_tokens +tool_calls$/);
    for (const line of lines(shown)) expect(line.length).toBeLessThanOrEqual(80);
    const note = shown.slice(shown.indexOf("(18 more columns: ")).replace(/\n/g, " ");
    expect(note).toMatch(
      /^\(18 more columns: sessions, messages, .*user_id.*; pick columns with --columns, or see every one with --format csv or --json\) $/,
    );
    // Piped: every column, in the spec's order, the same on any terminal.
    expect(lines(piped.stdout)[0]!.split("\t")).toEqual(tableColumns.UserRow);
    expect(piped.stderr).toBe("");
  });

  test("--columns picks the columns of a terminal table, of tab-separated output and of CSV, in the order given", async () => {
    const pick = ["--columns", "user_email,billable_tokens,languages"];
    const [terminal, piped, csv] = await Promise.all([
      onTerminal(["analytics", "users", "--days", "2", ...pick]),
      orgagent(["analytics", "users", "--days", "2", ...pick]),
      orgagent(["analytics", "tokens", "--days", "3", "--columns", "billable_tokens, date", "--format", "csv"]),
    ]);
    expect([terminal.code, piped.code, csv.code]).toEqual([0, 0, 0]);
    expect(lines(screen(terminal))[0]).toMatch(/^user_email +billable_tokens +languages$/);
    expect(screen(terminal)).not.toContain("more column");
    const rows = lines(piped.stdout).map((line) => line.split("\t"));
    expect(rows[0]).toEqual(["user_email", "billable_tokens", "languages"]);
    expect(rows.slice(1).every((row) => row.length === 3 && /@/.test(row[0]!) && /^\d+$/.test(row[1]!))).toBe(true);
    expect(lines(csv.stdout)[0]).toBe("billable_tokens,date");
    expect(lines(csv.stdout)).toHaveLength(4);
  });

  test("an unknown column is a usage error naming the columns there are (analytics users: before any request); --columns with JSON too", async () => {
    const [unknown, lateUnknown, json, ndjson] = await Promise.all([
      orgagent(["analytics", "users", "--days", "2", "--columns", "date,user_mail", "--debug"]),
      orgagent(["controls", "history", "--max", "2", "--columns", "who"]),
      orgagent(["analytics", "tokens", "--days", "2", "--columns", "date", "--json"]),
      orgagent(["analytics", "users", "--days", "2", "--columns", "date", "--format", "ndjson", "--debug"]),
    ]);
    expect([unknown.code, lateUnknown.code, json.code, ndjson.code]).toEqual([2, 2, 2, 2]);
    expect(unknown.stderr).toBe(`orgagent: unknown --columns column user_mail\nColumns: ${tableColumns.UserRow.join(", ")}.\n`);
    expect(lateUnknown.stderr).toBe("orgagent: unknown --columns column who\nColumns: revision, updatedAt, changed, name, email.\n");
    expect(json.stderr).toMatch(/^orgagent: option '--columns <names>' cannot be used with option '--json \[fields\]'/);
    expect(ndjson.stderr).toBe(
      "orgagent: --columns picks the columns of tables and CSV, not the fields of --format ndjson.\nName the fields with --json a,b,c instead.\n",
    );
    for (const run of [unknown, ndjson]) expect(run.stderr).not.toContain("→ GET");
  });
});

describe.concurrent("a pager for long tables", () => {
  // A pager that marks every line it shows: what went through it is plain to see.
  const marking = (mark: string) => `sed 's/^/${mark}/'`;

  test("a table longer than the terminal goes through PAGER, the note under it too, and the command waits for it", async () => {
    const run = await onTerminal(["analytics", "users", "--days", "2"], { PAGER: marking("P:") });
    expect(run.code).toBe(0);
    const shown = lines(screen(run));
    expect(shown.length).toBeGreaterThan(40);
    expect(shown.every((line) => line.startsWith("P:"))).toBe(true);
    expect(shown[0]).toMatch(/^P:date +user_email/);
    expect(shown.at(-1)).toMatch(/^P:.*--format csv or --json\)$/);
  });

  test("ORGAGENT_PAGER wins over PAGER; empty or cat means no pager", async () => {
    const [ours, empty, cat] = await Promise.all([
      onTerminal(["analytics", "users", "--days", "2"], { ORGAGENT_PAGER: marking("O:"), PAGER: marking("P:") }),
      onTerminal(["analytics", "users", "--days", "2"], { ORGAGENT_PAGER: "", PAGER: marking("P:") }),
      onTerminal(["analytics", "users", "--days", "2"], { PAGER: "cat" }),
    ]);
    expect([ours.code, empty.code, cat.code]).toEqual([0, 0, 0]);
    expect(lines(screen(ours)).every((line) => line.startsWith("O:"))).toBe(true);
    for (const run of [empty, cat]) {
      expect(lines(screen(run))[0]).toMatch(/^date +user_email/);
      expect(screen(run)).not.toMatch(/^[OP]:/m);
    }
  });

  test("no pager for a table that fits the screen, nor when piped", async () => {
    const [short, piped] = await Promise.all([
      onTerminal(["controls", "history", "--max", "3"], { PAGER: marking("P:") }),
      orgagent(["analytics", "users", "--days", "2"], { PAGER: marking("P:") }),
    ]);
    expect(lines(screen(short))[0]).toMatch(/^revision +updatedAt/);
    expect(screen(short)).not.toContain("P:");
    expect(piped.stdout).toMatch(/^user_id\tuser_email\t/);
    expect(piped.stdout).not.toContain("P:");
  });

  test("less gets LESS=FRX unless LESS is set; a reader who quits early ends the command quietly", async () => {
    const [defaults, own, early] = await Promise.all([
      onTerminal(["analytics", "users", "--days", "2"], { PAGER: 'echo "LESS=$LESS"; cat >/dev/null' }),
      onTerminal(["analytics", "users", "--days", "2"], { PAGER: 'echo "LESS=$LESS"; cat >/dev/null', LESS: "R" }),
      onTerminal(["analytics", "users", "--days", "2"], { PAGER: "head -2" }),
    ]);
    expect(lines(screen(defaults))).toEqual(["LESS=FRX"]);
    expect(lines(screen(own))).toEqual(["LESS=R"]);
    expect(early.code).toBe(0);
    expect(lines(screen(early))).toHaveLength(2);
    expect(screen(early)).not.toMatch(/EPIPE|Error/);
  });

  test("a pager that cannot run is named, and the table printed without it", async () => {
    const run = await onTerminal(["analytics", "users", "--days", "2"], { ORGAGENT_PAGER: "no-such-pager-here" });
    expect(run.code).toBe(0);
    expect(screen(run)).toContain('orgagent: the pager "no-such-pager-here" (ORGAGENT_PAGER) could not run; printing without it.\n');
    expect(screen(run)).toMatch(/\ndate +user_email/);
  });
});
