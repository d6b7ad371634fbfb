// The docs cannot drift from the code: every operation's TypeScript sample in the reference (its x-codeSamples, or
// the one scripts/samples.mjs generates when it has none), and the generated one of every operation (so that a new
// operation's sample is known to work before it has one of its own), is compiled against the SDK's source
// ("orgagent" mapped to src/index.ts) under strict TypeScript, and must call an SDK method that sends that very
// operation. So is every TypeScript block in the spec's descriptions (the Hooks section's hook command).
// test/docs/reference-samples.e2e.ts runs them all.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";
import { operationsOf, referenceSamples } from "../../scripts/reference-spec.mjs";
import { typeScriptSample } from "../../scripts/samples.mjs";
import { root } from "../cli/support.js";
import { compileVirtual } from "./virtual-program.js";
const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));

interface CodeSample {
  lang: string;
  label?: string;
  source: string;
}
const operations: { operationId: string; samples: CodeSample[]; generated: string }[] = operationsOf(spec).map(
  ([path, method, operation]) => ({
    operationId: operation.operationId,
    samples: referenceSamples(spec, path, method, operation),
    generated: typeScriptSample(spec, path, method),
  }),
);
const operationIds = new Set(operations.map(({ operationId }) => operationId));
const operationSdk = new Map(
  operationsOf(spec).map(([, , operation]) => [
    operation.operationId as string,
    operation["x-sdk"] as { resource: string; method: string; custom?: boolean },
  ]),
);
const typeScriptSamples = (samples: CodeSample[]) => samples.filter((s) => s.lang === "TypeScript");

/** Every fenced TypeScript block in a description of the spec, by where it is. */
const descriptionBlocks = new Map<string, string>();
const collectBlocks = (node: unknown, at: string) => {
  if (!node || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" && typeof value === "string") {
      for (const [index, [, code]] of [...value.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)].entries()) {
        descriptionBlocks.set(`${at}-${index}`.replace(/[^\w-]+/g, "_"), code!);
      }
    } else collectBlocks(value, `${at}/${key}`);
  }
};
collectBlocks(spec, "spec");

// Each sample becomes a virtual module next to the tests; nothing is written to disk.
const sampleFile = (operationId: string) => join(root, "test", "docs", ".samples", `${operationId}.ts`);
const generatedFile = (operationId: string) => sampleFile(`${operationId}.generated`);
const virtualFiles = new Map(
  operations.flatMap(({ operationId, samples, generated }) => [
    ...typeScriptSamples(samples).map((sample) => [sampleFile(operationId), sample.source] as const),
    [generatedFile(operationId), generated] as const,
  ]),
);
for (const [where, code] of descriptionBlocks) virtualFiles.set(sampleFile(where), code);

let program: ts.Program;
let diagnosticsOf: (file: string) => string;
beforeAll(() => {
  // Operation samples must run anywhere the SDK does: no Node globals (checked below by what they use); a hook
  // command in a description is a Node program.
  ({ program, diagnosticsOf } = compileVirtual(virtualFiles));
});

/** Operation ids that the SDK methods called in a sample send (read from those methods' bodies in src/). */
function operationsSentBy(file: ts.SourceFile): Set<string> {
  const checker = program.getTypeChecker();
  const sent = new Set<string>();
  // The SDK methods the sample calls, and the functions those delegate to (a bulk job lives in its own file).
  const visit = (node: ts.Node, depth: number) => {
    // `client.request("getComputer", …)`: any operation by its id.
    if (
      depth === 0 &&
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "request"
    ) {
      const [id] = node.arguments;
      if (id && ts.isStringLiteral(id) && operationIds.has(id.text)) sent.add(id.text);
    }
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      let symbol = checker.getSymbolAtLocation(callee);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      for (const declaration of symbol?.declarations ?? []) {
        if (!(ts.isMethodDeclaration(declaration) || ts.isFunctionDeclaration(declaration)) || !declaration.body) continue;
        if (depth === 0 && !ts.isMethodDeclaration(declaration)) continue;
        for (const [, id] of declaration.body.getText().matchAll(/"(\w+)"/g)) if (operationIds.has(id!)) sent.add(id!);
        if (depth < 1) ts.forEachChild(declaration.body, (child) => visit(child, depth + 1));
      }
    }
    ts.forEachChild(node, (child) => visit(child, depth));
  };
  visit(file, 0);
  return sent;
}

describe("code samples in the spec", () => {
  test("the Hooks section shows a hook command that checks its input with parseHookInput", () => {
    expect([...descriptionBlocks.values()].join("\n")).toContain("parseHookInput(");
  });

  test.each([...descriptionBlocks.keys()])("the TypeScript block of %s compiles against the SDK", (where) => {
    expect(diagnosticsOf(sampleFile(where))).toBe("");
  });

  test("the compiler setup itself is sound", () => {
    expect(program.getOptionsDiagnostics().map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
    expect(program.getGlobalDiagnostics().map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  });

  describe.each(operations)("$operationId", ({ operationId, samples, generated }) => {
    test("has exactly one TypeScript sample in the reference", () => {
      expect(typeScriptSamples(samples)).toHaveLength(1);
    });

    test.each([
      ["the reference's", sampleFile(operationId)],
      ["the generated", generatedFile(operationId)],
    ])("%s sample needs nothing of Node, compiles against the SDK under strict TypeScript, and sends this operation", (_, file) => {
      expect(virtualFiles.get(file)).not.toMatch(/\bprocess\.|from "node:|\bBuffer\b|require\(/);
      expect(diagnosticsOf(file)).toBe("");
      expect([...operationsSentBy(program.getSourceFile(file)!)]).toContain(operationId);
    });

    test("the generated sample calls the method x-sdk names (client.request for a method written by hand)", () => {
      const { resource, method, custom } = operationSdk.get(operationId)!;
      expect(generated).toMatch(custom ? new RegExp(`client\\.request\\(\\s*"${operationId}"`) : `client.${resource}.${method}(`);
    });
  });
});
