// The codegen suite (`npm run test:codegen`): outside generators in four languages fed the packaged spec, their
// output built with each language's toolchain and run against the emulator. Slow (a Rust build, four TypeScript
// generators, several compilers), so its files are `*.e2e.ts`, outside `npm test`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/codegen/**/*.e2e.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
