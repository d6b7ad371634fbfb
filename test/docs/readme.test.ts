// README.md shows, in the TypeScript examples test/docs/examples.e2e.ts runs against the emulator, the calls a
// newcomer reaches for first: response metadata, bulk limits with their concurrency and progress, and waiting.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { root } from "../cli/support.js";
import { examplesOf } from "./markdown-examples.js";

test("README.md's run examples show .withResponse(), setUserLimits with concurrency and onProgress, and sessions.waitUntilIdle", () => {
  const examples = examplesOf("README.md", readFileSync(join(root, "README.md"), "utf8"));
  const code = examples
    .filter((example) => example.language === "typescript" && !example.skip)
    .map((example) => example.code)
    .join("\n");
  expect(code).toMatch(/\.withResponse\(\)/);
  expect(code).toMatch(/setUserLimits\(\w+, \{[^}]*concurrency: 8[^}]*onProgress/);
  expect(code).toMatch(/sessions\.waitUntilIdle\(/);
});
