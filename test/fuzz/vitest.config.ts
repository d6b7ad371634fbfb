// The seeded fuzz of the emulator through Prism (`npm run test:fuzz`): slow, so its files are `*.e2e.ts`, outside
// `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/fuzz/**/*.e2e.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
