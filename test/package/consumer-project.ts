// A clean consumer project in a temp directory with the packed tarball installed, the way a user gets orgagent:
// `npm run build`, `npm pack`, `npm install <tarball>` (openapi-fetch comes from the registry or npm's cache), and
// the smoke program (test/runtimes/.smoke) copied in as the consumer's code. Shared by the slow suites.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const repoTsc = join(root, "node_modules", "typescript", "bin", "tsc");
const smokeSources = join(root, "test", "runtimes", ".smoke");
const run = promisify(execFile);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; never throws on a non-zero exit (the result says how it ended). */
export async function command(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number },
): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: options.timeout ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? failed.message,
    };
  }
}

/** Like `command`, but a non-zero exit is an error carrying the output. */
export async function mustRun(file: string, args: readonly string[], options: Parameters<typeof command>[2]) {
  const result = await command(file, args, options);
  if (result.code !== 0) {
    throw new Error(`${file} ${args.join(" ")} exited with ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/** The compiler options every consumer configuration shares: what a careful user turns on. */
const strictOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: false,
  target: "es2022",
  // TypeScript 6+ no longer adds every @types package by default; say which global types the consumer uses.
  types: [] as string[],
  lib: ["es2022", "dom"],
};

/**
 * The consumer's tsconfigs, one per way a user resolves the package:
 *   node16    ESM (smoke.ts, via `import`) and CJS (smoke.cts, via `require`), emitted to out/ to be run
 *   bundler   moduleResolution bundler, as with Vite or esbuild
 *   node-types  Node's own globals (@types/node) and no DOM lib: the declarations must not need the DOM
 */
export const consumerConfigs = {
  node16: { ...strictOptions, module: "node16", moduleResolution: "node16", outDir: "out", files: ["smoke.ts", "smoke.cts"] },
  bundler: { ...strictOptions, module: "esnext", moduleResolution: "bundler", noEmit: true, files: ["smoke.ts"] },
  "node-types": {
    ...strictOptions,
    module: "node16",
    moduleResolution: "node16",
    lib: ["es2022"],
    types: ["node"],
    noEmit: true,
    files: ["smoke.ts", "smoke.cts"],
  },
} as const;
export type ConsumerConfig = keyof typeof consumerConfigs;

export interface ConsumerProject {
  dir: string;
  tarball: string;
  /** Paths in the tarball, e.g. `dist/index.js`, as `npm pack` listed them. */
  packedFiles: string[];
  /** Compiles the consumer with `tsc -p tsconfig.<config>.json [...args]`; `tscBin` picks another TypeScript. */
  typecheck(config: ConsumerConfig, tscBin?: string, args?: readonly string[]): Promise<CommandResult>;
  remove(): void;
}

/** Builds and packs the repo, then installs the tarball into a fresh consumer project. */
export async function createConsumerProject(): Promise<ConsumerProject> {
  const dir = mkdtempSync(join(tmpdir(), "orgagent-consumer-"));
  await mustRun("npm", ["run", "build"], { cwd: root });
  const packed = await mustRun("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: root });
  const [manifest] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  const tarball = join(dir, manifest.filename);

  const repoManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "orgagent-consumer", private: true, type: "module" }, null, 2));
  await mustRun(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      tarball,
      // Only for the node-types configuration; the same version the repo uses.
      `@types/node@${repoManifest.devDependencies["@types/node"]}`,
    ],
    { cwd: dir, timeout: 300_000 },
  );

  cpSync(join(smokeSources, "smoke.ts"), join(dir, "smoke.ts"));
  cpSync(join(smokeSources, "smoke.ts"), join(dir, "smoke.cts"));
  cpSync(join(smokeSources, "run.mjs"), join(dir, "out", "run.mjs"));
  cpSync(join(smokeSources, "run.cjs"), join(dir, "out", "run.cjs"));
  cpSync(join(smokeSources, "index.html"), join(dir, "index.html"));
  for (const [name, { files, ...compilerOptions }] of Object.entries(consumerConfigs)) {
    writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files }, null, 2));
  }

  return {
    dir,
    tarball,
    packedFiles: manifest.files.map((file) => file.path).sort(),
    typecheck: (config, tscBin = repoTsc, args = []) =>
      command(process.execPath, [tscBin, "-p", `tsconfig.${config}.json`, ...args], { cwd: dir }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
