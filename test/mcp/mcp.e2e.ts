// `orgagent mcp` as the package ships it (dist/cli.js after `npm run build`), run by an assistant: a subprocess over
// stdio, and over Streamable HTTP with --port, driven by the official MCP SDK's client and by the MCP Inspector's CLI
// (under Node 22, which it needs). Also the figures the docs quote: the time to the first tools/list answer and its
// size.
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../generated/mcp-tools.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { dateRange, OrgAgent } from "../../src/index.js";
import { cleanEnv, root, runProcess } from "../cli/support.js";

const run = promisify(execFile);
const bin = join(root, "dist", "cli.js");
let emulator: Emulator;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  await run(process.execPath, ["scripts/build.mjs"], { cwd: root });
  emulator = await startEmulator();
  env = cleanEnv({ ORGAGENT_BASE_URL: emulator.baseUrl, ORGAGENT_APP_URL: emulator.appUrl, ORGAGENT_API_KEY: emulator.keys.owner });
});
afterAll(() => emulator?.close());

/** `orgagent mcp ARGS` over stdio, connected; the stderr it wrote so far in `stderr()`. */
async function stdio(args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", ...args],
    env: env as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr!.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "orgagent-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const text = (result: any): string => result.content.map((block: { text: string }) => block.text).join("\n");

describe("over stdio", () => {
  it("answers tools/list within seconds of starting: every read of the spec, run_code and search_docs", async () => {
    const started = performance.now();
    const { client } = await stdio();
    const list = await client.listTools();
    const ms = performance.now() - started;
    const bytes = Buffer.byteLength(JSON.stringify(list));
    console.log(`stdio: first tools/list answered ${Math.round(ms)} ms after spawning; ${list.tools.length} tools, ${bytes} bytes`);
    const reads = Object.values(mcpTools)
      .filter((tool) => tool.annotations.readOnlyHint)
      .map((tool) => tool.name);
    expect(list.tools.map((tool) => tool.name)).toEqual([...reads, "run_code", "search_docs"]);
    expect(ms).toBeLessThan(15_000);
    await client.close();
  });

  it("reads, pages, runs a program, and logs on stderr only (--debug), the protocol on stdout intact", async () => {
    const { client, stderr } = await stdio(["--debug", "--max-items", "50", "--max-result-bytes", "1048576"]);
    const computer = JSON.parse(text(await client.callTool({ name: "getComputerByName", arguments: { name: "build-box-eu-1" } })));
    expect(computer.name).toBe("build-box-eu-1");
    const page = await client.callTool({ name: "listAnalyticsUsers", arguments: { ...dateRange.lastDays(3) } });
    expect(JSON.parse((page.content as { text: string }[])[0]!.text)).toMatchObject({
      count: 50,
      has_more: true,
      next_cursor: expect.any(String),
    });
    const top = await client.callTool({
      name: "run_code",
      arguments: {
        code: `import { dateRange } from "orgagent";
          export async function run(client) {
            const credits = new Map<string, number>();
            for await (const row of client.analytics.users({ ...dateRange.lastDays(7), limit: 100 })) credits.set(row.user_email ?? row.user_id, (credits.get(row.user_email ?? row.user_id) ?? 0) + row.billable_tokens);
            return [...credits].sort((a, b) => b[1] - a[1]).slice(0, 5);
          }`,
      },
    });
    const sdk = new OrgAgent({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl, logLevel: "off" });
    const credits = new Map<string, number>();
    for await (const row of sdk.analytics.users({ ...dateRange.lastDays(7), limit: 100 }))
      credits.set(row.user_email ?? row.user_id, (credits.get(row.user_email ?? row.user_id) ?? 0) + row.billable_tokens);
    expect(JSON.parse((top.content as { text: string }[])[0]!.text)).toEqual([...credits].sort((a, b) => b[1] - a[1]).slice(0, 5));
    expect(stderr()).toMatch(/\[orgagent\] → GET \/api\/v0\/computers\/name\/\{name\} .*"build-box-eu-1".*"Authorization":"\*\*\*"/);
    expect(stderr()).not.toContain(emulator.keys.owner);
    await client.close();
  });

  it("refuses a write unless allowed, and sends it with --allow-writes", async () => {
    const computer = await new OrgAgent({ apiKey: emulator.keys.owner, baseUrl: emulator.baseUrl }).computers.getByName("build-box-eu-1");
    const readOnly = await stdio(["--read-only"]);
    const refused = await readOnly.client.callTool({ name: "createSession", arguments: { computerId: computer.id } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^createSession is a write, and this MCP server is read-only/);
    await readOnly.client.close();
    const writer = await stdio(["--allow-writes"]);
    const created = await writer.client.callTool({ name: "createSession", arguments: { computerId: computer.id } });
    expect(JSON.parse(text(created))).toMatchObject({ computerId: computer.id, status: "pending" });
    await writer.client.close();
  });

  it("ends when its standard input closes, with exit code 0", async () => {
    const child = spawn(process.execPath, [bin, "mcp"], { env, stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe("over Streamable HTTP (--port)", () => {
  it("listens on 127.0.0.1, serves the same tools, and stops on SIGINT with exit code 0", async () => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, "mcp", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        const match = /Streamable HTTP at (\S+) \(\d+ tools\)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`exited early: ${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "orgagent-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const list = await client.listTools();
    console.log(
      `http: first tools/list answered ${Math.round(performance.now() - started)} ms after spawning; ${Buffer.byteLength(JSON.stringify(list))} bytes`,
    );
    expect(list.tools.length).toBe(Object.values(mcpTools).filter((tool) => tool.annotations.readOnlyHint).length + 2);
    const limit = await client.callTool({ name: "listAnalyticsUsers", arguments: { ...dateRange.lastDays(2), limit: 500 } });
    expect(limit).toMatchObject({
      isError: true,
      content: [{ text: "Invalid argument limit: 500 is not allowed; expected an integer from 1 to 100. Nothing was sent." }],
    });
    await client.close();
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });
});

describe("usage errors, before anything starts (exit 2)", () => {
  it.each([
    [["--read-only", "--allow-writes"], /option '--read-only' cannot be used with option '--allow-writes'/],
    [["--tools", "getComputer,dropDatabase"], /^orgagent: Unknown tool "dropDatabase"; the tools are getAnalyticsTokens, /],
    [["--read-only", "--tools", "setUserLimits"], /^orgagent: setUserLimits is a write: readOnly allows reads only\./],
    [["--deno", "/nonexistent/deno"], /^orgagent: No Deno executable at \/nonexistent\/deno\./],
  ])("orgagent mcp %j", async (args, message) => {
    const result = await runProcess(process.execPath, [bin, "mcp", ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it("without a key", async () => {
    const result = await runProcess(process.execPath, [bin, "mcp"], cleanEnv({ ORGAGENT_BASE_URL: emulator.baseUrl }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^orgagent: no API key\.\nSet ORGAGENT_API_KEY or pass --api-key/);
  });
});

describe("the MCP Inspector's CLI (Node 22, from the registry)", () => {
  const inspector = (args: string[]) =>
    run(
      "npx",
      [
        "-y",
        "-p",
        "node@22",
        "-p",
        "@modelcontextprotocol/inspector@2.12.0",
        "-c",
        ["mcp-inspector", "--cli", ...args].map(quote).join(" "),
      ],
      {
        cwd: root,
        env: process.env,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  const server = () => [...["ORGAGENT_BASE_URL", "ORGAGENT_APP_URL", "ORGAGENT_API_KEY"].flatMap((name) => ["-e", `${name}=${env[name]}`])];

  it("lists the tools and calls one over stdio", async () => {
    const listed = JSON.parse(
      (await inspector([...server(), "--method", "tools/list", "--transport", "stdio", "--", process.execPath, bin, "mcp"])).stdout,
    );
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toContain("listAnalyticsUsers");
    const called = JSON.parse(
      (
        await inspector([
          ...server(),
          "--method",
          "tools/call",
          "--tool-name",
          "getComputerByName",
          "--tool-arg",
          "name=build-box-eu-1",
          "--transport",
          "stdio",
          "--",
          process.execPath,
          bin,
          "mcp",
        ])
      ).stdout,
    );
    expect(JSON.parse(called.content[0].text)).toMatchObject({ name: "build-box-eu-1" });
  });
});

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}
