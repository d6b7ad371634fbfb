// `orgagent api --jq`: jq itself (jq 1.8, compiled to WebAssembly by the jq-wasm package), as `gh api --jq` runs
// gojq: the same filter language, strings printed raw, compact JSON when piped and indented on a terminal. It is
// loaded only when a filter is given (about 30 ms), and bundled apart from the CLI (dist/jq.js) so that other
// commands never load it.
import type { Jq } from "jq-wasm/inline";
import { CliError, EXIT } from "./errors.js";

let loaded: Promise<Jq> | undefined;

function jq(): Promise<Jq> {
  return (loaded ??= import("jq-wasm/inline").then((module) => module.loadJq()));
}

/** Compiles the filter before anything is sent: a filter jq cannot read is a usage error (exit 2). */
export async function checkFilter(filter: string): Promise<void> {
  const result = (await jq()).raw(null, filter, ["-n"]);
  // Exit 3 is jq's "compile error"; any other failure on a null input (`.[]`) says nothing about the filter.
  if (result.exitCode === 3) {
    throw new CliError(
      `--jq ${JSON.stringify(filter)} is not a jq filter: ${firstLine(result.stderr)}`,
      EXIT.usage,
      "See https://jqlang.org/manual/ for the language. Nothing was sent.",
    );
  }
}

/** The filter's output for one value: each result on its line, strings raw, JSON compact or (on a terminal) indented. */
export async function runFilter(value: unknown, filter: string, indented: boolean): Promise<string> {
  const result = (await jq()).raw(JSON.stringify(value), filter, ["-r", ...(indented ? [] : ["-c"])]);
  if (result.exitCode !== 0)
    throw new CliError(
      `--jq: ${firstLine(result.stderr) || `jq exited with ${result.exitCode}`}`,
      EXIT.error,
      "Check the filter against the answer (run without --jq to see it).",
    );
  return result.stdout;
}

function firstLine(text: string): string {
  return text
    .trim()
    .split("\n")[0]!
    .replace(/^jq: (error: )?/, "");
}
