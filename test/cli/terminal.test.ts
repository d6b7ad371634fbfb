// The `orgagent` CLI in a shell: pipes closed early, a real terminal (a pseudo-terminal) against a pipe, errors in
// the CLI's own words with their exit codes, help, --version, --debug, and shell completion.
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tableColumns } from "../../generated/spec-tables.js";
import { buildProgram, walk } from "../../src/cli/program.js";
import { Context } from "../../src/cli/context.js";
import { Output } from "../../src/cli/output.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { bundleCli, cleanEnv, day, root, runOnTerminal, runProcess, runShell, writeFile, type Run } from "./support.js";

let emulator: Emulator;
let dir: string;
let bundle: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  [emulator, { dir, bundle }] = await Promise.all([startEmulator({ seed: "terminal" }), bundleCli()]);
  // `orgagent` on the PATH, as after `npm install -g`: the completion scripts call it back by that name.
  writeFile(dir, "orgagent", `#!/bin/sh\nexec "${process.execPath}" "${bundle}" "$@"\n`);
  chmodSync(join(dir, "orgagent"), 0o755);
  env = cleanEnv({
    ORGAGENT_BASE_URL: emulator.baseUrl,
    ORGAGENT_APP_URL: emulator.appUrl,
    ORGAGENT_API_KEY: emulator.keys.owner,
    PATH: `${dir}:${process.env.PATH}`,
  });
});
afterAll(() => emulator?.close());

const orgagent = (args: string[], extra: Record<string, string> = {}) =>
  runProcess(process.execPath, [bundle, ...args], { ...env, ...extra });
const onTerminal = (args: string[], columns?: number) => runOnTerminal(bundle, args, env, columns);
/** The terminal's output with its line endings as written (the terminal turns \n into \r\n). */
const screen = (run: Run) => run.stdout.replace(/\r\n/g, "\n");
const lines = (text: string) => text.trimEnd().split("\n");

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A loopback server that accepts connections, reads the requests and never answers; it counts what it holds. */
async function stalledServer() {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("data", (chunk) => (requests += (chunk.toString("latin1").match(/^(GET|PUT|POST) \//gm) ?? []).length));
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    /** Sockets still open on the server's side, `ms` after asking (a closed client's FIN takes a moment to arrive). */
    async openAfter(ms: number): Promise<number> {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return sockets.size;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.concurrent("a pipe closed early ends the command quietly", () => {
  test("orgagent --help | head -1, and a reader that is gone before anything is written (| true)", async () => {
    const [head, gone] = await Promise.all([runShell(`orgagent --help | head -1`, env), runShell(`orgagent --help | true`, env)]);
    expect(head).toMatchObject({ code: 0, stdout: "Usage: orgagent [options] [command]\n", stderr: "" });
    expect(gone).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  test("orgagent analytics users … | head -1, as a table and as ndjson", async () => {
    const [table, ndjson] = await Promise.all([
      runShell(`orgagent analytics users --days 30 | head -1`, env),
      runShell(`orgagent analytics users --days 30 --format ndjson | head -1`, env),
    ]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    expect(table.stdout).toMatch(/^user_id\tuser_email\tdate\t/);
    expect(ndjson).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(ndjson.stdout)).toHaveProperty("user_id");
  });
});

describe.concurrent("on a terminal a human view, when piped stable machine output", () => {
  test("a wide table is cut to the terminal's width, the command's first columns first, and the columns left out are named", async () => {
    const result = await onTerminal(["analytics", "activity", "--days", "3"], 80);
    expect(result.code).toBe(0);
    const [header, ...rows] = lines(screen(result));
    expect(header).toMatch(/^date +daily_active_users +sessions +messages +user_messages$/);
    expect(rows.slice(0, 3).map((row) => row.split(/ +/)[0])).toEqual([day(3), day(2), day(1)]);
    for (const line of lines(screen(result))) expect(line.length).toBeLessThanOrEqual(80);
    const note = screen(result).slice(screen(result).indexOf("(5 more"));
    expect(note.replace(/\n/g, " ")).toMatch(
      /^\(5 more columns: .*; pick columns with --columns, or see every one with --format csv or --json\) $/,
    );
    for (const column of [
      "weekly_active_users",
      "monthly_active_users",
      "daily_active_users_by_client.terminal-ui",
      "daily_active_users_by_client.web",
    ]) {
      expect(note.replace(/\n/g, " ")).toContain(` ${column}`);
    }
    const piped = await orgagent(["analytics", "activity", "--days", "3"]);
    expect(lines(piped.stdout)[0]!.split("\t")).toHaveLength(10);
    expect(piped.stderr).toBe("");
  });

  test("a wider terminal shows more columns", async () => {
    const result = await onTerminal(["analytics", "activity", "--days", "3"], 260);
    expect(lines(screen(result))[0]).toMatch(/^date +daily_active_users .* user_messages .* daily_active_users_by_client\.web .*$/);
    expect(screen(result)).not.toContain("more column");
  });

  test("one resource: key/value with ISO times on a terminal, JSON with the API's epoch milliseconds when piped", async () => {
    const [terminal, piped] = await Promise.all([
      onTerminal(["computers", "by-name", "gpu-box-1"]),
      orgagent(["computers", "by-name", "gpu-box-1"]),
    ]);
    expect([terminal.code, piped.code]).toEqual([0, 0]);
    const computer = JSON.parse(piped.stdout) as { id: string; createdAt: number };
    expect(computer.createdAt).toBeTypeOf("number");
    const view = screen(terminal);
    expect(view).toMatch(new RegExp(`^id +${computer.id}\nname +gpu-box-1\n`));
    expect(view).toMatch(new RegExp(`\ncreatedAt +${new Date(computer.createdAt).toISOString()}\n`));
    expect(view).toMatch(/\nprovisioningSteps\[1\]\.error +apt-get install exited with code 100/);
    const json = await onTerminal(["computers", "by-name", "gpu-box-1", "--json"]);
    expect(JSON.parse(screen(json))).toEqual(computer);
  });

  test("an empty list says so on a terminal, and is a header alone when piped", async () => {
    const [terminal, piped] = await Promise.all([
      onTerminal(["readiness", "list", "--repo-id", "nobody/nothing"]),
      orgagent(["readiness", "list", "--repo-id", "nobody/nothing"]),
    ]);
    expect(screen(terminal)).toBe("(no rows)\n");
    expect(piped.stdout).toBe("reportId\tcreatedAt\trepoUrl\tbranch\tcriteria_met\n");
  });

  test("report: a progress line while the data arrives, cut to the terminal's width and cleared; then the path and size", async () => {
    const out = join(dir, "terminal-report.html");
    const result = await onTerminal(["report", "--days", "3", "--out", out], 45);
    expect(result.code).toBe(0);
    const shown = result.stdout.split("\r\x1b[2K").slice(1);
    expect(shown).toContainEqual(
      expect.stringMatching(/^report: \d of 6 parts \((credits|previous period|activity|tools|productivity) done\)/),
    );
    // `report: 5 of 6 parts; users: 300 rows, 3 pages` is 46 characters: cut, or a wrapped line would stay behind.
    expect(shown).toContainEqual(expect.stringMatching(/^report: \d of 6 parts.*; users: \d+ rows/));
    for (const line of shown.slice(0, -1)) expect(line.length).toBeLessThan(45);
    expect(shown.at(-2)).toBe("report: 6 of 6 parts; drawing the charts");
    expect(shown.at(-1)!.replace(/\r\n/g, "")).toMatch(new RegExp(`^${out.replace(/[.]/g, "\\.")} \\(\\d+ kB\\)$`));
    expect(existsSync(out)).toBe(true);
  });

  test("controls diff on a terminal: which revisions, by whom, then the changed settings", async () => {
    const result = await onTerminal(["controls", "diff", "20"], 160);
    expect(screen(result)).toMatch(
      /^Revision 19 \(.+\) → 20 \(.+, by .+ <.+@acme-robotics\.com>\): \d+ settings? changed( \(\d+ reordered\))?\nsetting +change +before +after\n/,
    );
  });
});

describe("CSV cells cannot become spreadsheet formulas", () => {
  test("text starting with = + - @ or a tab is escaped; numbers, negative ones included, stay numbers", () => {
    let out = "";
    const stdout = new PassThrough().on("data", (chunk) => (out += chunk));
    new Output({ stdout, stderr: new PassThrough() }).list(
      [
        { name: '=HYPERLINK("http://evil")', value: -5, note: "-1+2", at: "@SUM(A1)", plus: "+1", fine: "a,b" },
        { name: "\tcmd", value: 3.5, note: "ok", at: "", plus: null, fine: true },
      ],
      { format: "csv" },
    );
    expect(out).toBe(
      ["name,value,note,at,plus,fine", `"'=HYPERLINK(""http://evil"")",-5,'-1+2,'@SUM(A1),'+1,"a,b"`, "'\tcmd,3.5,ok,,,true", ""].join(
        "\n",
      ),
    );
  });
});

test("an empty list in CSV is its header alone, with the spec's columns of the row", () => {
  let out = "";
  const stdout = new PassThrough().on("data", (chunk) => (out += chunk));
  new Output({ stdout, stderr: new PassThrough() }).list([], { format: "csv" }, { columns: tableColumns.UserRow });
  expect(out).toBe(`${tableColumns.UserRow.join(",")}\n`);
  expect(out).toMatch(/^user_id,user_email,date,/);
});

describe.concurrent("errors in the CLI's own words: one prefix, the cause on one line, what to do on the next", () => {
  const twoLines = (run: Run) => {
    const [cause, hint, ...rest] = lines(run.stderr);
    expect(rest).toEqual([]);
    expect(cause).toMatch(/^orgagent: /);
    expect(hint).not.toMatch(/^orgagent: |^error: /);
    return { cause: cause!, hint: hint! };
  };

  test("a date after yesterday names --end and says what range is allowed (exit 2, nothing sent)", async () => {
    const result = await orgagent(["analytics", "tokens", "--start", day(3), "--end", day(-1)]);
    expect(result.code).toBe(2);
    const { cause, hint } = twoLines(result);
    expect(cause).toBe(`orgagent: --end ${day(-1)} is not allowed: expected a date up to ${day(1)} (yesterday, UTC).`);
    expect(hint).toContain("--days N and --month YYYY-MM");
    expect(result.stderr).not.toMatch(/query\.|endDate/);
  });

  test("--page-size 0 names --page-size and its bounds, not query.limit", async () => {
    const result = await orgagent(["analytics", "users", "--days", "2", "--page-size", "0"]);
    expect(result.code).toBe(2);
    const { cause, hint } = twoLines(result);
    expect(cause).toContain("--page-size takes a whole number from 1 to 100.");
    expect(hint).toBe("Run 'orgagent analytics users --help' for usage.");
    expect(result.stderr).not.toContain("query.limit");
  });

  test("a bad base URL names the variable or the flag it came from", async () => {
    const [variable, flag] = await Promise.all([
      orgagent(["computers", "get", "x"], { ORGAGENT_BASE_URL: "localhost:4000" }),
      orgagent(["computers", "get", "x", "--base-url", "ftp://example.com"]),
    ]);
    expect([variable.code, flag.code]).toEqual([2, 2]);
    expect(twoLines(variable).cause).toBe('orgagent: ORGAGENT_BASE_URL is not an http(s) URL: "localhost:4000".');
    expect(twoLines(flag).cause).toBe('orgagent: --base-url is not an http(s) URL: "ftp://example.com".');
    expect(variable.stderr).not.toContain("Invalid baseUrl");
  });

  test("a 404 from a host that is not the API's says to check the host; from the API, the id or name and the host", async () => {
    // Another web server: 404 and an HTML page for every path.
    const other = createServer((_, response) => response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const [appHost, page, computerThere, session] = await Promise.all([
        // The emulator's app host given as the API host: it serves no analytics.
        orgagent(["analytics", "tokens", "--days", "2"], { ORGAGENT_BASE_URL: emulator.appUrl }),
        orgagent(["sessions", "get", "sess_1"], { ORGAGENT_BASE_URL: otherUrl }),
        orgagent(["computers", "get", "build-box-eu-1"], { ORGAGENT_BASE_URL: otherUrl }),
        orgagent(["sessions", "get", "sess_nope"]),
      ]);
      expect([appHost.code, page.code, computerThere.code, session.code]).toEqual([1, 1, 1, 1]);
      expect(twoLines(appHost).hint).toBe("Nothing is served at this path there: check the host in ORGAGENT_BASE_URL.");
      expect(twoLines(page).hint).toBe("Nothing is served at this path there: check the host in ORGAGENT_BASE_URL.");
      expect(twoLines(computerThere)).toEqual({
        cause: `orgagent: no computer "build-box-eu-1", and ${otherUrl} answers 404 to the API's other paths too.`,
        hint: "Check the host in ORGAGENT_BASE_URL: it does not seem to be the API's.",
      });
      expect(twoLines(session).hint).toBe("Check the id or name (they are case-sensitive), and the host in ORGAGENT_BASE_URL.");
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test("a refused connection fails at once, not after silent retries (exit 1)", async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const [result, debug] = await Promise.all([
      orgagent(["computers", "get", "x"], { ORGAGENT_BASE_URL: base }),
      orgagent(["computers", "get", "x", "--debug"], { ORGAGENT_BASE_URL: base }),
    ]);
    expect(result.code).toBe(1);
    const { cause, hint } = twoLines(result);
    expect(cause).toBe(`orgagent: cannot connect to ${base}: connection refused (not retried).`);
    expect(hint).toBe("Is the server running? Check ORGAGENT_BASE_URL.");
    // One attempt: the SDK's retries would each log a request (and wait 0.5 s, then 1 s, first).
    expect(debug.stderr.match(/\[orgagent\] → GET/g)).toHaveLength(1);
  });

  test("a server that accepts and never answers: --request-timeout 1 gives up after 3 attempts of 1 s, prints one error and exits at once, leaving no socket open", async () => {
    const [flagServer, variableServer] = await Promise.all([stalledServer(), stalledServer()]);
    try {
      const [flag, variable] = await Promise.all([
        orgagent(["computers", "get", "cmp_1", "--request-timeout", "1"], { ORGAGENT_BASE_URL: flagServer.url }),
        orgagent(["computers", "by-name", "build-box-eu-1"], { ORGAGENT_BASE_URL: variableServer.url, ORGAGENT_REQUEST_TIMEOUT: "1" }),
      ]);
      for (const [run, server, source, call] of [
        [flag, flagServer, "--request-timeout", "getComputer: GET /api/v0/computers/cmp_1"],
        [variable, variableServer, "ORGAGENT_REQUEST_TIMEOUT", "getComputerByName: GET /api/v0/computers/name/build-box-eu-1"],
      ] as const) {
        expect([run.code, run.stdout]).toEqual([1, ""]);
        const [operation, path] = call.split(": GET ");
        expect(twoLines(run)).toEqual({
          cause: `orgagent: no answer from ${server.url} within 1 s (${source}), 3 attempts [${operation}: GET ${server.url}${path}].`,
          hint: "Check ORGAGENT_BASE_URL and the network, or try again later; --request-timeout SECONDS gives each request longer.",
        });
        // Three attempts of a second, with the SDK's back-off between them (0.5 s, then 1 s, at most) and Node's
        // start on a loaded machine: not the default's three minutes, nor even its first attempt's 60 s.
        expect(server.requests).toBe(3);
        const ms = run.exitedAt! - run.startedAt;
        expect(ms).toBeGreaterThan(3_000);
        expect(ms).toBeLessThan(20_000);
        // The error is the last thing the process does: no socket or timer keeps it alive.
        expect(run.exitedAt! - run.stderrAt!).toBeLessThan(1_000);
        expect(await server.openAfter(200)).toBe(0);
      }
    } finally {
      await Promise.all([flagServer.close(), variableServer.close()]);
    }
  });

  test("--request-timeout and ORGAGENT_REQUEST_TIMEOUT take whole seconds, 1 or more (exit 2, nothing sent)", async () => {
    const [fraction, zero, variable] = await Promise.all([
      orgagent(["computers", "get", "x", "--request-timeout", "0.5"]),
      orgagent(["computers", "get", "x", "--request-timeout", "0"]),
      orgagent(["computers", "get", "x"], { ORGAGENT_REQUEST_TIMEOUT: "1m" }),
    ]);
    expect([fraction.code, zero.code, variable.code]).toEqual([2, 2, 2]);
    for (const run of [fraction, zero, variable]) expect(twoLines(run).cause).toContain("--request-timeout takes whole seconds, 1 or more");
    expect(twoLines(variable).cause).toContain("ORGAGENT_REQUEST_TIMEOUT");
  });

  test("401 says which variable or flag holds the key and which roles analytics need", async () => {
    const [variable, flag] = await Promise.all([
      orgagent(["analytics", "tokens", "--days", "2"], { ORGAGENT_API_KEY: "wrong-key-123" }),
      orgagent(["analytics", "tokens", "--days", "2", "--api-key", "wrong-key-123"]),
    ]);
    expect([variable.code, flag.code]).toEqual([1, 1]);
    expect(twoLines(variable).cause).toMatch(
      /^orgagent: the API answered 401 Unauthorized: .+ \(request req_\w+\) \[getAnalyticsTokens: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/analytics\/tokens\?startDate=[\d-]+&endDate=[\d-]+\]$/,
    );
    expect(twoLines(variable).hint).toBe(
      "Check the key in ORGAGENT_API_KEY; analytics and reports, usage limits and enterprise controls need a Manager or Owner key.",
    );
    expect(twoLines(flag).hint).toMatch(/^Check the key in --api-key;/);
  });

  test("an unknown log level in ORGAGENT_LOG is named (exit 2)", async () => {
    const result = await orgagent(["computers", "get", "x"], { ORGAGENT_LOG: "loud" });
    expect(result.code).toBe(2);
    expect(twoLines(result)).toEqual({
      cause: "orgagent: ORGAGENT_LOG=loud is not a log level.",
      hint: "Use off, error, warn, info or debug (or pass --debug).",
    });
  });

  test("commander's own errors carry the same single prefix", async () => {
    const result = await orgagent(["analytics", "tokens", "--bogus"]);
    expect(result.code).toBe(2);
    expect(twoLines(result)).toEqual({
      cause: "orgagent: unknown option '--bogus'",
      hint: "Run 'orgagent analytics tokens --help' for usage.",
    });
  });
});

describe.concurrent("--debug and ORGAGENT_LOG: requests logged on stderr, the key never", () => {
  test.each([
    ["--debug", ["--debug"], {}],
    ["ORGAGENT_LOG=debug", [], { ORGAGENT_LOG: "debug" }],
  ])("%s", async (_name, flags, extra) => {
    const result = await orgagent([...flags, "computers", "by-name", "build-box-eu-1"], extra);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: "build-box-eu-1" });
    expect(result.stderr).toMatch(/^\[orgagent\] → GET \/api\/v0\/computers\/name\/\{name\} .*"Authorization":"\*\*\*"/m);
    expect(result.stderr).toMatch(/^\[orgagent\] ← GET .*"status":200/m);
    expect(result.stderr).not.toContain(emulator.keys.owner);
  });

  test("without either, stderr stays empty", async () => {
    expect((await orgagent(["computers", "by-name", "build-box-eu-1"])).stderr).toBe("");
  });
});

describe.concurrent("help and --version", () => {
  test("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    expect(await orgagent(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  test("help <command> <subcommand> shows the subcommand; an unknown one is a usage error", async () => {
    const [help, flag, unknown] = await Promise.all([
      orgagent(["help", "analytics", "users"]),
      orgagent(["analytics", "users", "--help"]),
      orgagent(["help", "analytics", "costs"]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: orgagent analytics users \[options\]/);
    expect(help.stdout).toBe(flag.stdout);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("orgagent: unknown command 'analytics costs'.\nRun 'orgagent analytics --help' for its commands.\n");
  });

  test("--help lists every command group and the exit codes", async () => {
    const { code, stdout } = await orgagent(["--help"]);
    expect(code).toBe(0);
    for (const group of ["analytics", "report", "limits", "sessions", "computers", "readiness", "controls", "help", "completion"])
      expect(stdout).toContain(`  ${group}`);
    expect(stdout).toMatch(/Exit codes:[\s\S]*3 {2}Partial failure/);
    expect(stdout.replace(/\s+/g, " ")).toContain(
      "--request-timeout <seconds> Give up on a request after this many seconds; the SDK retries reads up to twice (default: 60) (env: ORGAGENT_REQUEST_TIMEOUT)",
    );
  });

  test("docs/cli.md's configuration table names every global flag with its variable", () => {
    const program = buildProgram(new Context({ stdout: new PassThrough(), stderr: new PassThrough() }));
    const table = readFileSync(join(root, "docs/cli.md"), "utf8").split("## Configuration")[1]!.split("\n## ")[0]!;
    const globals = program.options.filter((option) => !option.hidden && !["--help", "--version"].includes(option.long!));
    expect(globals.map((option) => option.long)).toContain("--request-timeout");
    for (const option of globals) {
      const variable = option.envVar ?? (option.long === "--debug" ? "ORGAGENT_LOG" : undefined);
      expect(table, option.long).toMatch(new RegExp(`\\| \`${variable}\` \\| \`${option.long}\` \\|`));
    }
  });

  test("every command's help has Examples and the global flags; required flags are marked; durations say their unit", () => {
    const program = buildProgram(new Context({ stdout: new PassThrough(), stderr: new PassThrough() }));
    const commands = [...walk(program)].filter((c) => c.name() !== "complete");
    expect(commands.length).toBeGreaterThan(25);
    for (const command of commands) {
      const help = command.helpInformation() + helpAfter(command);
      expect(help, command.name()).toMatch(/\nExamples:\n {2}\$ \S/);
      if (command !== program) expect(help, command.name()).toMatch(/Global Options:[\s\S]*--api-key <key>[\s\S]*--debug/);
      // A description may wrap onto the lines under it: read those as one.
      for (const option of command.options)
        if (option.mandatory)
          expect(help.replace(/\n {3,}/g, " "), option.flags).toMatch(new RegExp(`${option.long}[^\\n]*\\(required\\)`));
      for (const option of command.options.filter((o) => /timeout|interval/.test(o.long ?? "")))
        expect(option.description).toMatch(/seconds/);
    }
  });
});

/** The "after" help text of a command (commander emits it only on --help, not in helpInformation). */
function helpAfter(command: import("commander").Command): string {
  let text = "";
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: () => {} });
  command.outputHelp();
  return text;
}

/**
 * Whether a real-shell completion test runs: when its shell is installed, and always under CI (`.ci/run` installs
 * bash-completion, zsh and fish), where a missing shell must fail the test rather than skip it.
 */
const shellPresent = (path: string) => existsSync(path) || process.env.CI === "true";

describe.concurrent("shell completion, computed from the command tree", () => {
  test("completion bash|zsh|fish prints a script that calls `orgagent complete --` back", async () => {
    const runs = await Promise.all(["bash", "zsh", "fish"].map((shell) => orgagent(["completion", shell])));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(runs[0]!.stdout).toContain("complete -F __orgagent_complete orgagent");
    expect(runs[1]!.stdout).toMatch(/^#compdef orgagent/);
    expect(runs[2]!.stdout).toContain("complete -c orgagent");
    for (const run of runs) expect(run.stdout).toMatch(/orgagent complete --/);
    const wrong = await orgagent(["completion", "tcsh"]);
    expect(wrong.code).toBe(2);
  });

  test("complete -- gives subcommands, flags, and the choices the spec allows", async () => {
    const [groups, subcommands, choices] = await Promise.all([
      orgagent(["complete", "--", ""]),
      orgagent(["complete", "--", "analytics", ""]),
      orgagent(["complete", "--", "analytics", "tokens", "--group-by", ""]),
    ]);
    const names = (run: Run) =>
      lines(run.stdout)
        .filter((line) => !line.startsWith(":"))
        .map((line) => line.split("\t")[0]);
    expect(names(groups)).toEqual(
      expect.arrayContaining(["analytics", "report", "limits", "sessions", "computers", "readiness", "controls"]),
    );
    expect(names(subcommands)).toEqual(expect.arrayContaining(["tokens", "tools", "activity", "productivity", "users"]));
    expect(names(choices)).toEqual(["model"]);
  });

  test.runIf(shellPresent("/usr/share/bash-completion/bash_completion"))("bash completes a subcommand from its first letter", async () => {
    const script = [
      "source /usr/share/bash-completion/bash_completion",
      "source <(orgagent completion bash)",
      'COMP_LINE="orgagent analytics to"; COMP_WORDS=(orgagent analytics to); COMP_CWORD=2; COMP_POINT=${#COMP_LINE}',
      '__orgagent_complete 2>/dev/null; printf "%s\\n" "${COMPREPLY[@]}"',
    ].join("\n");
    expect((await runProcess("bash", ["-c", script], env)).stdout).toBe("tokens\ntools\n");
  });

  test.runIf(shellPresent("/usr/bin/fish"))("fish completes subcommands and --group-by values", async () => {
    const result = await runProcess(
      "fish",
      ["-c", 'orgagent completion fish | source; complete -C "orgagent analytics to"; complete -C "orgagent analytics tools --group-by "'],
      env,
    );
    expect(lines(result.stdout).map((line) => line.split("\t")[0])).toEqual(["tokens", "tools", "tool_name"]);
  });

  test.runIf(shellPresent("/usr/bin/zsh"))("the zsh script parses, and completes subcommands and --group-by values", async () => {
    const file = writeFile(dir, "_orgagent", (await orgagent(["completion", "zsh"])).stdout);
    expect(await runProcess("zsh", ["-n", file], env)).toMatchObject({ code: 0, stderr: "" });
    // Outside an interactive shell there is no completion system: `compdef` is a no-op and `_describe`, which the
    // script hands its candidates to, prints them (`name:description`) instead of offering them.
    const script = [
      "compdef() { :; }",
      '_describe() { print -rl -- "${completions[@]}"; }',
      `source ${file}`,
      "words=(orgagent analytics to); CURRENT=3; _orgagent",
      'words=(orgagent analytics tools --group-by ""); CURRENT=5; _orgagent',
    ].join("\n");
    const result = await runProcess("zsh", ["-c", script], env);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(lines(result.stdout).map((line) => line.split(":")[0])).toEqual(["tokens", "tools", "tool_name"]);
  });
});
