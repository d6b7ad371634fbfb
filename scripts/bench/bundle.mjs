// Section 3: bundle size. Each entry constructs a client and makes one call; esbuild bundles it for the browser,
// minified, and the output is gzipped at level 9. For orgagent the metafile also gives each input's share.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { fixtures, root } from "./lib.mjs";

const BASE = JSON.stringify(fixtures.baseUrl);
const PATH = JSON.stringify(fixtures.computer.path);
const ID = JSON.stringify(fixtures.computer.computerId);
const URL_PATH = JSON.stringify(fixtures.computer.path.replace("{computerId}", fixtures.computer.computerId));
const ENTRIES = {
  orgagent: `import { OrgAgent } from "./src/index.ts";
    const client = new OrgAgent({ apiKey: "k", baseUrl: ${BASE} });
    console.log(await client.computers.get(${ID}));`,
  "openapi-fetch": `import createClient from "openapi-fetch";
    const client = createClient({ baseUrl: ${BASE} });
    console.log(await client.GET(${PATH}, { params: { path: { computerId: ${ID} } } }));`,
  "@octokit/core": `import { Octokit } from "@octokit/core";
    const client = new Octokit({ baseUrl: ${BASE}, auth: "k" });
    console.log(await client.request(${JSON.stringify(`GET ${fixtures.computer.path}`)}, { computerId: ${ID} }));`,
  openai: `import OpenAI from "openai";
    const client = new OpenAI({ apiKey: "k", baseURL: ${BASE} });
    console.log(await client.get(${URL_PATH}));`,
  "@anthropic-ai/sdk": `import Anthropic from "@anthropic-ai/sdk";
    const client = new Anthropic({ apiKey: "k", baseURL: ${BASE} });
    console.log(await client.get(${URL_PATH}));`,
};

async function minified(contents) {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts", sourcefile: "entry.ts" },
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    metafile: true,
    logLevel: "error",
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length, inputs };
}

export async function measureBundles() {
  const sizes = [];
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const { min, gzip, inputs } = await minified(entry);
    sizes.push({ name, min, gzip, inputs });
  }
  // The shares inside orgagent's bundle: minified bytes per source, and the tables gzipped on their own.
  const orgagent = sizes.find((s) => s.name === "orgagent");
  const share = (match) =>
    Object.entries(orgagent.inputs)
      .filter(([file]) => match(file))
      .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  const tables = await minified(`export * from "./generated/spec-tables.ts";`);
  const parts = {
    specTablesMin: share((f) => f.includes("generated/spec-tables")),
    specTablesAloneGzip: tables.gzip,
    openapiFetchMin: share((f) => f.includes("node_modules/openapi-fetch")),
    srcMin: share((f) => f.startsWith("src/")),
    bySource: Object.fromEntries(
      Object.entries(orgagent.inputs)
        .map(([file, input]) => [file, input.bytesInOutput])
        .sort((a, b) => b[1] - a[1]),
    ),
  };
  for (const s of sizes) delete s.inputs;
  return { sizes, orgagentParts: parts };
}
