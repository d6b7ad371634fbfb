// `orgagent api`: any operation of the spec from the shell, as `gh api` reaches GitHub's. The bundled CLI runs as a
// subprocess against the emulator (what the answers are) and against loopback servers (what goes on the wire).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent } from "../../src/index.js";
import { startLoopback, type Loopback } from "../sdk/support/loopback.js";
import { successExample } from "../support/spec.js";
import { bundleCli, cleanEnv, runOnTerminal, runProcess, writeFile, type Run } from "./support.js";

let emulator: Emulator;
let sdk: OrgAgent;
let dir: string;
let bundle: string;

beforeAll(async () => {
  [emulator, { dir, bundle }] = await Promise.all([startEmulator({ seed: "api" }), bundleCli()]);
  sdk = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner });
});
afterAll(() => emulator?.close());

function orgagent(args: string[], { env = {}, input }: { env?: Record<string, string>; input?: string } = {}): Promise<Run> {
  const hosts = { ORGAGENT_BASE_URL: emulator.baseUrl, ORGAGENT_APP_URL: emulator.appUrl, ORGAGENT_API_KEY: emulator.keys.owner };
  return runProcess(process.execPath, [bundle, "api", ...args], cleanEnv({ ...hosts, ...env }), input);
}

/** Every JSON document of a stream of concatenated (indented) documents, as `jq -s` reads them. */
function documents(text: string): unknown[] {
  return text
    .split(/(?<=^[}\]])\n(?=[{[])/m)
    .filter((part) => part.trim())
    .map((part) => JSON.parse(part));
}

const buildBox = () => emulator.org.computers.find((c) => c.name === "build-box-eu-1")!.id;

describe.concurrent("reaching an operation", () => {
  test("by its path with values, by its template with fields, and by its operationId: the same answer as the SDK's", async () => {
    const id = buildBox();
    const expected = await sdk.computers.get(id);
    const runs = await Promise.all([
      orgagent(["GET", `/api/v0/computers/${id}`]),
      orgagent(["GET", "/api/v0/computers/{computerId}", "-f", `computerId=${id}`]),
      orgagent(["getComputer", "-f", `computerId=${id}`]),
      orgagent([`api/v0/computers/${id}`]), // no method: GET; no leading slash, as gh takes it
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(expected);
    }
  });

  test("query fields go to the query, typed by the spec (an integer limit from -f), and so do query strings in the path", async () => {
    const [fromField, fromPath] = await Promise.all([
      orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "-f", "limit=2"]),
      orgagent(["GET", "/api/v0/organization/enterprise-controls/history?limit=3"]),
    ]);
    expect([fromField.code, fromPath.code]).toEqual([0, 0]);
    expect(JSON.parse(fromField.stdout).changes).toHaveLength(2);
    expect(JSON.parse(fromPath.stdout).changes).toHaveLength(3);
  });

  test("the app host serves readiness reports: api sends them there", async () => {
    const run = await orgagent(["GET", "/api/organization/maturity-level-reports", "-F", "limit=5", "--jq", ".reports | length"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("5\n");
    const noApp = await orgagent(["GET", "/api/organization/maturity-level-reports"], { env: { ORGAGENT_APP_URL: "" } });
    expect(noApp.code).toBe(2);
    expect(noApp.stderr).toContain("Set ORGAGENT_APP_URL or pass --app-url");
  });
});

describe.concurrent("writes", () => {
  test("body fields, nested with key[sub] and key[][sub] in the order typed, make the JSON body", async () => {
    const [session, limits] = await Promise.all([
      orgagent([
        "POST",
        "/api/v0/sessions",
        "-f",
        `computerId=${buildBox()}`,
        "-f",
        "cwd=/srv/app",
        "-f",
        "sessionSettings[model]=claude-sonnet-4-5",
        "-f",
        "sessionSettings[tags][][name]=nightly",
      ]),
      orgagent([
        "PUT",
        "/api/v0/organization/usage/limits/users",
        ...["-f", `users[][email]=${emulator.org.users[0]!.email}`, "-F", "users[][limit]=5000"],
        ...["-f", `users[][email]=${emulator.org.users[1]!.email}`, "-F", "users[][limit]=0"],
      ]),
    ]);
    expect(session.code, session.stderr).toBe(0);
    expect(JSON.parse(session.stdout)).toMatchObject({
      computerId: buildBox(),
      status: "pending",
      sessionSettings: { model: "claude-sonnet-4-5", tags: [{ name: "nightly" }] },
    });
    // An operationId without a method: its own method (POST).
    const byId = await orgagent(["createSession", "-f", `computerId=${buildBox()}`, "--jq", ".status"]);
    expect(byId.stdout, byId.stderr).toBe("pending\n");
    expect(limits.code, limits.stderr).toBe(0);
    expect(JSON.parse(limits.stdout).errors).toEqual([]);
    expect(emulator.limits().get(emulator.org.users[0]!.email.toLowerCase())).toBe(5000);
    expect(emulator.limits().get(emulator.org.users[1]!.email.toLowerCase())).toBe(0);
  });

  test("--input - sends standard input as the body; -F @file reads a field from a file", async () => {
    const { sessionId } = await sdk.sessions.create({ computerId: buildBox() });
    const text = writeFile(dir, "message.txt", "Why is the encoder test flaky?");
    const [fromStdin, fromFile] = await Promise.all([
      orgagent(["POST", `/api/v0/sessions/${sessionId}/messages`, "--input", "-"], { input: JSON.stringify({ text: "Run the tests" }) }),
      orgagent(["POST", "/api/v0/sessions/{sessionId}/messages", "-f", `sessionId=${sessionId}`, "-F", `text=@${text}`]),
    ]);
    expect([fromStdin.code, fromFile.code], fromStdin.stderr + fromFile.stderr).toEqual([0, 0]);
    const ids = [JSON.parse(fromStdin.stdout).messageId, JSON.parse(fromFile.stdout).messageId];
    const messages = await Promise.all(ids.map((id) => sdk.sessions.getMessage(sessionId, id)));
    expect(messages.map((m) => m.content.map((block) => block.text).join(""))).toEqual(["Run the tests", "Why is the encoder test flaky?"]);
  });
});

describe.concurrent("--paginate", () => {
  test("prints every page of a list by its paging rule; --jq selects from each page; --slurp prints one array of pages", async () => {
    const all = await sdk.enterpriseControls.history({ limit: 100 }).toArray();
    const [pages, items, slurped] = await Promise.all([
      orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "-F", "limit=20", "--paginate"]),
      orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "-F", "limit=20", "--paginate", "--jq", ".changes[].revision"]),
      orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "-F", "limit=20", "--paginate", "--slurp"]),
    ]);
    expect([pages.code, items.code, slurped.code]).toEqual([0, 0, 0]);
    const printed = documents(pages.stdout) as { changes: { revision: number }[] }[];
    expect(printed.map((page) => page.changes.length)).toEqual([20, 20, all.length - 40]);
    expect(items.stdout.trim().split("\n").map(Number)).toEqual(all.map((change) => change.revision));
    expect(JSON.parse(slurped.stdout)).toEqual(printed);
  });

  test("follows the operation's own rule (readiness: after the last item's id), with the largest page size the spec allows unless given", async () => {
    const pages: string[] = [];
    const reports = Array.from({ length: 5 }, (_, i) => ({ ...successExample("listReadinessReports").reports[0], reportId: `rep_${i}` }));
    const server: Loopback = await startLoopback((request) => {
      pages.push(request.target);
      const after = request.query.get("startAfter");
      const from = after === null ? 0 : reports.findIndex((r) => r.reportId === after) + 1;
      return { body: { reports: reports.slice(from, from + Number(request.query.get("limit"))) } };
    });
    try {
      const [paged, history] = await Promise.all([
        orgagent(["GET", "/api/organization/maturity-level-reports", "-F", "limit=2", "--paginate", "-q", ".reports[].reportId"], {
          env: { ORGAGENT_APP_URL: server.url },
        }),
        orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "--paginate", "--silent"], {
          env: { ORGAGENT_BASE_URL: server.url },
        }),
      ]);
      expect(paged.code, paged.stderr).toBe(0);
      expect(paged.stdout.trim().split("\n")).toEqual(reports.map((r) => r.reportId));
      expect(pages.filter((target) => target.startsWith("/api/organization"))).toEqual([
        "/api/organization/maturity-level-reports?limit=2",
        "/api/organization/maturity-level-reports?limit=2&startAfter=rep_1",
        "/api/organization/maturity-level-reports?limit=2&startAfter=rep_3", // one report: a short page is the last
      ]);
      // No limit given: the spec's maximum for the history (100), as gh asks for 100 per page.
      expect(history.code).not.toBe(2);
      expect(pages.find((target) => target.startsWith("/api/v0/organization"))).toBe(
        "/api/v0/organization/enterprise-controls/history?limit=100",
      );
    } finally {
      await server.close();
    }
  });
});

describe.concurrent("output", () => {
  test("-i prints the status line and the headers first; -H sends a header; the key goes as a Bearer credential", async () => {
    const server = await startLoopback((request) => ({
      headers: { "x-request-id": "req_loop_1" },
      body: { ...successExample("getComputerByName"), name: request.headers["x-trace"] },
    }));
    try {
      const run = await orgagent(["GET", "/api/v0/computers/name/build-box-eu-1", "-i", "-H", "X-Trace: t-1"], {
        env: { ORGAGENT_BASE_URL: server.url },
      });
      expect(run.code, run.stderr).toBe(0);
      const [head, body] = run.stdout.split("\n\n");
      expect(head!.split("\n")[0]).toBe("HTTP/1.1 200 OK");
      expect(head).toContain("\nContent-Type: application/json");
      expect(head).toContain("\nX-Request-Id: req_loop_1");
      expect(JSON.parse(body!).name).toBe("t-1");
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${emulator.keys.owner}`);
    } finally {
      await server.close();
    }
  });

  test("--jq prints strings raw and other values as compact JSON when piped; a filter jq cannot read is refused before sending", async () => {
    const [names, object, bad] = await Promise.all([
      orgagent(["GET", "/api/v0/computers/name/build-box-eu-1", "--jq", ".name, .status"]),
      orgagent(["GET", "/api/v0/computers/name/build-box-eu-1", "--jq", "{name, status}"]),
      orgagent(["GET", "/api/v0/computers/name/nope", "--jq", ".["]),
    ]);
    expect(names.stdout).toBe("build-box-eu-1\nactive\n");
    expect(object.stdout).toBe('{"name":"build-box-eu-1","status":"active"}\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^orgagent: --jq "\.\[" is not a jq filter: syntax error/);
    expect(bad.stderr).toContain("Nothing was sent.");
  });
});

test("on a terminal, nothing a server sends can drive it: its JSON and what --jq picks, with control characters escaped", async () => {
  const name = "box\u001b]52;c;ZXZpbA==\u0007\u009b2J";
  const server = await startLoopback(() => ({ body: { ...successExample("getComputerByName"), name } }));
  try {
    const env = cleanEnv({ ORGAGENT_BASE_URL: server.url, ORGAGENT_API_KEY: emulator.keys.owner });
    const [json, picked, piped] = await Promise.all([
      runOnTerminal(bundle, ["api", "GET", "/api/v0/computers/name/x"], env, 100),
      runOnTerminal(bundle, ["api", "GET", "/api/v0/computers/name/x", "--jq", ".name"], env, 100),
      orgagent(["GET", "/api/v0/computers/name/x", "--jq", ".name"], { env: { ORGAGENT_BASE_URL: server.url } }),
    ]);
    for (const run of [json, picked]) {
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).not.toMatch(/[\u0007\u001b\u009b]/);
    }
    expect(json.stdout).toContain('"name": "box\\u001b]52;c;ZXZpbA==\\u0007\\u009b2J"');
    expect(picked.stdout).toContain("box\\x1b]52;c;ZXZpbA==\\x07\\x9b2J");
    // Piped, the data is what the server sent.
    expect(piped.stdout).toBe(`${name}\n`);
  } finally {
    await server.close();
  }
});

describe.concurrent("errors and exit codes", () => {
  test("an error answer: its body on stdout, the explanation on stderr (the SDK's typed error), exit 1", async () => {
    const run = await orgagent(["GET", "/api/v0/computers/name/no-such-box"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 404, title: "Not Found" });
    expect(run.stderr).toMatch(
      /^orgagent: the API answered 404 Not Found: .*\[getComputerByName: GET http:\/\/127\.0\.0\.1:\d+\/api\/v0\/computers\/name\/no-such-box\]\nCheck the id or name/,
    );
  });

  test("a member's key gets 403 with the hint that names where the key came from", async () => {
    const run = await orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "--api-key", emulator.keys.member]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("The key in --api-key may not do this");
  });

  test("bad input is refused before anything is sent, exit 2: a bound of the spec, an unknown field, a missing path value, bad JSON, Authorization", async () => {
    const server = await startLoopback();
    try {
      const env = { ORGAGENT_BASE_URL: server.url };
      const runs = await Promise.all([
        orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "-F", "limit=0"], { env }),
        orgagent(["GET", "/api/v0/organization/enterprise-controls/history", "-f", "limt=2"], { env }),
        orgagent(["GET", "/api/v0/computers/{computerId}"], { env }),
        orgagent(["POST", "/api/v0/sessions", "--input", "-"], { env, input: "{not json" }),
        orgagent(["GET", "/api/v0/computers/name/x", "-H", "Authorization: Bearer other"], { env }),
        orgagent(["FETCH", "/api/v0/computers/name/x"], { env }),
        orgagent(["POST", "/api/v0/sessions", "-f", "computerIdd=cmp_1"], { env }),
      ]);
      expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2, 2, 2, 2]);
      expect(runs[0]!.stderr).toMatch(/^orgagent: limit 0 is not allowed: expected an integer from 1 to 100\.\nNothing was sent\./);
      expect(runs[1]!.stderr).toContain('has no parameter "limt"; did you mean limit?');
      expect(runs[2]!.stderr).toMatch(/^orgagent: computerId \(missing\) is not allowed/);
      expect(runs[3]!.stderr).toContain("--input - is not JSON");
      expect(runs[4]!.stderr).toContain("-H Authorization: the credential is not a header here.");
      expect(runs[5]!.stderr).toContain("FETCH is not an HTTP method.");
      expect(runs[6]!.stderr).toContain('has no body field "computerIdd"; did you mean computerId?');
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe.concurrent("a path the spec does not have", () => {
  test("is sent as given to the API host, with a warning naming the closest operation; its answer decides the exit code", async () => {
    const server = await startLoopback((request) =>
      request.pathname === "/api/v0/computers" ? { body: { computers: [] } } : { status: 404, body: { title: "Not Found", status: 404 } },
    );
    try {
      const env = { ORGAGENT_BASE_URL: server.url };
      const [listed, typo] = await Promise.all([
        orgagent(["GET", "/api/v0/computers", "-f", "limit=2"], { env }),
        orgagent(["GET", "/api/v0/computer/cmp_1"], { env }),
      ]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({ computers: [] });
      expect(listed.stderr).toContain("orgagent: warning: GET /api/v0/computers is not an operation of the API's spec");
      expect(typo.code).toBe(1);
      expect(typo.stderr).toContain("(did you mean GET /api/v0/computers/{computerId}?)");
      expect(typo.stderr).toContain("the API answered 404 Not Found");
      const sent = server.requests.find((request) => request.pathname === "/api/v0/computers")!;
      expect(sent.target).toBe("/api/v0/computers?limit=2");
      expect(sent.headers.authorization).toBe(`Bearer ${emulator.keys.owner}`);
    } finally {
      await server.close();
    }
  });
});
