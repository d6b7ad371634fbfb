// The code tool's sandbox: a Deno process per program, with no permission but to connect to one loopback address
// (the sandbox proxy) and to read the SDK's two module files; no other file, no environment variable, no
// subprocess, no remote or npm import. The program comes on standard input. A time limit, an output limit and a heap
// limit bound it; it is killed when any is reached or the call is cancelled.
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";

export interface SandboxRun {
  /** The program's standard output, up to the output limit. */
  readonly stdout: string;
  /** Its standard error (Deno's own messages: a syntax error before the program started, say), up to the limit. */
  readonly stderr: string;
  readonly exitCode: number | null;
  /** Why it was stopped, if it was. */
  readonly stopped?: "time" | "output" | "cancelled";
}

export interface SandboxLimits {
  /** Milliseconds the program may run. */
  readonly timeout: number;
  /** Bytes of output (standard output and error together) read before the program is stopped. */
  readonly maxOutput: number;
  /** Megabytes of JavaScript heap. */
  readonly heapMb: number;
}

/** Deno: `explicit`, else env ORGAGENT_DENO, else `deno` on the PATH, else the `deno` npm package. */
export function findDeno(explicit?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = explicit ?? (env.ORGAGENT_DENO || undefined);
  if (named !== undefined) return executable(named) ? named : undefined;
  const file = process.platform === "win32" ? "deno.exe" : "deno";
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && executable(join(dir, file))) return join(dir, file);
  // The npm package keeps the binary in a platform package; its installer links it beside its own files.
  for (const from of [import.meta.url, join(process.cwd(), "package.json")]) {
    try {
      const require = createRequire(from);
      const inPackage = join(dirname(require.resolve("deno/package.json")), file);
      if (executable(inPackage)) return inPackage;
      const installed = (require("deno/install_api.cjs") as { runInstall(): string }).runInstall();
      if (executable(installed)) return installed;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return existsSync(path);
  } catch {
    return false;
  }
}

export interface SandboxProgram {
  /** The program (TypeScript), given on standard input. */
  readonly source: string;
  /** The import map (a `data:` URL). */
  readonly importMap: string;
  /** The only files it may read. */
  readonly readable: readonly string[];
  /** The only `host:port` it may connect to. */
  readonly net: string;
  /** Deno's cache directory (transpiled modules). */
  readonly denoDir: string;
  /** The working directory (an empty one). */
  readonly cwd: string;
}

export function runInSandbox(deno: string, program: SandboxProgram, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxRun> {
  const args = [
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--no-remote",
    "--no-npm",
    `--allow-net=${program.net}`,
    `--allow-read=${program.readable.join(",")}`,
    `--import-map=${program.importMap}`,
    `--v8-flags=--max-old-space-size=${limits.heapMb}`,
    "--ext=ts",
    "-",
  ];
  // Nothing of this process's environment (its key least of all): the program could not read it anyway.
  const env = { DENO_DIR: program.denoDir, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };
  const child = spawn(deno, args, { cwd: program.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let read = 0;
    let stopped: SandboxRun["stopped"];
    const stop = (why: NonNullable<SandboxRun["stopped"]>) => {
      stopped ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("time"), limits.timeout);
    const onAbort = () => stop("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const collect = (append: (text: string) => void) => (chunk: Buffer) => {
      if (read >= limits.maxOutput) return;
      const room = limits.maxOutput - read;
      read += chunk.length;
      append(chunk.subarray(0, room).toString("utf8"));
      if (read >= limits.maxOutput) stop("output");
    };
    child.stdout.on(
      "data",
      collect((text) => (stdout += text)),
    );
    child.stderr.on(
      "data",
      collect((text) => (stderr += text)),
    );
    child.stdin.on("error", () => {}); // a program that ends before reading all of its source
    child.stdin.end(program.source);
    let done = false;
    const finish = (exitCode: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ stdout, stderr, exitCode, ...(stopped ? { stopped } : {}) });
    };
    child.on("error", (error) => {
      stderr += `could not start Deno (${deno}): ${error.message}`;
      finish(null);
    });
    child.on("close", finish);
  });
}
