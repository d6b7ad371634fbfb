// Text from a server (or a file) never drives the terminal the CLI runs on. A loopback server answers with names,
// messages, reasons and headers that carry an OSC 52 clipboard write, a screen clear, an OSC 8 hyperlink, a carriage
// return that would overwrite the line, a C1 CSI and a DEL; the CLI runs on a real pseudo-terminal and every one of
// them must come out as visible text. Piped, --json and --format csv are the data exactly as sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Output } from "../../src/cli/output.js";
import { successExample } from "../support/spec.js";
import { bundleCli, cleanEnv, day, runOnTerminal, runProcess, writeFile, type Run } from "./support.js";

const CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07";
const CLEAR = "\x1b[2J\x1b[H";
const LINK = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07";
const HOSTILE = `box${CLIPBOARD}${CLEAR}${LINK}\rOVERWRITTEN\x9b31mred\x7f`;
/** The same text as the terminal must show it. */
const SHOWN =
  "box\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x1b[H\\x1b]8;;https://evil.example/\\x07click\\x1b]8;;\\x07\\rOVERWRITTEN\\x9b31mred\\x7f";
// A header value may carry bytes 0x80-0xff (obs-text): 0x9b arrives as the C1 CSI.
const HOSTILE_HEADER = "req\x9b2J\x9b31m";

let server: Server;
let base: string;
let dir: string;
let bundle: string;
let env: NodeJS.ProcessEnv;

const computer = { ...successExample("getComputer"), id: "cmp_evil", name: HOSTILE };
computer.provisioningSteps = computer.provisioningSteps.map((step: object) => ({ ...step, error: `failed:\n${HOSTILE}` }));

/** The answers of the loopback server, by method and path. */
function answer(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, "http://x");
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", "x-request-id": HOSTILE_HEADER, "x-note": HOSTILE_HEADER, ...headers });
    res.end(JSON.stringify(body));
  };
  const route = `${req.method} ${url.pathname}`;
  if (route === "GET /api/v0/computers/cmp_evil") return json(200, computer);
  if (route === "GET /api/v0/computers/cmp_waiting") return json(200, { ...computer, id: "cmp_waiting", status: `provisioning${CLEAR}` });
  // A session, not a computer: `computers get` would look a missing id up as a name too, and report that.
  if (route === "GET /api/v0/sessions/sess_gone")
    return json(404, { title: HOSTILE, detail: `gone\n${HOSTILE}`, status: 404, requestId: HOSTILE });
  if (route === "GET /api/v0/computers/cmp_broken")
    return json(503, { title: "Unavailable", status: 503 }, { "x-request-id": HOSTILE_HEADER });
  if (route === "GET /api/v0/sessions/sess_1/messages/msg_1") {
    return json(200, { ...successExample("getSessionMessage"), content: [{ type: "text", text: `first line\n\tindented${HOSTILE}` }] });
  }
  if (route === "GET /api/v1/analytics/activity") {
    const row = successExample("getAnalyticsActivity").data[0];
    return json(200, {
      data: [{ ...row, daily_active_users_by_client: { web: 2, [HOSTILE]: 3 } }],
      meta: { org_id: HOSTILE, start_date: day(2), end_date: day(1) },
    });
  }
  if (route === "GET /api/v1/analytics/tokens") {
    const row = { date: day(1), billable_tokens: 5, input_tokens: 1, output_tokens: 1 };
    const data = [
      { ...row, group_key: HOSTILE },
      { ...row, group_key: '=HYPERLINK("https://evil.example","x")' },
    ];
    return json(200, { data, meta: { org_id: "org_1", start_date: day(1), end_date: day(1) } });
  }
  if (route === "PUT /api/v0/organization/usage/limits/users") {
    let text = "";
    req
      .on("data", (chunk) => (text += chunk))
      .on("end", () => {
        const { users } = JSON.parse(text) as { users: Array<{ email: string }> };
        json(200, { updated: [], errors: users.map(({ email }) => ({ email, error: `refused: ${HOSTILE}` })) });
      });
    return;
  }
  json(404, { title: "Not Found", status: 404 });
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ dir, bundle } = await bundleCli());
  env = cleanEnv({ ORGAGENT_BASE_URL: base, ORGAGENT_API_KEY: "oa-test-key-123456" });
});
afterAll(() => new Promise((resolve) => server?.close(resolve)));

const onTerminal = (args: string[], extra: Record<string, string> = {}) => runOnTerminal(bundle, args, { ...env, ...extra }, 200);
const piped = (args: string[]) => runProcess(process.execPath, [bundle, ...args], env);

/**
 * What the program wrote to the terminal, once the terminal's own line endings (\r\n for \n) and the CLI's own
 * progress-line clearing (\r ESC[2K) are taken out: nothing else may be a control character but the line feed.
 */
function controlsLeft(run: Run): string[] {
  const text = run.stdout.replace(/\r\n/g, "\n").replace(/\r\x1b\[2K/g, "");
  return [...text.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g)].map(
    ([char]) => `U+${char.codePointAt(0)!.toString(16).padStart(4, "0")}`,
  );
}
const screen = (run: Run) => run.stdout.replace(/\r\n/g, "\n");

describe.concurrent("on a terminal, text from the server is shown, never obeyed", () => {
  test("computers get: the name and a multi-line error as visible escapes; the error's own line break is kept, indented", async () => {
    const run = await onTerminal(["computers", "get", "cmp_evil"]);
    expect(run.code).toBe(0);
    expect(controlsLeft(run)).toEqual([]);
    expect(screen(run)).toMatch(new RegExp(`\nname +${escapeRegExp(SHOWN)}\n`));
    // The error's line break is the text's own: kept, and indented under its key so it cannot pose as another key.
    expect(screen(run)).toMatch(new RegExp(`\nprovisioningSteps\\[0\\]\\.error +failed:\n {20,}${escapeRegExp(SHOWN)}\n`));
  });

  test("an API error: the server's title, detail and request id on the one line of the cause", async () => {
    const run = await onTerminal(["sessions", "get", "sess_gone"]);
    expect(run.code).toBe(1);
    expect(controlsLeft(run)).toEqual([]);
    const [cause, hint, ...rest] = screen(run).trimEnd().split("\n");
    expect(rest).toEqual([]);
    expect(cause).toContain(`404 ${SHOWN}: gone\\n${SHOWN}`);
    expect(hint).toBe("Check the id or name (they are case-sensitive), and the host in ORGAGENT_BASE_URL.");
  });

  test("a 5xx hint quoting the request id the server sent in a header", async () => {
    const run = await onTerminal(["computers", "get", "cmp_broken", "--request-timeout", "1"]);
    expect(run.code).toBe(1);
    expect(controlsLeft(run)).toEqual([]);
    expect(screen(run)).toContain("quote request req\\x9b2J\\x9b31m");
  });

  test("a table: a hostile map key as a column, a hostile value as a cell; the note naming hidden columns too", async () => {
    const [wide, narrow] = await Promise.all([
      onTerminal(["analytics", "activity", "--days", "2"]),
      runOnTerminal(bundle, ["analytics", "activity", "--days", "2"], env, 80),
    ]);
    for (const run of [wide, narrow]) {
      expect(run.code).toBe(0);
      expect(controlsLeft(run)).toEqual([]);
    }
    expect(screen(wide)).toContain(`daily_active_users_by_client.${SHOWN.slice(0, 20)}`);
    expect(screen(narrow).replace(/\n/g, " ")).toContain(`daily_active_users_by_client.${SHOWN}`);
    const grouped = await onTerminal(["analytics", "tokens", "--days", "1", "--group-by", "model"]);
    expect(controlsLeft(grouped)).toEqual([]);
    expect(screen(grouped)).toContain(SHOWN.slice(0, 40));
  });

  test("sessions message --format text: its lines and tabs are the text's own; everything else shown as escapes", async () => {
    const run = await onTerminal(["sessions", "message", "sess_1", "msg_1", "--format", "text"]);
    expect(run.code).toBe(0);
    expect(screen(run)).toBe(`first line\n\tindented${SHOWN}\n`);
  });

  test("limits set: the reasons the server gives for rejected entries", async () => {
    const file = writeFile(dir, "limits.csv", "email,limit\nmaya.chen@acme-robotics.com,10\n");
    const run = await onTerminal(["limits", "set", "--file", file]);
    expect(run.code).toBe(3);
    expect(controlsLeft(run)).toEqual([]);
    expect(screen(run)).toContain(`rejected  line 2  maya.chen@acme-robotics.com: refused: ${SHOWN}\n`);
  });

  test("the progress line of a wait, and its timeout, show the status the server sent as escapes", async () => {
    const run = await onTerminal(["computers", "wait", "cmp_waiting", "--timeout", "1", "--interval", "1"]);
    expect(run.code).toBe(4);
    expect(controlsLeft(run)).toEqual([]);
    expect(run.stdout).toContain("\r\x1b[2Kcomputer cmp_waiting: provisioning\\x1b[2J\\x1b[H");
    expect(screen(run)).toContain("orgagent: computer cmp_waiting is still provisioning\\x1b[2J\\x1b[H after 1 s.");
  });

  test("--debug: header values the server sent are shown as escapes in the log lines", async () => {
    const run = await onTerminal(["computers", "get", "cmp_evil", "--debug"]);
    expect(run.code).toBe(0);
    expect(controlsLeft(run)).toEqual([]);
    expect(screen(run)).toMatch(/\[orgagent\] ← .*req\\x9b2J\\x9b31m/);
  });

  test("--json on a terminal: the same JSON value, with the characters a terminal acts on written as \\u escapes", async () => {
    const run = await onTerminal(["computers", "get", "cmp_evil", "--json"]);
    expect(controlsLeft(run)).toEqual([]);
    expect(JSON.parse(screen(run))).toEqual(computer);
  });
});

describe.concurrent("piped, the data is exact", () => {
  test("--json and the default JSON of one resource: every character as the server sent it", async () => {
    const [json, plain] = await Promise.all([piped(["computers", "get", "cmp_evil", "--json"]), piped(["computers", "get", "cmp_evil"])]);
    expect(JSON.parse(json.stdout)).toEqual(computer);
    expect(json.stdout).toContain("\x9b31mred\x7f");
    expect(plain.stdout).toBe(json.stdout);
  });

  test("--format csv and ndjson: exact, and a CSV cell that would be a formula still gets its leading quote", async () => {
    const [csv, ndjson] = await Promise.all([
      piped(["analytics", "tokens", "--days", "1", "--group-by", "model", "--format", "csv"]),
      piped(["analytics", "tokens", "--days", "1", "--group-by", "model", "--format", "ndjson"]),
    ]);
    expect(csv.stdout).toContain(`"${HOSTILE}"`);
    expect(csv.stdout).toContain(`"'=HYPERLINK(""https://evil.example"",""x"")"`);
    expect(
      ndjson.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).group_key),
    ).toEqual([HOSTILE, '=HYPERLINK("https://evil.example","x")']);
  });

  test("stderr is for people even when stdout is piped: an API error's text is shown as escapes", async () => {
    const run = await piped(["sessions", "get", "sess_gone"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`404 ${SHOWN}: gone\\n${SHOWN}`);
    expect(run.stderr).not.toMatch(/[\u001b\u009b\u007f\r]/);
  });
});

test("map keys named like Object.prototype's properties are columns like any other, in tables and CSV", () => {
  const rows = [
    JSON.parse('{"date":"2026-03-02","by_client":{"__proto__":1,"constructor":2,"toString":3}}'),
    { date: "2026-03-03", by_client: { web: 4 } },
  ];
  const print = (format: string) => {
    let out = "";
    const stdout = new PassThrough().on("data", (chunk) => (out += chunk));
    new Output({ stdout, stderr: new PassThrough() }).list(rows, { format });
    return out;
  };
  expect(print("csv")).toBe(
    "date,by_client.__proto__,by_client.constructor,by_client.toString,by_client.web\n2026-03-02,1,2,3,\n2026-03-03,,,,4\n",
  );
  expect(print("table")).toBe(
    "date\tby_client.__proto__\tby_client.constructor\tby_client.toString\tby_client.web\n2026-03-02\t1\t2\t3\t\n2026-03-03\t\t\t\t4\n",
  );
});

describe.concurrent("a URL's user name and password are never shown", () => {
  test.each([
    ["ftp://admin:s3cret-pw@host.example", 'ORGAGENT_BASE_URL is not an http(s) URL: "ftp://***@host.example".'],
    ["htps://admin:s3cret-pw@host.example", 'ORGAGENT_BASE_URL is not an http(s) URL: "htps://***@host.example".'],
    ["htps:admin:s3cret-pw@host.example", 'ORGAGENT_BASE_URL is not an http(s) URL: "htps:***@host.example".'],
    [
      "https://admin:s3cret-pw@host.example/api",
      'ORGAGENT_BASE_URL must not hold a user name or password: "https://***@host.example/api".',
    ],
    ["https://admin:s3c@ret-pw@host.example", 'ORGAGENT_BASE_URL must not hold a user name or password: "https://***@host.example".'],
    ["http://admin:s3c/ret-pw@host.example", 'ORGAGENT_BASE_URL is not an http(s) URL: "http://***@host.example".'],
  ])("ORGAGENT_BASE_URL=%s", async (url, cause) => {
    const run = await runProcess(process.execPath, [bundle, "computers", "get", "cmp_1"], { ...env, ORGAGENT_BASE_URL: url });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(`orgagent: ${cause}`);
    expect(run.stderr).not.toMatch(/admin|s3c|ret-pw/);
  });

  test("an app URL with a password, for a command that does not need the app host: not used, not shown", async () => {
    const run = await runProcess(process.execPath, [bundle, "computers", "get", "cmp_evil"], {
      ...env,
      ORGAGENT_APP_URL: "https://admin:s3cret-pw@app.example",
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
