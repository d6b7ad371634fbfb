// The examples of a Markdown file, as test/docs/examples.e2e.ts runs them (the rules are in CONTRIBUTING.md,
// "Documentation examples"):
// - every fenced block whose language is ts or typescript (run with tsx) or sh, bash or shell (run with bash) is an
//   example; any other fence (console, text, json, none…) is not run;
// - `<!-- example: skip (reason) -->` on the last non-blank line before a fence skips that block, for the reason given;
// - `<!-- example: stdin TEXT -->` there runs the block with TEXT (one line) on its standard input;
// - a shell block is commands only: a line starting with `$ ` is a terminal capture, which belongs in a console fence.

import type { ExampleLanguage } from "./example-runner.js";

export interface MarkdownExample {
  /** Where the block starts: `file:line` of its opening fence. */
  where: string;
  language: ExampleLanguage;
  code: string;
  /** Why the block is not run, from its skip marker. */
  skip?: string;
  /** What the block reads on standard input, from its stdin marker (with a newline at the end). */
  stdin?: string;
  /** A mistake in the block or its marker: the test reports it instead of running the block. */
  error?: string;
}

const LANGUAGES: Record<string, ExampleLanguage> = {
  ts: "typescript",
  typescript: "typescript",
  sh: "shell",
  bash: "shell",
  shell: "shell",
};
const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;
const SKIP = /^skip\s*\((.+)\)$/;
const STDIN = /^stdin\s+(\S.*)$/;

export function examplesOf(file: string, markdown: string): MarkdownExample[] {
  const lines = markdown.split("\n");
  const examples: MarkdownExample[] = [];
  let marker: { text: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = /^(`{3,})\s*([\w-]*)/.exec(line);
    if (!open) {
      const comment = MARKER.exec(line.trim());
      if (comment) marker = { text: comment[1]!, line: i + 1 };
      else if (line.trim()) marker = undefined;
      continue;
    }
    const [, fence, info] = open;
    const end = lines.findIndex((candidate, j) => j > i && candidate.trimEnd() === fence);
    const close = end === -1 ? lines.length : end;
    const code = `${lines.slice(i + 1, close).join("\n")}\n`;
    const language = LANGUAGES[info!.toLowerCase()];
    const where = `${file}:${i + 1}`;
    if (language) {
      const example: MarkdownExample = { where, language, code };
      if (marker) {
        const skip = SKIP.exec(marker.text);
        const stdin = STDIN.exec(marker.text);
        if (skip) example.skip = skip[1]!.trim();
        else if (stdin) example.stdin = `${stdin[1]!}\n`;
        else
          example.error = `line ${marker.line}: the marker must read <!-- example: skip (the reason) --> or <!-- example: stdin TEXT -->, not "${marker.text}"`;
      }
      const capture = code.split("\n").findIndex((text) => text.startsWith("$ "));
      if (language === "shell" && capture !== -1 && !example.skip) {
        example.error = `line ${i + 2 + capture} starts with "$ ": a terminal capture (commands with their output) belongs in a console fence`;
      }
      if (end === -1) example.error = "the fence is never closed";
      examples.push(example);
    } else if (marker) {
      examples.push({
        where,
        language: "shell",
        code,
        error: `line ${marker.line}: an example marker before a ${info || "plain"} fence, which is never run`,
      });
    }
    marker = undefined;
    i = close;
  }
  return examples;
}

/** A terminal capture: a command typed at the prompt (`$ ` in a console fence) and the lines the terminal showed. */
export interface Capture {
  /** `file:line` of the command. */
  where: string;
  command: string;
  output: string[];
}

/** The commands of every `console` block, each with the output that follows it up to the next prompt. */
export function capturesOf(file: string, markdown: string): Capture[] {
  return blocksOf(markdown, "console").flatMap(({ line, lines }) => {
    const captures: Capture[] = [];
    lines.forEach((text, i) => {
      if (text.startsWith("$ ")) captures.push({ where: `${file}:${line + 1 + i}`, command: text.slice(2), output: [] });
      else if (captures.length) captures.at(-1)!.output.push(text);
      else throw new Error(`${file}:${line + 1 + i}: a console block must start with a command ("$ …")`);
    });
    return captures;
  });
}

/** The fenced blocks of one language (the info string's first word): their opening line and their lines. */
export function blocksOf(markdown: string, language: string): Array<{ line: number; lines: string[] }> {
  const lines = markdown.split("\n");
  const blocks: Array<{ line: number; lines: string[] }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((candidate, j) => j > i && candidate.trimEnd() === open[1]);
    const close = end === -1 ? lines.length : end;
    if (open[2]!.toLowerCase() === language) blocks.push({ line: i + 1, lines: lines.slice(i + 1, close) });
    i = close;
  }
  return blocks;
}
