// The estimate CI reads before a mutation run (scripts/mutation/stale.mjs): which mutants of the committed result a
// change makes stale, so that a change touching much of the SDK is refused in seconds instead of running for an hour.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module of the scripts, without declarations
import { changedLines, estimateRetests } from "../../scripts/mutation/stale.mjs";

const SOURCE = ["const a = 1;", "const b = a + 1;", "const c = b > 2;", "export { a, b, c };", ""].join("\n");
const TEST = 'it("c", () => expect(c).toBe(false));\n';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "orgagent-stale-test-"));
  execFileSync("git", ["init", "-q"], { cwd: root });
  mkdirSync(join(root, "src"));
  mkdirSync(join(root, "test"));
  write("src/lib.ts", SOURCE);
  write("test/lib.test.ts", TEST);
  execFileSync("git", ["add", "."], { cwd: root });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string) {
  writeFileSync(join(root, file), text);
}

const mutant = (id: string, line: number, coveredBy: string[] = []) => ({
  id,
  location: { start: { line, column: 1 }, end: { line, column: 10 } },
  coveredBy,
});

/** A committed result of four mutants on lines 1-3, two of them covered by the one test. */
const result = () => ({
  files: { "src/lib.ts": { source: SOURCE, mutants: [mutant("0", 1), mutant("1", 2), mutant("2", 3, ["t0"]), mutant("3", 3, ["t0"])] } },
  testFiles: { "test/lib.test.ts": { source: TEST, tests: [{ id: "t0", name: "c" }] } },
});

describe("the mutants a run would test again", () => {
  it("none when neither the source nor a test changed", () => {
    expect(estimateRetests(root, result(), ["src/**/*.ts"])).toMatchObject({ retest: 0, reused: 4, total: 4 });
  });

  it("those on a changed line", () => {
    write("src/lib.ts", SOURCE.replace("a + 1", "a + 2"));
    expect(estimateRetests(root, result(), ["src/**/*.ts"])).toMatchObject({ retest: 1, reused: 3, byFile: { "src/lib.ts": 1 } });
  });

  it("those covered by a test file that changed", () => {
    write("test/lib.test.ts", TEST.replace("false", "true"));
    expect(estimateRetests(root, result(), ["src/**/*.ts"])).toMatchObject({ retest: 2, reused: 2 });
  });

  it("new code at the result's mutants per line, and new files whole", () => {
    write("src/lib.ts", `${SOURCE}const d = c || a;\nconst e = d && b;\n`);
    write("src/more.ts", SOURCE);
    execFileSync("git", ["add", "."], { cwd: root });
    const estimate = estimateRetests(root, result(), ["src/**/*.ts"]);
    // 4 mutants over 5 lines: 0.8 per line.
    expect(estimate.byFile).toEqual({ "src/lib.ts": 2, "src/more.ts": 4 });
  });
});

describe("changedLines", () => {
  it("names the lines changed or removed, and counts those added", () => {
    const { changed, added } = changedLines("a\nb\nc\nd\n", "a\nB\nd\ne\nf\n");
    expect([...changed].sort()).toEqual([2, 3, 4]); // 4: the line an insertion follows
    expect(added).toBe(2); // B replaces b and c; e and f are new
  });
});
