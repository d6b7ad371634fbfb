// Adding an operation is one edit of the spec, in a whole copy of the repository (every file git knows, as they are
// now): `GET /api/v0/computers` (test/support/new-operation.ts) added to openapi/, then `npm run generate`, and
// nothing else. Only the spec, generated/ and the generated lists of operations in docs/ change; `npm run lint` and
// `npx tsc -p .` pass (with a program of the copy that types the new list's items as `Computer`); the copy's own
// per-operation tests, sample tests, documentation lists, freshness test and emulator tests pass and cover the new
// operation; the MCP tools list has it; the rendered reference shows it with its samples. The CLI and the emulator
// built from such a copy are run in test/contract/adding-an-operation.test.ts.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { addListComputers } from "../support/new-operation.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const exec = promisify(execFile);
const copy = mkdtempSync(join(tmpdir(), "orgagent-new-operation-repo-"));
let files: string[];

/** Runs a command in the copy; resolves to its exit code and output (never rejects on a failing exit). */
async function inCopy(command: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd: copy,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, CI: "", FORCE_COLOR: "0" },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : 1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

beforeAll(async () => {
  files = (await exec("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, maxBuffer: 16 * 1024 * 1024 })).stdout
    .split("\n")
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  addListComputers(copy);
  const generated = await inCopy("npm", ["run", "generate"]);
  expect(generated.code, generated.output).toBe(0);
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

test("npm run generate changes only the spec's bundles and tables, the generated code and the generated lists in docs/", () => {
  const changed = files.filter((file) => readFileSync(join(root, file), "utf8") !== readFileSync(join(copy, file), "utf8"));
  expect(changed.filter((file) => !file.startsWith("generated/"))).toEqual(["docs/cli.md", "docs/sdk.md", "openapi/openapi.yaml"]);
  expect(changed).toEqual(
    expect.arrayContaining(["generated/resources.ts", "generated/spec-tables.ts", "generated/examples.ts", "generated/mcp-tools.ts"]),
  );
  expect(readFileSync(join(copy, "docs/sdk.md"), "utf8")).toContain(
    "| `listComputers` | `client.computers.list(query?, options?)` | `GET /api/v0/computers` | pages of `computers` |",
  );
  expect(readFileSync(join(copy, "docs/cli.md"), "utf8")).toContain(
    "| `orgagent api GET /api/v0/computers [--paginate]` | `listComputers` | List computers |",
  );
  expect(readFileSync(join(copy, "generated/mcp-tools.ts"), "utf8")).toContain('"name": "listComputers"');
});

test("npm run lint passes", async () => {
  const lint = await inCopy("npm", ["run", "lint"]);
  expect(lint.code, lint.output).toBe(0);
});

test("npx tsc -p . passes, with the new list's items typed Computer", async () => {
  writeFileSync(
    join(copy, "test/new-operation-types.ts"),
    `import { OrgAgent, type Computer } from "../src/index.js";
    export async function names(client: OrgAgent): Promise<string[]> {
      const names: string[] = [];
      for await (const computer of client.computers.list({ limit: 2 })) {
        const typed: Computer = computer;
        names.push(typed.name);
      }
      // @ts-expect-error the spec's limit is an integer
      void client.computers.list({ limit: "2" });
      return names;
    }\n`,
  );
  const tsc = await inCopy(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."]);
  expect(tsc.code, tsc.output).toBe(0);
});

test("the copy's per-operation, sample, documentation, freshness and emulator tests pass, and cover the new operation", async () => {
  const suites = [
    "test/contract/every-operation.test.ts",
    "test/contract/spec.test.ts",
    "test/docs/code-samples.test.ts",
    "test/docs/operation-lists.test.ts",
    "test/emulator/contract.test.ts",
    "test/emulator/statuses.test.ts",
    "test/sdk/prism-methods.test.ts",
    "test/sdk/hosts.test.ts",
  ];
  const vitest = await inCopy(process.execPath, [
    join(root, "node_modules/vitest/vitest.mjs"),
    "run",
    "--config",
    "test/vitest.config.ts",
    "--reporter",
    "verbose",
    ...suites,
  ]);
  expect(vitest.code, vitest.output.slice(-8000)).toBe(0);
  const names = vitest.output.replace(/\u001b\[[\d;]*m/g, "");
  for (const covered of [
    "against the Prism mock of the spec > 'listComputers' with 'required parameters' through 'client.request'",
    "against the emulator > 'listComputers' with 'every parameter' through 'resource method'",
    "listComputers: the emulator's responses are valid",
    "listComputers 200",
    "listComputers 403",
  ]) {
    expect(names).toContain(covered);
  }
});

test("the rendered reference (npm run docs) shows the operation with TypeScript, CLI and curl samples", async () => {
  const docs = await inCopy("npm", ["run", "docs"]);
  expect(docs.code, docs.output).toBe(0);
  const page = readFileSync(join(copy, "dist/docs/index.html"), "utf8");
  expect(page).toContain("listComputers");
  expect(page).toContain("client.computers.list(");
  expect(page).toContain("orgagent api GET /api/v0/computers");
  expect(page).toContain("curl -G https://api.orgagent.dev/api/v0/computers");
});
