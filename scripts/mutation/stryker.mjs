#!/usr/bin/env node
// npm run test:mutation: StrykerJS over the SDK (test/mutation/stryker.config.mjs), incremental from the last result.
//
// That result is committed, compressed (test/mutation/incremental.json.gz, about 0.3 MB): a fresh checkout starts from
// it, so only the mutants whose code or covering tests changed since are tested again, and the score, with its
// threshold, is enforced in minutes rather than the full run's hour or more. After a run the result is written back;
// commit it with the change that moved it. `-- --force` tests every mutant again.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

const root = fileURLToPath(new URL("../..", import.meta.url));
const committed = join(root, "test/mutation/incremental.json.gz");
// Where the config's `incrementalFile` points.
const working = join(root, "dist/mutation/incremental.json");
const args = process.argv.slice(2);

if (!existsSync(working) && existsSync(committed)) {
  mkdirSync(dirname(working), { recursive: true });
  writeFileSync(working, gunzipSync(readFileSync(committed)));
}
const before = existsSync(working) ? statSync(working).mtimeMs : 0;
const run = spawnSync("npx", ["stryker", "run", "test/mutation/stryker.config.mjs", ...args], { cwd: root, stdio: "inherit" });
// Kept whenever Stryker wrote a result, also under the threshold (the result is true; the score is what failed).
if (existsSync(working) && statSync(working).mtimeMs > before) {
  writeFileSync(committed, gzipSync(readFileSync(working), { level: 9 }));
}
process.exit(run.status ?? 1);
