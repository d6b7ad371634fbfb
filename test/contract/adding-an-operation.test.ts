// Adding an operation is one edit of the spec: in a copy of openapi/, a new `GET /api/v0/computers` with `x-sdk`,
// `x-pagination` and an example (test/support/new-operation.ts), then `npm run generate` (scripts/generate.mjs
// --spec), and nothing else edited. Then every face has it: the SDK's `client.computers.list()`, typed (its items are
// `Computer`), paging through a loopback server's answers and through the emulator built from the copy's sources
// (which answers it from its example, page by page, and says so); `client.request("listComputers")`; `orgagent api
// GET /api/v0/computers --paginate` from the copy's CLI; the MCP server's tools; the reference's TypeScript, CLI and
// curl samples.
// test/new-operation/new-operation.e2e.ts (npm run test:new-operation) does the same in a whole copy of the
// repository, with lint, tsc and the copy's own per-operation tests.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationsOf, referenceSamples } from "../../scripts/reference-spec.mjs";
import { cleanEnv, runProcess } from "../cli/support.js";
import { startLoopback, type Loopback } from "../sdk/support/loopback.js";
import { addListComputers, exampleComputers } from "../support/new-operation.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const copy = mkdtempSync(join(tmpdir(), "orgagent-new-operation-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

let resources: string;

/** Bundles a program of the copy (its src/ and generated/) for Node, as the tests bundle the CLI. */
async function bundleInCopy(name: string, source: string): Promise<string> {
  const entry = join(copy, `${name}.ts`);
  writeFileSync(entry, source);
  const outfile = join(copy, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "error",
    absWorkingDir: copy,
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

beforeAll(async () => {
  // The one edit: a path file, and its line in the root document.
  cpSync(join(root, "openapi"), join(copy, "openapi"), { recursive: true });
  addListComputers(copy);
  // Then `npm run generate`, into the copy's own generated/, beside an untouched copy of src/.
  await run(process.execPath, ["scripts/generate.mjs", "--spec", join(copy, "openapi"), "--out", join(copy, "generated")], { cwd: root });
  cpSync(join(root, "src"), join(copy, "src"), { recursive: true });
  cpSync(join(root, "package.json"), join(copy, "package.json"));
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  resources = readFileSync(join(copy, "generated/resources.ts"), "utf8");
}, 120_000);

describe("a new operation with x-sdk and x-pagination, after npm run generate", () => {
  it("is a method of its resource: a typed list of Computer, with the spec's summary as its doc", () => {
    expect(resources).toContain(
      'list(query?: QueryParams<"listComputers">, options?: RequestOptions & PageOptions): PagePromise<ResponseBody<"listComputers">, api.Computer> {',
    );
    expect(resources).toMatch(
      /\/\*\*\n {3}\* List computers\n {3}\*\n {3}\* The organization's computers, a page at a time\.\n {3}\*\/\n {2}list\(/,
    );
  });

  it("type-checks where it is used, and refuses what the spec refuses", () => {
    const program = join(copy, "program.ts");
    writeFileSync(
      program,
      `import { OrgAgent, type Computer } from "./src/index.js";
      declare const client: OrgAgent;
      for await (const computer of client.computers.list({ limit: 2 })) { const typed: Computer = computer; void typed; }
      const page = await client.computers.list();
      const more: boolean = page.hasMore;
      for await (const computer of client.request("listComputers", { query: { limit: 2 } })) { const typed: Computer = computer; void typed; }
      // @ts-expect-error limit is an integer
      void client.computers.list({ limit: "2" });
      void more;`,
    );
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, "tsconfig.json"),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    )!;
    const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([program], config.options));
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  }, 120_000);

  it("pages through the answers of a server: every computer once, two at a time", async () => {
    const all = ["cmp_a", "cmp_b", "cmp_c", "cmp_d", "cmp_e"].map((id) => ({ ...exampleComputers[0], id }));
    const server: Loopback = await startLoopback((request) => {
      const from = Number(request.query.get("cursor") ?? 0);
      const limit = Number(request.query.get("limit"));
      const next = from + limit;
      return {
        body: { computers: all.slice(from, next), hasMore: next < all.length, nextCursor: next < all.length ? String(next) : null },
      };
    });
    try {
      const list = await bundleInCopy(
        "list",
        `import { OrgAgent } from "./src/index.ts";
        const client = new OrgAgent({ apiKey: "new-operation-key", baseUrl: process.argv[2] });
        const ids = [];
        for await (const computer of client.computers.list({ limit: 2 })) ids.push(computer.id);
        console.log(JSON.stringify(ids));`,
      );
      const { stdout } = await run(process.execPath, [list, server.url]);
      expect(JSON.parse(stdout)).toEqual(all.map(({ id }) => id));
      expect(server.requests.map((request) => request.target)).toEqual([
        "/api/v0/computers?limit=2",
        "/api/v0/computers?limit=2&cursor=2",
        "/api/v0/computers?limit=2&cursor=4",
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("is answered by the emulator built from the copy's sources: its example's items, page by page, marked as an example", async () => {
    const program = await bundleInCopy(
      "emulated",
      `import { startEmulator } from "./src/emulator/index.ts";
      import { OrgAgent } from "./src/index.ts";
      const emulator = await startEmulator();
      const client = new OrgAgent({ apiKey: emulator.keys.member, baseUrl: emulator.baseUrl });
      const pages = [];
      for await (const { data, response } of client.computers.list({ limit: 2 }).pages({ withResponse: true })) {
        pages.push({ ids: data.computers.map((c) => c.id), hasMore: data.hasMore, answer: response.headers.get("x-emulator-answer") });
      }
      const byRequest = await client.request("listComputers", { query: { limit: 2 } }).toArray();
      console.log(JSON.stringify({ pages, byRequest: byRequest.length }));
      await emulator.close();`,
    );
    const { stdout, stderr } = await run(process.execPath, [program]);
    const ids = exampleComputers.map((c) => c.id);
    expect(JSON.parse(stdout)).toEqual({
      pages: [
        { ids: ids.slice(0, 2), hasMore: true, answer: "example" },
        { ids: ids.slice(2), hasMore: false, answer: "example" },
      ],
      byRequest: ids.length,
    });
    // The emulator's log says it, once.
    expect(
      stderr.match(/GET \/api\/v0\/computers \(listComputers\) has no emulated behaviour: answered from the spec's example/g),
    ).toHaveLength(1);
  }, 60_000);

  it("is reached by `orgagent api GET /api/v0/computers --paginate` of the copy's CLI", async () => {
    const [emulatorModule] = await Promise.all([
      bundleInCopy("emulator", `export { startEmulator } from "./src/emulator/index.ts";`),
      // The CLI's `run`, as the bin calls it.
      bundleInCopy("cli-entry", `export { run } from "./src/cli/program.ts";`),
    ]);
    const { startEmulator } = (await import(pathToFileURL(emulatorModule).href)) as typeof import("../../src/emulator/index.js");
    const emulator = await startEmulator();
    try {
      const env = cleanEnv({ ORGAGENT_BASE_URL: emulator.baseUrl, ORGAGENT_API_KEY: emulator.keys.owner });
      writeFileSync(join(copy, "bin.mjs"), `import { run } from "./cli-entry.mjs"; process.exitCode = await run(process.argv.slice(2));`);
      const [pages, ids] = await Promise.all([
        runProcess(process.execPath, [join(copy, "bin.mjs"), "api", "GET", "/api/v0/computers", "-F", "limit=2", "--paginate"], env),
        runProcess(
          process.execPath,
          [join(copy, "bin.mjs"), "api", "GET", "/api/v0/computers", "--paginate", "--jq", ".computers[].id"],
          env,
        ),
      ]);
      expect(pages.code, pages.stderr).toBe(0);
      expect(pages.stdout.split(/\n(?=\{)/).map((page) => JSON.parse(page).computers.length)).toEqual([2, 1]);
      expect(ids.stdout).toBe(`${exampleComputers.map((c) => c.id).join("\n")}\n`);
    } finally {
      await emulator.close();
    }
  }, 60_000);

  it("is a tool of the MCP server", () => {
    expect(readFileSync(join(copy, "generated/mcp-tools.ts"), "utf8")).toContain('"name": "listComputers"');
  });

  it("has TypeScript, CLI and curl samples in the reference", () => {
    const spec = JSON.parse(readFileSync(join(copy, "generated/openapi.json"), "utf8"));
    const [path, method, operation] = operationsOf(spec).find(([, , op]) => op.operationId === "listComputers")!;
    const samples = referenceSamples(spec, path, method, operation);
    expect(samples.map((sample) => sample.label)).toEqual(["TypeScript", "orgagent CLI", "curl"]);
    expect(samples[0]!.source).toMatch(/for await \(const computer of client\.computers\.list\(\{\s+limit: 2,?\s+\}\)\) \{/);
    expect(samples[1]!.source).toBe("orgagent api GET /api/v0/computers \\\n  -F limit=2 \\\n  --paginate\n");
    expect(samples[2]!.source).toContain("/api/v0/computers");
  });
});
