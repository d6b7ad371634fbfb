// What users and contributors read says what the package does and how to work on it, never how it came to be made:
// no issue numbers, nobody who leads or decides, no work sessions, no build machine. This test fails on such words
// in README.md, CONTRIBUTING.md, CHANGELOG.md, docs/**/*.md, openapi/**/*.md and the spec's descriptions.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { root } from "../cli/support.js";

/** Each pattern, and what it points at. */
const PROCESS_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  // "issue 3", "issues 3 and 5", "issue #3", "Issue requirement 6"
  [/\bissues? #?\d+|\bissue requirements?\b/i, "an issue of the tracker"],
  // "#12" as a reference (not a heading, whose "#" is followed by a space, nor a colour such as #0044d4)
  [/(?:^|[\s(])#\d+\b/, "an issue or pull request number"],
  [/\bthe lead\b/i, "who runs the work"],
  // A work session, not the API's agent sessions ("this session's token usage" is the API's): only the phrases that
  // mean a sitting of work.
  [/\b(?:work|working|earlier|coding) sessions?\b/i, "a work session"],
  [/\b(?:in|during|since|from) (?:this|that|an earlier|the previous|a previous|the last) session\b/i, "a work session"],
  [/\bthe principles\b|\bprinciples require\b/i, "internal rules"],
  [/\breachable here\b|\bavailable here\b/i, "the build machine's network"],
  [/\bshared VM\b|\bbusy with other work\b|\bthis machine\b|\bthe build machine\b/i, "the build machine"],
  [/\/work\/(?:shared|main|brief|wt-)/, "a path on the build machine"],
  [/\bowner to decide\b|\bleft for\b|\bwho decides\b/i, "who decides, or what was left undone"],
  [/\bthe brief(?:ing)?\b|\bthis task\b|\bthe helper\b/i, "the instructions of the work"],
];

/** `line: excerpt (what it points at)` for every process word in `text`. */
function processWordsIn(text: string): string[] {
  return text.split("\n").flatMap((line, index) =>
    PROCESS_WORDS.flatMap(([pattern, meaning]) => {
      const match = pattern.exec(line);
      return match ? [`${index + 1}: "${match[0].trim()}" (${meaning})`] : [];
    }),
  );
}

const markdownUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? markdownUnder(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : [],
      )
    : [];
const documents = [
  join(root, "CONTRIBUTING.md"),
  join(root, "CHANGELOG.md"),
  ...markdownUnder(join(root, "docs")),
  ...markdownUnder(join(root, "openapi")),
]
  .filter((file) => existsSync(file))
  .map((file) => relative(root, file));

describe("no words about how the package was made", () => {
  test("the patterns catch what they are for, and leave the API's own sessions alone", () => {
    const caught = [
      "as issue 3 asks",
      "see #12",
      "Issue requirement 6",
      "the lead merges it",
      "in an earlier session",
      "in this session we fixed",
      "the principles require it",
      "the registry reachable here",
      "a shared VM",
      "on this machine",
      "left for the API's owner to decide",
      "read /work/shared/api-description.md",
    ];
    for (const text of caught) expect(processWordsIn(text), text).not.toEqual([]);
    const fine = [
      "Token usage of this session, including its children.",
      "Computers that sessions run on.",
      "# Heading",
      "fill: #0044d4",
      "the SDK's dateRange helper",
      "the CLI in brief",
    ];
    for (const text of fine) expect(processWordsIn(text), text).toEqual([]);
  });

  test.each(documents)("%s", (file) => {
    expect(processWordsIn(readFileSync(join(root, file), "utf8"))).toEqual([]);
  });

  test("the spec's descriptions, summaries and titles", () => {
    const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));
    const found: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (["description", "summary", "title"].includes(key) && typeof value === "string") {
          for (const match of processWordsIn(value)) found.push(`${at}/${key} ${match}`);
        }
        visit(value, `${at}/${key}`);
      }
    };
    visit(spec, "#");
    expect(found).toEqual([]);
  });

  test("the scripts' comments name no issue of the tracker (a contributor reads them as documentation)", () => {
    const scripts = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? scripts(join(dir, entry.name)) : /\.(mjs|js|ts)$/.test(entry.name) ? [join(dir, entry.name)] : [],
      );
    const found = scripts(join(root, "scripts")).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) => (/\bissues? #?\d+/i.test(line) ? [`${relative(root, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  test("README.md, which stays a page for users: under 15 KB, the depth in docs/", () => {
    const readme = readFileSync(join(root, "README.md"));
    expect(readme.byteLength).toBeLessThan(15 * 1024);
    expect(processWordsIn(readme.toString("utf8"))).toEqual([]);
  });
});
