// The suites Stryker runs against each mutant: the SDK's own (test/sdk, test/resilience, test/contract), in process.
// The CLI, emulator, docs and report suites reach the SDK through child processes or a second layer, so they add
// time per mutant but rarely a kill; type tests (`*.test-d.ts`) check types, which no mutant changes.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import type { TestUserConfig } from "vitest/node";
import { REAL_TIME, TAGS } from "../setup/tags.js";

// A root option vitest reads from the config file, typed only with its command-line options (TestUserConfig).
const withoutRealTime: Pick<TestUserConfig, "tagsFilter"> = { tagsFilter: [`!${REAL_TIME}`] };

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/sdk/**/*.test.ts", "test/resilience/**/*.test.ts", "test/contract/**/*.test.ts"],
    globalSetup: ["test/setup/prism.ts"],
    // Whole rate-limited jobs in wall time (test/setup/tags.ts): seconds per mutant, and their rules are pinned on a
    // moved clock by tests this suite runs.
    tags: TAGS,
    ...withoutRealTime,
    // The load tests at a tenth of their size (test/support/scale.ts): Stryker reruns them for every mutant they reach.
    env: { ORGAGENT_TEST_SCALE: "0.1" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
