#!/usr/bin/env node
// `npm run build`: the publishable package in dist/.
//   dist/index.{js,cjs,d.ts,d.cts}           the SDK, ESM and CJS, each with its own declarations
//   dist/emulator/index.{js,cjs,d.ts,d.cts}  `orgagent/emulator` (built when src/emulator/index.ts exists)
//   dist/cli.js                              the `orgagent` bin, ESM, with its command-line libraries bundled in
//   dist/openapi.{json,yaml}                 the bundled spec, `orgagent/openapi.json` / `orgagent/openapi.yaml`
//   dist/openapi.{api,app}.{json,yaml}       one bundle per host (`orgagent/openapi.api.json`, …) for generators
// openapi-fetch stays external everywhere: it is the one runtime dependency. generated/ is compiled into the
// bundles (it lives outside src/, so nothing may import it at runtime from the package).
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const has = (file) => existsSync(join(root, file));

// dist/docs (npm run docs) and dist/bench (npm run bench) are built separately: keep them, clear everything else
// (dist/codegen, the output of npm run test:codegen, too: the package's `files` globs would pack its .cjs).
const KEEP = new Set(["docs", "bench"]);
mkdirSync(dist, { recursive: true });
for (const name of readdirSync(dist)) if (!KEEP.has(name)) rmSync(join(dist, name), { recursive: true, force: true });

const common = {
  tsconfig: join(root, "tsconfig.json"),
  platform: "neutral",
  target: "es2022",
  external: ["openapi-fetch"],
  outDir: dist,
  silent: true,
  // Unminified and without source maps: the published code reads as is when a user steps into it.
  minify: false,
  sourcemap: false,
  splitting: false,
  // Keep `node:http` as written: Deno and Bun resolve built-ins by the `node:` prefix.
  removeNodeProtocol: false,
};

const libraryEntries = { index: "src/index.ts" };
if (has("src/emulator/index.ts")) libraryEntries["emulator/index"] = "src/emulator/index.ts";

await build({
  ...common,
  entry: libraryEntries,
  format: ["esm", "cjs"],
  // The emulator is a node:http server; node built-ins stay imports.
  platform: has("src/emulator/index.ts") ? "node" : "neutral",
  dts: { compilerOptions: { noEmit: false, declaration: true } },
  clean: false,
});

// esbuild compiles `import createClient from "openapi-fetch"` in a `"type": "module"` package to CJS with Node's
// ESM-imports-CJS semantics (`__toESM(require(…), 1)`): `default` becomes the whole `module.exports` object and
// `createClient(...)` throws "is not a function". openapi-fetch's CJS build marks itself `__esModule`, so the
// Babel-style interop (flag dropped) is the right one. A build that no longer has exactly that call fails here.
for (const entry of Object.keys(libraryEntries)) {
  const file = join(dist, `${entry}.cjs`);
  const code = readFileSync(file, "utf8");
  const nodeModeImport = '__toESM(require("openapi-fetch"), 1)';
  const count = code.split(nodeModeImport).length - 1;
  if (count > 1 || (count === 0 && code.includes('require("openapi-fetch")'))) {
    throw new Error(`${file}: expected at most one ${nodeModeImport}, found ${count}; check the CJS interop`);
  }
  writeFileSync(file, code.replace(nodeModeImport, '__toESM(require("openapi-fetch"))'));
}

if (has("src/cli.ts")) {
  await build({
    ...common,
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    platform: "node",
    // commander, csv-parse, csv-stringify and @bomb.sh/tab are devDependencies: the CLI carries them so the package needs only openapi-fetch.
    noExternal: ["commander", "csv-parse", "csv-stringify", "@bomb.sh/tab"],
    // commander is CommonJS and requires node:events etc.; inside an ESM bundle that needs a real `require`.
    banner: { js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);' },
    dts: false,
    clean: false,
  });
}

const specFiles = readdirSync(join(root, "generated")).filter((file) => /^openapi(\.\w+)?\.(json|yaml)$/.test(file));
for (const file of specFiles) copyFileSync(join(root, "generated", file), join(dist, file));

console.log(`built ${Object.keys(libraryEntries).join(", ")}${has("src/cli.ts") ? ", cli" : ""} and the spec into dist/`);
