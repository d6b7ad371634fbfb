// The package suite (`npm run test:package`, `npm run test:typescript`): slow (build, pack, npm install, several
// compilers), so its files are `*.e2e.ts`, outside `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/package/**/*.e2e.ts"],
    testTimeout: 180_000,
    hookTimeout: 600_000,
    // Files build and pack the same dist/: one at a time.
    fileParallelism: false,
    // Two compilers at a time on two cores.
    maxConcurrency: 2,
  },
});
