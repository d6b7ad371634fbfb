// An MCP server of orgagent, from the source, on a free loopback port (Streamable HTTP), with the official MCP SDK's
// client connected to it: what an assistant does. Everything a test starts is closed by `close()`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpServer, type McpServerOptions, type OrgAgentMcpServer } from "../../src/mcp/index.js";

export interface Connected {
  client: Client;
  server: OrgAgentMcpServer;
  url: string;
  close(): Promise<void>;
}

export async function connect(options: McpServerOptions): Promise<Connected> {
  const server = createMcpServer({ logLevel: "off", ...options });
  const url = await server.listen();
  const client = new Client({ name: "orgagent-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    server,
    url,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export interface ToolAnswer {
  isError: boolean;
  texts: string[];
  /** Every text block, joined. */
  text: string;
}

export async function call(client: Client, name: string, args: object = {}): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  const texts = result.content.map((block) => block.text);
  return { isError: result.isError === true, texts, text: texts.join("\n") };
}

/** The first text block as JSON. */
export function json(answer: ToolAnswer): any {
  return JSON.parse(answer.texts[0]!);
}

export const DAY = 86_400_000;
/** `YYYY-MM-DD`, `daysAgo` days before today (UTC). */
export const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
