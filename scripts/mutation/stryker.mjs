#!/usr/bin/env node
// npm run test:mutation: StrykerJS over the SDK (test/mutation/stryker.config.mjs), incremental from the last result.
//
// That result is committed, compressed (test/mutation/incremental.json.gz, about 0.3 MB): a fresh checkout starts from
// it, so only the mutants whose code or covering tests changed since are tested again, and the score, with its
// threshold, is enforced in minutes rather than the full run's hour or more. After a run the result is written back;
// commit it with the change that moved it. `-- --force` tests every mutant again.
//
// `-- --max-retests N` (CI passes it) first estimates how many mutants the run would test again (stale.mjs). Past N,
// the run tests a seeded sample of about N mutants drawn from the whole SDK instead (sample.mjs), holds the sample's
// score to the same threshold, and leaves the committed result as it is: CI's step stays within minutes whatever
// lands, and what lands is still measured. A full run refreshes the committed result (`-- --force`, hours).
//
// `-- --sample N [--seed S]` tests a sample of about N mutants whatever is stale: an estimate of the whole score (with
// a seed of one's own, a sample independent of the one CI draws).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import config from "../../test/mutation/stryker.config.mjs";
import { mutantsPerCodeLine, sampleBreak, sampleLines } from "./sample.mjs";
import { estimateRetests, trackedFiles } from "./stale.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const committed = join(root, "test/mutation/incremental.json.gz");
// Where the config's `incrementalFile` points.
const working = join(root, "dist/mutation/incremental.json");
// A sampled run's configuration: the committed one with the sample's line ranges.
const sampleConfig = join(root, "dist/mutation/sample.config.mjs");
const args = process.argv.slice(2);
/** The value of `--name value`, taken out of the arguments passed on to Stryker. */
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  return value ?? "";
};
const maxRetests = option("--max-retests");
const budget = maxRetests === undefined ? Infinity : Number(maxRetests);
// `--sample N [--seed S]`: an estimate of the whole score from a sample of about N mutants, whatever is stale, drawn
// with the seed S instead of the code's digest (so a second, independent sample of the same code).
const sampleSize = option("--sample");
const seed = option("--seed");
for (const [flag, value] of [
  ["--max-retests", maxRetests],
  ["--sample", sampleSize],
  ["--seed", seed],
]) {
  if (value !== undefined && !/^\d+$/.test(value)) {
    console.error(`${flag} ${value}: expected a whole number, 0 or more.`);
    process.exit(2);
  }
}

if (!existsSync(working) && existsSync(committed)) {
  mkdirSync(dirname(working), { recursive: true });
  writeFileSync(working, gunzipSync(readFileSync(committed)));
}
const result = existsSync(working) ? JSON.parse(readFileSync(working, "utf8")) : undefined;
let sampleOf;
if (sampleSize !== undefined) {
  sampleOf = Number(sampleSize);
  console.log(
    `--sample ${sampleOf}: testing a sample of about ${sampleOf} mutants${seed === undefined ? "" : ` drawn with seed ${seed}`}.`,
  );
} else if (result && !args.includes("--force")) {
  const estimate = estimateRetests(root, result, config.mutate);
  const files = Object.entries(estimate.byFile)
    .map(([file, n]) => `${file} ${n}`)
    .join(", ");
  console.log(`Mutants to test again (estimate): ${estimate.retest} of about ${estimate.total}${files ? ` (${files})` : ""}.`);
  if (estimate.retest > budget) {
    sampleOf = budget;
    console.log(
      `That is more than --max-retests ${budget}: testing a seeded sample instead (about ${budget} mutants), held to the ` +
        "same threshold less its sampling error. The committed result stays as it is: refresh it with a full run " +
        "(npm run test:mutation -- --force, then commit test/mutation/incremental.json.gz; docs/testing.md#mutation-testing).",
    );
  }
}
const sampled = sampleOf !== undefined;
if (sampled) {
  const sources = Object.fromEntries(trackedFiles(root, config.mutate).map((file) => [file, readFileSync(join(root, file), "utf8")]));
  const sample = sampleLines(sources, sampleOf, result ? mutantsPerCodeLine(result) : 1, seed === undefined ? undefined : Number(seed));
  // The sample is held to the goal less its sampling error (sampleBreak): what fails is a sample that shows the
  // whole under the goal, not one that drew a few survivors more than the whole has.
  const floor = sampleBreak(config.thresholds.break, sampleOf);
  console.log(
    `The sample: the mutants on ${sample.lines} of the SDK's ${sample.of} code lines. It must score ${floor}% or more: ` +
      `${config.thresholds.break}% less its sampling error at ${sampleOf} mutants.`,
  );
  // Every mutant of the sample is tested (not incremental: an incremental run would also report the committed
  // result's mutants outside the sample, and hold their old statuses to the threshold), and the committed result is
  // left alone.
  const thresholds = { ...config.thresholds, break: floor };
  writeFileSync(
    sampleConfig,
    `import base from "../../test/mutation/stryker.config.mjs";\nexport default { ...base, incremental: false, thresholds: ${JSON.stringify(thresholds)}, mutate: ${JSON.stringify(sample.mutate)} };\n`,
  );
}
const before = existsSync(working) ? statSync(working).mtimeMs : 0;
const configFile = sampled ? relative(root, sampleConfig) : "test/mutation/stryker.config.mjs";
const run = spawnSync("npx", ["stryker", "run", configFile, ...args], { cwd: root, stdio: "inherit" });
// Kept whenever Stryker wrote a whole result, also under the threshold (the result is true; the score is what failed).
if (!sampled && existsSync(working) && statSync(working).mtimeMs > before) {
  writeFileSync(committed, gzipSync(readFileSync(working), { level: 9 }));
}
process.exit(run.status ?? 1);
