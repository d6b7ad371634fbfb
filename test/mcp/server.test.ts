// `orgagent mcp` as an assistant meets it: the official MCP SDK's client over Streamable HTTP, against the emulator.
// Tools are listed as the options allow; a read answers what the SDK answers; a list pages within its bound and
// gives the cursor to continue; writes are refused unless enabled; a bad argument is a tool error naming it, with
// nothing sent; a large answer is cut with a note; and the key never shows, even when the API echoes it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../generated/mcp-tools.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { createMcpServer, McpOptionsError } from "../../src/mcp/index.js";
import { dateRange, OrgAgent } from "../../src/index.js";
import { captureLogger, SECRET } from "../resilience/secret.js";
import { successExample } from "../support/spec.js";
import { call, connect, day, json, type Connected } from "./support.js";

let emulator: Emulator;
/** Requests the emulator received through the MCP server's client, as `METHOD path`. */
const sent: string[] = [];
const recording: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  sent.push(`${init?.method ?? (input instanceof Request ? input.method : "GET")} ${url.pathname}`);
  return fetch(input, init);
};
let sdk: OrgAgent;

beforeAll(async () => {
  emulator = await startEmulator({ timing: { sessionStartMs: 50, replyMs: 100 } });
  sdk = new OrgAgent({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, logLevel: "off" });
});
afterAll(() => emulator.close());

const config = () => ({
  apiKey: emulator.keys.owner,
  baseUrl: emulator.baseUrl,
  appUrl: emulator.appUrl,
  fetch: recording,
  code: false as const,
});
const reads = Object.values(mcpTools)
  .filter((tool) => tool.annotations.readOnlyHint)
  .map((tool) => tool.name);
const writes = Object.values(mcpTools)
  .filter((tool) => !tool.annotations.readOnlyHint)
  .map((tool) => tool.name);

describe("tools/list", () => {
  let mcp: Connected;
  afterAll(() => mcp?.close());

  it("lists every read, search_docs, and no write by default, each tool as generated from the spec", async () => {
    mcp = await connect(config());
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...reads, "search_docs"]);
    for (const tool of tools.filter((t) => t.name !== "search_docs")) {
      const generated = mcpTools[tool.name]!;
      expect(tool.inputSchema).toEqual(generated.inputSchema);
      expect(tool.annotations).toEqual(generated.annotations);
      expect(tool.description).toBe(generated.description);
    }
    expect(tools.find((tool) => tool.name === "search_docs")!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("tells the model in its instructions that writes are off, and how the user turns them on", () => {
    const instructions = mcp.client.getInstructions()!;
    expect(instructions).toMatch(/Writes are off in this server/);
    expect(instructions).toContain("--allow-writes");
    expect(instructions).not.toMatch(/spend the organization's credits/);
    // A model does not know the date: the session's instructions say it, and the latest day with data.
    expect(instructions).toContain(`Today is ${day(0)} (UTC) as this session starts.`);
    expect(instructions).toContain(`the latest day with data is yesterday, ${day(1)}.`);
  });

  it("with writes allowed, lists every operation and names the calls that spend credits, start work or change settings", async () => {
    const all = await connect({ ...config(), allowWrites: true });
    try {
      const { tools } = await all.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...reads, ...writes, "search_docs"].sort());
      const instructions = all.client.getInstructions()!;
      expect(instructions).toMatch(/These calls spend the organization's credits \(the agent works\): sendSessionMessage\./);
      expect(instructions).toMatch(/These calls start work on a computer: createSession, retryComputerInstallDeps\./);
      expect(instructions).toMatch(/These calls change the organization's settings: setUserLimits\./);
    } finally {
      await all.close();
    }
  });

  it("with --tools, lists those only, and a write named there is allowed", async () => {
    const some = await connect({ ...config(), tools: ["getComputerByName", "createSession", "search_docs"] });
    try {
      expect((await some.client.listTools()).tools.map((tool) => tool.name)).toEqual(["createSession", "getComputerByName", "search_docs"]);
    } finally {
      await some.close();
    }
  });

  it("refuses options that contradict each other or name no tool, before it starts", () => {
    expect(() => createMcpServer({ ...config(), readOnly: true, allowWrites: true })).toThrow(McpOptionsError);
    expect(() => createMcpServer({ ...config(), readOnly: true, tools: ["createSession"] })).toThrow(
      /createSession is a write: readOnly allows reads only/,
    );
    expect(() => createMcpServer({ ...config(), tools: ["getComputerByName", "dropDatabase"] })).toThrow(
      /Unknown tool "dropDatabase"; the tools are getAnalyticsTokens, /,
    );
    expect(() => createMcpServer({ ...config(), maxItems: 0 })).toThrow(/maxItems must be an integer from 1/);
  });
});

describe("calls", () => {
  let mcp: Connected;
  beforeAll(async () => {
    // A budget that holds 100 rows of /users: these tests are about the bound on items.
    mcp = await connect({ ...config(), maxItems: 100, maxResultBytes: 1024 * 1024 });
  });
  afterAll(() => mcp.close());

  it("a read answers with what the SDK answers", async () => {
    const answer = await call(mcp.client, "getComputerByName", { name: "build-box-eu-1" });
    expect(answer.isError).toBe(false);
    expect(json(answer)).toEqual(await sdk.computers.getByName("build-box-eu-1"));
  });

  it("a list returns whole pages up to its bound, says more exist, and its cursors walk the whole list the SDK walks", async () => {
    const range = dateRange.lastDays(7);
    const all = await sdk.analytics.users({ ...range, limit: 100 }).toArray();
    expect(all.length).toBeGreaterThan(300);
    const walked: unknown[] = [];
    let cursor: string | undefined;
    let calls = 0;
    for (;;) {
      const answer = await call(mcp.client, "listAnalyticsUsers", { ...range, ...(cursor ? { cursor } : {}) });
      const page = json(answer);
      calls++;
      expect(page.items.length).toBeLessThanOrEqual(100);
      expect(page.count).toBe(page.items.length);
      walked.push(...page.items);
      if (!page.has_more) {
        expect(answer.texts[1]).toMatch(/: the end of the list\.$/);
        break;
      }
      expect(answer.texts[1]).toBe(
        `${page.items.length} items from 1 page; more exist: call listAnalyticsUsers again with the same arguments and cursor=${JSON.stringify(page.next_cursor)}.`,
      );
      cursor = page.next_cursor;
    }
    expect(calls).toBe(Math.ceil(all.length / 100));
    expect(walked).toEqual(all);
  });

  it("a list with a smaller page size takes as many whole pages as fit within the bound", async () => {
    const answer = await call(mcp.client, "listAnalyticsUsers", { ...dateRange.lastDays(7), limit: 30 });
    const page = json(answer);
    expect(page.items).toHaveLength(90);
    expect(answer.texts[1]).toMatch(/^90 items from 3 pages; more exist/);
  });

  it("a bad argument is a tool error naming it and what it allows, and nothing is sent", async () => {
    sent.length = 0;
    const answer = await call(mcp.client, "listAnalyticsUsers", { startDate: day(7), endDate: day(1), limit: 500 });
    expect(answer).toMatchObject({ isError: true });
    expect(answer.text).toBe("Invalid argument limit: 500 is not allowed; expected an integer from 1 to 100. Nothing was sent.");
    const today = await call(mcp.client, "getAnalyticsTokens", { startDate: day(3), endDate: day(0) });
    expect(today.isError).toBe(true);
    expect(today.text).toMatch(
      /^Invalid argument endDate: "\d{4}-\d{2}-\d{2}" is not allowed; expected a date up to \d{4}-\d{2}-\d{2} \(yesterday, UTC\)/,
    );
    const unknown = await call(mcp.client, "getComputer", { computerId: "cmp_1", verbose: true });
    expect(unknown.text).toBe(
      'Invalid argument verbose: getComputer takes no argument "verbose"; its arguments are computerId. Nothing was sent.',
    );
    expect(sent).toEqual([]);
  });

  it("an API error is a tool error with the status, the API's words and the request id", async () => {
    const missing = await call(mcp.client, "getComputer", { computerId: "cmp_does_not_exist" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(
      /^The API answered 404 Not Found: No computer "cmp_does_not_exist" \(request req_\w+\)\. Nothing has that id or name/,
    );
    const member = await connect({ ...config(), apiKey: emulator.keys.member });
    try {
      const refused = await call(member.client, "getAnalyticsProductivity", dateRange.lastDays(2));
      expect(refused.text).toMatch(
        /^The API answered 403 Forbidden: This operation needs the Owner or Manager role; the key's role is Member \(request req_\w+\)\. .*need a Manager or Owner key\.$/,
      );
    } finally {
      await member.close();
    }
  });

  it("a large analytics answer is cut to the byte budget, the breakdowns before the days, with a note saying what was cut", async () => {
    const small = await connect({ ...config(), maxResultBytes: 32_768 });
    try {
      const range = dateRange.lastDays(30);
      const whole = await sdk.analytics.tokens(range);
      expect(JSON.stringify(whole).length).toBeGreaterThan(1_000_000);
      const answer = await call(small.client, "getAnalyticsTokens", range);
      expect(answer.isError).toBe(false);
      expect(Buffer.byteLength(answer.texts[0]!)).toBeLessThanOrEqual(32_768);
      const kept = json(answer);
      expect(kept.data.map((row: { date: string }) => row.date)).toEqual(whole.data.map((row) => row.date));
      expect(kept.data[0].billable_tokens).toBe(whole.data[0]!.billable_tokens);
      expect(kept.data[0].by_user[0]).toMatchObject({ user_email: whole.data[0]!.by_user[0]!.user_email });
      expect(answer.texts[1]).toMatch(
        /^The answer was cut to fit 32768 bytes: .*data\[\]\.by_user: the first \d+ items? kept of (up to )?\d+.*use run_code/,
      );
    } finally {
      await small.close();
    }
  });

  it("a list whose page is larger than the byte budget asks for smaller pages, so that no item is skipped", async () => {
    const small = await connect({ ...config(), maxResultBytes: 16_384 });
    try {
      const range = dateRange.lastDays(2);
      const all = await sdk.analytics.users({ ...range, limit: 100 }).toArray();
      const walked: unknown[] = [];
      let cursor: string | undefined;
      let first: string | undefined;
      for (let calls = 0; calls < 100; calls++) {
        const answer = await call(small.client, "listAnalyticsUsers", { ...range, ...(cursor ? { cursor, limit: pageSize(first) } : {}) });
        expect(Buffer.byteLength(answer.texts[0]!)).toBeLessThanOrEqual(16_384);
        first ??= answer.texts[1];
        const page = json(answer);
        walked.push(...page.items);
        if (!page.has_more) break;
        cursor = page.next_cursor;
      }
      expect(first).toMatch(
        /A page of 100 items was larger than 16384 bytes: pages of \d+ were asked for instead; pass limit=\d+ to continue\.$/,
      );
      expect(walked).toEqual(all);
    } finally {
      await small.close();
    }
  });

  it("a write is refused while writes are off, and nothing is sent", async () => {
    sent.length = 0;
    const computer = await sdk.computers.getByName("build-box-eu-1");
    const answer = await call(mcp.client, "createSession", { computerId: computer.id });
    expect(answer).toEqual({
      isError: true,
      texts: [
        "createSession is a write, and writes are off in this MCP server. The user can allow it by starting the server with --allow-writes, or with --tools naming createSession.",
      ],
      text: expect.any(String),
    });
    expect(sent).toEqual([]);
  });

  it("an unknown tool is a protocol error", async () => {
    await expect(mcp.client.callTool({ name: "dropDatabase", arguments: {} })).rejects.toThrow(/Unknown tool: dropDatabase/);
  });
});

describe("writes", () => {
  it("are refused under readOnly, saying so", async () => {
    const mcp = await connect({ ...config(), readOnly: true });
    try {
      sent.length = 0;
      const answer = await call(mcp.client, "setUserLimits", { users: [{ email: emulator.org.users[0]!.email, limit: 1 }] });
      expect(answer.isError).toBe(true);
      expect(answer.text).toBe("setUserLimits is a write, and this MCP server is read-only (--read-only): it allows reads only.");
      expect(sent).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("go through when allowed: a session created, a message sent, a limit set; a bad body field is named", async () => {
    const mcp = await connect({ ...config(), allowWrites: true });
    try {
      const computer = json(await call(mcp.client, "getComputerByName", { name: "build-box-eu-1" }));
      const session = json(await call(mcp.client, "createSession", { computerId: computer.id, cwd: "/home/builder/motor-controller" }));
      expect(session).toMatchObject({ sessionId: expect.stringMatching(/^sess_/), computerId: computer.id });
      expect(await sdk.sessions.get(session.sessionId)).toMatchObject({ sessionId: session.sessionId });
      await sdk.sessions.waitUntilIdle(session.sessionId, { interval: 20 });
      const message = json(await call(mcp.client, "sendSessionMessage", { sessionId: session.sessionId, text: "Why is CI red?" }));
      expect(message).toMatchObject({ messageId: expect.any(String) });
      const person = emulator.org.users[1]!.email;
      const limits = json(await call(mcp.client, "setUserLimits", { users: [{ email: person, limit: 123_456 }] }));
      expect(limits).toEqual({ updated: [{ email: person, limit: 123_456 }], errors: [] });
      const bad = await call(mcp.client, "setUserLimits", { users: [{ email: person, limit: -1 }] });
      expect(bad.isError).toBe(true);
      expect(bad.text).toBe("Invalid argument users[0].limit: -1 is not allowed; expected an integer >= 0. Nothing was sent.");
    } finally {
      await mcp.close();
    }
  });

  it("named in the allow-list go through, the others stay refused", async () => {
    const mcp = await connect({ ...config(), tools: ["createSession", "getComputerByName"] });
    try {
      const computer = json(await call(mcp.client, "getComputerByName", { name: "build-box-eu-1" }));
      expect(await call(mcp.client, "createSession", { computerId: computer.id })).toMatchObject({ isError: false });
      const other = await call(mcp.client, "retryComputerInstallDeps", { computerId: computer.id });
      expect(other.text).toMatch(/^retryComputerInstallDeps is a write, and writes are off/);
      const read = await call(mcp.client, "getComputer", { computerId: computer.id });
      expect(read.text).toBe("getComputer is not among the tools this MCP server was started with (--tools).");
    } finally {
      await mcp.close();
    }
  });
});

describe("search_docs", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect(config());
  });
  afterAll(() => mcp.close());

  it("finds the operation a question is about, and the guides, ranked", async () => {
    const answer = await call(mcp.client, "search_docs", { query: "listAnalyticsUsers next_cursor", limit: 3 });
    expect(answer.isError).toBe(false);
    expect(answer.texts).toHaveLength(3);
    expect(answer.texts[0]).toMatch(/^## listAnalyticsUsers \(tool listAnalyticsUsers \(GET\)\)/);
    const limits = await call(mcp.client, "search_docs", { query: "Retry-After rate limit 429" });
    expect(limits.texts[0]).toMatch(/Retry-After/);
    expect(limits.texts.some((text) => /\(docs\/[a-z-]+\.md\)|\(README\.md\)/.test(text))).toBe(true);
  });

  it("keeps its answer within the byte budget", async () => {
    const small = await connect({ ...config(), maxResultBytes: 4096 });
    try {
      const answer = await call(small.client, "search_docs", { query: "sessions computers analytics errors retries", limit: 10 });
      expect(answer.texts.length).toBeLessThan(10);
      expect(Buffer.byteLength(answer.texts.slice(1).join(""))).toBeLessThanOrEqual(4096);
    } finally {
      await small.close();
    }
  });

  it("says when nothing matches", async () => {
    expect((await call(mcp.client, "search_docs", { query: "zyxwvut" })).text).toBe(
      'Nothing matches "zyxwvut". Try other words, or an operation\'s name.',
    );
  });
});

describe("Streamable HTTP", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect(config());
  });
  afterAll(() => mcp.close());

  it("listens on 127.0.0.1 at /mcp", () => {
    expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("refuses a request whose Host or Origin names another site (DNS rebinding), and an unknown session", async () => {
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const post = (headers: Record<string, string>) =>
      rawPost(mcp.url, initialize, { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers });
    expect((await post({ host: "evil.example" })).status).toBe(403);
    expect((await post({ origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ "mcp-session-id": "no-such-session" })).status).toBe(404);
    expect((await post({})).status).toBe(200);
  });
});

describe("the key", () => {
  let echo: Server;
  let echoUrl: string;
  beforeAll(async () => {
    // An API that echoes the credential it is sent: in a computer's hostname, in an error's detail, in a header.
    echo = createServer((request, response) => {
      const credential = request.headers.authorization ?? "";
      if (request.url?.startsWith("/api/v0/computers/name/")) {
        const body = { ...successExample("getComputerByName"), hostname: credential, name: `box for ${credential}` };
        response.writeHead(200, { "content-type": "application/json", "x-request-id": credential }).end(JSON.stringify(body));
        return;
      }
      response
        .writeHead(400, { "content-type": "application/problem+json" })
        .end(JSON.stringify({ title: "Bad Request", status: 400, detail: `Rejected ${credential}` }));
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it("never appears in a tool result, an error or a log, though the API echoes it", async () => {
    const logger = captureLogger();
    const mcp = await connect({ apiKey: SECRET, baseUrl: echoUrl, appUrl: echoUrl, logLevel: "debug", logger, code: false });
    try {
      const read = await call(mcp.client, "getComputerByName", { name: "build-box-eu-1" });
      expect(read.isError).toBe(false);
      expect(json(read).hostname).toBe("Bearer ***");
      const failed = await call(mcp.client, "getAnalyticsProductivity", dateRange.lastDays(3));
      expect(failed.isError).toBe(true);
      expect(failed.text).toMatch(/^The API answered 400 Bad Request: Rejected Bearer \*\*\*/);
      for (const text of [read.text, failed.text, ...logger.lines]) expect(text).not.toContain(SECRET);
      expect(logger.lines.length).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
  });
});

/** The page size a list's note says to continue with. */
function pageSize(note: string | undefined): number {
  return Number(/pass limit=(\d+)/.exec(note ?? "")![1]);
}

async function rawPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode ?? 0 }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
