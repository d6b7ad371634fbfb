#!/usr/bin/env node
// npm run test:mutation: StrykerJS over the SDK (test/mutation/stryker.config.mjs), incremental from the last result.
//
// That result is committed, compressed (test/mutation/incremental.json.gz, about 0.3 MB): a fresh checkout starts from
// it, so only the mutants whose code or covering tests changed since are tested again, and the score, with its
// threshold, is enforced in minutes rather than the full run's hour or more. After a run the result is written back;
// commit it with the change that moved it. `-- --force` tests every mutant again.
//
// `-- --max-retests N` (CI passes it) first estimates how many mutants the run would test again (stale.mjs) and
// stops at once, failing, when that is more than N: a change that touches much of the SDK refreshes the committed
// result where it is made (a run of an hour or two), so that CI's step stays within minutes whatever lands.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import config from "../../test/mutation/stryker.config.mjs";
import { estimateRetests } from "./stale.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const committed = join(root, "test/mutation/incremental.json.gz");
// Where the config's `incrementalFile` points.
const working = join(root, "dist/mutation/incremental.json");
const args = process.argv.slice(2);
const budgetFlag = args.indexOf("--max-retests");
const budget = budgetFlag >= 0 ? Number(args.splice(budgetFlag, 2)[1]) : Infinity;

if (!existsSync(working) && existsSync(committed)) {
  mkdirSync(dirname(working), { recursive: true });
  writeFileSync(working, gunzipSync(readFileSync(committed)));
}
if (existsSync(working) && !args.includes("--force")) {
  const estimate = estimateRetests(root, JSON.parse(readFileSync(working, "utf8")), config.mutate);
  const files = Object.entries(estimate.byFile)
    .map(([file, n]) => `${file} ${n}`)
    .join(", ");
  console.log(`Mutants to test again (estimate): ${estimate.retest} of about ${estimate.total}${files ? ` (${files})` : ""}.`);
  if (estimate.retest > budget) {
    console.error(
      `That is more than --max-retests ${budget}: refresh the committed result where the change is made ` +
        "(npm run test:mutation, then commit test/mutation/incremental.json.gz; docs/testing.md#mutation-testing).",
    );
    process.exit(1);
  }
}
const before = existsSync(working) ? statSync(working).mtimeMs : 0;
const run = spawnSync("npx", ["stryker", "run", "test/mutation/stryker.config.mjs", ...args], { cwd: root, stdio: "inherit" });
// Kept whenever Stryker wrote a result, also under the threshold (the result is true; the score is what failed).
if (existsSync(working) && statSync(working).mtimeMs > before) {
  writeFileSync(committed, gzipSync(readFileSync(working), { level: 9 }));
}
process.exit(run.status ?? 1);
