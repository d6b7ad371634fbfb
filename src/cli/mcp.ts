// `orgagent mcp`: the MCP server (orgagent/mcp) for an AI assistant, over stdio, or Streamable HTTP with --port.
// The same configuration as every command (--api-key, --base-url, --app-url, --request-timeout, --debug and their
// ORGAGENT_* variables); reads only unless writes are allowed. Loaded when it runs: the MCP SDK is large.
import { type Command, Option } from "commander";
import type { Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { examples, wholeNumber } from "./options.js";

export interface McpFlags {
  port?: number;
  host: string;
  readOnly?: boolean;
  allowWrites?: boolean;
  tools?: string;
  maxItems?: number;
  maxResultBytes?: number;
  code: boolean;
  deno?: string;
  codeTimeout?: number;
  debug?: boolean;
}

export function mcpCommand(program: Command, context: Context): void {
  const mcp = program
    .command("mcp")
    .description("serve the API to an AI assistant over MCP (stdio, or HTTP with --port)")
    .addOption(
      new Option("--port <port>", "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0: any free port)").argParser(
        wholeNumber("--port", 0, 65_535),
      ),
    )
    .addOption(
      new Option("--host <address>", "the address --port listens on; anyone who reaches it acts with the key").default("127.0.0.1"),
    )
    .addOption(new Option("--read-only", "list and allow reads only").conflicts("allowWrites"))
    .option("--allow-writes", "allow every write too (sessions, messages, limits, retries); by default writes are off")
    .option(
      "--tools <names>",
      "list only these tools, comma-separated (operationIds, run_code, search_docs); a write named here is allowed",
    )
    .addOption(
      new Option("--max-items <n>", "most items a list tool returns in one call (default: 100)").argParser(
        wholeNumber("--max-items", 1, 10_000),
      ),
    )
    .addOption(
      new Option("--max-result-bytes <n>", "largest tool answer; larger ones are cut with a note (default: 32768)").argParser(
        wholeNumber("--max-result-bytes", 1024, 16 * 1024 * 1024),
      ),
    )
    .option("--no-code", "leave out run_code, the tool that runs a program against the SDK in a Deno sandbox")
    .addOption(
      new Option("--deno <path>", "the Deno executable for run_code (default: deno on the PATH, or the deno npm package)").env(
        "ORGAGENT_DENO",
      ),
    )
    .addOption(
      new Option("--code-timeout <seconds>", "how long a run_code program may run, in seconds (default: 30)").argParser(
        wholeNumber("--code-timeout", 1, 600),
      ),
    );
  mcp.addHelpText(
    "after",
    [
      "",
      "One tool per API operation (from the spec), run_code (a TypeScript program against the orgagent SDK, in a Deno",
      "sandbox that can reach nothing but the API and never sees the key; listed only where Deno is found) and",
      "search_docs (the documentation, offline). Logs go to stderr. See docs/mcp.md for the set-up of Claude Desktop,",
      "Claude Code, Cursor and VS Code.",
    ].join("\n"),
  );
  examples(mcp, [
    "orgagent mcp                                  # stdio, reads only",
    "orgagent mcp --allow-writes                   # and every write",
    "orgagent mcp --tools listAnalyticsUsers,run_code",
    "orgagent mcp --port 3333                      # http://127.0.0.1:3333/mcp",
  ]);
  mcp.action(async (flags: McpFlags, cmd: Command) => {
    context.begin(cmd);
    // The checks and wording of every command: a missing key or host is a usage error naming the flag.
    const checked = context.client(cmd);
    const globals = cmd.optsWithGlobals<{ apiKey: string; debug?: boolean }>();
    const { createMcpServer, McpOptionsError } = await import("../mcp/index.js");
    let server: ReturnType<typeof createMcpServer>;
    try {
      server = createMcpServer({
        apiKey: globals.apiKey,
        baseUrl: checked.baseUrl,
        appUrl: checked.appUrl,
        timeout: context.requestTimeout * 1000,
        ...(globals.debug ? { logLevel: "debug" as const } : context.env.ORGAGENT_LOG ? {} : { logLevel: "off" as const }),
        readOnly: flags.readOnly,
        allowWrites: flags.allowWrites,
        tools: flags.tools
          ?.split(",")
          .map((name) => name.trim())
          .filter(Boolean),
        maxItems: flags.maxItems,
        maxResultBytes: flags.maxResultBytes,
        code: flags.code ? { deno: flags.deno, timeout: flags.codeTimeout === undefined ? undefined : flags.codeTimeout * 1000 } : false,
      });
    } catch (error) {
      if (error instanceof McpOptionsError) throw new CliError(error.message, EXIT.usage, "Run 'orgagent mcp --help' for the flags.");
      throw error;
    }
    const stop = new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    if (flags.port === undefined) {
      await Promise.race([server.connectStdio(), stop]);
    } else {
      const url = await server.listen({ port: flags.port, host: flags.host });
      context.io.stderr.write(`orgagent mcp: Streamable HTTP at ${url} (${server.tools.length} tools); Ctrl+C stops it\n`);
      if (!["127.0.0.1", "localhost", "::1"].includes(flags.host)) {
        context.io.stderr.write(
          `orgagent mcp: warning: ${flags.host} is not a loopback address: whoever reaches ${url} acts with the API key.\n`,
        );
      }
      await stop;
    }
    await server.close();
  });
}
