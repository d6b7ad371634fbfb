// The report's browser suite (`npm run test:report`): slow, so its files are `*.e2e.ts`, outside `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/report/**/*.e2e.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
