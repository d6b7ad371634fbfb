// The sample CI tests when a change makes more mutants stale than its budget (scripts/mutation/sample.mjs): source
// lines drawn at random, the same for the same code, about as many mutants as the budget, in Stryker's range form.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module of the scripts, without declarations
import { codeLines, isCodeLine, mutantsPerCodeLine, random, sampleBreak, sampleLines } from "../../scripts/mutation/sample.mjs";

const file = (lines: number) => Array.from({ length: lines }, (_, i) => `const v${i} = ${i} + 1;`).join("\n");

describe("code lines", () => {
  it.each([
    ["const a = b + 1;", true],
    ['  return "x";', true],
    ["", false],
    ["   ", false],
    ["// a comment", false],
    [" * a doc line", false],
    ['import { a } from "./a.js";', false],
    ["  });", false],
    ["}", false],
  ])("%j is code: %s", (line, expected) => {
    expect(isCodeLine(line)).toBe(expected);
  });

  it("are numbered from 1", () => {
    expect(codeLines("// x\nconst a = 1;\n\nconst b = 2;")).toEqual([2, 4]);
  });
});

describe("the sample", () => {
  const sources = { "src/a.ts": file(400), "src/b.ts": file(600) };

  it("holds about the budget's mutants: budget ÷ mutants a line, of lines", () => {
    const sample = sampleLines(sources, 100, 2);
    expect(sample.lines).toBe(50);
    expect(sample.of).toBe(1000);
    expect(sample.mutate).toHaveLength(50);
  });

  it("is Stryker's line ranges, one line each, sorted by file and line, none twice", () => {
    const { mutate } = sampleLines(sources, 300, 1);
    for (const range of mutate) expect(range).toMatch(/^src\/[ab]\.ts:(\d+)-\1$/);
    const keys = mutate.map((range: string) => {
      const [name, lines] = range.split(":");
      return [name!, Number(lines!.split("-")[0])] as const;
    });
    expect(new Set(mutate).size).toBe(mutate.length);
    expect([...keys].sort(([fa, la], [fb, lb]) => fa.localeCompare(fb) || la - lb)).toEqual(keys);
  });

  it("is the same code lines when only comments change: a comment marking an equivalent mutant moves no line of it", () => {
    const commented = { ...sources, "src/a.ts": `// a comment\n${sources["src/a.ts"]}` };
    const shift = (range: string) =>
      range.replace(/^src\/a\.ts:(\d+)-\d+$/, (_, line: string) => `src/a.ts:${Number(line) + 1}-${Number(line) + 1}`);
    expect(sampleLines(commented, 100, 1).mutate).toEqual(sampleLines(sources, 100, 1).mutate.map(shift));
  });

  it("is the same for the same code, and another for other code", () => {
    expect(sampleLines(sources, 100, 1)).toEqual(sampleLines({ ...sources }, 100, 1));
    expect(sampleLines({ ...sources, "src/a.ts": `${sources["src/a.ts"]}\nconst w = 2;` }, 100, 1).mutate).not.toEqual(
      sampleLines(sources, 100, 1).mutate,
    );
  });

  it("draws from every file, not only the first", () => {
    const { mutate } = sampleLines(sources, 200, 1);
    expect(mutate.some((range: string) => range.startsWith("src/a.ts"))).toBe(true);
    expect(mutate.some((range: string) => range.startsWith("src/b.ts"))).toBe(true);
  });

  it("never more lines than there are", () => {
    expect(sampleLines({ "src/a.ts": file(10) }, 1_000, 1).lines).toBe(10);
  });
});

it("mutants a code line: the result's mutants, those left out (Ignored) aside, over its files' code lines", () => {
  const result = {
    files: {
      "src/a.ts": {
        source: "// x\nconst a = 1;\nconst b = 2;\n",
        mutants: [{ status: "Killed" }, { status: "Survived" }, { status: "Ignored" }],
      },
    },
  };
  expect(mutantsPerCodeLine(result)).toBe(1);
});

describe("a sample drawn with a seed of one's own", () => {
  const sources = { "src/a.ts": file(400), "src/b.ts": file(600) };

  it("is the same for the same seed, another for another seed or none, and as large", () => {
    const seven = sampleLines(sources, 100, 2, 7);
    expect(sampleLines(sources, 100, 2, 7)).toEqual(seven);
    expect(sampleLines(sources, 100, 2, 8).mutate).not.toEqual(seven.mutate);
    expect(sampleLines(sources, 100, 2).mutate).not.toEqual(seven.mutate);
    expect(seven.mutate).toHaveLength(50);
  });
});

describe("the score a sample is held to", () => {
  it.each([
    [95, 150, 92],
    [95, 600, 93.5],
    [80, 150, 74.6],
    [100, 150, 100],
  ])("a goal of %s%% over %s mutants: %s%%, the goal less a one-sided 95%% sampling error", (goal, mutants, floor) => {
    expect(sampleBreak(goal, mutants)).toBe(floor);
  });

  it("comes closer to the goal as the sample grows, and never passes it", () => {
    const floors = [10, 100, 1_000, 100_000].map((mutants) => sampleBreak(95, mutants));
    expect(floors).toEqual([...floors].sort((a, b) => a - b));
    expect(floors.every((floor) => floor <= 95)).toBe(true);
    expect(floors.at(-1)).toBe(94.8);
  });

  it("lets a whole at the goal fail about one sample in twenty", () => {
    // Samples of 150 from a whole scoring exactly 95%, drawn with a fixed generator: the share under the floor.
    const next = random(7);
    const floor = sampleBreak(95, 150);
    let failed = 0;
    for (let run = 0; run < 2_000; run++) {
      let killed = 0;
      for (let i = 0; i < 150; i++) if (next() < 0.95) killed++;
      if ((100 * killed) / 150 < floor) failed++;
    }
    expect(failed / 2_000).toBeGreaterThan(0.01);
    expect(failed / 2_000).toBeLessThan(0.1);
  });
});

describe("npm run test:mutation's numbers", () => {
  it.each([["--sample", "abc"], ["--seed", "-1"], ["--max-retests", "x"], ["--sample"]])(
    "%s %s is refused before Stryker starts: exit 2, the flag named",
    (...argv) => {
      const run = spawnSync(process.execPath, ["scripts/mutation/stryker.mjs", ...argv], { encoding: "utf8", timeout: 20_000 });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^${argv[0]} .*expected a whole number, 0 or more\\.\\n$`));
    },
  );
});
