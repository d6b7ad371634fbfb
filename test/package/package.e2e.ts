// The package as users meet it: the tarball `npm pack` makes, installed into a clean project, imported with
// `import` and `require()`, compiled by a strict consumer, run against Prism, checked by publint and
// arethetypeswrong, and its spec fed to a second, independent code generator.
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPrism } from "../../scripts/prism.mjs";
import { startEmulator } from "../../src/emulator/index.js";
import type { StalledServer } from "../resilience/stalled-server.js";
import { expectedSummary, smokeConfig, startSmokeStalledServer } from "../runtimes/smoke-expectations.js";
import {
  command,
  consumerConfigs,
  createConsumerProject,
  mustRun,
  repoTsc,
  root,
  type CommandResult,
  type ConsumerConfig,
  type ConsumerProject,
} from "./consumer-project.js";

const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));
/** The combined bundle and the per-host bundles, JSON and YAML: each is exported as `orgagent/<file>`. */
const specFiles = readdirSync(join(root, "generated")).filter((file) => /^openapi(\.\w+)?\.(json|yaml)$/.test(file));
const operationIds: string[] = Object.values<Record<string, { operationId?: string }>>(spec.paths)
  .flatMap((item) => Object.values(item))
  .flatMap((operation) => (operation?.operationId ? [operation.operationId] : []));

let project: ConsumerProject;
let prism: { url: string; close(): Promise<void> };
let stalled: StalledServer;
let compiled: CommandResult;

beforeAll(async () => {
  project = await createConsumerProject();
  // Prism mocks the spec the package ships, not the repo's copy.
  [prism, compiled] = await Promise.all([
    startPrism({ spec: join(project.dir, "node_modules", "orgagent", "dist", "openapi.json") }),
    project.typecheck("node16"),
  ]);
  stalled = await startSmokeStalledServer(prism.url);
});
afterAll(async () => {
  await Promise.all([prism?.close(), stalled?.close()]);
  project?.remove();
});

/** Runs Node in the consumer project. */
const node = (args: string[]) => command(process.execPath, args, { cwd: project.dir });
const exportedNames = async (specifier: string, loader: "import" | "require") => {
  const script =
    loader === "import"
      ? `import * as m from ${JSON.stringify(specifier)}; console.log(JSON.stringify(Object.keys(m).sort()))`
      : `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)})).sort()))`;
  const result = await node(loader === "import" ? ["--input-type=module", "-e", script] : ["-e", script]);
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as string[];
};

describe("the tarball", () => {
  test("holds the ESM and CJS builds with their declarations, the emulator, the report, the MCP server, the CLI, the bundled specs and the guides, nothing else", () => {
    expect(specFiles).toEqual(expect.arrayContaining(["openapi.api.json", "openapi.app.json", "openapi.api.yaml"]));
    // The guides ship with the package, so that README.md's links work in node_modules too.
    const guides = readdirSync(join(root, "docs"))
      .filter((file) => file.endsWith(".md"))
      .map((file) => `docs/${file}`);
    const alwaysPacked = new Set(["package.json", "README.md", "LICENSE", "CHANGELOG.md", ...guides]);
    expect(project.packedFiles).toEqual(expect.arrayContaining([...alwaysPacked]));
    expect(project.packedFiles.filter((file) => !alwaysPacked.has(file))).toEqual(
      [
        "dist/cli.js",
        "dist/emulator/index.cjs",
        "dist/emulator/index.d.cts",
        "dist/emulator/index.d.ts",
        "dist/emulator/index.js",
        "dist/index.cjs",
        "dist/index.d.cts",
        "dist/index.d.ts",
        "dist/index.js",
        "dist/jq.js",
        "dist/mcp/docs.json",
        "dist/mcp/index.cjs",
        "dist/mcp/index.d.cts",
        "dist/mcp/index.d.ts",
        "dist/mcp/index.js",
        "dist/mcp/protocol.cjs",
        "dist/openapi.json",
        "dist/openapi.yaml",
        ...specFiles.filter((file) => file !== "openapi.json" && file !== "openapi.yaml").map((file) => `dist/${file}`),
        "dist/report/charts.cjs",
        "dist/report/index.cjs",
        "dist/report/index.d.cts",
        "dist/report/index.d.ts",
        "dist/report/index.js",
      ].sort(),
    );
  });

  test("needs no runtime dependency but openapi-fetch: the CLI carries commander and csv-parse, the report its charts, the MCP server the MCP SDK", () => {
    const installed = JSON.parse(readFileSync(join(project.dir, "node_modules", "orgagent", "package.json"), "utf8"));
    expect(Object.keys(installed.dependencies)).toEqual(["openapi-fetch"]);
    const modules = readdirSync(join(project.dir, "node_modules")).filter((name) => !name.startsWith("."));
    expect(modules).not.toContain("commander");
    expect(modules).not.toContain("csv-parse");
    expect(modules).not.toContain("linkedom");
    expect(modules).not.toContain("@observablehq");
    expect(modules).not.toContain("@modelcontextprotocol");
    expect(modules).not.toContain("zod");
  });

  test("publint reports nothing", async () => {
    const data = readFileSync(project.tarball);
    const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    const { messages, pkg } = await publint({ pack: { tarball }, level: "suggestion", strict: true });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
  });

  test("arethetypeswrong finds no problem in any entry point, under node10, node16 (ESM and CJS) and bundler", async () => {
    const pkg = createPackageFromTarballData(new Uint8Array(readFileSync(project.tarball)));
    // The YAML specs are data files read by path (require.resolve), not modules: no resolution mode can type them.
    const yamlFiles = specFiles.filter((file) => file.endsWith(".yaml")).map((file) => `./${file}`);
    const result = await checkPackage(pkg, { excludeEntrypoints: yamlFiles });
    if (!("problems" in result)) throw new Error("attw found no types at all");
    expect(Object.keys(result.entrypoints).sort()).toEqual(
      [
        ".",
        "./emulator",
        "./mcp",
        "./package.json",
        "./report",
        ...specFiles.filter((file) => file.endsWith(".json")).map((file) => `./${file}`),
      ].sort(),
    );
    expect(result.problems).toEqual([]);
  });
});

describe("a consumer project", () => {
  test("imports the same public API with `import` and with `require()`, and it is src/index.ts's", async () => {
    const source = Object.keys(await import("../../src/index.js")).sort();
    expect(await exportedNames("orgagent", "import")).toEqual(source);
    expect(await exportedNames("orgagent", "require")).toEqual(source);
  });

  test("imports orgagent/emulator with `import` and with `require()`", async () => {
    const source = Object.keys(await import("../../src/emulator/index.js")).sort();
    expect(source).toContain("startEmulator");
    expect(await exportedNames("orgagent/emulator", "import")).toEqual(source);
    expect(await exportedNames("orgagent/emulator", "require")).toEqual(source);
  });

  test("imports orgagent/report with `import` and with `require()`", async () => {
    const source = Object.keys(await import("../../src/report/index.js")).sort();
    expect(source).toContain("writeAnalyticsReport");
    expect(await exportedNames("orgagent/report", "import")).toEqual(source);
    expect(await exportedNames("orgagent/report", "require")).toEqual(source);
  });

  test("imports orgagent/mcp with `import` and with `require()`; the other entries never load it", async () => {
    const source = Object.keys(await import("../../src/mcp/index.js")).sort();
    expect(source).toContain("createMcpServer");
    expect(await exportedNames("orgagent/mcp", "import")).toEqual(source);
    expect(await exportedNames("orgagent/mcp", "require")).toEqual(source);
    // The other entries never load it: no import of the server's files or of the MCP SDK in their builds.
    for (const file of ["index.js", "index.cjs", "emulator/index.js", "emulator/index.cjs", "report/index.js", "report/index.cjs"]) {
      expect(readFileSync(join(project.dir, "node_modules", "orgagent", "dist", file), "utf8"), file).not.toMatch(
        /\bmcp\/|protocol\.cjs|@modelcontextprotocol/,
      );
    }
  });

  test("orgagent mcp answers an MCP client over stdio from the install, its run_code loading the package's own SDK", async () => {
    const emulator = await startEmulator({ users: 20 });
    try {
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
      const env = {
        PATH: process.env.PATH ?? "",
        ORGAGENT_BASE_URL: emulator.baseUrl,
        ORGAGENT_API_KEY: emulator.keys.owner,
        ORGAGENT_DENO: join(root, "node_modules", "deno", "deno"),
      };
      const client = new Client({ name: "package-test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: join(project.dir, "node_modules", ".bin", "orgagent"),
          args: ["mcp"],
          env,
          cwd: project.dir,
          stderr: "pipe",
        }),
      );
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
          expect.arrayContaining(["getComputerByName", "run_code", "search_docs"]),
        );
        const answer = (await client.callTool({
          name: "run_code",
          arguments: {
            code: `import { dateRange } from "orgagent"; export const run = async (client) => (await client.computers.getByName("build-box-eu-1")).name + " " + typeof dateRange.lastDays;`,
          },
        })) as { content: { text: string }[] };
        expect(answer.content[0]!.text).toBe('"build-box-eu-1 function"');
        const docs = (await client.callTool({ name: "search_docs", arguments: { query: "Retry-After" } })) as {
          content: { text: string }[];
        };
        expect(docs.content.some((block) => /\((README\.md|docs\/\w+\.md)\)/.test(block.text))).toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      await emulator.close();
    }
  });

  test.each(["mts", "cts"])(
    "writes a report of the emulator through orgagent/report, compiled by strict TypeScript as .%s; its errors are the SDK's classes",
    async (extension) => {
      // One SDK: the client passed in and the errors thrown out are those of `orgagent`, whichever entry runs.
      const program = `import { OrgAgent, OrgAgentError, PermissionDeniedError } from "orgagent";
import { startEmulator } from "orgagent/emulator";
import { writeAnalyticsReport, type WrittenReport } from "orgagent/report";

async function main(): Promise<void> {
  const emulator = await startEmulator({ users: 20 });
  const range = { startDate: "2026-03-02", endDate: "2026-03-08" };
  try {
    const client = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.owner });
    const written: WrittenReport = await writeAnalyticsReport(client, range, { out: "report-${extension}.html" });
    const member = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.member, logLevel: "off" });
    const denied = await writeAnalyticsReport(member, range, { out: "denied.html" }).catch((error: unknown) => error);
    const unwritable = await writeAnalyticsReport(client, range, { out: "no-such-dir/report.html" }).catch((error: unknown) => error);
    console.log(
      JSON.stringify({
        bytes: written.bytes,
        credits: written.report.credits.total,
        denied: denied instanceof PermissionDeniedError && denied.message,
        unwritable: unwritable instanceof OrgAgentError && unwritable.name,
      }),
    );
  } finally {
    await emulator.close();
  }
}
void main();
`;
      writeFileSync(join(project.dir, `report.${extension}`), program);
      const tsconfig = `tsconfig.report-${extension}.json`;
      const compilerOptions = { ...consumerConfigs.node16, types: ["node"], outDir: `out-report-${extension}` } as Record<string, unknown>;
      delete compilerOptions.files;
      writeFileSync(join(project.dir, tsconfig), JSON.stringify({ compilerOptions, files: [`report.${extension}`] }));
      const compiled = await command(process.execPath, [repoTsc, "-p", tsconfig], { cwd: project.dir });
      expect(compiled.stdout + compiled.stderr).toBe("");
      const result = await mustRun(process.execPath, [join(`out-report-${extension}`, `report.${extension.replace("ts", "js")}`)], {
        cwd: project.dir,
      });
      const summary = JSON.parse(result.stdout);
      expect(summary.denied).toMatch(/^Analytics reports need a Manager or Owner API key/);
      expect(summary.unwritable).toBe("ReportWriteError");
      expect(summary.credits).toBeGreaterThan(0);
      expect(readFileSync(join(project.dir, `report-${extension}.html`)).length).toBe(summary.bytes);
      expect(readdirSync(project.dir)).not.toContain("denied.html");
    },
  );

  test("resolves orgagent/openapi.json, orgagent/openapi.yaml and the per-host bundles to the generated specs", async () => {
    for (const file of specFiles) {
      const resolved = await node(["-p", `require.resolve("orgagent/${file}")`]);
      expect(resolved.stderr).toBe("");
      expect(readFileSync(resolved.stdout.trim(), "utf8")).toBe(readFileSync(join(root, "generated", file), "utf8"));
    }
  });

  test.each(Object.keys(consumerConfigs) as ConsumerConfig[])("type-checks under strict TypeScript: %s", async (config) => {
    const result = config === "node16" ? compiled : await project.typecheck(config);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  test.each(["run.mjs", "run.cjs"])("runs against Prism, compiled and loaded through out/%s", async (entry) => {
    expect(compiled.code).toBe(0);
    const result = await mustRun(process.execPath, [join("out", entry), JSON.stringify(smokeConfig(prism.url, stalled.url))], {
      cwd: project.dir,
    });
    expect(JSON.parse(result.stdout)).toEqual(expectedSummary);
  });

  test("runs the orgagent bin, with no dependency it does not ship", async () => {
    const result = await command(join(project.dir, "node_modules", ".bin", "orgagent"), ["--help"], { cwd: project.dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: orgagent/);
  });

  test("orgagent report writes a report from the install: the bin loads orgagent/report's built files", async () => {
    const emulator = await startEmulator({ users: 20 });
    try {
      const env = { ORGAGENT_BASE_URL: emulator.baseUrl, ORGAGENT_API_KEY: emulator.keys.owner };
      const bin = join(project.dir, "node_modules", ".bin", "orgagent");
      const result = await command(bin, ["report", "--start", "2026-03-02", "--end", "2026-03-08"], { cwd: project.dir, env });
      const file = join(project.dir, "orgagent-report-2026-03-02_2026-03-08.html");
      expect(result).toEqual({ code: 0, stdout: `${file}\n`, stderr: "" });
      expect(readFileSync(file, "utf8")).toMatch(/^<!doctype html>[\s\S]*<svg/i);
    } finally {
      await emulator.close();
    }
  });
});

describe("the packaged spec serves other generators", () => {
  test("@hey-api/openapi-ts generates a client from orgagent/openapi.json without warnings, and it type-checks", async () => {
    const input = (await node(["-p", 'require.resolve("orgagent/openapi.json")'])).stdout.trim();
    const generator = join(root, "node_modules", "@hey-api", "openapi-ts", "bin", "run.js");
    const generated = await mustRun(process.execPath, [generator, "-i", input, "-o", "hey-api", "--no-log-file"], {
      cwd: project.dir,
      env: { NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    expect(generated.stdout + generated.stderr).not.toMatch(/warn|error|deprecat/i);

    // One SDK function per operation of the spec.
    const index = readFileSync(join(project.dir, "hey-api", "index.ts"), "utf8");
    for (const operationId of operationIds) expect(index).toMatch(new RegExp(`\\b${operationId}\\b`));

    const tsconfig = join(project.dir, "tsconfig.hey-api.json");
    const compilerOptions = {
      strict: true,
      skipLibCheck: false,
      module: "esnext",
      moduleResolution: "bundler",
      target: "es2022",
      // The generated client iterates URLSearchParams, which needs the DOM's iterable declarations.
      lib: ["es2022", "dom", "dom.iterable"],
      types: [],
      noEmit: true,
    };
    writeFileSync(tsconfig, JSON.stringify({ compilerOptions, include: ["hey-api"] }));
    const checked = await command(process.execPath, [repoTsc, "-p", tsconfig], { cwd: project.dir });
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);
  });
});
