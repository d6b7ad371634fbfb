// The parts of the MCP TypeScript SDK the server uses, in one module: the build bundles it (with zod, ajv and hono
// under it) into one minified file, dist/mcp/protocol.cjs, that the ESM and CJS builds of orgagent/mcp both load.
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
export { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
export {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
