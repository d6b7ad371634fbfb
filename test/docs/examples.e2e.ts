// Every TypeScript and shell example of README.md and docs/ runs against the emulator, as a reader would run it
// (test/docs/markdown-examples.ts says which blocks are examples; CONTRIBUTING.md, "Documentation examples", says
// how to write them): TypeScript with tsx, `import … from "orgagent"` meaning the SDK's source; shell with bash
// (`set -euo pipefail`), the `orgagent` CLI on the PATH; ORGAGENT_BASE_URL, ORGAGENT_APP_URL and ORGAGENT_API_KEY
// (the owner's key) set. An example passes when it exits 0, and a TypeScript one also compiles under the
// repository's strict flags. `npm start`'s addresses (127.0.0.1:4000 and :4001) in an example stand for the
// emulator's.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { root } from "../cli/support.js";
import { describeRun, startExampleWorld, type ExampleWorld } from "./example-runner.js";
import { examplesOf } from "./markdown-examples.js";
import { compileVirtual } from "./virtual-program.js";

const markdownFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : [],
  );
const files = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];
const examples = files.flatMap((file) => examplesOf(relative(root, file), readFileSync(file, "utf8")));

const NPM_START = { api: "http://127.0.0.1:4000", app: "http://127.0.0.1:4001" };

// Each TypeScript example as a module of its own (`export {}` makes one of a block without imports).
const exampleFile = (where: string) => join(root, "test", "docs", ".examples", `${where.replace(/\W+/g, "_")}.ts`);
const typeScript = new Map(
  examples
    .filter((example) => example.language === "typescript" && !example.skip && !example.error)
    .map((example) => [exampleFile(example.where), `${example.code}export {};\n`]),
);

let world: ExampleWorld;
let diagnosticsOf: (file: string) => string;

beforeAll(async () => {
  ({ diagnosticsOf } = compileVirtual(typeScript));
  world = await startExampleWorld();
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe("the examples of README.md and docs/", () => {
  test("there are some, in each kind of file", () => {
    expect(examples.some((example) => example.where.startsWith("README.md") && example.language === "typescript")).toBe(true);
    expect(examples.some((example) => example.where.startsWith("docs/") && example.language === "shell")).toBe(true);
  });

  const skipped = examples.filter((example) => example.skip);
  if (skipped.length) console.info(`Examples skipped:\n${skipped.map((e) => `  ${e.where} (${e.language}): ${e.skip}`).join("\n")}`);

  for (const example of examples) {
    const name = `${example.where} (${example.language})`;
    if (example.skip) {
      test.skip(`${name}, skipped: ${example.skip}`, () => {});
      continue;
    }
    test(`${name} runs and exits 0`, async () => {
      expect(example.error, example.where).toBeUndefined();
      const code = example.code.replaceAll(NPM_START.api, world.emulator.baseUrl).replaceAll(NPM_START.app, world.emulator.appUrl);
      const run = await world.run(example.language, code, example.stdin === undefined ? {} : { stdin: example.stdin });
      expect(run.code, `${example.where}: ${describeRun(run)}`).toBe(0);
    });
    if (typeScript.has(exampleFile(example.where))) {
      test(`${name} compiles under strict TypeScript`, () => {
        expect(diagnosticsOf(exampleFile(example.where))).toBe("");
      });
    }
  }
});
