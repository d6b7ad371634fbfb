// orgagent/mcp: the MCP server of `orgagent mcp`, to embed in a program of your own.
//
//   import { createMcpServer } from "orgagent/mcp";
//   const mcp = createMcpServer({ readOnly: true });           // ORGAGENT_API_KEY, ORGAGENT_BASE_URL, …
//   await mcp.connect(new StdioServerTransport());             // any transport of the MCP TypeScript SDK
//   // or: const url = await mcp.listen({ port: 3333 });       // Streamable HTTP on 127.0.0.1
export { createMcpServer } from "./server.js";
export type { McpTransport, OrgAgentMcpServer } from "./server.js";
export { McpOptionsError } from "./options.js";
export type { CodeToolOptions, McpServerOptions } from "./options.js";
