// Runs a program in a child Node process and times it from outside: when each line of its output arrived and when
// the process exited. A program that leaves a socket or a timer behind stays alive, and this is where it shows.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const root = fileURLToPath(new URL("../..", import.meta.url));

export interface TimedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Each line of output, from stdout or stderr, with performance.now() when it arrived. */
  lines: { stream: "stdout" | "stderr"; text: string; at: number }[];
  /** performance.now() when the process exited, or undefined if it had to be killed. */
  exitedAt: number | undefined;
}

const dir = mkdtempSync(join(tmpdir(), "orgagent-child-"));
let built = 0;

/**
 * Bundles `entry` (a file, or TypeScript source resolved from the repo root) for Node with esbuild, as a package
 * build would ship it, and returns the path of the bundle.
 */
export async function bundle(entry: { file: string } | { source: string }): Promise<string> {
  const outfile = join(dir, `program-${++built}.mjs`);
  await build({
    ...("file" in entry
      ? { entryPoints: [join(root, entry.file)] }
      : { stdin: { contents: entry.source, resolveDir: root, loader: "ts", sourcefile: "program.ts" } }),
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    // commander (the CLI's) is CommonJS and requires node built-ins; an ES module bundle needs a `require`.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

/**
 * Runs `<command> <script> ...args` (the command is this Node by default); kills it if it has not exited `killAfter`
 * ms after it started.
 */
export function runTimed(
  script: string,
  args: string[] = [],
  {
    command = [process.execPath],
    cwd = root,
    env = {},
    killAfter = 20_000,
  }: { command?: string[]; cwd?: string; env?: Record<string, string>; killAfter?: number } = {},
): Promise<TimedRun> {
  const [file, ...prefix] = command as [string, ...string[]];
  const child = spawn(file, [...prefix, script, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: TimedRun["lines"] = [];
  const text = { stdout: "", stderr: "" };
  const partial = { stdout: "", stderr: "" };
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream].on("data", (chunk: Buffer) => {
      const at = performance.now();
      text[stream] += chunk;
      const complete = (partial[stream] + chunk).split("\n");
      partial[stream] = complete.pop()!;
      for (const line of complete) lines.push({ stream, text: line, at });
    });
  }
  let exitedAt: number | undefined;
  child.on("exit", () => (exitedAt = performance.now()));
  const killer = setTimeout(() => child.kill("SIGKILL"), killAfter);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(killer);
      const killed = child.signalCode === "SIGKILL";
      resolve({ code, ...text, lines, exitedAt: killed ? undefined : exitedAt });
    }),
  );
}
