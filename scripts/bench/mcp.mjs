// `npm run bench:mcp`: how soon the built `orgagent mcp` (dist/cli.js; `npm run build` first) answers its first
// tools/list over stdio, from spawning the process to the answer (the client's initialize included), and how large
// that answer is, with the default tools and with --allow-writes; then how long one run_code program takes. Against
// the emulator, with the official MCP SDK's client. Prints the medians of RUNS runs.
//   node scripts/bench/mcp.mjs [--runs N]
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startEmulator } from "../../dist/emulator/index.js";
import { median, root } from "./lib.mjs";

const runsFlag = process.argv.indexOf("--runs");
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 5;
const bin = join(root, "dist", "cli.js");
if (!existsSync(bin)) throw new Error("dist/cli.js is missing: run `npm run build` first");

const emulator = await startEmulator();
const env = {
  PATH: process.env.PATH ?? "",
  ORGAGENT_BASE_URL: emulator.baseUrl,
  ORGAGENT_APP_URL: emulator.appUrl,
  ORGAGENT_API_KEY: emulator.keys.owner,
};

async function firstList(args) {
  const started = performance.now();
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", ...args], env }));
  const list = await client.listTools();
  const ms = performance.now() - started;
  return { ms, bytes: Buffer.byteLength(JSON.stringify(list)), tools: list.tools.length, client };
}

try {
  for (const args of [[], ["--allow-writes"]]) {
    const times = [];
    let last;
    for (let run = 0; run < RUNS; run++) {
      last = await firstList(args);
      times.push(last.ms);
      await last.client.close();
    }
    console.log(
      `orgagent mcp ${args.join(" ")}`.trim().padEnd(32),
      `first tools/list: ${Math.round(median(times))} ms (median of ${RUNS}; ${times.map(Math.round).join(", ")})`,
      `| ${last.tools} tools, ${last.bytes} bytes`,
    );
  }
  const { client } = await firstList([]);
  const code = "export const run = async (client) => (await client.computers.getByName('build-box-eu-1')).status;";
  await client.callTool({ name: "run_code", arguments: { code } }); // the first run fills Deno's cache
  const times = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    await client.callTool({ name: "run_code", arguments: { code } });
    times.push(performance.now() - started);
  }
  console.log("run_code, one call".padEnd(32), `${Math.round(median(times))} ms (median of ${RUNS})`);
  await client.close();
} finally {
  await emulator.close();
}
