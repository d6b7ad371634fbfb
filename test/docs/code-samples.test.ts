// The docs cannot drift from the code: every operation's TypeScript sample (x-codeSamples, label orgagent) in the
// bundled spec is compiled against the SDK's source ("orgagent" mapped to src/index.ts) under strict TypeScript,
// and must call an SDK method that sends that very operation.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));

interface CodeSample {
  lang: string;
  label?: string;
  source: string;
}
const operations: { operationId: string; samples: CodeSample[] }[] = Object.values<Record<string, any>>(spec.paths)
  .flatMap((item) => Object.values(item))
  .filter((operation) => operation?.operationId)
  .map((operation) => ({ operationId: operation.operationId, samples: operation["x-codeSamples"] ?? [] }));
const operationIds = new Set(operations.map(({ operationId }) => operationId));
const orgagentSample = (samples: CodeSample[]) => samples.filter((s) => s.lang === "TypeScript" && s.label === "orgagent");

// Each sample becomes a virtual module next to the tests; nothing is written to disk.
const sampleFile = (operationId: string) => join(root, "test", "docs", ".samples", `${operationId}.ts`);
const virtualFiles = new Map(
  operations.flatMap(({ operationId, samples }) =>
    orgagentSample(samples).map((sample) => [sampleFile(operationId), sample.source] as const),
  ),
);

let program: ts.Program;
beforeAll(() => {
  const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const compilerOptions: ts.CompilerOptions = {
    ...options,
    // The repo's strict flags, resolved the way a bundler-based user project resolves the package.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    paths: { orgagent: [join(root, "src", "index.ts")] },
    // Samples must run anywhere the SDK does: no Node globals.
    types: [],
    noEmit: true,
  };
  const host = ts.createCompilerHost(compilerOptions);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtualFiles.has(file) || fileExists(file);
  host.readFile = (file) => virtualFiles.get(file) ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) =>
    virtualFiles.has(file)
      ? ts.createSourceFile(file, virtualFiles.get(file)!, language, true)
      : getSourceFile(file, language, ...rest);
  program = ts.createProgram([...virtualFiles.keys()], compilerOptions, host);
});

/** Operation ids that the SDK methods called in a sample send (read from those methods' bodies in src/). */
function operationsSentBy(file: ts.SourceFile): Set<string> {
  const checker = program.getTypeChecker();
  const sent = new Set<string>();
  // The SDK methods the sample calls, and the functions those delegate to (a bulk job lives in its own file).
  const visit = (node: ts.Node, depth: number) => {
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
  test("the compiler setup itself is sound", () => {
    expect(program.getOptionsDiagnostics().map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
    expect(program.getGlobalDiagnostics().map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  });

  describe.each(operations)("$operationId", ({ operationId, samples }) => {
    test("has exactly one TypeScript sample labelled orgagent", () => {
      expect(orgagentSample(samples)).toHaveLength(1);
    });

    test("compiles against the SDK under strict TypeScript", () => {
      const file = program.getSourceFile(sampleFile(operationId))!;
      const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
      const host: ts.FormatDiagnosticsHost = {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => root,
        getNewLine: () => "\n",
      };
      expect(ts.formatDiagnostics(diagnostics, host)).toBe("");
    });

    test("calls an SDK method that sends this operation", () => {
      expect([...operationsSentBy(program.getSourceFile(sampleFile(operationId))!)]).toContain(operationId);
    });
  });
});
