#!/usr/bin/env node
// Finds import cycles among the repository's own TypeScript modules (src/, generated/), type-only imports included:
// each module's relative imports, read with the TypeScript parser, resolved to files, then every cycle of the graph.
// Usage: node scripts/import-cycles.mjs  (exits 1 and lists the cycles if there is one)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Every .ts file under `dir`. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The files a module imports or re-exports from, relative specifiers only, resolved (`./x.js` is `./x.ts`). */
export function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const targets = [];
  const visit = (node) => {
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier.text
        : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
          ? node.argument.literal.text
          : undefined;
    if (specifier?.startsWith(".")) {
      const base = resolve(dirname(file), specifier).replace(/\.js$/, "");
      const target = [`${base}.ts`, join(base, "index.ts")].find((candidate) => existsSync(candidate));
      if (target) targets.push(target);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return targets;
}

/** Every elementary cycle reachable in the graph, each once (as found first, from its smallest member). */
export function findCycles(files) {
  const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
  const cycles = [];
  const seen = new Set();
  const state = new Map(); // 1: on the path, 2: done
  const path = [];
  const walk = (file) => {
    state.set(file, 1);
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 1) {
        const cycle = path.slice(path.indexOf(next));
        const key = [...cycle].sort().join("|");
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (!state.has(next)) walk(next);
    }
    path.pop();
    state.set(file, 2);
  };
  for (const file of files) if (!state.has(file)) walk(file);
  return cycles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = ["src", "generated"].flatMap((dir) => filesUnder(join(root, dir)));
  const cycles = findCycles(files);
  for (const cycle of cycles) console.log([...cycle, cycle[0]].map((file) => relative(root, file)).join(" → "));
  if (cycles.length) process.exit(1);
  console.log(`no import cycles among ${files.length} modules`);
}
