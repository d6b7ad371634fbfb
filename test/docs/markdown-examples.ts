// The examples of a Markdown file, as test/docs/examples.e2e.ts runs them (the rules are in CONTRIBUTING.md,
// "Documentation examples"):
// - every fenced block whose language is ts or typescript (run with tsx) or sh, bash or shell (run with bash) is an
//   example; any other fence (console, text, json, none…) is not run;
// - `<!-- example: skip (reason) -->` on the last non-blank line before a fence skips that block, for the reason given;
// - a shell block is commands only: a line starting with `$ ` is a terminal capture, which belongs in a console fence.

import type { ExampleLanguage } from "./example-runner.js";

export interface MarkdownExample {
  /** Where the block starts: `file:line` of its opening fence. */
  where: string;
  language: ExampleLanguage;
  code: string;
  /** Why the block is not run, from its skip marker. */
  skip?: string;
  /** A mistake in the block or its marker: the test reports it instead of running the block. */
  error?: string;
}

const LANGUAGES: Record<string, ExampleLanguage> = { ts: "typescript", typescript: "typescript", sh: "shell", bash: "shell", shell: "shell" };
const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;
const SKIP = /^skip\s*\((.+)\)$/;

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
        if (skip) example.skip = skip[1]!.trim();
        else example.error = `line ${marker.line}: the marker must read <!-- example: skip (the reason) -->, not "${marker.text}"`;
      }
      const capture = code.split("\n").findIndex((text) => text.startsWith("$ "));
      if (language === "shell" && capture !== -1 && !example.skip) {
        example.error = `line ${i + 2 + capture} starts with "$ ": a terminal capture (commands with their output) belongs in a console fence`;
      }
      if (end === -1) example.error = "the fence is never closed";
      examples.push(example);
    } else if (marker) {
      examples.push({ where, language: "shell", code, error: `line ${marker.line}: an example marker before a ${info || "plain"} fence, which is never run` });
    }
    marker = undefined;
    i = close;
  }
  return examples;
}
