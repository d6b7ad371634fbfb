import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { TAGS } from "./setup/tags.js";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("..", import.meta.url)),
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/prism.ts"],
    tags: TAGS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: {
      enabled: true,
      include: ["test/**/*.test-d.ts"],
      tsconfig: "tsconfig.json",
    },
  },
});
