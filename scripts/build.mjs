#!/usr/bin/env node
// `npm run build`: the publishable package in dist/.
//   dist/index.{js,cjs,d.ts,d.cts}           the SDK, ESM and CJS, each with its own declarations
//   dist/emulator/index.{js,cjs,d.ts,d.cts}  `orgagent/emulator` (built when src/emulator/index.ts exists)
//   dist/report/index.{js,cjs,d.ts,d.cts}    `orgagent/report`, the HTML analytics report
//   dist/report/charts.cjs                   its charting library (Observable Plot on linkedom), bundled, minified
//   dist/mcp/index.{js,cjs,d.ts,d.cts}       `orgagent/mcp`, the MCP server, with the MCP SDK bundled in
//   dist/mcp/docs.json                       the guides its docs-search tool searches (README.md, docs/*.md)
//   dist/cli.js                              the `orgagent` bin, ESM, with its command-line libraries bundled in
//   dist/jq.js                               jq (WebAssembly, from jq-wasm) for `orgagent api --jq`, loaded only then
//   dist/openapi.{json,yaml}                 the bundled spec, `orgagent/openapi.json` / `orgagent/openapi.yaml`
//   dist/openapi.{api,app}.{json,yaml}       one bundle per host (`orgagent/openapi.api.json`, …) for generators
// openapi-fetch stays external everywhere: it is the one runtime dependency. generated/ is compiled into the
// bundles (it lives outside src/, so nothing may import it at runtime from the package). The report and the CLI
// load the SDK and the charting library as the package's own built files (sharedEntries), never a second copy.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
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

/**
 * Modules that other entries import as the package's built file rather than bundle: one copy of the SDK per
 * process (its error classes work with `instanceof` whoever throws them) and one of the charting library, a
 * CommonJS file that the ESM and CJS builds of the report and the CLI all load.
 */
const SHARED = {
  "src/index.ts": { esm: "index.js", cjs: "index.cjs" },
  "src/report/index.ts": { esm: "report/index.js", cjs: "report/index.cjs" },
  "src/report/charts.ts": { esm: "report/charts.cjs", cjs: "report/charts.cjs" },
  "src/mcp/index.ts": { esm: "mcp/index.js", cjs: "mcp/index.cjs" },
  "src/mcp/protocol.ts": { esm: "mcp/protocol.cjs", cjs: "mcp/protocol.cjs" },
};

/** An esbuild plugin for the bundle `dist/<output>`: imports of a SHARED module become imports of its file. */
function sharedEntries(output) {
  return {
    name: "shared-entries",
    setup(build) {
      const format = build.initialOptions.format === "cjs" ? "cjs" : "esm";
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const source = relative(root, resolve(args.resolveDir, args.path.replace(/\.js$/, ".ts")))
          .split(sep)
          .join("/");
        const target = SHARED[source]?.[format];
        if (!target || args.kind === "entry-point") return undefined;
        const path = relative(dirname(join(dist, output)), join(dist, target))
          .split(sep)
          .join("/");
        return { path: path.startsWith(".") ? path : `./${path}`, external: true };
      });
    },
  };
}

/**
 * `orgagent api --jq` loads jq (1.3 MB: WebAssembly inlined in JavaScript) only when a filter is given: it is the
 * package's own file dist/jq.js, jq-wasm's single-file build as published, not a part of dist/cli.js.
 */
const jqApart = {
  name: "jq-apart",
  setup(build) {
    build.onResolve({ filter: /^jq-wasm\/inline$/ }, () => ({ path: "./jq.js", external: true }));
  },
};

/** linkedom loads the optional native `canvas` package if a user has it; the report draws SVG only: use its shim. */
const canvasShim = {
  name: "canvas-shim",
  setup(build) {
    build.onResolve({ filter: /^canvas$/ }, () => ({ path: join(root, "node_modules", "linkedom", "commonjs", "canvas-shim.cjs") }));
  },
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
function withBabelInterop(file) {
  const code = readFileSync(file, "utf8");
  const nodeModeImport = '__toESM(require("openapi-fetch"), 1)';
  const count = code.split(nodeModeImport).length - 1;
  if (count > 1 || (count === 0 && code.includes('require("openapi-fetch")'))) {
    throw new Error(`${file}: expected at most one ${nodeModeImport}, found ${count}; check the CJS interop`);
  }
  writeFileSync(file, code.replace(nodeModeImport, '__toESM(require("openapi-fetch"))'));
}
for (const entry of Object.keys(libraryEntries)) withBabelInterop(join(dist, `${entry}.cjs`));

if (has("src/report/index.ts")) {
  // Plot and linkedom are devDependencies: bundled (minified: third-party code) into one file the package ships.
  await build({
    ...common,
    entry: { "report/charts": "src/report/charts.ts" },
    format: ["cjs"],
    platform: "node",
    minify: true,
    esbuildPlugins: [canvasShim],
    dts: false,
    clean: false,
  });
  const report = { ...common, entry: { "report/index": "src/report/index.ts" }, format: ["esm", "cjs"], platform: "node", clean: false };
  await build({ ...report, esbuildPlugins: [sharedEntries("report/index")], dts: false });
  // The declarations import the SDK's (`../index.js`) instead of inlining a copy: OrgAgent has private fields,
  // so a second declaration of it would be a different type to TypeScript.
  await build({ ...report, external: [/^\.\.\/index\.js$/], dts: { only: true, compilerOptions: { noEmit: false, declaration: true } } });
  // rollup writes the external import relative to the source's place (src/report/ → '../../index.js'): point it
  // at dist/index.d.ts, and the CJS declarations at dist/index.d.cts.
  for (const [file, sdk] of [
    ["index.d.ts", "../index.js"],
    ["index.d.cts", "../index.cjs"],
  ]) {
    const path = join(dist, "report", file);
    const declarations = readFileSync(path, "utf8");
    if (!declarations.includes("'../../index.js'")) throw new Error(`${path}: expected imports of '../../index.js'`);
    writeFileSync(path, declarations.replaceAll("'../../index.js'", `'${sdk}'`));
  }
}

if (has("src/mcp/index.ts")) {
  // The MCP SDK (with zod, ajv and hono under it) is a devDependency: bundled, minified (third-party code), into one
  // CommonJS file that both builds of the server load; `orgagent` and its other entries never load it, and installing
  // the package does not install it. Until the SDK exports a generic call by operationId, the server carries its own
  // copy of the SDK's request core (src/mcp/sdk-adapter.ts). `shims` gives the CJS build an import.meta.url: the
  // server finds dist/index.js (the sandbox's SDK) and docs.json beside itself.
  await build({
    ...common,
    entry: { "mcp/protocol": "src/mcp/protocol.ts" },
    format: ["cjs"],
    platform: "node",
    minify: true,
    dts: false,
    clean: false,
  });
  const mcp = {
    ...common,
    entry: { "mcp/index": "src/mcp/index.ts" },
    format: ["esm", "cjs"],
    platform: "node",
    shims: true,
    clean: false,
  };
  await build({ ...mcp, esbuildPlugins: [sharedEntries("mcp/index")], dts: { compilerOptions: { noEmit: false, declaration: true } } });
  withBabelInterop(join(dist, "mcp", "index.cjs"));
  const guides = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  writeFileSync(
    join(dist, "mcp", "docs.json"),
    JSON.stringify(guides.map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }))),
  );
}

if (has("src/cli.ts")) {
  await build({
    ...common,
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    platform: "node",
    // commander, csv-parse, csv-stringify and @bomb.sh/tab are devDependencies: the CLI carries them so the package needs only openapi-fetch.
    noExternal: ["commander", "csv-parse", "csv-stringify", "@bomb.sh/tab"],
    esbuildPlugins: [sharedEntries("cli.js"), jqApart],
    // commander is CommonJS and requires node:events etc.; inside an ESM bundle that needs a real `require`.
    banner: { js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);' },
    dts: false,
    clean: false,
  });
}

if (has("src/cli.ts")) {
  const jqWasm = join(root, "node_modules", "jq-wasm");
  const { version } = JSON.parse(readFileSync(join(jqWasm, "package.json"), "utf8"));
  const license = readFileSync(join(jqWasm, "LICENSE"), "utf8").trim().replace(/^/gm, "// ");
  writeFileSync(
    join(dist, "jq.js"),
    `// jq-wasm ${version} (jq compiled to WebAssembly), dist/inline.mjs as published.\n${license}\n${readFileSync(join(jqWasm, "dist", "inline.mjs"), "utf8")}`,
  );
}

const specFiles = readdirSync(join(root, "generated")).filter((file) => /^openapi(\.\w+)?\.(json|yaml)$/.test(file));
for (const file of specFiles) copyFileSync(join(root, "generated", file), join(dist, file));

console.log(
  `built ${Object.keys(libraryEntries).join(", ")}${has("src/report/index.ts") ? ", report" : ""}${has("src/mcp/index.ts") ? ", mcp" : ""}${has("src/cli.ts") ? ", cli" : ""} and the spec into dist/`,
);
