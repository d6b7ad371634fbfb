// The MCP suite (`npm run test:mcp`): the built `orgagent mcp` as a subprocess, over stdio and Streamable HTTP, with
// the official MCP SDK's client and the MCP Inspector's CLI. Slow (a build, Node 22 from the registry for the
// Inspector), so its files are `*.e2e.ts`, outside `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/mcp/**/*.e2e.ts"],
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
});
