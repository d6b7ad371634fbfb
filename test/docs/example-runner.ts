// Runs documentation examples as a reader would, against one emulator: TypeScript through tsx with "orgagent" (and
// its subpaths) mapped to src/; shell through bash with the built `orgagent` bin (dist/cli.js, test/docs/build.ts
// builds it) on the PATH (and `xdg-open` and `open`, which only check that they are given an HTML file), in a project that has orgagent installed (node_modules/orgagent is this repository, whose
// exports point at dist/, beside the repository's own dev dependencies, so `npx quicktype` runs offline). Both are
// configured by ORGAGENT_BASE_URL, ORGAGENT_APP_URL and ORGAGENT_API_KEY (the owner's key). Each example runs in a
// directory of its own, which is also its HOME, so the files it writes go nowhere else.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { cleanEnv, root, runProcess, type Run } from "../cli/support.js";

export type ExampleLanguage = "typescript" | "shell";

export interface ExampleWorld {
  readonly emulator: Emulator;
  /** Runs one example to its end (at most `timeoutSeconds`, default 120: then exit code 124). */
  run(
    language: ExampleLanguage,
    code: string,
    options?: { env?: Record<string, string>; timeoutSeconds?: number; stdin?: string },
  ): Promise<Run>;
  /**
   * Runs a shell command line as typed at a prompt, with stdin, stdout and stderr on a pseudo-terminal `columns`
   * wide (test/cli/terminal.py): what a terminal capture shows. Its output has the terminal's \r\n line ends.
   */
  runOnTerminal(command: string, columns: number): Promise<Run>;
  close(): Promise<void>;
}

const tsx = join(root, "node_modules", ".bin", "tsx");

export async function startExampleWorld(): Promise<ExampleWorld> {
  const cli = join(root, "dist", "cli.js");
  if (!existsSync(cli)) throw new Error("dist/cli.js is missing: run `npm run build` (npm run test:docs does)");
  const dir = mkdtempSync(join(tmpdir(), "orgagent-examples-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "orgagent"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(join(bin, "orgagent"), 0o755);
  writeOpeners(bin);
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(root, "node_modules"))) symlinkSync(join(root, "node_modules", name), join(modules, name));
  symlinkSync(root, join(modules, "orgagent"));
  const tsconfig = join(dir, "tsconfig.json");
  const entry = (path: string) => [join(root, "src", path)];
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        paths: {
          orgagent: entry("index.ts"),
          "orgagent/emulator": entry("emulator/index.ts"),
          "orgagent/report": entry("report/index.ts"),
          "orgagent/mcp": entry("mcp/index.ts"),
        },
      },
    }),
  );

  // Short timings, so that waiting examples do not wait long; every other behaviour is the emulator's default.
  const emulator = await startEmulator({ timing: { sessionStartMs: 50, replyMs: 200, installMs: 300 } });
  const env = cleanEnv({
    PATH: `${bin}:${process.env.PATH}`,
    ORGAGENT_BASE_URL: emulator.baseUrl,
    ORGAGENT_APP_URL: emulator.appUrl,
    ORGAGENT_API_KEY: emulator.keys.owner,
  });

  return {
    emulator,
    async run(language, code, options = {}) {
      const cwd = mkdtempSync(join(dir, "example-"));
      const file = join(cwd, language === "typescript" ? "example.mts" : "example.sh");
      writeFileSync(file, code);
      const program = language === "typescript" ? [tsx, "--tsconfig", tsconfig, file] : ["bash", "-euo", "pipefail", file];
      return runExample(program, { cwd, env: { ...env, ...options.env }, timeoutSeconds: options.timeoutSeconds, stdin: options.stdin });
    },
    runOnTerminal(command, columns) {
      const cwd = mkdtempSync(join(dir, "capture-"));
      const terminal = join(root, "test", "cli", "terminal.py");
      return runProcess(
        "timeout",
        ["--kill-after=5", "120", "python3", terminal, String(columns), "--", "bash", "-c", command],
        { ...env, HOME: cwd },
        undefined,
        cwd,
      );
    },
    async close() {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The openers of a desktop (`xdg-open "$(orgagent report …)"`), written into `bin`: here they check that they were
 * given one HTML file that exists, instead of opening a browser.
 */
export function writeOpeners(bin: string): void {
  for (const opener of ["xdg-open", "open"]) {
    writeFileSync(
      join(bin, opener),
      `#!/bin/sh\n[ "$#" -eq 1 ] && [ -f "$1" ] && head -c 15 "$1" | grep -qi '^<!doctype html>' && exit 0\necho "${opener}: not one HTML file: $*" >&2\nexit 1\n`,
    );
    chmodSync(join(bin, opener), 0o755);
  }
}

/**
 * Runs one example's program in `cwd`, which is also its HOME unless `home` says otherwise, for at most
 * `timeoutSeconds` (default 120: then exit code 124).
 */
export function runExample(
  program: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; home?: string; timeoutSeconds?: number | undefined; stdin?: string | undefined },
): Promise<Run> {
  const timeout = String(options.timeoutSeconds ?? 120);
  return runProcess(
    "timeout",
    ["--kill-after=5", timeout, ...program],
    { ...options.env, HOME: options.home ?? options.cwd },
    options.stdin,
    options.cwd,
  );
}

/** A run's outcome for a failure message: its exit code and both streams. */
export function describeRun(run: Run): string {
  return `exit ${run.code}${run.code === 124 ? " (timed out)" : ""}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}
