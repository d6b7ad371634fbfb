// run_code: a program against the orgagent SDK, run by Deno (the `deno` npm package here) in a sandbox that can
// connect to the server's proxy and nothing else, and read nothing but the SDK's modules. It answers questions the
// SDK answers the same way; it cannot read files or the environment, reach another host, start a process, call a
// write the server does not allow, or see the key; it is stopped at its time and output limits.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { createMcpServer, McpOptionsError } from "../../src/mcp/index.js";
import { dateRange, OrgAgent } from "../../src/index.js";
import { SECRET } from "../resilience/secret.js";
import { successExample } from "../support/spec.js";
import { call, connect, json, type Connected } from "./support.js";

let emulator: Emulator;
let mcp: Connected;
const secretDir = mkdtempSync(join(tmpdir(), "orgagent-secret-"));
const secretFile = join(secretDir, "secret.json");

beforeAll(async () => {
  writeFileSync(secretFile, JSON.stringify({ secret: "the contents of a private file" }));
  emulator = await startEmulator();
  mcp = await connect({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, code: { timeout: 20_000 } });
});
afterAll(async () => {
  await mcp?.close();
  await emulator?.close();
  rmSync(secretDir, { recursive: true, force: true });
});

const run = (code: string, client = mcp.client) => call(client, "run_code", { code });

describe("offered", () => {
  it("where Deno is found: listed, with the SDK's resources and methods in its description", async () => {
    const tool = (await mcp.client.listTools()).tools.find((t) => t.name === "run_code")!;
    expect(tool.description).toContain("client.analytics (tokens, tools, activity, productivity, users)");
    expect(tool.description).toContain("client.sessions (create, get, sendMessage, getMessage, waitUntilIdle, sendMessageAndWait)");
    expect(tool.inputSchema).toMatchObject({ required: ["code"] });
  });

  it("not when left out, and a Deno that is not there is an error at start", () => {
    const config = { apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl };
    expect(createMcpServer({ ...config, code: false }).tools).not.toContain("run_code");
    expect(() => createMcpServer({ ...config, code: { deno: join(secretDir, "no-deno") } })).toThrow(McpOptionsError);
  });
});

describe("answers", () => {
  it("the top 5 users by credits last week, as the SDK computes them", async () => {
    const client = new OrgAgent({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, logLevel: "off" });
    const totals = new Map<string, number>();
    for await (const row of client.analytics.users({ ...dateRange.lastDays(7), limit: 100 })) {
      totals.set(row.user_email ?? row.user_id, (totals.get(row.user_email ?? row.user_id) ?? 0) + row.billable_tokens);
    }
    const expected = [...totals].sort((a, b) => b[1] - a[1]).slice(0, 5);

    const answer = await run(`
      import { dateRange } from "orgagent";
      export async function run(client) {
        const credits = new Map<string, number>();
        let rows = 0;
        for await (const row of client.analytics.users({ ...dateRange.lastDays(7), limit: 100 })) {
          rows++;
          const who = row.user_email ?? row.user_id;
          credits.set(who, (credits.get(who) ?? 0) + row.billable_tokens);
        }
        console.log("rows:", rows);
        return [...credits].sort((a, b) => b[1] - a[1]).slice(0, 5);
      }`);
    expect(answer.isError).toBe(false);
    expect(json(answer)).toEqual(expected);
    expect(answer.texts[1]).toMatch(/^Printed:\nrows: \d+$/);
  });

  it("what top-level code prints, with no run function", async () => {
    const answer = await run(`const c = await client.computers.getByName("build-box-eu-1"); console.log(c.name, c.status);`);
    expect(answer).toMatchObject({ isError: false, texts: ["The program returned nothing.", "Printed:\nbuild-box-eu-1 active"] });
  });

  it("a thrown error with the line of the program, and a syntax error before anything runs", async () => {
    const thrown = await run(
      `export async function run(client) {\n  const computer = await client.computers.get("cmp_nope");\n  return computer;\n}`,
    );
    expect(thrown.isError).toBe(true);
    expect(thrown.text).toMatch(/^The program threw NotFoundError: 404 Not Found/);
    const syntax = await run("export async function run(client) {\n  return client.;\n}");
    expect(syntax.text).toMatch(/^The program threw .*SyntaxError[\s\S]*program\.ts:2/);
  });
});

describe("the sandbox refuses", () => {
  it.each([
    [
      "a file, read",
      `export async function run() { return await Deno.readTextFile(${JSON.stringify(secretFile)}); }`,
      /NotCapable: Requires read access to/,
    ],
    [
      "a file, imported",
      `export { default as run } from ${JSON.stringify(`file://${secretFile}`)} with { type: "json" };`,
      /Requires read access to/,
    ],
    [
      "a file, through node:fs",
      `import { readFileSync } from "node:fs"; export const run = () => readFileSync(${JSON.stringify(secretFile)}, "utf8");`,
      /NotCapable: Requires read access to/,
    ],
    [
      "the environment",
      `export async function run() { return Deno.env.get("ORGAGENT_API_KEY"); }`,
      /NotCapable: Requires env access to "ORGAGENT_API_KEY"/,
    ],
    [
      "the environment, through node:process",
      `import process from "node:process"; export const run = () => process.env.HOME;`,
      /NotCapable: Requires env access/,
    ],
    [
      "a subprocess",
      `export async function run() { return new Deno.Command("/bin/sh", { args: ["-c", "cat /etc/passwd"] }).output(); }`,
      /NotCapable: Requires run access to "\/bin\/sh"/,
    ],
    [
      "a file, written",
      `export async function run() { await Deno.writeTextFile("/tmp/orgagent-sandbox-wrote", "x"); }`,
      /NotCapable: Requires write access/,
    ],
    ["a remote module", `export { run } from "https://example.com/run.js";`, /(import|remote|not allowed|Requires)/i],
  ])("%s", async (_what, code, refusal) => {
    const answer = await run(code);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(refusal);
    expect(answer.text).not.toContain("the contents of a private file");
  });

  it("any other host: the API itself directly, and the internet", async () => {
    const direct = await run(
      `export async function run() { return (await fetch(${JSON.stringify(`${emulator.baseUrl}/api/v0/computers/name/build-box-eu-1`)})).status; }`,
    );
    expect(direct.text).toMatch(/NotCapable: Requires net access to "127\.0\.0\.1:\d+"/);
    const elsewhere = await run(`export async function run() { return (await fetch("https://example.com/")).status; }`);
    expect(elsewhere.text).toMatch(/NotCapable: Requires net access to "example\.com:443"/);
  });

  it("a write while writes are off, with the reason the server gives; and sends it when they are allowed", async () => {
    const program = `export async function run(client) {
      const computer = await client.computers.getByName("build-box-eu-1");
      const session = await client.sessions.create({ computerId: computer.id });
      return session.status;
    }`;
    const refused = await run(program);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^The program threw PermissionDeniedError: 403 Forbidden: createSession is a write, and writes are off in this MCP server/,
    );
    const writer = await connect({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, allowWrites: true });
    try {
      expect(json(await run(program, writer.client))).toBe("pending");
    } finally {
      await writer.close();
    }
  });
});

describe("the key", () => {
  let echo: Server;
  let secretive: Connected;
  beforeAll(async () => {
    // An API that echoes the credential it is sent, in a body and in a header.
    echo = createServer((request, response) => {
      const credential = request.headers.authorization ?? "";
      const body = { ...successExample("getComputerByName"), hostname: credential };
      response.writeHead(200, { "content-type": "application/json", "x-request-id": credential }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    secretive = await connect({ apiKey: SECRET, baseUrl: url, appUrl: url });
  });
  afterAll(async () => {
    await secretive?.close();
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  });

  it("never enters the sandbox: the program sends a token of its run, and sees the API's echo of the key as ***", async () => {
    const answer = await run(
      `export async function run(client) {
        const sent: string[] = [];
        const original = globalThis.fetch;
        globalThis.fetch = (input, init) => {
          sent.push(new Headers(init?.headers ?? (input as Request).headers).get("authorization") ?? "");
          return original(input, init);
        };
        const { data, response } = await client.computers.getByName("x").withResponse();
        console.log("sent", sent.join(" "), "echoed", data.hostname, response.headers.get("x-request-id"));
        console.log(Deno.inspect(client, { depth: 9, showHidden: true }), JSON.stringify(client));
        // Judged inside the sandbox, before the server's own scrub of what comes out of it.
        return {
          hostname: data.hostname,
          sent,
          echoedAsStars: data.hostname === "Bearer ***" && response.headers.get("x-request-id") === "Bearer ***",
          sentOnlyAToken: sent.length === 1 && /^Bearer oa-sandbox-[0-9a-f]{48}$/.test(sent[0]),
        };
      }`,
      secretive.client,
    );
    expect(answer.isError).toBe(false);
    expect(answer.text).not.toContain(SECRET);
    expect(answer.text).not.toMatch(/oa-sandbox-[0-9a-f]{10}/);
    expect(json(answer)).toEqual({ hostname: "Bearer ***", sent: ["Bearer ***"], echoedAsStars: true, sentOnlyAToken: true });
    expect(answer.texts[1]).toMatch(/^Printed:\nsent Bearer \*\*\* echoed Bearer \*\*\* Bearer \*\*\*/);
  });
});

describe("limits", () => {
  it("stops a program at its time limit, and the next one runs", async () => {
    const quick = await connect({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, code: { timeout: 1_500 } });
    try {
      const started = performance.now();
      const answer = await run(`console.log("before"); while (true) {}`, quick.client);
      expect(answer).toMatchObject({ isError: true });
      expect(answer.text).toMatch(/^The program was stopped after 2 s, its time limit\.\n\nPrinted:\nbefore$/);
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(json(await run("export const run = () => 42;", quick.client))).toBe(42);
    } finally {
      await quick.close();
    }
  });

  it("cuts what a program prints and returns to the byte budget, saying so", async () => {
    const small = await connect({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, maxResultBytes: 4096 });
    try {
      const answer = await run(
        `export async function run() {
        for (let i = 0; i < 2000; i++) console.log("line", i, "x".repeat(50));
        return Array.from({ length: 5000 }, (_, i) => ({ i, name: "row " + i }));
      }`,
        small.client,
      );
      expect(answer.isError).toBe(false);
      const [result, note, printed] = answer.texts;
      expect(Buffer.byteLength(result!)).toBeLessThanOrEqual(4096);
      expect(note).toMatch(/^The answer was cut to fit 4096 bytes: the answer: the first \d+ items kept of 5000\. Return less/);
      expect(printed).toMatch(/^Printed:\nline 0 x+\n[\s\S]*\[printed output cut after 2048 bytes\]$/);
    } finally {
      await small.close();
    }
  });
});
