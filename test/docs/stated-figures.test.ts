// A figure the documentation states in two places is the same in both: how long `npm test` takes (README.md and
// CONTRIBUTING.md), and what the report's charting bundle weighs (docs/report.md's text and its comparison table).
// test/docs/built-sizes.e2e.ts compares the bundle's figure with the built file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { root } from "../cli/support.js";
import { statedBundleSizes } from "./stated-figures.js";

const read = (file: string) => readFileSync(join(root, file), "utf8");
const WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

/** The minutes a phrase gives, as a range: "about three minutes", "~2.5 min" ([3, 3], [2.5, 2.5]), "4 to 7 minutes", "4-7 min". */
function minutes(text: string): [number, number] {
  const number = (word: string) => WORDS[word] ?? Number(word);
  const range = /(\w+(?:\.\d+)?)\s*(?:to|-|–)\s*(\w+(?:\.\d+)?)\s*min/.exec(text);
  if (range) return [number(range[1]!), number(range[2]!)];
  const match = /(?:about|~)\s*(\w+(?:\.\d+)?)\s*min/.exec(text);
  if (!match) throw new Error(`no duration in ${JSON.stringify(text)}`);
  return [number(match[1]!), number(match[1]!)];
}

describe("figures stated twice agree", () => {
  test("npm test's duration: README.md's set-up commands and CONTRIBUTING.md's table", () => {
    const readme = read("README.md")
      .split("\n")
      .find((line) => line.startsWith("npm test "));
    const contributing = read("CONTRIBUTING.md")
      .split("\n")
      .find((line) => line.startsWith("| `npm test` |"));
    expect(readme).toBeDefined();
    expect(contributing).toBeDefined();
    expect(minutes(readme!)).toEqual(minutes(contributing!.split("|").at(-2)!));
    expect(minutes("4 to 7 minutes")).toEqual([4, 7]);
    expect(minutes("~2.5 min")).toEqual([2.5, 2.5]);
  });

  test("the charting bundle's size: docs/report.md's text and its comparison table", () => {
    const sizes = statedBundleSizes(read("docs/report.md"));
    expect(sizes).toHaveLength(2);
    expect(sizes[1]).toEqual(sizes[0]);
  });
});
