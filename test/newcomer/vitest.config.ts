// The newcomer's run (`npm run test:newcomer`): a fresh clone, `npm ci`, `npm pack` and a consumer project's
// `npm install`, so minutes, outside `npm test`. Its steps depend on each other: one file, in order.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/newcomer/**/*.e2e.ts"],
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
});
