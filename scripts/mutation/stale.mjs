// How much of the committed mutation result (test/mutation/incremental.json.gz) a run would have to test again: the
// mutants whose lines changed, the mutants covered by a test file that changed, and an estimate for new code (its
// lines at the result's mutants-per-line). Read before Stryker starts, so CI can refuse a run that would take an hour
// instead of finding out after one. An estimate, erring high: Stryker's own diff, run afterwards, is the judge.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Files tracked by git that match Stryker-style globs (`src/core/**\/*.ts`). */
export function trackedFiles(root, globs) {
  const out = execFileSync("git", ["ls-files", "-z", "--", ...globs.map((glob) => `:(glob)${glob}`)], { cwd: root });
  return out.toString("utf8").split("\0").filter(Boolean);
}

/**
 * The 1-based line numbers of `before` that are changed or removed in `after`, and the number of lines added beyond
 * those (a hunk's new lines past its old ones), by
 * `git diff --no-index` (git is there wherever the repository is).
 */
export function changedLines(before, after) {
  const dir = mkdtempSync(join(tmpdir(), "orgagent-stale-"));
  try {
    writeFileSync(join(dir, "a"), before);
    writeFileSync(join(dir, "b"), after);
    let patch = "";
    try {
      execFileSync("git", ["diff", "--no-index", "--no-color", "-U0", "a", "b"], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
    } catch (error) {
      patch = error.stdout?.toString("utf8") ?? ""; // exit code 1: the files differ
    }
    const changed = new Set();
    let added = 0;
    for (const match of patch.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@/gm)) {
      const start = Number(match[1]);
      const removed = match[2] === undefined ? 1 : Number(match[2]);
      // Lines that replace changed ones hold about the mutants counted on those: only the surplus is new code.
      added += Math.max(0, (match[3] === undefined ? 1 : Number(match[3])) - removed);
      // A pure insertion (",0") touches the mutants around it: count the line before as changed.
      if (removed === 0) changed.add(start);
      for (let line = start; line < start + removed; line++) changed.add(line);
    }
    return { changed, added };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Estimates the mutants a run would test again, for the committed `result` (Stryker's incremental JSON) against the
 * working tree at `root`: `{ total, reused, retest, byFile }`.
 */
export function estimateRetests(root, result, mutateGlobs) {
  const read = (file) => {
    try {
      return readFileSync(join(root, file), "utf8");
    } catch {
      return undefined;
    }
  };
  // Test files whose text changed (or that are gone): every mutant they cover is tested again.
  const changedTests = new Set();
  for (const [file, { tests, source }] of Object.entries(result.testFiles ?? {})) {
    if (read(file) !== source) for (const test of tests) changedTests.add(test.id);
  }
  let lines = 0;
  let mutants = 0;
  for (const { source, mutants: list } of Object.values(result.files)) {
    lines += source.split("\n").length;
    mutants += list.length;
  }
  const perLine = lines ? mutants / lines : 1;

  const byFile = {};
  let retest = 0;
  let reused = 0;
  for (const file of trackedFiles(root, mutateGlobs)) {
    const now = read(file) ?? "";
    const before = result.files[file];
    let count;
    if (!before) count = Math.round(now.split("\n").length * perLine);
    else {
      const { changed, added } = now === before.source ? { changed: new Set(), added: 0 } : changedLines(before.source, now);
      const stale = before.mutants.filter((mutant) => {
        for (let line = mutant.location.start.line; line <= mutant.location.end.line; line++) if (changed.has(line)) return true;
        return (mutant.coveredBy ?? []).some((id) => changedTests.has(id));
      }).length;
      count = stale + Math.round(added * perLine);
      reused += before.mutants.length - stale;
    }
    if (count) byFile[file] = count;
    retest += count;
  }
  return { total: reused + retest, reused, retest, byFile };
}
