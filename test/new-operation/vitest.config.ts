// Adding an operation in a whole copy of the repository (`npm run test:new-operation`): `npm run generate` and
// nothing else, then lint, tsc and the copy's own tests, so minutes, outside `npm test`. One file, in order.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/new-operation/**/*.e2e.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
