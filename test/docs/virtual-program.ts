// Compiles code that lives only in memory (samples of the spec, examples of the docs) against the SDK's source, under
// the repository's strict flags, the way a bundler-based user project resolves the package: "orgagent",
// "orgagent/emulator", "orgagent/report" and "orgagent/mcp" are src/. Each piece of code is a virtual module; nothing is written.
import { join } from "node:path";
import ts from "typescript";
import { root } from "../cli/support.js";

export interface VirtualProgram {
  program: ts.Program;
  /** The compiler's errors for one virtual file, formatted; "" when it compiles. */
  diagnosticsOf(file: string): string;
}

/** `files`: absolute file name (anywhere under the repository, e.g. test/docs/.samples/x.ts) → source. */
export function compileVirtual(files: ReadonlyMap<string, string>): VirtualProgram {
  const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const entry = (path: string) => [join(root, "src", path)];
  const compilerOptions: ts.CompilerOptions = {
    ...options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    paths: {
      orgagent: entry("index.ts"),
      "orgagent/emulator": entry("emulator/index.ts"),
      "orgagent/report": entry("report/index.ts"),
      "orgagent/mcp": entry("mcp/index.ts"),
    },
    types: ["node"],
    noEmit: true,
  };
  const host = ts.createCompilerHost(compilerOptions);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => files.has(file) || fileExists(file);
  host.readFile = (file) => files.get(file) ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) =>
    files.has(file) ? ts.createSourceFile(file, files.get(file)!, language, true) : getSourceFile(file, language, ...rest);
  const program = ts.createProgram([...files.keys()], compilerOptions, host);
  const formatHost: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  };
  return {
    program,
    diagnosticsOf(fileName) {
      const file = program.getSourceFile(fileName)!;
      return ts.formatDiagnostics([...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)], formatHost);
    },
  };
}
