// The docs suite (`npm run test:docs`): slow, so its files are `*.e2e.ts`, outside `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/docs/**/*.e2e.ts"],
    globalSetup: ["test/docs/build.ts"],
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
});
