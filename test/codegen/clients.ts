// Four TypeScript client generators, each given the per-host bundles (orgagent/openapi.api.json and
// orgagent/openapi.app.json): generate, type-check the output with a driver under `tsc --strict`, type-check the
// real payloads against the generated types, then run the driver, which calls all 15 operations on the emulator.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { command, mustRun, repoTsc, root } from "../package/consumer-project.js";
import type { Payload } from "./answers.js";

const bin = (...path: string[]) => join(root, "node_modules", ...path);
const HOSTS = ["api", "app"] as const;

export interface ClientGenerator {
  name: string;
  /** Generates `<dir>/<name>/{api,app}/…` from the two host bundles; returns what the generator printed. */
  generate(dir: string, bundles: Record<(typeof HOSTS)[number], string>): Promise<string>;
  /** The module (relative to `<dir>/<name>/<host>/`) that exports the schema types. */
  typesModule: string;
}

const quiet = { NO_COLOR: "1", FORCE_COLOR: "0" };
const eachHost = async (run: (host: (typeof HOSTS)[number]) => Promise<{ stdout: string; stderr: string }>) => {
  let printed = "";
  for (const host of HOSTS) {
    const result = await run(host);
    printed += result.stdout + result.stderr;
  }
  return printed;
};

export const generators: ClientGenerator[] = [
  {
    name: "hey-api",
    typesModule: "types.gen",
    generate: (dir, bundles) =>
      eachHost((host) =>
        mustRun(
          process.execPath,
          [bin("@hey-api", "openapi-ts", "bin", "run.js"), "-i", bundles[host], "-o", `hey-api/${host}`, "--no-log-file"],
          {
            cwd: dir,
            env: quiet,
          },
        ),
      ),
  },
  {
    name: "orval",
    typesModule: "client",
    generate: async (dir, bundles) => {
      // The fetch client, with each bundle's server URL as the base URL of its calls.
      const project = (host: string) => ({
        input: bundles[host as keyof typeof bundles],
        output: { target: `orval/${host}/client.ts`, client: "fetch", mode: "single", baseUrl: { getBaseUrlFromSpecification: true } },
      });
      writeFileSync(join(dir, "orval.config.cjs"), `module.exports = ${JSON.stringify({ api: project("api"), app: project("app") })};\n`);
      const result = await mustRun(process.execPath, [bin("orval", "dist", "bin", "orval.js"), "--config", "orval.config.cjs"], {
        cwd: dir,
        env: quiet,
      });
      return result.stdout + result.stderr;
    },
  },
  {
    name: "swagger-typescript-api",
    typesModule: "client",
    generate: (dir, bundles) =>
      eachHost((host) =>
        mustRun(
          process.execPath,
          // String unions instead of TypeScript enums, so a JSON string is a value of its enum type.
          [
            bin("swagger-typescript-api", "dist", "cli.mjs"),
            "generate",
            "--enum-style",
            "union",
            "-p",
            bundles[host],
            "-o",
            `swagger-typescript-api/${host}`,
            "-n",
            "client.ts",
          ],
          { cwd: dir, env: quiet },
        ),
      ),
  },
  {
    name: "oazapfts",
    typesModule: "",
    generate: (dir, bundles) => {
      mkdirSync(join(dir, "oazapfts"), { recursive: true });
      return eachHost((host) =>
        mustRun(process.execPath, [bin("oazapfts", "dist", "cli.js"), bundles[host], `oazapfts/${host}.ts`], { cwd: dir, env: quiet }),
      );
    },
  },
];

const compilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  module: "esnext",
  moduleResolution: "bundler",
  target: "es2022",
  lib: ["es2022", "dom", "dom.iterable"],
  types: ["node"],
};

/** `tsc --strict` over `include`; returns the compiler's output ("" when clean). */
async function typecheck(dir: string, name: string, include: string[]): Promise<string> {
  const config = join(dir, `tsconfig.${name}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions, include }));
  const result = await command(process.execPath, [repoTsc, "-p", config], { cwd: dir });
  return (result.stdout + result.stderr).trim();
}

/** The module specifier of a host's generated types, from `<dir>`. */
const typesPath = (generator: ClientGenerator, host: string) =>
  `./${generator.name}/${host}${generator.typesModule ? `/${generator.typesModule}` : ""}`;

/**
 * Types each payload by the generated schema types: `const p3 = {…json…} satisfies api.Session;`, one per line, so
 * a compiler error's line number names the payload. Readiness comes from the app host's module, the rest from the
 * API host's. Returns the payload ids whose line type-checks, and the schema names the output does not export.
 */
export async function typecheckPayloads(
  dir: string,
  generator: ClientGenerator,
  payloads: Payload[],
  exported: (host: string, type: string) => boolean,
) {
  const lines = [
    `import type * as api from "${typesPath(generator, "api")}";`,
    `import type * as app from "${typesPath(generator, "app")}";`,
  ];
  const lineOf = new Map<number, string>();
  const missing: string[] = [];
  for (const payload of payloads) {
    const host = payload.source === "listReadinessReports" ? "app" : "api";
    const absent = payload.types.filter((type) => !exported(host, type));
    if (absent.length) {
      missing.push(...absent);
      continue;
    }
    lineOf.set(lines.length + 1, payload.id);
    lines.push(
      `export const p${lines.length} = ${JSON.stringify(payload.body)} satisfies ${payload.types.map((type) => `${host}.${type}`).join(" | ")};`,
    );
  }
  writeFileSync(join(dir, `payloads.${generator.name}.ts`), `${lines.join("\n")}\n`);
  const output = await typecheck(dir, `payloads-${generator.name}`, [`payloads.${generator.name}.ts`]);
  const failedLines = new Set([...output.matchAll(/\((\d+),\d+\): error/g)].map((match) => Number(match[1])));
  const decoded = new Set([...lineOf].filter(([line]) => !failedLines.has(line)).map(([, id]) => id));
  return { decoded, missing: [...new Set(missing)], output };
}

/** Copies the drivers in and type-checks each generator's output together with its driver. */
export async function buildClient(dir: string, generator: ClientGenerator): Promise<string> {
  cpSync(join(root, "test", "codegen", ".clients"), dir, { recursive: true });
  return typecheck(dir, generator.name, [generator.name, `${generator.name}.ts`, "shared.ts"]);
}

export interface CallResult {
  ok: boolean;
  hosts: string[];
  error?: string;
}

/** Runs a generator's driver against the emulator (spec hosts mapped to the emulator's listeners). */
export async function runClient(dir: string, generator: ClientGenerator, context: object): Promise<Record<string, CallResult>> {
  const result = await mustRun(bin(".bin", "tsx"), [`${generator.name}.ts`, JSON.stringify(context)], { cwd: dir, timeout: 120_000 });
  return JSON.parse(result.stdout.trim().split("\n").pop()!);
}
