// The `orgagent` CLI as a user runs it: a subprocess against the emulator, configured by ORGAGENT_* variables
// or flags, with its output formats, its exit codes and bad input. The CLI is bundled once with esbuild (as the
// package ships it: commander and csv-parse inlined), because `node --import tsx` costs about a second per run;
// one test also runs the source through tsx, the way a contributor does.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PassThrough } from "node:stream";
import { run } from "../../src/cli.js";
import { replyIdOf, startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, type UserRow } from "../../src/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const DAY = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
const range = ["--start", day(3), "--end", day(1)];
// Replies take 30 s of emulator time: a test moves the emulator's clock (`offset`) instead of waiting.
const TIMING = { sessionStartMs: 100, replyMs: 30_000, installMs: 3_600_000 };
let offset = 0;

let emulator: Emulator;
let sdk: OrgAgent;
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "orgagent-cli-"));
  bundle = join(dir, "orgagent.mjs");
  [emulator] = await Promise.all([
    startEmulator({ seed: "cli", timing: TIMING, now: () => Date.now() + offset }),
    build({
      entryPoints: [join(root, "src/cli.ts")],
      outfile: bundle,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
      // commander is CommonJS and requires node built-ins; an ES module bundle needs a `require` for it.
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    }),
  ]);
  sdk = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner });
});
afterAll(() => emulator?.close());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with the emulator's URLs and owner key in the environment (overridable per call). */
function orgagent(args: string[], env: Record<string, string> = {}, { source = false } = {}): Promise<Run> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ORGAGENT_")));
  const entry = source ? ["--import", "tsx", "src/cli.ts"] : [bundle];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: root,
    env: {
      ...inherited,
      ORGAGENT_BASE_URL: emulator.baseUrl,
      ORGAGENT_APP_URL: emulator.appUrl,
      ORGAGENT_API_KEY: emulator.keys.owner,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

function csvFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const computer = (name: string) => emulator.org.computers.find((c) => c.name === name)!.id;

describe.concurrent("help and usage", () => {
  test("runs from source through tsx", async () => {
    const [help, computerRun] = await Promise.all([
      orgagent(["--help"], {}, { source: true }),
      orgagent(["computers", "by-name", "build-box-eu-1"], {}, { source: true }),
    ]);
    expect([help.code, computerRun.code]).toEqual([0, 0]);
    expect(help.stdout).toContain("Usage: orgagent");
    expect(JSON.parse(computerRun.stdout)).toMatchObject({ name: "build-box-eu-1", status: "active" });
  });

  test("--help lists every command group and the exit codes (exit 0)", async () => {
    const { code, stdout } = await orgagent(["--help"]);
    expect(code).toBe(0);
    for (const group of ["analytics", "limits", "sessions", "computers", "readiness", "controls"]) expect(stdout).toContain(group);
    expect(stdout).toMatch(/Exit codes:[\s\S]*3 {2}partial failure/);
  });

  test("--help works on every subcommand", async () => {
    const runs = await Promise.all([
      orgagent(["analytics", "users", "--help"]),
      orgagent(["limits", "set", "--help"]),
      orgagent(["sessions", "wait", "--help"]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(runs[0]!.stdout).toContain("--page-size");
    expect(runs[1]!.stdout).toContain("line number");
    expect(runs[2]!.stdout).toContain("--timeout");
  });

  test("usage errors exit 2: unknown command, missing option, unknown format, bad number", async () => {
    const runs = await Promise.all([
      orgagent(["analytics", "costs"]),
      orgagent(["analytics", "tokens", "--start", day(2)]),
      orgagent(["analytics", "tokens", ...range, "--format", "xml"]),
      orgagent(["analytics", "users", ...range, "--page-size", "ten"]),
      orgagent(["analytics"]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
    expect(runs[0]!.stderr).toContain("unknown command");
    expect(runs[1]!.stderr).toContain("--end");
    expect(runs[2]!.stderr).toContain("table, json, ndjson, csv");
  });

  test("missing configuration exits 2 and names the flag and the variable", async () => {
    const noKey = await orgagent(["computers", "get", "x"], { ORGAGENT_API_KEY: "" });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("--api-key or set ORGAGENT_API_KEY");
    const noApp = await orgagent(["readiness", "list"], { ORGAGENT_APP_URL: "" });
    expect(noApp.code).toBe(2);
    expect(noApp.stderr).toContain("ORGAGENT_APP_URL");
  });
});

describe.concurrent("analytics", () => {
  test("json output is the rows the SDK returns; flags override the environment", async () => {
    const { code, stdout } = await orgagent(["analytics", "tokens", ...range, "--format", "json", "--group-by", "model", "--api-key", emulator.keys.manager], {
      ORGAGENT_API_KEY: emulator.keys.member, // would get 403: the flag must win
    });
    expect(code).toBe(0);
    const expected = await sdk.analytics.tokens({ startDate: day(3), endDate: day(1), group_by: "model" });
    expect(JSON.parse(stdout)).toEqual(expected.data);
  });

  test("table and csv show one line per row, nested objects flattened to dotted columns", async () => {
    const [table, csv] = await Promise.all([
      orgagent(["analytics", "activity", ...range]),
      orgagent(["analytics", "activity", ...range, "--format", "csv"]),
    ]);
    expect([table.code, csv.code]).toEqual([0, 0]);
    const header = csv.stdout.trim().split("\n")[0]!;
    expect(header.split(",")).toEqual(expect.arrayContaining(["date", "daily_active_users", "daily_active_users_by_client.web"]));
    expect(csv.stdout.trim().split("\n")).toHaveLength(1 + 3);
    expect(table.stdout.trim().split("\n")).toHaveLength(1 + 3);
    expect(table.stdout.split("\n")[0]).toMatch(/^date\s+daily_active_users\s+weekly_active_users/);
  });

  test("users pages through everything; ndjson streams one row a line; no progress line when stderr is not a terminal", async () => {
    const { code, stdout, stderr } = await orgagent(["analytics", "users", ...range, "--format", "ndjson", "--page-size", "50"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const rows = stdout.trim().split("\n").map((line) => JSON.parse(line) as UserRow);
    const expected: UserRow[] = [];
    for await (const row of sdk.analytics.users({ startDate: day(3), endDate: day(1), limit: 100 })) expected.push(row);
    expect(rows.length).toBeGreaterThan(100);
    expect(rows).toEqual(expected);
  });

  test("a progress line on stderr when stderr is a terminal, cleared at the end", async () => {
    // In process, to give the CLI a terminal: the same `run` the bin calls, with a stderr that says it is a TTY.
    const stdout = new PassThrough();
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    let out = "";
    let err = "";
    stdout.on("data", (chunk) => (out += chunk));
    stderr.on("data", (chunk) => (err += chunk));
    const flags = ["--api-key", emulator.keys.owner, "--base-url", emulator.baseUrl];
    const io = { stdout, stderr } as unknown as Parameters<typeof run>[1];
    const code = await run([...flags, "analytics", "users", ...range, "--page-size", "100", "--format", "csv"], io);
    expect(code).toBe(0);
    expect(err).toMatch(/\r\x1b\[2Kusers: 100 rows, 1 page\r\x1b\[2Kusers: 200 rows, 2 pages/);
    expect(err.endsWith("\r\x1b[2K")).toBe(true);
    expect(out.trim().split("\n").length).toBeGreaterThan(200);
  });

  test("today's date exits 2 before anything is sent", async () => {
    const { code, stderr } = await orgagent(["analytics", "productivity", "--start", day(1), "--end", day(0)]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/nothing was sent.*endDate/);
  });

  test("an API error exits 1 with the status and the detail: a member key on analytics", async () => {
    const { code, stderr } = await orgagent(["analytics", "tools", ...range], { ORGAGENT_API_KEY: emulator.keys.member });
    expect(code).toBe(1);
    expect(stderr).toMatch(/403 Forbidden: .*Member/);
  });
});

describe("limits set", () => {
  test("applies every entry of a file with a header, in chunks (exit 0)", async () => {
    const users = emulator.org.users;
    const file = csvFile("all.csv", ["email,limit", ...users.map((u, i) => `${u.email},${500 + i}`)].join("\n"));
    const { code, stdout } = await orgagent(["limits", "set", "--file", file]);
    expect([code, stdout.trim()]).toEqual([0, `Applied ${users.length} of ${users.length} limits; rejected 0.`]);
    expect(emulator.limits().get(users.at(-1)!.email)).toBe(500 + users.length - 1);
  });

  test("rejected entries are listed with their lines and the exit code is 3; columns may come in any order", async () => {
    const [a, b] = emulator.org.users;
    const file = csvFile("mixed.csv", `limit,email\n7000,${a!.email}\n5,nobody@acme-robotics.com\n-1,${b!.email}\n`);
    const { code, stdout } = await orgagent(["limits", "set", "--file", file]);
    expect(code).toBe(3);
    expect(stdout).toContain("Applied 1 of 3 limits; rejected 2.");
    expect(stdout).toMatch(/line 3 {2}nobody@acme-robotics\.com: No user/);
    expect(stdout).toMatch(new RegExp(`line 4 {2}${b!.email.replace(/\./g, "\\.")}: The limit must be zero or more`));
    expect(emulator.limits().get(a!.email)).toBe(7000);
  });

  test("malformed rows are all reported with their line numbers and nothing is sent (exit 2)", async () => {
    const [a, b] = emulator.org.users;
    const before = emulator.limits();
    const file = csvFile("bad.csv", `${a!.email},123456\n\n${b!.email}\nnot-an-email,5\n${b!.email},lots\n${a!.email},1,2\n`);
    const { code, stdout, stderr } = await orgagent(["limits", "set", "--file", file]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("4 malformed rows, nothing was sent");
    for (const line of [3, 4, 5, 6]) expect(stderr).toContain(`line ${line}:`);
    expect(stderr).not.toContain("line 1:");
    expect(emulator.limits()).toEqual(before);
  });

  test("a key that may not set limits exits 1 with the 403, and nothing is applied", async () => {
    const [a] = emulator.org.users;
    const before = emulator.limits();
    const file = csvFile("member.csv", `email,limit\n${a!.email},9000\n`);
    const { code, stderr } = await orgagent(["limits", "set", "--file", file], { ORGAGENT_API_KEY: emulator.keys.member });
    expect(code).toBe(1);
    expect(stderr).toMatch(/403/);
    expect(emulator.limits()).toEqual(before);
  });

  test("an unreadable or empty file exits 2", async () => {
    const [missing, empty] = await Promise.all([
      orgagent(["limits", "set", "--file", join(dir, "missing.csv")]),
      orgagent(["limits", "set", "--file", csvFile("empty.csv", "email,limit\n")]),
    ]);
    expect([missing.code, empty.code]).toEqual([2, 2]);
    expect(missing.stderr).toContain("cannot read");
  });
});

describe("sessions, computers, readiness, controls", () => {
  test("create, send, wait until idle, read the reply", async () => {
    const created = await orgagent(["sessions", "create", "--computer", computer("build-box-eu-1"), "--cwd", "/srv/app"]);
    expect(created.code).toBe(0);
    const { sessionId, status } = JSON.parse(created.stdout) as { sessionId: string; status: string };
    expect(status).toBe("pending");

    const sent = await orgagent(["sessions", "send", sessionId, "make", "the", "build", "faster"]);
    const { messageId } = JSON.parse(sent.stdout) as { messageId: string };
    const tooSoon = await orgagent(["sessions", "wait", sessionId, "--timeout", "1", "--interval", "100"]);
    expect(tooSoon.code).toBe(4);
    expect(tooSoon.stderr).toMatch(/still (pending|running) after 1 s/);

    offset += TIMING.sessionStartMs + TIMING.replyMs;
    const waited = await orgagent(["sessions", "wait", sessionId, "--interval", "200"]);
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ sessionId, status: "idle", messageCount: 2 });
    const reply = await orgagent(["sessions", "message", sessionId, replyIdOf(messageId), "--format", "text"]);
    expect(reply.stdout).toContain('"make the build faster"');
    const got = await orgagent(["sessions", "get", sessionId]);
    expect(JSON.parse(got.stdout)).toMatchObject({ title: "make the build faster" });
  });

  test("computers by id and by name; retry-install is accepted once, then refused while it runs", async () => {
    const [byId, byName] = await Promise.all([
      orgagent(["computers", "get", computer("gpu-box-1")]),
      orgagent(["computers", "by-name", "gpu-box-1"]),
    ]);
    expect(JSON.parse(byId.stdout)).toEqual(JSON.parse(byName.stdout));
    const retried = await orgagent(["computers", "retry-install", computer("gpu-box-1")]);
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ status: "provisioning" });
    const again = await orgagent(["computers", "retry-install", computer("gpu-box-1")]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("409 Conflict");
    const unknown = await orgagent(["computers", "by-name", "nope"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("404 Not Found")]);
  });

  test("readiness list and controls history page through everything", async () => {
    const [reports, history] = await Promise.all([
      orgagent(["readiness", "list", "--page-size", "7", "--format", "ndjson"]),
      orgagent(["controls", "history", "--page-size", "10", "--format", "csv"]),
    ]);
    expect([reports.code, history.code]).toEqual([0, 0]);
    const all = (await sdk.readiness.list({ limit: 1000 })).reports;
    expect(reports.stdout.trim().split("\n").map((l) => JSON.parse(l).reportId)).toEqual(all.map((r) => r.reportId));
    const lines = history.stdout.trim().split("\n");
    expect(lines[0]).toBe("revision,updatedAt,email,name,settings");
    const revisions = lines.slice(1).map((line) => Number(line.split(",")[0]));
    expect(revisions).toEqual(Array.from({ length: revisions.length }, (_, i) => revisions.length - i));
  });
});
