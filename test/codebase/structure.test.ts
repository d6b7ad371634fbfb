// The code's own structure: no module imports itself through others (an import cycle makes load order matter and
// hides layering), and no explicit `any` in src/ (each value is typed, or `unknown` and checked).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { findCycles } from "../../scripts/import-cycles.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name));

describe("src/ and generated/", () => {
  it("have no import cycle (type-only imports included)", () => {
    const cycles = findCycles([...tsFiles("src"), ...tsFiles("generated")]);
    expect(cycles.map((cycle: string[]) => cycle.map((file) => relative(root, file)).join(" → "))).toEqual([]);
  });

  it("the cycle check finds a cycle when there is one", () => {
    // Two real modules that import each other.
    const cycles = findCycles([join(root, "test/codebase/fixtures/a.ts"), join(root, "test/codebase/fixtures/b.ts")]);
    expect(cycles).toHaveLength(1);
  });

  it("src/ has no explicit any", () => {
    const found: string[] = [];
    for (const file of tsFiles("src")) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (node.kind === ts.SyntaxKind.AnyKeyword) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          found.push(`${relative(root, file)}:${line + 1}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found).toEqual([]);
  });
});
