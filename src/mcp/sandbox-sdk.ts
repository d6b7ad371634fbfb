// The orgagent SDK as the code tool's sandbox imports it: `import { dateRange } from "orgagent"` in a program
// resolves, through an import map, to the package's own ESM build (dist/index.js beside dist/mcp/) and its one
// dependency, openapi-fetch's ESM file. The sandbox may read those two files and nothing else. Run from the
// repository's source, the SDK is first bundled from src/index.ts with esbuild (a development dependency).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface SandboxSdk {
  /** The import map, as a `data:` URL for Deno's `--import-map`. */
  readonly importMap: string;
  /** The files the sandbox must read to load the SDK. */
  readonly files: readonly string[];
}

const built = () => fileURLToPath(new URL("../index.js", import.meta.url));
const source = () => fileURLToPath(new URL("../index.ts", import.meta.url));

/** Whether the SDK can be given to a sandbox here: the package's build is beside this module, or its source is. */
export function sandboxSdkAvailable(): boolean {
  return existsSync(built()) || existsSync(source());
}

/** The SDK for the sandbox; from source, bundled into `workDir` first. */
export async function sandboxSdk(workDir: string): Promise<SandboxSdk> {
  let sdk = built();
  if (!existsSync(sdk)) {
    sdk = join(workDir, "orgagent.js");
    // A name in a variable: bundlers leave this import alone, and a package never reaches it.
    const bundler = "esbuild";
    const { build } = (await import(bundler)) as typeof import("esbuild");
    await build({
      entryPoints: [source()],
      outfile: sdk,
      bundle: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      external: ["openapi-fetch"],
      logLevel: "error",
    });
  }
  const openapiFetch = esmEntry("openapi-fetch");
  const imports = { orgagent: pathToFileURL(sdk).href, "openapi-fetch": pathToFileURL(openapiFetch).href };
  return { importMap: `data:application/json,${encodeURIComponent(JSON.stringify({ imports }))}`, files: [sdk, openapiFetch] };
}

/** The file a package's `import` condition names, found from this module. */
function esmEntry(name: string): string {
  const manifestPath = createRequire(import.meta.url).resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { exports?: Record<string, unknown>; module?: string; main?: string };
  const root = manifest.exports?.["."];
  const entry =
    typeof root === "string"
      ? root
      : ((root as { import?: string; default?: string } | undefined)?.import ??
        (root as { default?: string } | undefined)?.default ??
        manifest.module ??
        manifest.main);
  if (!entry) throw new Error(`${name} names no ES module entry`);
  return join(dirname(manifestPath), entry);
}
