// Which blocks of a Markdown file are examples, and how they are marked: the rules test/docs/examples.e2e.ts runs by.
import { describe, expect, test } from "vitest";
import { examplesOf } from "./markdown-examples.js";

const fence = "```";

describe("examplesOf", () => {
  test("takes every ts/typescript block as TypeScript and every sh/bash/shell block as shell, with its line", () => {
    const markdown = [
      "# Title",
      `${fence}ts`,
      "const a = 1;",
      fence,
      `${fence}typescript`,
      "const b = 2;",
      fence,
      `${fence}sh`,
      "orgagent --version",
      fence,
      `${fence}bash`,
      "echo bash",
      fence,
      `${fence}shell`,
      "echo shell",
      fence,
    ].join("\n");
    expect(examplesOf("doc.md", markdown)).toEqual([
      { where: "doc.md:2", language: "typescript", code: "const a = 1;\n" },
      { where: "doc.md:5", language: "typescript", code: "const b = 2;\n" },
      { where: "doc.md:8", language: "shell", code: "orgagent --version\n" },
      { where: "doc.md:11", language: "shell", code: "echo bash\n" },
      { where: "doc.md:14", language: "shell", code: "echo shell\n" },
    ]);
  });

  test("runs no console, text, json or plain block, and sees no example inside a longer fence", () => {
    const markdown = [
      `${fence}console`,
      "$ orgagent --version",
      "0.1.0",
      fence,
      `${fence}text`,
      "output",
      fence,
      fence,
      "plain",
      fence,
      "````md",
      `${fence}ts`,
      "not an example: it is the text of a Markdown sample",
      fence,
      "````",
    ].join("\n");
    expect(examplesOf("doc.md", markdown)).toEqual([]);
  });

  test("skips a block after a skip marker, with its reason, also across a blank line", () => {
    const markdown = ["<!-- example: skip (needs a real account) -->", "", `${fence}sh`, "orgagent login", fence].join("\n");
    expect(examplesOf("doc.md", markdown)).toEqual([
      { where: "doc.md:3", language: "shell", code: "orgagent login\n", skip: "needs a real account" },
    ]);
  });

  test("a stdin marker gives the block its standard input, one line", () => {
    const markdown = [
      '<!-- example: stdin {"hook_event_name":"Stop","session_id":"s"} -->',
      `${fence}ts`,
      "1;",
      fence,
      "<!-- example: stdin -->",
      `${fence}sh`,
      "cat",
      fence,
    ].join("\n");
    const [withInput, empty] = examplesOf("doc.md", markdown);
    expect(withInput).toEqual({
      where: "doc.md:2",
      language: "typescript",
      code: "1;\n",
      stdin: '{"hook_event_name":"Stop","session_id":"s"}\n',
    });
    expect(empty!.error).toMatch(/^line 5: the marker must read/);
  });

  test("a marker applies to the next block only, and not across text", () => {
    const markdown = ["<!-- example: skip (x) -->", "Some text.", `${fence}sh`, "echo 1", fence, `${fence}sh`, "echo 2", fence].join("\n");
    expect(examplesOf("doc.md", markdown).map((example) => example.skip)).toEqual([undefined, undefined]);
  });

  test("reports a marker without a reason, a misspelt one, and one before a block that never runs", () => {
    const markdown = [
      "<!-- example: skip -->",
      `${fence}sh`,
      "echo 1",
      fence,
      "<!-- example: skp (typo) -->",
      `${fence}ts`,
      "1;",
      fence,
      "<!-- example: skip (pointless) -->",
      `${fence}text`,
      "out",
      fence,
    ].join("\n");
    expect(examplesOf("doc.md", markdown).map((example) => example.error)).toEqual([
      'line 1: the marker must read <!-- example: skip (the reason) --> or <!-- example: stdin TEXT -->, not "skip"',
      'line 5: the marker must read <!-- example: skip (the reason) --> or <!-- example: stdin TEXT -->, not "skp (typo)"',
      "line 9: an example marker before a text fence, which is never run",
    ]);
  });

  test("reports a terminal capture in a shell block, and a fence never closed", () => {
    const capture = examplesOf("doc.md", [`${fence}sh`, "$ orgagent --version", "0.1.0", fence].join("\n"));
    expect(capture[0]!.error).toBe('line 2 starts with "$ ": a terminal capture (commands with their output) belongs in a console fence');
    expect(examplesOf("doc.md", `${fence}ts\nconst a = 1;\n`)[0]!.error).toBe("the fence is never closed");
  });
});
