#!/usr/bin/env node
// The named mutants: sixteen regressions found by hand, each a one-line change to the source, and the
// test files that must fail on it. Stryker (npm run test:mutation) covers the SDK's own files; this also covers the
// emulator and module-level constants, which Stryker leaves out (docs/testing.md, "Mutation testing").
//
// Each mutant is applied to a copy of the repository (node_modules linked, the checkout never touched), then its
// test files run there. The run fails when a mutant survives, or when its line is gone from the source (update the
// list with the code). Usage: node scripts/mutation/named-mutants.mjs [name-substring…]
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** name, file, the source text, its mutation, and the test files that must catch it. */
const MUTANTS = [
  [
    "an X-Api-Key header is not redacted in logs",
    "src/core/scrub.ts",
    "/auth|token|key|secret|",
    "/auth|token|secret|",
    ["test/resilience/security.test.ts"],
  ],
  [
    "log lines are not scrubbed of the key",
    "src/core/log.ts",
    "line = scrubText(withoutUserinfo(line), secrets ? [...this.secrets(), ...secrets] : this.secrets());",
    "line = withoutUserinfo(line);",
    ["test/resilience/security.test.ts"],
  ],
  [
    "a key of exactly the minimum length is not scrubbed",
    "src/core/scrub.ts",
    "if (secret.length >= MIN_SECRET_LENGTH && text.includes(secret))",
    "if (secret.length > MIN_SECRET_LENGTH && text.includes(secret))",
    ["test/resilience/security.test.ts"],
  ],
  [
    "the caller's starting cursor is not remembered as seen",
    "src/core/cursor.ts",
    'if (typeof initial === "string") seen.add(initial);',
    "",
    ["test/sdk/pagination.test.ts"],
  ],
  [
    "the century leap-year rule is dropped",
    "src/core/days.ts",
    "year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)",
    "year % 4 === 0",
    ["test/sdk/validation.test.ts"],
  ],
  [
    "array items in request bodies are not validated",
    "src/core/validate.ts",
    "if (rule.items)",
    "if (false)",
    ["test/sdk/validation.test.ts"],
  ],
  [
    "a chunk failing 408 is reported as not applied",
    "src/usage-limits.ts",
    " && error.status !== 408",
    "",
    ["test/sdk/usage-limits.test.ts"],
  ],
  [
    "a chunk never sent is reported as maybe applied",
    "src/usage-limits.ts",
    " ||\n    (error instanceof APIConnectionError && error.notSent)",
    "",
    ["test/sdk/usage-limits.test.ts"],
  ],
  [
    "409 is not a per-chunk status",
    "src/usage-limits.ts",
    "new Set([400, 409, 413, 422])",
    "new Set([400, 413, 422])",
    ["test/sdk/usage-limits.test.ts"],
  ],
  ["the default timeout changes", "src/core/options.ts", "timeout: 60_000,", "timeout: 30_000,", ["test/resilience/options.test.ts"]],
  [
    "a per-call authorization header in lower case gets through",
    "src/core/options.ts",
    'name.toLowerCase() === "authorization"',
    'name === "Authorization"',
    ["test/resilience/credentials.test.ts"],
  ],
  [
    "a trailing slash of baseUrl is kept",
    "src/client.ts",
    'return value.replace(/\\/+$/, "");',
    "return value;",
    ["test/sdk/hosts.test.ts"],
  ],
  [
    "emulator: history hasMore means the page is full",
    "src/emulator/handlers.ts",
    "hasMore: next !== undefined",
    "hasMore: changes.length === limit",
    ["test/emulator/emulator.test.ts"],
  ],
  [
    "emulator: a limit of 0 is refused",
    "src/emulator/handlers.ts",
    "if (!user) result.errors.push(",
    "if (!user || limit === 0) result.errors.push(",
    ["test/emulator/emulator.test.ts"],
  ],
  [
    "emulator: a wrong method answers 404",
    "src/emulator/http.ts",
    "throw new HttpProblem(405, ",
    "throw new HttpProblem(404, ",
    ["test/emulator/emulator.test.ts"],
  ],
  [
    "emulator: the default page size changes",
    "src/emulator/handlers.ts",
    "export const DEFAULT_PAGE_SIZE = 20;",
    "export const DEFAULT_PAGE_SIZE = 25;",
    ["test/emulator/emulator.test.ts"],
  ],
].map(([name, file, from, to, tests]) => ({ name, file, from, to, tests }));

const only = process.argv.slice(2);
const chosen = only.length ? MUTANTS.filter((m) => only.some((word) => m.name.includes(word))) : MUTANTS;

const sandbox = mkdtempSync(join(tmpdir(), "orgagent-named-mutants-"));
const skipped = new Set(["node_modules", ".git", "dist", ".stryker-tmp", "coverage", ".vitest"]);
cpSync(root, sandbox, { recursive: true, filter: (source) => !skipped.has(relative(root, source).split(/[\\/]/)[0]) });
symlinkSync(join(root, "node_modules"), join(sandbox, "node_modules"), "dir");
process.on("exit", () => rmSync(sandbox, { recursive: true, force: true }));

function runTests(files) {
  const started = performance.now();
  const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
  const run = spawnSync(process.execPath, [vitest, "run", "--config", "test/vitest.config.ts", ...files], {
    cwd: sandbox,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const output = `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
  // The first failing test, as vitest names it: " FAIL  test/file.test.ts > group > test".
  const firstFailure = /^ FAIL {2}\S+ > (.+)$/m.exec(output)?.[1];
  return { failed: run.status !== 0, seconds: (performance.now() - started) / 1000, output, firstFailure };
}

// The test files must pass unmutated, or a "kill" proves nothing.
const testFiles = [...new Set(chosen.flatMap((m) => m.tests))];
const baseline = runTests(testFiles);
if (baseline.failed) {
  console.error(baseline.output.slice(-4000));
  console.error("named-mutants: the test files fail without any mutant; fix them first.");
  process.exit(1);
}

const rows = [];
for (const mutant of chosen) {
  const path = join(sandbox, mutant.file);
  const original = readFileSync(path, "utf8");
  const found = original.split(mutant.from).length - 1;
  if (found !== 1) {
    rows.push({ ...mutant, status: `stale: its text occurs ${found} times in ${mutant.file}`, seconds: 0 });
    continue;
  }
  writeFileSync(path, original.replace(mutant.from, mutant.to));
  try {
    const { failed, seconds, firstFailure } = runTests(mutant.tests);
    rows.push({ ...mutant, status: failed ? "killed" : "SURVIVED", seconds, killer: firstFailure ?? (failed ? "(the run failed)" : "") });
  } finally {
    writeFileSync(path, original);
  }
}

console.log("| mutant | file | status | first failing test | s |\n| --- | --- | --- | --- | --- |");
for (const row of rows) {
  console.log(`| ${row.name} | ${row.file} | ${row.status} | ${row.killer ?? ""} | ${row.seconds.toFixed(1)} |`);
}
const bad = rows.filter((row) => row.status !== "killed");
console.log(`\nnamed-mutants: ${rows.length - bad.length} of ${rows.length} killed`);
process.exit(bad.length ? 1 : 0);
