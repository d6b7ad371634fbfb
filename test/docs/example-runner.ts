// Runs documentation examples as a reader would, against one emulator: TypeScript through tsx with "orgagent" (and
// its subpaths) mapped to src/, shell through bash with `orgagent` on the PATH (the CLI bundled as it ships), both
// configured by ORGAGENT_BASE_URL, ORGAGENT_APP_URL and ORGAGENT_API_KEY (the owner's key). Each example runs in a
// directory of its own, so the files it writes go nowhere else.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { bundleCli, cleanEnv, root, runProcess, type Run } from "../cli/support.js";

export type ExampleLanguage = "typescript" | "shell";

export interface ExampleWorld {
  readonly emulator: Emulator;
  /** Runs one example to its end (at most `timeoutSeconds`, default 120: then exit code 124). */
  run(language: ExampleLanguage, code: string, options?: { env?: Record<string, string>; timeoutSeconds?: number }): Promise<Run>;
  close(): Promise<void>;
}

const tsx = join(root, "node_modules", ".bin", "tsx");

export async function startExampleWorld(): Promise<ExampleWorld> {
  const { dir, bundle } = await bundleCli();
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "orgagent"), `#!/bin/sh\nexec "${process.execPath}" "${bundle}" "$@"\n`);
  chmodSync(join(bin, "orgagent"), 0o755);
  const tsconfig = join(dir, "tsconfig.json");
  const entry = (path: string) => [join(root, "src", path)];
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        paths: { orgagent: entry("index.ts"), "orgagent/emulator": entry("emulator/index.ts"), "orgagent/report": entry("report/index.ts") },
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
      const timeout = String(options.timeoutSeconds ?? 120);
      return runProcess("timeout", ["--kill-after=5", timeout, ...program], { ...env, ...options.env }, undefined, cwd);
    },
    async close() {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A run's outcome for a failure message: its exit code and both streams. */
export function describeRun(run: Run): string {
  return `exit ${run.code}${run.code === 124 ? " (timed out)" : ""}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}
