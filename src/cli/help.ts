// Help as `gh` shows it: every line within the terminal's width (80 columns when not a terminal), prose reflowed,
// examples broken into shell lines that still paste (` \` at each break), and every description in one case: a
// capital first letter.
import { Help, type Command, type OutputConfiguration } from "commander";
import type { Io } from "./output.js";

const PIPED_WIDTH = 80;
// Narrower than this, wrapping helps no one (commander stops at 40 too).
const MIN_WIDTH = 40;

/** The width help is written for: the terminal's, or 80 columns. */
export function helpWidth(stream: Io["stdout"]): number {
  return stream.isTTY && stream.columns ? stream.columns : PIPED_WIDTH;
}

/**
 * Where help and errors go. Help (stdout, or stderr after a usage error) is wrapped to its stream's width; error
 * messages are written as they are, with the CLI's one prefix.
 */
export function helpOutput(io: Io): OutputConfiguration {
  return {
    writeOut: (text) => void io.stdout.write(wrapHelp(text, helpWidth(io.stdout))),
    writeErr: (text) => void io.stderr.write(wrapHelp(text, helpWidth(io.stderr))),
    getOutHelpWidth: () => helpWidth(io.stdout),
    getErrHelpWidth: () => helpWidth(io.stderr),
    // One prefix for every failure, the CLI's own and commander's.
    outputError: (text) => void io.stderr.write(text.replace(/^error: /, "orgagent: ")),
  };
}

// Below this many columns for descriptions beside their terms, each description goes under its term instead.
const MIN_DESCRIPTION = 24;

/**
 * Commander's layout of options and commands, for narrow terminals too: descriptions wrap in a column down to 20
 * wide (commander stops at 40), and when even that leaves too little room, each description goes under its term.
 */
export const helpLayout: Partial<Help> = {
  minWidthToWrap: 20,
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    const width = this.helpWidth ?? PIPED_WIDTH;
    if (!description || width - termWidth - 4 >= MIN_DESCRIPTION)
      return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    return `  ${term}\n${helper.boxWrap(description, width - 6).replace(/^/gm, "      ")}`;
  },
};

/** Every description of the tree (commands, arguments, options) with a capital first letter. */
export function capitalizeDescriptions(program: Command): void {
  const walk = (command: Command) => {
    command.description(capitalized(command.description()));
    for (const argument of command.registeredArguments) argument.description = capitalized(argument.description);
    for (const option of command.options) option.description = capitalized(option.description);
    command.commands.forEach(walk);
  };
  walk(program);
}

function capitalized(text: string): string {
  return text.replace(/^[a-z]/, (letter) => letter.toUpperCase());
}

/**
 * Help text with every line within `width`. Lines that fit stay as they are (commander's own columns already do). A
 * paragraph of prose at the left margin is reflowed; an indented line keeps its indent, and a term with a
 * description after two spaces (`  2  bad usage…`) hangs under its description; an example (`  $ command`) breaks
 * between words outside quotes and comments, each broken line ending in ` \`.
 */
export function wrapHelp(text: string, width: number): string {
  if (width < MIN_WIDTH) return text;
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (isProse(lines[i]!)) {
      let end = i;
      while (end < lines.length && isProse(lines[end]!)) end++;
      const paragraph = lines.slice(i, end);
      out.push(...(paragraph.some((line) => line.length > width) ? words(paragraph.join(" "), width, "", "") : paragraph));
      i = end - 1;
    } else out.push(...wrapLine(lines[i]!, width));
  }
  return out.join("\n");
}

/** A line of running text: at the left margin, not a heading (`Options:`) nor the usage line. */
function isProse(line: string): boolean {
  return line.trim() !== "" && !/^\s/.test(line) && !line.endsWith(":") && !line.startsWith("Usage:");
}

function wrapLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const example = /^(\s*)\$ (.*)$/.exec(line);
  if (example) return command(example[2]!, width, `${example[1]}$ `, `${example[1]}    `);
  const term = /^(\s*\S+(?: \S+)*? {2,})(.*)$/.exec(line);
  if (term) return words(term[2]!, width, term[1]!, " ".repeat(term[1]!.length));
  const indent = /^\s*/.exec(line)![0];
  return words(line.trim(), width, indent, indent);
}

/** Words filled onto lines of at most `width`, the first after `first`, the others after `rest`. */
function words(text: string, width: number, first: string, rest: string): string[] {
  const out: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/ +/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      out.push(line);
      line = rest + word;
    } else line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  return [...out, line];
}

/** A shell command broken into lines joined by ` \`, between words outside quotes; a comment stays whole. */
function command(text: string, width: number, first: string, rest: string): string[] {
  const tokens = shellWords(text);
  const out: string[] = [];
  let line = first;
  let empty = true;
  for (const token of tokens) {
    // Room for the " \" that ends a broken line.
    if (!empty && line.length + 1 + token.length + 2 > width) {
      out.push(`${line} \\`);
      line = rest + token;
    } else line = empty ? line + token : `${line} ${token}`;
    empty = false;
  }
  return [...out, line];
}

/** A command line split at spaces outside quotes and `$( )`; from a `#` that starts a word on, one comment. */
function shellWords(text: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      // An escaped character inside double quotes does not end them.
      if (char === "\\" && quote === '"') current += text[i++];
      current += text[i] ?? "";
      continue;
    }
    if (char === "#" && current === "") {
      tokens.push(text.slice(i).trimEnd());
      return tokens;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (char === " " && depth === 0) {
      if (current) tokens.push(current);
      current = "";
    } else current += char;
  }
  if (current) tokens.push(current);
  return tokens;
}
