// createMcpServer: the MCP server of orgagent, on the official MCP TypeScript SDK. One client and one set of tools
// serve every connection; each connection (stdio, or one Streamable HTTP session) gets its own protocol Server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mcpTools, type McpToolSpec } from "../../generated/mcp-tools.js";
import pkg from "../../package.json" with { type: "json" };
import { CodeRunner, codeToolDefinition, describeMethods } from "./code-tool.js";
import { DOCS_SEARCH_DESCRIPTION, DOCS_SEARCH_INPUT, DocsIndex, readDocFiles, searchDocs } from "./docs-search.js";
import { listenHttp, type HttpListener } from "./http.js";
import { instructions } from "./instructions.js";
import { argumentOf, operationTool, runOperationTool } from "./operation-tools.js";
import { CODE_TOOL, DEFAULT_CODE_TIMEOUT, DOCS_TOOL, McpOptionsError, policyOf, type McpServerOptions, type Policy } from "./options.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  Server,
  StdioServerTransport,
  type Transport,
} from "./protocol.js";
import { errorResult, failure, type ToolResult } from "./results.js";
import { SandboxProxy } from "./sandbox-proxy.js";
import { sandboxSdk, sandboxSdkAvailable } from "./sandbox-sdk.js";
import { findDeno } from "./sandbox.js";
import { OrgAgent, scrubSecret, type ClientOptions } from "./sdk-adapter.js";

/** A transport of the MCP TypeScript SDK (stdio, Streamable HTTP, in-memory), or anything shaped like one. */
export interface McpTransport {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  /** Set by the server; `never`, so that a transport's handler of its own message types is assignable. */
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  sessionId?: string | undefined;
}

export interface OrgAgentMcpServer {
  /** The names of the tools listed, in order. */
  readonly tools: readonly string[];
  /** The instructions the server gives the model. */
  readonly instructions: string;
  /** Serves one MCP connection over `transport`. */
  connect(transport: McpTransport): Promise<void>;
  /** Serves one MCP connection over this process's standard input and output; resolves when standard input ends. */
  connectStdio(): Promise<void>;
  /**
   * Serves Streamable HTTP at `http://HOST:PORT/mcp` (default 127.0.0.1 and a free port); resolves to that URL.
   * Only a loopback host is safe: whoever reaches the address acts with the API key.
   */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Ends every connection, the HTTP listener and any program still running. */
  close(): Promise<void>;
}

const docsTool = {
  name: DOCS_TOOL,
  title: "Search the API and SDK documentation",
  description: DOCS_SEARCH_DESCRIPTION,
  inputSchema: DOCS_SEARCH_INPUT,
  annotations: { title: "Search the API and SDK documentation", readOnlyHint: true, openWorldHint: false },
};

/**
 * An MCP server for the organization `options` configure (the client's options, read from ORGAGENT_* variables as
 * `new OrgAgent()` does, plus what the server allows). Throws when the client cannot be configured or an option
 * contradicts another (McpOptionsError).
 */
export function createMcpServer(options: McpServerOptions = {}): OrgAgentMcpServer {
  const { readOnly: _r, allowWrites: _w, tools: _t, maxItems: _i, maxResultBytes: _b, code, ...clientOptions } = options;
  const logger = clientOptions.logger ?? stderrLogger;
  const client = new OrgAgent({ ...clientOptions, logger });
  const apiKey = clientOptions.apiKey ?? readEnv("ORGAGENT_API_KEY")!;
  const deno = code === false ? undefined : findDeno(code?.deno);
  if (code && code.deno !== undefined && !deno) throw new McpOptionsError(`No Deno executable at ${code.deno}.`);
  const policy = policyOf(options, deno !== undefined && sandboxSdkAvailable());
  const closing = new AbortController();
  const keys = new Set<string>(typeof apiKey === "string" ? [apiKey] : []);
  const scrub = (text: string) => [...keys].reduce((scrubbed, key) => scrubSecret(scrubbed, key), text);

  const definitions = [
    ...policy.operationTools.map(operationTool),
    ...(policy.codeTool ? [codeToolDefinition(codeSetup(deno!, code, policy, client))] : []),
    ...(policy.docsTool ? [docsTool] : []),
  ];
  const text = instructions(policy);

  let workDir: string | undefined;
  let sandbox: Promise<{ proxy: SandboxProxy; sdk: Awaited<ReturnType<typeof sandboxSdk>>; denoDir: string }> | undefined;
  const startSandbox = () =>
    (sandbox ??= (async () => {
      workDir ??= mkdtempSync(join(tmpdir(), "orgagent-mcp-"));
      const proxy = await SandboxProxy.start({
        apiKey: async () => {
          const key = typeof apiKey === "function" ? await apiKey() : apiKey;
          keys.add(key);
          return key;
        },
        hosts: { base_url: client.baseUrl, app_url: client.appUrl },
        allowed: policy.operations,
        refusal: (operationId) => refusal(operationId, policy),
        fetch: clientOptions.fetch,
      });
      try {
        return { proxy, sdk: await sandboxSdk(workDir), denoDir: join(workDir, "deno") };
      } catch (error) {
        await proxy.close();
        throw error;
      }
    })().catch((error: unknown) => {
      sandbox = undefined;
      throw error;
    }));
  const runner = policy.codeTool ? new CodeRunner(codeSetup(deno!, code, policy, client), startSandbox) : undefined;
  let docs: DocsIndex | undefined;

  async function call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    if (name === CODE_TOOL && runner) return runner.run(args.code, signal);
    if (name === DOCS_TOOL && policy.docsTool) return searchDocs((docs ??= new DocsIndex(readDocFiles())), args, policy.maxResultBytes);
    const spec = Object.hasOwn(mcpTools, name) ? mcpTools[name] : undefined;
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (!policy.operations.has(name) || !policy.operationTools.includes(spec)) return errorResult(refusal(name, policy));
    try {
      return await runOperationTool(client, spec, args, policy, signal);
    } catch (error) {
      return failure(error, spec, argumentOf);
    }
  }

  const servers = new Set<Server>();
  let http: HttpListener | undefined;
  const handle: OrgAgentMcpServer = {
    tools: definitions.map((tool) => tool.name),
    instructions: text,
    async connect(transport) {
      const server = new Server(
        { name: "orgagent", title: "orgagent", version: pkg.version },
        { capabilities: { tools: {} }, instructions: instructions(policy) },
      );
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: definitions }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const signal = AbortSignal.any([extra.signal, closing.signal]);
        let result: ToolResult;
        try {
          result = await call(request.params.name, request.params.arguments ?? {}, signal);
        } catch (error) {
          if (error instanceof McpError) throw error;
          logger.error(
            `[orgagent mcp] ${request.params.name} failed: ${scrub(error instanceof Error ? (error.stack ?? error.message) : String(error))}`,
          );
          result = failure(error);
        }
        return { ...result, content: result.content.map((block) => ({ ...block, text: scrub(block.text) })) };
      });
      server.onclose = () => servers.delete(server);
      servers.add(server);
      await server.connect(transport as unknown as Transport);
    },
    async connectStdio() {
      const ended = new Promise<void>((resolve) => {
        process.stdin.once("end", resolve);
        process.stdin.once("close", resolve);
      });
      await handle.connect(new StdioServerTransport());
      await ended;
    },
    async listen({ port = 0, host = "127.0.0.1" } = {}) {
      if (http) throw new McpOptionsError("The server already listens.");
      http = await listenHttp(handle, { port, host });
      return http.url;
    },
    async close() {
      closing.abort();
      await http?.close();
      await Promise.all([...servers].map((server) => server.close()));
      await (await sandbox?.catch(() => undefined))?.proxy.close();
      if (workDir) rmSync(workDir, { recursive: true, force: true });
    },
  };
  return handle;
}

function codeSetup(deno: string, code: McpServerOptions["code"], policy: Policy, client: OrgAgent) {
  const timeout = (code ? code.timeout : undefined) ?? DEFAULT_CODE_TIMEOUT;
  if (!Number.isInteger(timeout) || timeout < 1000 || timeout > 600_000)
    throw new McpOptionsError(`code.timeout must be a whole number of ms from 1,000 to 600,000; got ${timeout}.`);
  return { deno, timeout, maxResultBytes: policy.maxResultBytes, methods: describeMethods(client) };
}

/** Why `operationId` may not be called here, and what the user can do about it. */
function refusal(operationId: string, policy: Policy): string {
  const spec: McpToolSpec | undefined = mcpTools[operationId];
  const write = spec !== undefined && !spec.annotations.readOnlyHint;
  if (write && policy.readOnly) return `${operationId} is a write, and this MCP server is read-only (--read-only): it allows reads only.`;
  if (write && !policy.operations.has(operationId)) {
    return `${operationId} is a write, and writes are off in this MCP server. The user can allow it by starting the server with --allow-writes, or with --tools naming ${operationId}.`;
  }
  return `${operationId} is not among the tools this MCP server was started with (--tools).`;
}

const stderrLogger: NonNullable<ClientOptions["logger"]> = (() => {
  // Standard output belongs to the stdio transport: every log line goes to standard error.
  const write = (message: string) => void process.stderr.write(`${message}\n`);
  return { error: write, warn: write, info: write, debug: write };
})();

function readEnv(name: string): string | undefined {
  return process.env[name] || undefined;
}
