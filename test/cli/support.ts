// Running the `orgagent` CLI as a user does: the bundled bin (esbuild, as the package ships it, its libraries
// inlined; `node --import tsx` would cost about a second per run) as a subprocess, through a pipe, a shell
// pipeline or a real pseudo-terminal (test/cli/terminal.py, Python's standard `pty` module).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../support/child-process.js";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const DAY = 86_400_000;
/** `YYYY-MM-DD`, `daysAgo` days before today (UTC). */
export const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the run, in ms. */
  ms: number;
  /** performance.now() when the process started, when stderr last received output, and when the process exited. */
  startedAt: number;
  stderrAt: number | undefined;
  exitedAt: number | undefined;
}

/** Bundles src/cli.ts (as the package ships it); resolves to a temporary directory for the test's files and the bundle's path. */
export async function bundleCli(): Promise<{ dir: string; bundle: string }> {
  return { dir: mkdtempSync(join(tmpdir(), "orgagent-cli-")), bundle: await bundle({ file: "src/cli.ts" }) };
}

/** The environment without the caller's ORGAGENT_* variables, plus `env`. */
export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ORGAGENT_")));
  return { ...inherited, ...env };
}

/** Runs a program to its end (asynchronously: an in-process server must go on answering), in `cwd` (default: the repository). */
export function runProcess(file: string, args: readonly string[], env: NodeJS.ProcessEnv, input?: string, cwd = root): Promise<Run> {
  const started = performance.now();
  const child = spawn(file, args, { cwd, env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = "";
  let stderr = "";
  let stderrAt: number | undefined;
  let exitedAt: number | undefined;
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    stderrAt = performance.now();
  });
  child.on("exit", () => (exitedAt = performance.now()));
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started, startedAt: started, stderrAt, exitedAt })),
  );
}

/** Runs `command` (a shell command line) under bash with pipefail: for pipelines such as `orgagent … | head -1`. */
export function runShell(command: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return runProcess("bash", ["-c", `set -o pipefail; ${command}`], env);
}

/** Runs the CLI on a pseudo-terminal `columns` wide: stdout and stderr are both the terminal (its output has \r\n). */
export function runOnTerminal(bundle: string, args: readonly string[], env: NodeJS.ProcessEnv, columns = 80): Promise<Run> {
  return runProcess("python3", [join(root, "test/cli/terminal.py"), String(columns), "--", process.execPath, bundle, ...args], env);
}

export function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
